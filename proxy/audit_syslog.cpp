#include "proxy/audit_syslog.hpp"

#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <charconv>
#include <deque>
#include <optional>
#include <random>
#include <thread>

#include "base/timestamp.hpp"
#include "proxy/audit_spool.hpp"
#include "transports/beast_stream.hpp"
#include "transports/http_request.hpp"
#include "transports/http_rules.hpp"
#include "transports/tcp_progress.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
using error_code = boost::system::error_code;
using namespace std::chrono_literals;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr auto ack_poll = 50ms;  // while written records wait to be confirmed

// RFC 5424 PRINTUSASCII, at most `limit` characters, never empty.
std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char c : text.substr(0, limit)) out += c > 32 && c < 127 ? c : '_';
  return out.empty() ? "-" : out;
}

void set_option(int fd, int level, int name, int value) { ::setsockopt(fd, level, name, &value, sizeof value); }

}  // namespace

result<syslog_target> parse_syslog_url(std::string_view url) {
  const std::string not_a_receiver = "--audit-syslog: '" + std::string(url) + "' is not tcp://HOST:PORT or tls://HOST:PORT";
  // Read as a URL (Boost.URL), then host and port are checked as an HTTP URL's: same rules and
  // messages as --upstream, with the syslog ports as defaults.
  const auto parsed = boost::urls::parse_uri(url);
  if (!parsed || !parsed->has_authority() || !parsed->encoded_path().empty() || parsed->has_query() || parsed->has_fragment())
    return error{not_a_receiver};
  const bool tls = parsed->scheme() == "tls";
  if (!tls && parsed->scheme() != "tcp") return error{not_a_receiver};
  boost::urls::url as_http(*parsed);
  as_http.set_scheme_id(boost::urls::scheme::http);
  if (parsed->port().empty()) as_http.set_port_number(tls ? 6514 : 514);
  auto address = transports::parse_http_url(as_http.buffer());
  if (!address) return error{not_a_receiver + " (" + address.error_message() + ")"};
  return syslog_target{tls, address->host, address->port};
}

syslog_identity make_syslog_identity(std::string_view audit_path) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto slash = audit_path.rfind('/');
  return {printable(host, 255), std::to_string(::getpid()),
          printable(audit_path.substr(slash == std::string_view::npos ? 0 : slash + 1), 32)};
}

std::string syslog_header(const syslog_identity& who, std::string_view timestamp) {
  std::string out = "<110>1 ";
  out.append(timestamp) += ' ';
  out.append(who.hostname).append(" mcp-warden ").append(who.procid) += ' ';
  out.append(who.msgid).append(" - ");
  return out;
}

std::size_t append_syslog_frames(std::string& out, std::string_view header, std::string_view lines) {
  std::size_t count = 0;
  while (!lines.empty()) {
    const auto newline = lines.find('\n');
    const std::string_view record = lines.substr(0, newline);
    lines.remove_prefix(newline == std::string_view::npos ? lines.size() : newline + 1);
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, header.size() + record.size()).ptr) += ' ';
    out.append(header).append(record);
    ++count;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------

class syslog_shipper::impl {
 public:
  impl(syslog_options options, std::shared_ptr<audit_spool> spool) : options_(std::move(options)), spool_(std::move(spool)) {}

  result<bool> init() {
    if (!options_.target.tls) return true;
    tls_.emplace(asio::ssl::context::tls_client);
    return transports::configure_tls_client(*tls_, transports::tls_files{options_.ca_file, {}, {}});
  }

  void start() {
    spool_->on_append([this] {
      if (!wake_posted_.exchange(true))
        asio::post(io_, [this] {
          wake_posted_ = false;
          wake_.cancel();
        });
    });
    asio::co_spawn(io_, run(), asio::detached);
    thread_ = std::thread([this] {
      ::pthread_setname_np(::pthread_self(), "warden-syslog");
      // Behind the relay and the audit writer for the CPU: when they need it all, records wait
      // in the spool instead of slowing them (Linux: a thread's own nice value).
      ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
      io_.run();
      spool_->confirm(spool_->confirmed(), true);
    });
  }

  void stop() {
    if (!thread_.joinable()) return;
    spool_->on_append(nullptr);
    asio::post(io_, [this] {
      stopping_ = true;
      // Past the drain, whatever is under way (a connect, a write) is abandoned.
      deadline_.expires_after(options_.drain);
      deadline_.async_wait([this](error_code ec) {
        if (!ec) io_.stop();
      });
      wake_.cancel();
      backoff_.cancel();
    });
    thread_.join();
    const spool_stats left = spool_->stats();
    if (left.unconfirmed > 0)
      spdlog::warn("audit syslog: {} byte(s) of records not confirmed by {} wait in the spool '{}' for the next run",
                   left.unconfirmed, describe(), spool_->dir());
  }

  std::string describe() const {
    const auto& t = options_.target;
    const bool v6 = t.host.find(':') != std::string::npos;
    return (t.tls ? "tls://" : "tcp://") + (v6 ? "[" + t.host + "]" : t.host) + ":" + std::to_string(t.port);
  }

  // Declared first: destroyed last, after everything that refers to it.
  asio::io_context io_{1};
  syslog_options options_;
  std::shared_ptr<audit_spool> spool_;
  std::atomic<std::uint64_t> sent_{0}, connections_{0};

 private:
  struct mark {
    std::uint64_t position;                                        // spool position after the records written
    std::uint64_t socket_end;                                      // their last byte on the connection (tcp_progress::written_end)
    std::optional<std::chrono::steady_clock::time_point> acked{};  // when the receiver's TCP had it all
  };

  asio::awaitable<void> run() {
    auto delay = options_.backoff_min;
    std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
    bool away = false;  // the receiver's absence was reported
    while (!stopping_) {
      std::string failure;
      if (auto stream = co_await connect(failure)) {
        ++connections_;
        if (away) spdlog::info("audit syslog: connected to {} again; sending from the last confirmed record", describe());
        away = false;
        delay = options_.backoff_min;
        failure = co_await pump(*stream);
        if (failure.empty()) break;  // stopped
      }
      if (!away)
        spdlog::warn("audit syslog: {}: {}; records wait in the spool '{}' and are sent once it is back", describe(),
                     failure, spool_->dir());
      else
        spdlog::debug("audit syslog: {}: {}", describe(), failure);
      away = true;
      if (stopping_) break;
      // Up to a fifth less, so that a fleet cut off together does not reconnect in step.
      backoff_.expires_after(delay - delay * static_cast<int>(jitter() % 21) / 100);
      co_await backoff_.async_wait(use_tuple);
      delay = std::min(delay * 2, options_.backoff_max);
    }
    deadline_.cancel();
  }

  asio::awaitable<std::unique_ptr<transports::any_stream>> connect(std::string& failure) {
    const auto& target = options_.target;
    auto endpoints = co_await transports::resolve_within(io_.get_executor(), target.host, target.port, options_.connect_timeout);
    if (!endpoints) {
      failure = endpoints.error_message();
      co_return nullptr;
    }
    boost::beast::tcp_stream tcp(io_);
    tcp.expires_after(options_.connect_timeout);
    auto [ec, endpoint] = co_await tcp.async_connect(*endpoints, use_tuple);
    (void)endpoint;
    if (ec) {
      failure = "cannot connect: " + (ec == boost::beast::error::timeout ? std::string("timed out") : ec.message());
      co_return nullptr;
    }
    // A receiver that vanishes without closing (a cut cable, a dead host) is noticed within
    // about 30 s, whether data waits for its acknowledgement or the connection is idle.
    const int fd = tcp.socket().native_handle();
    set_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
    set_option(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, 30'000);
    set_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
    set_option(fd, IPPROTO_TCP, TCP_KEEPIDLE, 15);
    set_option(fd, IPPROTO_TCP, TCP_KEEPINTVL, 5);
    set_option(fd, IPPROTO_TCP, TCP_KEEPCNT, 3);
    if (!tls_) {
      tcp.expires_never();
      co_return std::make_unique<transports::any_stream>(std::move(tcp));
    }
    auto stream = std::make_unique<transports::any_stream>(std::move(tcp), *tls_);
    auto& tls = stream->tls();
    error_code not_ip;
    asio::ip::make_address(target.host, not_ip);
    if (not_ip) SSL_set_tlsext_host_name(tls.native_handle(), target.host.c_str());
    tls.set_verify_callback(asio::ssl::host_name_verification(target.host));
    auto [hec] = co_await tls.async_handshake(asio::ssl::stream_base::client, use_tuple);
    if (hec) {
      failure = "TLS handshake failed: " + hec.message();
      co_return nullptr;
    }
    stream->expires_never();
    co_return stream;
  }

  // Sends from the confirmed position until the connection fails (the reason) or the shipper
  // stops with everything confirmed ("").
  asio::awaitable<std::string> pump(transports::any_stream& stream) {
    closed_ = false;
    watching_ = true;
    asio::co_spawn(io_, watch(stream), asio::detached);
    const int fd = stream.tcp().socket().native_handle();
    std::uint64_t next = spool_->confirmed();
    std::deque<mark> marks;
    std::string frames, failure;
    for (;;) {
      settle(fd, marks);
      if (closed_) {
        failure = "the receiver closed the connection";
        break;
      }
      if (stopping_ && marks.empty() && next >= spool_->end()) break;
      auto chunk = spool_->read(next, options_.chunk_bytes);
      if (chunk.lines.empty()) {
        if (chunk.next > next) {  // past a missing segment: nothing to send for it
          next = chunk.next;
          marks.push_back({next, 0});
          continue;
        }
        wake_.expires_after(marks.empty() ? std::chrono::steady_clock::duration(24h) : ack_poll);
        co_await wake_.async_wait(use_tuple);
        continue;
      }
      frames.clear();
      const std::size_t records = append_syslog_frames(frames, syslog_header(options_.identity, base::utc_timestamp()), chunk.lines);
      // The guard acts only on the write it was set for, while that write is under way.
      const std::uint64_t write = ++writes_;
      writing_ = true;
      write_timed_out_ = false;
      write_guard_.expires_after(options_.write_timeout);
      write_guard_.async_wait([this, write, &stream](error_code ec) {
        if (ec || write != writes_ || !writing_) return;
        write_timed_out_ = true;
        stream.close();
      });
      auto [ec, written] = co_await stream.visit(
          [&](auto& s) { return asio::async_write(s, asio::buffer(frames), use_tuple); });
      (void)written;
      writing_ = false;
      write_guard_.cancel();
      if (ec) {
        failure = write_timed_out_ ? "the receiver took nothing for " + std::to_string(options_.write_timeout.count() / 1000) + " s"
                                   : "sending failed: " + ec.message();
        break;
      }
      const auto progress = transports::read_tcp_progress(fd);
      marks.push_back({chunk.next, progress ? progress->written_end() : 0});
      next = chunk.next;
      sent_ += records;
    }
    stream.close();
    while (watching_) {
      watch_done_.expires_after(24h);
      co_await watch_done_.async_wait(use_tuple);
    }
    co_return failure;
  }

  // A syslog receiver sends nothing: a read that completes means the connection is over.
  asio::awaitable<void> watch(transports::any_stream& stream) {
    char buffer[512];
    for (;;) {
      auto [ec, n] = co_await stream.visit([&](auto& s) { return s.async_read_some(asio::buffer(buffer), use_tuple); });
      (void)n;
      if (ec) break;
    }
    closed_ = true;
    watching_ = false;
    wake_.cancel();
    watch_done_.cancel();
  }

  // Confirms the records whose last byte the receiver's TCP acknowledged `confirm_after` ago on a
  // connection still open: acknowledged bytes may still sit unread in the receiver's socket when
  // it stops (it then resets the connection, and they are sent again). When stopping, the
  // acknowledgement is enough: the receiver reads up to our close.
  void settle(int fd, std::deque<mark>& marks) {
    if (marks.empty()) return;
    const auto progress = transports::read_tcp_progress(fd);
    const auto now = std::chrono::steady_clock::now();
    // Without the kernel's count (not Linux), written is all there is to go by.
    for (auto& m : marks) {
      if (m.acked) continue;
      if (progress && progress->acked < m.socket_end) break;
      m.acked = now;
    }
    std::optional<std::uint64_t> upto;
    while (!marks.empty() && marks.front().acked && (stopping_ || now - *marks.front().acked >= options_.confirm_after)) {
      upto = marks.front().position;
      marks.pop_front();
    }
    if (upto) spool_->confirm(*upto, marks.empty());
  }

  std::optional<asio::ssl::context> tls_;
  asio::steady_timer wake_{io_};  // the spool grew, the connection ended, stop, or an ack poll
  asio::steady_timer backoff_{io_};
  asio::steady_timer deadline_{io_};  // stop: the end of the drain
  asio::steady_timer write_guard_{io_};
  asio::steady_timer watch_done_{io_};
  std::atomic<bool> wake_posted_{false};
  bool stopping_ = false;  // io thread only, like the rest below
  bool closed_ = false;
  bool watching_ = false;
  bool writing_ = false;
  bool write_timed_out_ = false;
  std::uint64_t writes_ = 0;
  std::thread thread_;
};

result<std::unique_ptr<syslog_shipper>> syslog_shipper::start(syslog_options options, std::shared_ptr<audit_spool> spool) {
  auto state = std::make_unique<impl>(std::move(options), std::move(spool));
  if (auto ready = state->init(); !ready) return error{"--audit-syslog: " + ready.error_message()};
  state->start();
  return std::unique_ptr<syslog_shipper>(new syslog_shipper(std::move(state)));
}

syslog_shipper::syslog_shipper(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
syslog_shipper::~syslog_shipper() { stop(); }
void syslog_shipper::stop() { impl_->stop(); }
const std::shared_ptr<audit_spool>& syslog_shipper::spool() const { return impl_->spool_; }
syslog_stats syslog_shipper::stats() const { return {impl_->sent_, impl_->connections_}; }

}  // namespace warden::proxy
