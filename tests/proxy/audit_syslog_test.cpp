// Shipping the audit log to syslog (proxy/audit_syslog.hpp): the RFC 5424 header and RFC 6587
// octet-counted frames, receiver URLs, and the shipper against a receiver run by the test that
// drops the connection mid-stream.
#include "proxy/audit_syslog.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "file_lines.hpp"
#include "proxy/audit_log.hpp"
#include "proxy/audit_spool.hpp"

using namespace warden::proxy;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A syslog receiver over plain TCP: takes octet-counted frames, keeps their MSG parts.
class receiver {
 public:
  receiver() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), size) == 0);
    REQUIRE(::listen(listen_fd_, 4) == 0);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~receiver() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  // The connection is closed, unread bytes and all, once `count` messages have arrived in total.
  void drop_at(std::size_t count) {
    std::lock_guard lock(mutex_);
    drop_at_ = count;
  }
  bool wait_for(std::size_t count) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, 20s, [&] { return messages_.size() >= count; });
  }
  // Until `message` is the latest to have arrived (the end of what was written).
  bool wait_for_last(const std::string& message) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, 20s, [&] { return !messages_.empty() && messages_.back() == message; });
  }
  std::vector<std::string> messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::vector<std::string> headers() {
    std::lock_guard lock(mutex_);
    return headers_;
  }
  int connections() {
    std::lock_guard lock(mutex_);
    return connections_;
  }

 private:
  void serve() {
    for (;;) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      {
        std::lock_guard lock(mutex_);
        ++connections_;
      }
      std::string buffer;
      char chunk[65536];
      for (bool open = true; open;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) break;
        buffer.append(chunk, static_cast<std::size_t>(n));
        for (;;) {
          const auto space = buffer.find(' ');
          if (space == std::string::npos) break;
          const std::size_t length = std::stoul(buffer.substr(0, space));
          if (buffer.size() < space + 1 + length) break;
          const std::string message = buffer.substr(space + 1, length);
          buffer.erase(0, space + 1 + length);
          std::size_t msg = 0;
          for (int field = 0; field < 7; ++field) msg = message.find(' ', msg) + 1;  // PRI+VERSION .. SD
          std::lock_guard lock(mutex_);
          headers_.push_back(message.substr(0, msg));
          messages_.push_back(message.substr(msg));
          arrived_.notify_all();
          if (messages_.size() == drop_at_) {
            open = false;
            break;
          }
        }
      }
      ::close(fd);
    }
  }

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::string> messages_, headers_;
  std::size_t drop_at_ = 0;
  int connections_ = 0;
};

using temp_dir = warden::test::temp_audit_dir;
using warden::test::read_lines;

syslog_options to(std::uint16_t port, const std::string& audit) {
  syslog_options options;
  options.target = {false, "127.0.0.1", port};
  options.identity = make_syslog_identity(audit);
  options.backoff_min = 10ms;
  options.confirm_after = 100ms;
  return options;
}

void write_events(const std::string& path, int from, int count, std::shared_ptr<audit_sink> sink) {
  audit_options options;
  options.path = path;
  options.sink = std::move(sink);
  warden::test::write_events(options, from, count, [](int i) {
    return nlohmann::json{{"event", "call"}, {"n", i}, {"text", "caf\xc3\xa9 \"quoted\""}};
  });
}

std::shared_ptr<audit_spool> open_spool(const std::string& audit) {
  spool_options options;
  options.audit_path = audit;
  auto spool = audit_spool::open(options);
  REQUIRE_MESSAGE(spool, (spool ? std::string() : spool.error_message()));
  return *spool;
}

}  // namespace

TEST_CASE("a record is the MSG of an RFC 5424 message in an octet-counted frame") {
  const syslog_identity who{"host-1", "4242", "audit.jsonl"};
  const std::string header = syslog_header(who, "2025-01-02T03:04:05.678Z");
  CHECK(header == "<110>1 2025-01-02T03:04:05.678Z host-1 mcp-warden 4242 audit.jsonl - ");
  std::string frames;
  CHECK(append_syslog_frames(frames, header, "{\"a\":\"\xc3\xa9\"}\n{}\n") == 2);
  // LEN counts bytes: the header's 69 and the record's, an e-acute being two.
  CHECK(frames == "79 " + header + "{\"a\":\"\xc3\xa9\"}" + "71 " + header + "{}");
  SUBCASE("header fields are printable ASCII within the RFC 5424 lengths") {
    const auto id = make_syslog_identity("/var/log/mcp warden/a very long audit file name.jsonl");
    CHECK(id.msgid == "a_very_long_audit_file_name.json");
    CHECK(id.procid == std::to_string(::getpid()));
    CHECK(id.hostname.find(' ') == std::string::npos);
    CHECK(make_syslog_identity("").msgid == "-");
  }
}

TEST_CASE("receiver URLs: tcp:// and tls://, a port or the scheme's default, IPv6 in brackets") {
  auto check = [](std::string_view url, bool tls, std::string host, std::uint16_t port) {
    auto target = parse_syslog_url(url);
    REQUIRE_MESSAGE(target, (target ? std::string() : target.error_message()));
    CHECK(target->tls == tls);
    CHECK(target->host == host);
    CHECK(target->port == port);
  };
  check("tcp://127.0.0.1:5140", false, "127.0.0.1", 5140);
  check("tls://logs.example.org:6514", true, "logs.example.org", 6514);
  check("tls://logs.example.org", true, "logs.example.org", 6514);
  check("tcp://[::1]:601", false, "::1", 601);
  check("tcp://[::1]", false, "::1", 514);
  for (const char* bad : {"udp://host:514", "host:514", "tcp://:514", "tcp://host:0", "tcp://host:70000", "tcp://host:514/x",
                          "tcp://host:51x", "tcp://u@host:514", "tcp://host:514?q"}) {
    auto target = parse_syslog_url(bad);
    CHECK_FALSE(target);
    CHECK(target.error_message().starts_with("--audit-syslog: '" + std::string(bad) + "' is not tcp://HOST:PORT or tls://HOST:PORT"));
  }
}

TEST_CASE("the shipper delivers every record in file order; a dropped connection is resent from the last confirmed record") {
  temp_dir t;
  receiver r;
  auto spool = open_spool(t.log);
  auto shipper = syslog_shipper::start(to(r.port(), t.log), spool);
  REQUIRE(shipper);
  SUBCASE("a steady connection: each record once, byte for byte") {
    write_events(t.log, 0, 50, spool);
    REQUIRE(r.wait_for(50));
    (*shipper)->stop();
    CHECK(r.messages() == read_lines(t.log));
    CHECK(r.headers()[0].starts_with("<110>1 "));
    CHECK(r.headers()[0].ends_with(" mcp-warden " + std::to_string(::getpid()) + " audit.jsonl - "));
    CHECK(spool->stats().unconfirmed == 0);
  }
  SUBCASE("the receiver closes after 20 records with more unread: they come again, in order") {
    r.drop_at(20);
    write_events(t.log, 0, 200, spool);
    const auto lines = read_lines(t.log);
    // Each record at least once; after the break the stream restarts at or before record 21, so
    // more than lines.size() arrive, the last of them the last record. (Waiting for the count
    // alone read the stream before its end when the shipper was slow, as under TSan.)
    REQUIRE(r.wait_for(lines.size() + 1));
    REQUIRE(r.wait_for_last(lines.back()));
    (*shipper)->stop();
    const auto got = r.messages();
    CHECK(r.connections() == 2);
    REQUIRE(got.size() > lines.size());
    CHECK(std::vector<std::string>(got.begin(), got.begin() + 20) == std::vector<std::string>(lines.begin(), lines.begin() + 20));
    const auto restart = std::find(lines.begin(), lines.end(), got[20]);
    REQUIRE(restart != lines.end());
    CHECK(restart - lines.begin() <= 20);
    CHECK(std::vector<std::string>(got.begin() + 20, got.end()) == std::vector<std::string>(restart, lines.end()));
    const std::string copy = (t.dir / "received.jsonl").string();
    {
      std::ofstream out(copy);
      for (const auto& m : got) out << m << '\n';
    }
    const auto report = verify_log(copy, nullptr, true);
    CHECK_MESSAGE(report.ok, report.problem);
    CHECK(report.records == lines.size());
    CHECK(report.resent == got.size() - lines.size());
  }
}

TEST_CASE("with the receiver away, stop() does not wait, and the records stay spooled for the next run") {
  temp_dir t;
  std::uint16_t port = 0;
  {
    receiver gone;
    port = gone.port();
  }  // nothing listens there now
  {
    auto spool = open_spool(t.log);
    auto shipper = syslog_shipper::start(to(port, t.log), spool);
    REQUIRE(shipper);
    write_events(t.log, 0, 10, spool);
    const auto before = std::chrono::steady_clock::now();
    (*shipper)->stop();
    CHECK(std::chrono::steady_clock::now() - before < 1s);
    CHECK(spool->stats().unconfirmed == fs::file_size(t.log));
  }
  receiver r;
  auto spool = open_spool(t.log);
  auto shipper = syslog_shipper::start(to(r.port(), t.log), spool);
  REQUIRE(shipper);
  REQUIRE(r.wait_for(10));
  (*shipper)->stop();
  CHECK(r.messages() == read_lines(t.log));
}
