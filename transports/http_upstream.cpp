#include "transports/http_upstream.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <fstream>
#include <set>

#include "transports/beast_stream.hpp"
#include "transports/http_request.hpp"
#include "transports/http_rules.hpp"
#include "transports/http_server.hpp"
#include "transports/oauth_client.hpp"
#include "transports/sse_parser.hpp"

namespace warden::transports {

namespace asio = boost::asio;
namespace http = beast::http;
using nlohmann::json;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr int server_unavailable = -32000;
constexpr int limit_exceeded = -32001;

using output_channel = asio::experimental::channel<void(error_code, frame)>;

// What the relay needs to know about one outgoing message.
struct message_info {
  std::vector<json> request_ids;  // requests in it (a batch may hold several)
  std::string method;             // of a single request or notification
  bool initialize = false;
  bool initialized_notification = false;
  std::string modern_version;     // _meta protocol version of a stateless-era request
  std::string mcp_name;           // Mcp-Name header value for modern requests
};

std::string id_key(const json& id) { return id.dump(); }

void note_item(const json& item, message_info& info) {
  if (!item.is_object()) return;
  const auto method = item.find("method");
  const bool has_method = method != item.end() && method->is_string();
  if (has_method && item.contains("id")) info.request_ids.push_back(item["id"]);
  if (!has_method) return;
  info.method = method->get<std::string>();
  info.initialize = info.initialize || info.method == "initialize";
  info.initialized_notification = info.method == "notifications/initialized";
  const auto params = item.find("params");
  if (params == item.end() || !params->is_object()) return;
  if (const auto meta = params->find("_meta"); meta != params->end() && meta->is_object()) {
    if (const auto v = meta->find(meta_protocol_version); v != meta->end() && v->is_string())
      info.modern_version = v->get<std::string>();
  }
  static const std::pair<std::string_view, std::string_view> name_sources[] = {
      {"tools/call", "name"}, {"prompts/get", "name"}, {"resources/read", "uri"},
      {"tasks/get", "taskId"}, {"tasks/update", "taskId"}, {"tasks/cancel", "taskId"}};
  for (const auto& [m, field] : name_sources) {
    if (info.method != m) continue;
    if (const auto v = params->find(field); v != params->end() && v->is_string())
      info.mcp_name = encode_mcp_header_value(v->get<std::string>());
  }
}

message_info classify(std::string_view bytes) {
  message_info info;
  const json doc = json::parse(bytes, nullptr, false);
  if (doc.is_array()) {
    for (const auto& item : doc) note_item(item, info);
    info.method.clear();
  } else {
    note_item(doc, info);
  }
  return info;
}

// The ids answered by a message (a response or a batch of them).
void answered_ids(std::string_view bytes, std::vector<std::string>& out) {
  const json doc = json::parse(bytes, nullptr, false);
  auto note = [&](const json& item) {
    if (item.is_object() && !item.contains("method") && item.contains("id")) out.push_back(id_key(item["id"]));
  };
  if (doc.is_array())
    for (const auto& item : doc) note(item);
  else
    note(doc);
}

struct response_head {
  unsigned status = 0;
  std::string reason;
  std::string content_type;
  std::string session_id;
};

}  // namespace

class upstream_state : public std::enable_shared_from_this<upstream_state> {
 public:
  upstream_state(asio::any_io_executor executor, http_upstream_options options, http_url url)
      : executor_(executor),
        options_(std::move(options)),
        url_(std::move(url)),
        output_(executor, 64),
        exit_wait_(executor),
        endpoint_wait_(executor) {}

  result<bool> init_tls() {
    if (!url_.tls) return true;
    tls_.emplace(asio::ssl::context::tls_client);
    return configure_tls_client(*tls_, tls_files{options_.ca_file, options_.client_cert, options_.client_key});
  }

  // ---- server_link surface --------------------------------------------------------------

  asio::awaitable<read_outcome> read() {
    auto [ec, f] = co_await output_.async_receive(use_tuple);
    if (ec) co_return read_outcome{ec == asio::experimental::error::channel_closed ? error_code(asio::error::eof) : ec, {}};
    co_return read_outcome{{}, std::move(f)};
  }

  void cancel_read() { output_.cancel(); }

  asio::awaitable<error_code> write(std::string_view bytes) {
    if (closing_ || aborted_) co_return asio::error::bad_descriptor;
    auto self = shared_from_this();
    std::string body(bytes);
    message_info info = classify(body);
    if (mode_ == http_transport::auto_detect) {
      if (options_.transport != http_transport::auto_detect) mode_ = options_.transport;
      else if (!info.initialize) mode_ = http_transport::streamable_http;
    }
    if (mode_ == http_transport::sse) {
      co_await legacy_post(std::move(body), std::move(info));
      co_return error_code{};
    }
    if (info.initialize) initialize_bytes_ = body;
    // initialize is answered before anything else goes out: later requests need its session id
    // and protocol version (and in auto mode it decides the transport).
    co_await post(std::move(body), std::move(info));
    co_return error_code{};
  }

  void close_input() {
    if (closing_ || aborted_) return;
    closing_ = true;
    asio::co_spawn(executor_, finish(shared_from_this(), true), asio::detached);
  }

  void request_exit() {
    if (aborted_) return;
    closing_ = true;
    asio::co_spawn(executor_, finish(shared_from_this(), false), asio::detached);
  }

  void abort() {
    if (aborted_) return;
    aborted_ = true;
    closing_ = true;
    for (any_stream* s : active_) s->close();
    idle_.clear();
    output_.close();
    endpoint_wait_.cancel();
    get_retry_timer_cancel();
    exited_ = true;
    exit_wait_.cancel();
  }

  asio::awaitable<int> wait_exit() {
    auto self = shared_from_this();
    while (!exited_) {
      exit_wait_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await exit_wait_.async_wait(use_tuple);
    }
    co_return exit_status_;
  }

  std::string describe() const { return url_.to_string(); }

 private:
  // ---- connections ------------------------------------------------------------------------

  // A connection that is closed on abort while in use; returned to the pool when reusable.
  struct lease {
    std::shared_ptr<upstream_state> owner;
    std::unique_ptr<any_stream> stream;
    bool reused = false;
    beast::flat_buffer buffer;
    std::unique_ptr<http::response_parser<http::buffer_body>> parser;
    lease() = default;
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() {
      if (stream && owner) owner->active_.erase(stream.get());
    }
    void give_back() {
      if (!stream || !owner || owner->aborted_ || !stream->is_open() || owner->idle_.size() >= 8) return;
      owner->active_.erase(stream.get());
      stream->expires_never();
      owner->idle_.push_back(std::move(stream));
    }
  };

  asio::awaitable<std::unique_ptr<lease>> connect(std::string& failure, bool allow_reuse = true) {
    auto l = std::make_unique<lease>();
    l->owner = shared_from_this();
    if (allow_reuse && !idle_.empty()) {
      l->stream = std::move(idle_.back());
      idle_.pop_back();
      l->reused = true;
      active_.insert(l->stream.get());
      co_return l;
    }
    auto endpoints = co_await resolve_within(executor_, url_.host, url_.port, options_.connect_timeout);
    if (!endpoints) {
      failure = endpoints.error_message();
      co_return nullptr;
    }
    beast::tcp_stream tcp_stream(executor_);
    tcp_stream.expires_after(options_.connect_timeout);
    auto [cec, ep] = co_await tcp_stream.async_connect(*endpoints, use_tuple);
    (void)ep;
    if (cec) {
      failure = "cannot connect to " + url_.host_header() + ": " + (cec == beast::error::timeout ? "timed out" : cec.message());
      co_return nullptr;
    }
    tcp_stream.socket().set_option(tcp::no_delay(true));
    if (url_.tls) {
      l->stream = std::make_unique<any_stream>(std::move(tcp_stream), *tls_);
      auto& s = l->stream->tls();
      const bool is_ip = [&] {
        error_code ignored;
        asio::ip::make_address(url_.host, ignored);
        return !ignored;
      }();
      if (!is_ip) SSL_set_tlsext_host_name(s.native_handle(), url_.host.c_str());
      s.set_verify_callback(asio::ssl::host_name_verification(url_.host));
      active_.insert(l->stream.get());
      auto [hec] = co_await s.async_handshake(asio::ssl::stream_base::client, use_tuple);
      if (hec) {
        failure = "TLS handshake with " + url_.host_header() + " failed: " + hec.message();
        co_return nullptr;
      }
    } else {
      l->stream = std::make_unique<any_stream>(std::move(tcp_stream));
      active_.insert(l->stream.get());
    }
    co_return l;
  }

  http::request<http::string_body> make_request(http::verb verb, const std::string& target, const message_info* info) {
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, url_.host_header());
    req.set(http::field::user_agent, "mcp-warden/0.1");
    for (const auto& [name, value] : options_.headers) req.set(name, value);
    if (options_.oauth)
      if (auto token = options_.oauth->authorization(); !token.empty()) req.set(http::field::authorization, token);
    if (!session_id_.empty() && mode_ != http_transport::sse) req.set("Mcp-Session-Id", session_id_);
    if (info && !info->modern_version.empty()) {
      req.set("MCP-Protocol-Version", info->modern_version);
      if (!info->method.empty() && !info->request_ids.empty()) req.set("Mcp-Method", info->method);
      if (!info->mcp_name.empty()) req.set("Mcp-Name", info->mcp_name);
    } else if (!protocol_version_.empty() && !(info && info->initialize) && mode_ != http_transport::sse) {
      req.set("MCP-Protocol-Version", protocol_version_);
    }
    req.keep_alive(true);
    return req;
  }

  // Sends `req`; a 401 (or a 403 for insufficient scope) runs the OAuth flow and sends it again
  // with the new token (at most twice: authorisation, then a step-up).
  asio::awaitable<std::unique_ptr<lease>> send_request(http::request<http::string_body>& req, std::string& failure) {
    for (int round = 0;; ++round) {
      auto l = co_await send_once(req, failure);
      if (!l || !options_.oauth || round == 2) co_return l;
      const auto& res = l->parser->get();
      if (res.result_int() != 401 && res.result_int() != 403) co_return l;
      std::vector<std::string> challenges;
      for (const auto& field : res)
        if (field.name() == http::field::www_authenticate) challenges.emplace_back(field.value());
      auto outcome = co_await options_.oauth->on_challenge(executor_, res.result_int(), std::move(challenges),
                                                           std::string(req[http::field::authorization]));
      if (outcome.what == oauth::verdict::not_mine || aborted_) co_return l;
      if (outcome.what == oauth::verdict::give_up) {
        failure = "the server answered HTTP " + std::to_string(res.result_int()) + "; " + outcome.reason;
        co_return nullptr;
      }
      l.reset();  // the refusal's connection is not reused
      req.set(http::field::authorization, options_.oauth->authorization());
    }
  }

  // Sends `req`, retrying once on a fresh connection when a pooled one turns out to be stale.
  asio::awaitable<std::unique_ptr<lease>> send_once(http::request<http::string_body>& req, std::string& failure) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      auto l = co_await connect(failure, attempt == 0);
      if (!l) co_return nullptr;
      req.prepare_payload();
      l->stream->expires_after(options_.read_timeout);
      auto [wec, wn] = co_await l->stream->visit([&](auto& s) { return http::async_write(s, req, use_tuple); });
      (void)wn;
      if (!wec) {
        l->parser = std::make_unique<http::response_parser<http::buffer_body>>();
        auto& parser = *l->parser;
        parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options_.max_header_bytes, UINT32_MAX)));
        parser.body_limit(boost::none);
        auto [hec, hn] = co_await l->stream->visit([&](auto& s) { return http::async_read_header(s, l->buffer, parser, use_tuple); });
        (void)hn;
        if (!hec) co_return l;
        if (l->reused && (hec == http::error::end_of_stream || hec == asio::error::connection_reset || hec == asio::error::eof))
          continue;
        failure = hec == beast::error::timeout ? "no answer from " + url_.host_header() + " within " + std::to_string(options_.read_timeout.count()) + " ms"
                  : hec == http::error::header_limit ? "the server's response headers exceed " + std::to_string(options_.max_header_bytes) + " bytes"
                  : "reading the response from " + url_.host_header() + " failed: " + hec.message();
        co_return nullptr;
      }
      if (l->reused) continue;
      failure = "sending to " + url_.host_header() + " failed: " + wec.message();
      co_return nullptr;
    }
    failure = "the connection to " + url_.host_header() + " was closed";
    co_return nullptr;
  }

  // Reads the body in pieces, handing each to `sink`; false from the sink stops reading.
  // Returns an empty string at the end of the body, else why it stopped.
  template <typename Sink>
  asio::awaitable<std::string> read_body(lease& l, bool streaming, Sink&& sink) {
    auto& parser = *l.parser;
    std::array<char, 65536> chunk;
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      if (streaming) l.stream->expires_never();
      else l.stream->expires_after(options_.read_timeout);
      auto [ec, n] = co_await l.stream->visit([&](auto& s) { return http::async_read_some(s, l.buffer, parser, use_tuple); });
      (void)n;
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = chunk.size() - parser.get().body().size;
      if (got > 0 && !co_await sink(std::string_view(chunk.data(), got))) co_return "stopped";
      if (ec) co_return ec == beast::error::timeout ? std::string("timed out") : ec.message();
    }
    co_return std::string();
  }

  response_head head_of(const http::response_parser<http::buffer_body>& parser) {
    const auto& res = parser.get();
    response_head head;
    head.status = res.result_int();
    head.reason = std::string(res.reason());
    head.content_type = std::string(res[http::field::content_type]);
    head.session_id = std::string(res["mcp-session-id"]);
    return head;
  }

  // ---- output -----------------------------------------------------------------------------

  asio::awaitable<void> emit(std::string bytes) {
    frame f;
    f.size = bytes.size();
    f.bytes = json_on_one_line(std::move(bytes));
    co_await output_.async_send(error_code{}, std::move(f), use_tuple);
  }

  asio::awaitable<void> emit_error(const json& id, int code, const std::string& text) {
    co_await emit(jsonrpc_error_body(code, "mcp-warden: " + text, id));
  }

  asio::awaitable<void> fail_requests(const std::set<std::string>& ids, int code, const std::string& text) {
    for (const auto& key : ids) co_await emit_error(json::parse(key), code, text);
  }

  // A frame from the server: forwarded; answers to `awaiting` are crossed off; the initialize
  // answer tells the negotiated protocol version.
  asio::awaitable<void> deliver(std::string bytes, std::set<std::string>& awaiting) {
    std::vector<std::string> answered;
    if (!awaiting.empty()) answered_ids(bytes, answered);
    for (const auto& key : answered) {
      awaiting.erase(key);
      if (key == initialize_key_) {
        const json doc = json::parse(bytes, nullptr, false);
        if (doc.is_object() && doc.contains("result") && doc["result"].is_object())
          protocol_version_ = doc["result"].value("protocolVersion", "");
      }
    }
    co_await emit(std::move(bytes));
  }

  asio::awaitable<void> deliver_oversized(const sse_event& event, std::set<std::string>& awaiting) {
    frame f;
    f.oversized = true;
    f.size = event.size;
    f.head = event.head;
    f.tail = event.tail;
    if (awaiting.size() == 1) awaiting.clear();  // the session answers the client from the excerpts
    co_await output_.async_send(error_code{}, std::move(f), use_tuple);
  }

  // Reads an SSE body: messages are delivered, the last event id and retry are remembered.
  // Returns "" at a clean end of stream, else the cause.
  asio::awaitable<std::string> read_events(lease& l, std::set<std::string>& awaiting, std::string& last_id,
                                           std::optional<std::uint64_t>& retry, bool& progress,
                                           std::function<bool(const sse_event&)> special = {}) {
    sse_parser events(options_.max_message_bytes);
    std::vector<sse_event> ready;
    std::string cause = co_await read_body(l, true, [&](std::string_view bytes) -> asio::awaitable<bool> {
      events.feed(bytes, [&](sse_event&& e) { ready.push_back(std::move(e)); });
      if (!events.last_event_id().empty()) last_id = events.last_event_id();
      if (events.retry_ms()) retry = std::min<std::uint64_t>(*events.retry_ms(), 60000);
      for (auto& e : ready) {
        progress = true;
        if (special && special(e)) continue;
        if (e.type != "message") continue;
        if (e.oversized) {
          co_await deliver_oversized(e, awaiting);
          continue;
        }
        if (e.data.empty()) continue;  // priming event
        if (!json::accept(e.data)) {
          spdlog::warn("{}: event is not JSON; dropped: {}", url_.to_string(), e.data.substr(0, 200));
          continue;
        }
        co_await deliver(std::move(e.data), awaiting);
      }
      ready.clear();
      co_return !aborted_;
    });
    co_return cause;
  }

  // ---- Streamable HTTP --------------------------------------------------------------------

  asio::awaitable<void> post(std::string body, message_info info) {
    auto self = shared_from_this();
    std::set<std::string> awaiting;
    for (const auto& id : info.request_ids) awaiting.insert(id_key(id));
    if (info.initialize && !info.request_ids.empty()) initialize_key_ = id_key(info.request_ids.front());

    auto req = make_request(http::verb::post, url_.target, &info);
    req.set(http::field::accept, "application/json, text/event-stream");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    std::string failure;
    auto l = co_await send_request(req, failure);
    if (!l) {
      spdlog::warn("{}: {}", url_.to_string(), failure);
      co_await fail_requests(awaiting, server_unavailable, failure);
      co_return;
    }
    const response_head head = head_of(*l->parser);
    const bool detecting = mode_ == http_transport::auto_detect;
    if (detecting) {
      if (head.status >= 400 && head.status < 500 && head.status != 401 && head.status != 403 && head.status != 429) {
        spdlog::info("{}: POST answered {}; trying the legacy HTTP+SSE transport", url_.to_string(), head.status);
        mode_ = http_transport::sse;
        co_await legacy_post(std::move(body), std::move(info));
        co_return;
      }
      mode_ = http_transport::streamable_http;
    }
    if (info.initialize && !head.session_id.empty()) session_id_ = head.session_id;
    // Everything but initialize answers on its own time; the relay goes on with the next message.
    if (info.initialize) {
      co_await handle_response(std::move(l), head, std::move(body), std::move(info), std::move(awaiting));
    } else {
      asio::co_spawn(executor_, handle_response(std::move(l), head, std::move(body), std::move(info), std::move(awaiting)),
                     asio::detached);
    }
  }

  asio::awaitable<void> handle_response(std::unique_ptr<lease> l, response_head head, std::string body, message_info info, std::set<std::string> awaiting) {
    auto self = shared_from_this();
    ++inflight_;
    struct done_guard {
      upstream_state* s;
      ~done_guard() {
        --s->inflight_;
        s->exit_wait_.cancel();
      }
    } guard{this};

    if (head.status == 404 && !session_id_.empty() && !info.initialize && !retried_after_reinit(body)) {
      l.reset();
      if (co_await reinitialize()) {
        retry_once_.insert(body);
        co_await post(std::move(body), std::move(info));
        co_return;
      }
      co_await fail_requests(awaiting, server_unavailable, "the server ended the session (HTTP 404) and re-initialising failed");
      co_return;
    }
    if (head.status < 200 || head.status >= 300) {
      std::string detail;
      co_await read_body(*l, false, [&](std::string_view bytes) -> asio::awaitable<bool> {
        if (detail.size() < 4096) detail.append(bytes.substr(0, 4096 - detail.size()));
        co_return true;
      });
      const json doc = json::parse(detail, nullptr, false);
      if (doc.is_object() && doc.contains("error") && doc["error"].is_object())
        detail = doc["error"].value("message", detail);
      const std::string text = "the server answered HTTP " + std::to_string(head.status) + " " + head.reason +
                               (detail.empty() ? "" : ": " + detail.substr(0, 500));
      spdlog::warn("{}: {} ({})", url_.to_string(), text, info.method.empty() ? "message" : info.method);
      co_await fail_requests(awaiting, server_unavailable, text);
      co_return;
    }
    if (info.initialized_notification && !get_stream_started_) {
      get_stream_started_ = true;
      asio::co_spawn(executor_, get_stream(self), asio::detached);
    }
    if (is_media_type(head.content_type, "text/event-stream")) {
      std::string last_id;
      std::optional<std::uint64_t> retry;
      bool progress = false;
      std::string cause = co_await read_events(*l, awaiting, last_id, retry, progress);
      if (cause.empty() && awaiting.empty()) l->give_back();
      l.reset();
      if (!awaiting.empty() && !aborted_) co_await resume(std::move(awaiting), last_id, retry, cause);
      co_return;
    }
    // A JSON body (or an empty one for notifications and responses).
    std::string json_body;
    bool too_big = false;
    const std::string cause = co_await read_body(*l, false, [&](std::string_view bytes) -> asio::awaitable<bool> {
      if (json_body.size() + bytes.size() > options_.max_message_bytes) {
        too_big = true;
        co_return false;
      }
      json_body.append(bytes);
      co_return true;
    });
    if (too_big) {
      co_await fail_requests(awaiting, limit_exceeded, "the server's answer exceeds the message size limit of " +
                                                           std::to_string(options_.max_message_bytes) + " bytes");
      co_return;
    }
    if (!cause.empty()) {
      co_await fail_requests(awaiting, server_unavailable, "reading the server's answer failed: " + cause);
      co_return;
    }
    l->give_back();
    l.reset();
    if (!json_body.empty() && json_body.find_first_not_of(" \t\r\n") != std::string::npos) {
      if (!json::accept(json_body)) {
        spdlog::warn("{}: the answer is not JSON; dropped", url_.to_string());
      } else {
        co_await deliver(std::move(json_body), awaiting);
      }
    }
    if (!awaiting.empty())
      co_await fail_requests(awaiting, server_unavailable, "the server answered HTTP " + std::to_string(head.status) + " without a response");
  }

  bool retried_after_reinit(const std::string& body) { return retry_once_.erase(body) > 0; }

  // The server dropped our session (404): start a new one with the client's own initialize
  // (under an id of ours, answer not forwarded), then go on. The client keeps its view.
  asio::awaitable<bool> reinitialize() {
    if (initialize_bytes_.empty() || closing_) co_return false;
    if (reinit_running_) {
      while (reinit_running_ && !aborted_) {
        asio::steady_timer t(executor_, 20ms);
        co_await t.async_wait(use_tuple);
      }
      co_return !session_id_.empty();
    }
    reinit_running_ = true;
    spdlog::warn("{}: session {} expired (HTTP 404); re-initialising", url_.to_string(), session_id_);
    session_id_.clear();
    json init = json::parse(initialize_bytes_, nullptr, false);
    bool ok = false;
    if (init.is_object()) {
      init["id"] = "mcp-warden-reinit-" + std::to_string(++reinit_count_);
      message_info info = classify(init.dump());
      auto req = make_request(http::verb::post, url_.target, &info);
      req.set(http::field::accept, "application/json, text/event-stream");
      req.set(http::field::content_type, "application/json");
      req.body() = init.dump();
      std::string failure;
      if (auto l = co_await send_request(req, failure); l) {
        const response_head head = head_of(*l->parser);
        if (head.status >= 200 && head.status < 300) {
          session_id_ = head.session_id;
          // Read the answer without forwarding it (it stops at the first complete message).
          sse_parser events(options_.max_message_bytes);
          bool answered = false;
          std::string all;
          co_await read_body(*l, true, [&](std::string_view bytes) -> asio::awaitable<bool> {
            if (is_media_type(head.content_type, "text/event-stream")) {
              events.feed(bytes, [&](sse_event&& e) { answered = answered || (!e.data.empty() && e.type == "message"); });
            } else if (all.size() < options_.max_message_bytes) {
              all.append(bytes);
            }
            co_return !answered;
          });
          ok = true;
        }
      }
      if (ok) {
        json note = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
        auto req2 = make_request(http::verb::post, url_.target, nullptr);
        req2.set(http::field::accept, "application/json, text/event-stream");
        req2.set(http::field::content_type, "application/json");
        req2.body() = note.dump();
        std::string failure2;
        if (auto l2 = co_await send_request(req2, failure2); !l2) ok = false;
      }
    }
    reinit_running_ = false;
    if (ok) spdlog::info("{}: new session {}", url_.to_string(), session_id_);
    co_return ok && !session_id_.empty();
  }

  // Opens a GET for `last_id` and reads it like the stream it continues.
  asio::awaitable<void> resume(std::set<std::string> awaiting, std::string last_id, std::optional<std::uint64_t> retry,
                               std::string cause) {
    for (unsigned attempt = 0; !awaiting.empty() && !aborted_ && !last_id.empty() && attempt < options_.max_reconnects; ++attempt) {
      asio::steady_timer pause(executor_, std::chrono::milliseconds(retry.value_or(1000)));
      co_await pause.async_wait(use_tuple);
      if (aborted_) co_return;
      auto req = make_request(http::verb::get, url_.target, nullptr);
      req.set(http::field::accept, "text/event-stream");
      req.set("Last-Event-ID", last_id);
      std::string failure;
      auto l = co_await send_request(req, failure);
      if (!l) {
        cause = failure;
        continue;
      }
      const response_head head = head_of(*l->parser);
      if (head.status != 200 || !is_media_type(head.content_type, "text/event-stream")) {
        cause = "resuming with Last-Event-ID was refused (HTTP " + std::to_string(head.status) + ")";
        break;
      }
      bool progress = false;
      cause = co_await read_events(*l, awaiting, last_id, retry, progress);
      if (progress) attempt = 0;
    }
    if (!awaiting.empty() && !aborted_) {
      const std::string text = "the server's event stream ended before it answered" + (cause.empty() ? "" : " (" + cause + ")");
      spdlog::warn("{}: {}", url_.to_string(), text);
      co_await fail_requests(awaiting, server_unavailable, text);
    }
  }

  // The standalone GET stream: server requests and notifications outside any POST.
  static asio::awaitable<void> get_stream(std::shared_ptr<upstream_state> self) {
    std::string last_id;
    std::optional<std::uint64_t> retry;
    unsigned failures = 0;
    while (!self->closing_ && failures < self->options_.max_reconnects) {
      auto req = self->make_request(http::verb::get, self->url_.target, nullptr);
      req.set(http::field::accept, "text/event-stream");
      if (!last_id.empty()) req.set("Last-Event-ID", last_id);
      std::string failure;
      auto l = co_await self->send_request(req, failure);
      if (!l) {
        ++failures;
      } else {
        const response_head head = self->head_of(*l->parser);
        if (head.status == 405) co_return;  // the server offers no GET stream
        if (head.status != 200 || !is_media_type(head.content_type, "text/event-stream")) {
          spdlog::debug("{}: GET stream refused (HTTP {})", self->url_.to_string(), head.status);
          co_return;
        }
        std::set<std::string> none;
        bool progress = false;
        failure = co_await self->read_events(*l, none, last_id, retry, progress);
        failures = progress ? 0 : failures + 1;
      }
      if (self->closing_) co_return;
      self->get_retry_ = std::make_unique<asio::steady_timer>(self->executor_, std::chrono::milliseconds(retry.value_or(1000)));
      co_await self->get_retry_->async_wait(use_tuple);
    }
  }

  void get_retry_timer_cancel() {
    if (get_retry_) get_retry_->cancel();
  }

  // ---- legacy HTTP+SSE --------------------------------------------------------------------

  asio::awaitable<bool> ensure_legacy_endpoint(std::string& failure) {
    if (endpoint_) co_return true;
    if (!legacy_started_) {
      legacy_started_ = true;
      asio::co_spawn(executor_, legacy_stream(shared_from_this()), asio::detached);
    }
    const auto deadline = std::chrono::steady_clock::now() + options_.read_timeout;
    while (!endpoint_ && legacy_failure_.empty() && !aborted_ && std::chrono::steady_clock::now() < deadline) {
      endpoint_wait_.expires_at(deadline);
      co_await endpoint_wait_.async_wait(use_tuple);
    }
    if (endpoint_) co_return true;
    failure = !legacy_failure_.empty() ? legacy_failure_ : "the server sent no endpoint event";
    co_return false;
  }

  static asio::awaitable<void> legacy_stream(std::shared_ptr<upstream_state> self) {
    auto req = self->make_request(http::verb::get, self->url_.target, nullptr);
    req.set(http::field::accept, "text/event-stream");
    std::string failure;
    auto l = co_await self->send_request(req, failure);
    if (l) {
      const response_head head = self->head_of(*l->parser);
      if (head.status != 200 || !is_media_type(head.content_type, "text/event-stream")) {
        failure = "GET " + self->url_.target + " answered HTTP " + std::to_string(head.status) +
                  " (" + head.content_type + "), not an event stream";
      } else {
        std::set<std::string> none;
        std::string last_id;
        std::optional<std::uint64_t> retry;
        bool progress = false;
        auto endpoint_event = [&](const sse_event& e) {
          if (e.type != "endpoint") return false;
          auto resolved = resolve_url(self->url_, e.data);
          if (!resolved || resolved->host != self->url_.host || resolved->port != self->url_.port || resolved->tls != self->url_.tls) {
            self->legacy_failure_ = "the server's endpoint '" + e.data.substr(0, 200) + "' is not on " + self->url_.origin();
          } else {
            self->endpoint_ = *resolved;
            spdlog::info("{}: legacy HTTP+SSE transport, posting to {}", self->url_.to_string(), resolved->target);
          }
          self->endpoint_wait_.cancel();
          return true;
        };
        failure = co_await self->read_events(*l, none, last_id, retry, progress, endpoint_event);
        if (failure.empty()) failure = "the server closed the event stream";
      }
    }
    if (self->legacy_failure_.empty()) self->legacy_failure_ = failure;
    self->endpoint_wait_.cancel();
    if (!self->aborted_) spdlog::warn("{}: {}", self->url_.to_string(), failure);
    // Without its stream a legacy session is over.
    self->output_.close();
    self->exited_ = true;
    self->exit_status_ = self->closing_ ? 0 : 1;
    self->exit_wait_.cancel();
  }

  asio::awaitable<void> legacy_post(std::string body, message_info info) {
    auto self = shared_from_this();
    std::set<std::string> awaiting;
    for (const auto& id : info.request_ids) awaiting.insert(id_key(id));
    std::string failure;
    if (!co_await ensure_legacy_endpoint(failure)) {
      co_await fail_requests(awaiting, server_unavailable, failure);
      co_return;
    }
    auto req = make_request(http::verb::post, endpoint_->target, &info);
    req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
    auto l = co_await send_request(req, failure);
    if (!l) {
      co_await fail_requests(awaiting, server_unavailable, failure);
      co_return;
    }
    const response_head head = head_of(*l->parser);
    std::string detail;
    const std::string cause = co_await read_body(*l, false, [&](std::string_view bytes) -> asio::awaitable<bool> {
      if (detail.size() < 4096) detail.append(bytes.substr(0, 4096 - detail.size()));
      co_return true;
    });
    if (cause.empty()) l->give_back();
    if (head.status < 200 || head.status >= 300) {
      const std::string text = "the server answered HTTP " + std::to_string(head.status) + " " + head.reason +
                               (detail.empty() ? "" : ": " + detail.substr(0, 500));
      spdlog::warn("{}: {}", url_.to_string(), text);
      co_await fail_requests(awaiting, server_unavailable, text);
    }
  }

  // ---- shutdown ---------------------------------------------------------------------------

  static asio::awaitable<void> finish(std::shared_ptr<upstream_state> self, bool wait_for_answers) {
    if (wait_for_answers) {
      // No more input: let the answers in flight arrive (the session sends request_exit() if
      // this takes too long).
      while (self->inflight_ > 0 && !self->aborted_ && !self->exit_requested_) {
        self->exit_wait_.expires_at(std::chrono::steady_clock::time_point::max());
        co_await self->exit_wait_.async_wait(use_tuple);
      }
    } else {
      self->exit_requested_ = true;
      self->exit_wait_.cancel();
    }
    if (self->deleting_ || self->aborted_) co_return;
    self->deleting_ = true;
    self->get_retry_timer_cancel();
    if (self->mode_ == http_transport::streamable_http && !self->session_id_.empty()) {
      // End the session on the server; best effort, bounded by the timeouts.
      auto req = self->make_request(http::verb::delete_, self->url_.target, nullptr);
      std::string failure;
      const auto saved = self->options_.read_timeout;
      self->options_.read_timeout = std::min<std::chrono::milliseconds>(saved, 2000ms);
      if (auto l = co_await self->send_request(req, failure); l)
        spdlog::debug("{}: DELETE session answered {}", self->url_.to_string(), l->parser->get().result_int());
      self->options_.read_timeout = saved;
    }
    self->abort();
  }

  asio::any_io_executor executor_;
  http_upstream_options options_;
  http_url url_;
  std::optional<asio::ssl::context> tls_;
  output_channel output_;
  asio::steady_timer exit_wait_;
  asio::steady_timer endpoint_wait_;
  std::unique_ptr<asio::steady_timer> get_retry_;

  http_transport mode_ = http_transport::auto_detect;
  std::string session_id_;
  std::string protocol_version_;
  std::string initialize_bytes_;
  std::string initialize_key_;
  std::set<std::string> retry_once_;
  bool reinit_running_ = false;
  unsigned reinit_count_ = 0;
  bool get_stream_started_ = false;

  std::optional<http_url> endpoint_;
  bool legacy_started_ = false;
  std::string legacy_failure_;

  std::vector<std::unique_ptr<any_stream>> idle_;
  std::set<any_stream*> active_;
  int inflight_ = 0;
  bool closing_ = false;
  bool exit_requested_ = false;
  bool deleting_ = false;
  bool aborted_ = false;
  bool exited_ = false;
  int exit_status_ = 0;
};

namespace {

class upstream_reader final : public message_reader {
 public:
  explicit upstream_reader(std::shared_ptr<upstream_state> s) : state_(std::move(s)) {}
  asio::awaitable<read_outcome> async_read_message() override { return state_->read(); }
  void cancel() override { state_->cancel_read(); }

 private:
  std::shared_ptr<upstream_state> state_;
};

class upstream_writer final : public message_writer {
 public:
  explicit upstream_writer(std::shared_ptr<upstream_state> s) : state_(std::move(s)) {}
  asio::awaitable<error_code> async_write_message(std::string_view bytes) override { return state_->write(bytes); }
  void close() override { state_->close_input(); }

 private:
  std::shared_ptr<upstream_state> state_;
};

class http_link final : public server_link {
 public:
  explicit http_link(std::shared_ptr<upstream_state> s) : state_(s), reader_(s), writer_(s) {}
  ~http_link() override { state_->abort(); }
  message_reader& output() override { return reader_; }
  message_writer& input() override { return writer_; }
  std::string describe() const override { return state_->describe(); }
  asio::awaitable<int> async_wait_exit() override { return state_->wait_exit(); }
  void request_exit() override { state_->request_exit(); }
  void kill() override { state_->abort(); }

 private:
  std::shared_ptr<upstream_state> state_;
  upstream_reader reader_;
  upstream_writer writer_;
};

}  // namespace

result<std::unique_ptr<server_link>> connect_http_upstream(asio::any_io_executor executor,
                                                           const http_upstream_options& options) {
  auto url = parse_http_url(options.url);
  if (!url) return error{"--upstream: " + url.error_message()};
  for (const auto& [name, value] : options.headers) {
    if (name.empty() || name.find_first_of(" \t\r\n:") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
      return error{"invalid header '" + name + "'"};
  }
  auto state = std::make_shared<upstream_state>(executor, options, *url);
  if (auto tls = state->init_tls(); !tls) return error{tls.error_message()};
  return std::unique_ptr<server_link>(std::make_unique<http_link>(std::move(state)));
}

result<std::pair<std::string, std::string>> parse_header_option(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return error{"--header expects 'Name: value', got '" + text + "'"};
  std::string name = text.substr(0, colon);
  std::string value = text.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  if (name.find_first_of(" \t\r\n") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
    return error{"--header: invalid header '" + text + "'"};
  return std::pair{name, value};
}

result<http_transport> parse_transport_option(const std::string& text) {
  if (text == "auto") return http_transport::auto_detect;
  if (text == "streamable-http") return http_transport::streamable_http;
  if (text == "sse") return http_transport::sse;
  return error{"--transport must be auto, streamable-http or sse, got '" + text + "'"};
}

}  // namespace warden::transports
