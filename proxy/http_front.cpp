#include "proxy/http_front.hpp"

#include <openssl/rand.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <spdlog/spdlog.h>

#include "metrics/warden_metrics.hpp"
#include "proxy/jsonrpc.hpp"
#include "transports/beast_stream.hpp"
#include "transports/http_server.hpp"
#include "transports/sse_parser.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;
using transports::any_stream;
using error_code = boost::system::error_code;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kept_finished_streams = 16;

using request_t = transports::http_request;
using transports::jsonrpc_error_body;
using transports::make_http_response;
using inbound_channel = asio::experimental::channel<void(error_code, std::string)>;

std::string random_id() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no randomness for session ids");
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

// What a POST body holds, as far as routing is concerned.
struct body_summary {
  bool valid = true;                 // every item is a JSON-RPC object
  std::vector<json> request_ids;
  std::vector<std::string> progress_tokens;  // id keys of _meta.progressToken
  bool has_initialize = false;
  std::size_t items = 0;
  std::string modern_version;        // _meta protocol version (stateless era)
  std::string init_version;          // initialize params.protocolVersion
};

body_summary summarize(const json& doc) {
  body_summary s;
  auto note = [&](const json& item) {
    ++s.items;
    if (!item.is_object() || item.value("jsonrpc", "") != "2.0") {
      s.valid = false;
      return;
    }
    const auto method = item.find("method");
    if (method == item.end() || !method->is_string()) return;  // a response
    if (item.contains("id")) s.request_ids.push_back(item["id"]);
    if (*method == "initialize") {
      s.has_initialize = true;
      if (item.contains("params") && item["params"].is_object()) s.init_version = item["params"].value("protocolVersion", "");
    }
    const auto params = item.find("params");
    if (params == item.end() || !params->is_object()) return;
    const auto meta = params->find("_meta");
    if (meta == params->end() || !meta->is_object()) return;
    if (const auto t = meta->find("progressToken"); t != meta->end()) s.progress_tokens.push_back(id_key(*t));
    if (const auto v = meta->find(transports::meta_protocol_version); v != meta->end() && v->is_string()) s.modern_version = v->get<std::string>();
  };
  if (doc.is_array()) {
    if (doc.empty()) s.valid = false;
    for (const auto& item : doc) note(item);
  } else {
    note(doc);
  }
  return s;
}

// A formatted SSE event, shared by a stream's replay history and the connections sending it:
// a large answer is held once, not once per place.
using event_text = std::shared_ptr<const std::string>;

// An HTTP response that currently carries an SSE stream.
struct attachment {
  explicit attachment(asio::any_io_executor ex) : wake(ex) {}
  std::deque<event_text> queue;
  std::size_t queued_bytes = 0;
  bool closed = false;  // the connection went away or was dropped
  bool watching = false;  // a read is pending to notice the client hanging up
  asio::steady_timer wake;
  void notify() { wake.cancel(); }
};

// An event kept for Last-Event-ID, with the ids of the requests it answers.
struct past_event {
  std::uint64_t seq = 0;
  event_text text;
  std::vector<json> answers;
};

// One logical SSE stream: survives its HTTP connection so that Last-Event-ID can resume it.
struct out_stream {
  std::string id;
  bool standalone = false;                 // the GET stream (or the legacy stream)
  std::set<std::string> awaiting;          // request ids still to be answered on it
  std::deque<past_event> history;
  std::size_t history_bytes = 0;
  // Answers given up to the replay budget, by the seq of their event: a resumption that missed
  // them gets an error for each instead, not a silent gap.
  std::vector<std::pair<std::uint64_t, json>> lost_answers;
  void forget_oldest() {
    past_event& oldest = history.front();
    history_bytes -= oldest.text->size();
    for (auto& request_id : oldest.answers) lost_answers.emplace_back(oldest.seq, std::move(request_id));
    history.pop_front();
  }
  std::uint64_t seq = 0;
  std::shared_ptr<attachment> conn;
  bool finished = false;
};

enum class session_kind { streamable, legacy, stateless };

}  // namespace

// ---------------------------------------------------------------------------------------------

class http_front::impl : public std::enable_shared_from_this<http_front::impl> {
 public:
  struct front_session;

  impl(asio::any_io_executor executor, http_front_options options, session_options session, server_factory factory,
       session_hook hook)
      : executor_(executor),
        options_(std::move(options)),
        session_options_(session),
        factory_(std::move(factory)),
        hook_(std::move(hook)),
        server_(executor, options_.listen, transports::refusal_style::jsonrpc),
        stopped_wait_(executor) {}

  std::string url() const { return server_.base_url() + options_.mcp_path; }
  asio::awaitable<void> run();
  void stop();

  // ---- sessions ---------------------------------------------------------------------------

  struct front_session : std::enable_shared_from_this<front_session> {
    front_session(impl& owner, session_kind k, std::string sid)
        : front(owner), kind(k), id(std::move(sid)), inbound(owner.executor_, 64), last_active(clock_type::now()) {}

    impl& front;
    session_kind kind;
    std::string id;
    inbound_channel inbound;
    std::unique_ptr<session> relay;
    std::map<std::string, std::shared_ptr<out_stream>> streams;
    std::deque<std::string> finished_order;
    std::uint64_t next_stream = 0;
    std::map<std::string, std::shared_ptr<out_stream>> routes;           // request id -> stream
    std::map<std::string, std::shared_ptr<out_stream>> progress_routes;  // progress token -> stream
    std::shared_ptr<out_stream> standalone;
    std::deque<std::string> backlog;  // server messages while no stream can take them
    std::size_t backlog_bytes = 0;
    clock_type::time_point last_active;
    std::string protocol_version;
    bool input_closed = false;
    bool ended = false;

    std::shared_ptr<out_stream> open_stream(bool is_standalone) {
      auto s = std::make_shared<out_stream>();
      s->id = std::to_string(next_stream++);
      s->standalone = is_standalone;
      streams[s->id] = s;
      return s;
    }

    void close_input() {
      if (input_closed) return;
      input_closed = true;
      inbound.close();
    }

    // A message from the server, routed to the stream the client expects it on.
    void route(std::string bytes) {
      if (kind == session_kind::legacy) {
        if (standalone) deliver(*standalone, bytes);
        return;
      }
      // The envelope scan reads id and method without building the message as a document (a
      // large result would be copied into one just to find its id); the session has checked
      // the message, depth included, before it got here.
      parse_limits limits;
      limits.max_depth = front.session_options_.max_depth;
      limits.document = false;
      parse_outcome parsed = parse_message(bytes, limits);
      std::shared_ptr<out_stream> target;
      bool answers = false;
      std::vector<json> answered;
      message& msg = parsed.value;
      message& first = msg.kind == message_kind::batch && !msg.items.empty() ? msg.items.front() : msg;
      if (!parsed.ok) {
        // Not one we can read (the session forwards only checked messages): routed as unrelated.
      } else if (first.kind == message_kind::response) {
        answers = true;
        if (auto it = routes.find(first.key()); it != routes.end()) target = it->second;
        const auto forget = [&](const message& item) {
          if (item.kind != message_kind::response) return;
          const std::string& key = item.key();
          if (target) target->awaiting.erase(key);
          routes.erase(key);
          if (!item.id.is_null()) answered.push_back(item.id);
        };
        if (msg.kind == message_kind::batch) {
          for (const auto& item : msg.items) forget(item);
        } else {
          forget(msg);
        }
      } else if (first.kind == message_kind::notification && first.method == "notifications/progress") {
        if (!first.has_document) load_document(first, bytes);
        const json& params = first.doc.value("params", json::object());
        if (params.is_object() && params.contains("progressToken"))
          if (auto it = progress_routes.find(id_key(params["progressToken"])); it != progress_routes.end() &&
                                                                                 !it->second->finished)
            target = it->second;
      }
      if (!target && !answers) {
        // Related to a request in progress most likely: its stream keeps the order the server
        // chose; else the standalone GET stream.
        for (auto it = streams.rbegin(); it != streams.rend(); ++it)
          if (!it->second->standalone && !it->second->finished && it->second->conn && !it->second->conn->closed) {
            target = it->second;
            break;
          }
        if (!target && standalone && !standalone->finished) target = standalone;
      }
      if (!target) {
        if (kind == session_kind::stateless) return;
        // Kept for the next GET stream, bounded.
        backlog_bytes += bytes.size();
        backlog.push_back(std::move(bytes));
        while (backlog_bytes > front.options_.replay_bytes && !backlog.empty()) {
          backlog_bytes -= backlog.front().size();
          backlog.pop_front();
          spdlog::warn("session {}: no stream open for server messages; dropped one", id);
        }
        return;
      }
      deliver(*target, bytes, std::move(answered));
      if (!target->standalone && target->awaiting.empty()) finish(*target);
    }

    void deliver(out_stream& s, std::string_view bytes, std::vector<json> answers = {}) {
      const std::uint64_t seq = ++s.seq;
      auto text = std::make_shared<const std::string>(
          kind == session_kind::legacy ? transports::format_sse_event(bytes, {}, "message")
                                       : transports::format_sse_event(bytes, s.id + "_" + std::to_string(seq), "message"));
      if (kind != session_kind::legacy) {
        s.history_bytes += text->size();
        s.history.push_back({seq, text, std::move(answers)});
        while (s.history_bytes > front.options_.replay_bytes && s.history.size() > 1) s.forget_oldest();
      }
      if (s.conn && !s.conn->closed) {
        if (s.conn->queued_bytes + text->size() > front.options_.stream_buffer_bytes) {
          spdlog::warn("session {}: the client does not read its stream ({} bytes waiting); dropping the connection",
                       id, s.conn->queued_bytes);
          s.conn->closed = true;
        } else {
          s.conn->queued_bytes += text->size();
          s.conn->queue.push_back(std::move(text));
        }
        s.conn->notify();
      }
    }

    void finish(out_stream& s) {
      if (s.finished) return;
      s.finished = true;
      for (auto it = progress_routes.begin(); it != progress_routes.end();)
        it = it->second.get() == &s ? progress_routes.erase(it) : std::next(it);
      if (s.conn) s.conn->notify();
      finished_order.push_back(s.id);
      while (finished_order.size() > kept_finished_streams) {
        streams.erase(finished_order.front());
        finished_order.pop_front();
      }
      trim_finished_history();
    }

    // Finished streams share one replay budget: the newest keeps its events whole (its answer may
    // still be in flight when a connection drops), older ones give theirs up, oldest first, once
    // the total passes replay_bytes. Without this, sixteen finished streams each kept their last
    // event whatever its size: a session with a few large results held them all until it ended.
    void trim_finished_history() {
      std::size_t total = 0;
      for (const auto& sid : finished_order)
        if (auto it = streams.find(sid); it != streams.end()) total += it->second->history_bytes;
      for (std::size_t k = 0; k + 1 < finished_order.size() && total > front.options_.replay_bytes; ++k) {
        auto it = streams.find(finished_order[k]);
        if (it == streams.end() || it->second->history.empty()) continue;
        total -= it->second->history_bytes;
        while (!it->second->history.empty()) it->second->forget_oldest();
      }
    }

    void end_all_streams() {
      for (auto& [sid, s] : streams) {
        s->finished = true;
        if (s->conn) s->conn->notify();
      }
    }
  };

  // The session's client side: reads what POSTs delivered, writes into the routing above.
  class front_reader final : public transports::message_reader {
   public:
    explicit front_reader(std::shared_ptr<front_session> s) : s_(std::move(s)) {}
    asio::awaitable<transports::read_outcome> async_read_message() override {
      auto [ec, bytes] = co_await s_->inbound.async_receive(use_tuple);
      if (ec) co_return transports::read_outcome{asio::error::eof, {}};
      transports::read_outcome out;
      out.message.size = bytes.size();
      out.message.bytes = std::move(bytes);
      co_return out;
    }
    void cancel() override { s_->close_input(); }

   private:
    std::shared_ptr<front_session> s_;
  };

  class front_writer final : public transports::message_writer {
   public:
    explicit front_writer(std::shared_ptr<front_session> s) : s_(std::move(s)) {}
    // Never waits: routing only queues (a client that does not read is dropped, see deliver).
    asio::awaitable<error_code> async_write_message(std::string_view bytes) override {
      if (!s_->ended) s_->route(std::string(bytes));
      co_return error_code{};
    }
    void close() override { s_->end_all_streams(); }

   private:
    std::shared_ptr<front_session> s_;
  };

  result<std::shared_ptr<front_session>> create_session(session_kind kind) {
    auto server = factory_();
    if (!server) return error{server.error_message()};
    auto s = std::make_shared<front_session>(*this, kind, kind == session_kind::stateless ? "" : random_id());
    s->relay = std::make_unique<session>(executor_, session_options_, std::make_unique<front_reader>(s),
                                         std::make_unique<front_writer>(s), std::move(*server));
    if (hook_) hook_(*s->relay, s->id);
    if (kind != session_kind::stateless) sessions_[s->id] = s;
    ++live_sessions_;
    if (options_.metrics) {
      options_.metrics->sessions_opened.inc();
      options_.metrics->sessions_active.add(1);
    }
    asio::co_spawn(executor_, run_session(shared_from_this(), s), asio::detached);
    return s;
  }

  static asio::awaitable<void> run_session(std::shared_ptr<impl> self, std::shared_ptr<front_session> s) {
    spdlog::info("session {} started ({})", s->id.empty() ? "(stateless)" : s->id,
                 s->kind == session_kind::legacy ? "HTTP+SSE" : s->kind == session_kind::stateless ? "stateless" : "Streamable HTTP");
    session_outcome outcome = co_await s->relay->run();
    spdlog::info("session {} ended: {}", s->id.empty() ? "(stateless)" : s->id, outcome.reason);
    s->ended = true;
    s->close_input();
    s->end_all_streams();
    if (auto it = self->sessions_.find(s->id); it != self->sessions_.end() && it->second == s) self->sessions_.erase(it);
    --self->live_sessions_;
    if (self->options_.metrics) self->options_.metrics->sessions_active.sub(1);
    self->stopped_wait_.cancel();
    // run() returns only after the session's last coroutine: it can go now (this also breaks the
    // reference cycle front_session -> relay -> front_reader/writer -> front_session).
    s->relay.reset();
    s->streams.clear();
    s->routes.clear();
    s->progress_routes.clear();
    s->standalone.reset();
  }

  // ---- connections ------------------------------------------------------------------------

  asio::awaitable<bool> handle(any_stream& stream, request_t& req);
  asio::awaitable<bool> handle_post(any_stream& stream, request_t& req);
  asio::awaitable<bool> handle_get(any_stream& stream, request_t& req);
  asio::awaitable<bool> handle_delete(any_stream& stream, request_t& req);
  asio::awaitable<bool> handle_legacy_get(any_stream& stream, request_t& req);
  asio::awaitable<bool> handle_legacy_post(any_stream& stream, request_t& req);
  asio::awaitable<bool> pump_stream(any_stream& stream, request_t& req, std::shared_ptr<front_session> s,
                                    std::shared_ptr<out_stream> out, std::shared_ptr<attachment> conn,
                                    std::vector<std::pair<std::string, std::string>> headers, std::string preamble,
                                    bool watch_for_disconnect);

  asio::awaitable<bool> send(any_stream& stream, transports::http_response&& res) {
    return server_.send(stream, std::move(res));
  }

  asio::awaitable<bool> send_error(any_stream& stream, const request_t& req, http::status status, int code,
                                   const std::string& message, std::string header = {}, std::string value = {}) {
    auto res = make_http_response(req, status, jsonrpc_error_body(code, message));
    if (!header.empty()) res.set(header, value);
    co_return co_await send(stream, std::move(res));
  }

  std::shared_ptr<front_session> find_session(const std::string& id) {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->ended || it->second->input_closed) return nullptr;
    it->second->last_active = clock_type::now();
    return it->second;
  }

  asio::awaitable<void> sweep();

  asio::any_io_executor executor_;
  http_front_options options_;
  session_options session_options_;
  server_factory factory_;
  session_hook hook_;
  transports::http_server server_;
  std::map<std::string, std::shared_ptr<front_session>> sessions_;
  std::size_t live_sessions_ = 0;
  bool stopping_ = false;
  asio::steady_timer stopped_wait_;
};

// ---------------------------------------------------------------------------------------------

asio::awaitable<void> http_front::impl::run() {
  auto self = shared_from_this();
  // The idle sweep runs beside the listener and is cancelled when the listener returns, instead
  // of staying detached until the io_context's shutdown destroys it. The handler is a named local:
  // built as a temporary inside the co_await expression, GCC 12 released its copy of `self` twice
  // (ASan: use-after-free of this object at exit).
  using namespace asio::experimental::awaitable_operators;
  transports::http_handler handler = [self](any_stream& stream, request_t& req) { return self->handle(stream, req); };
  co_await (server_.run(std::move(handler)) || sweep());
  // Graceful shutdown: sessions end their servers; connections close once their streams end.
  for (auto& [id, s] : sessions_) s->close_input();
  const auto deadline = clock_type::now() + options_.shutdown_grace;
  while (live_sessions_ > 0 && clock_type::now() < deadline) {
    stopped_wait_.expires_at(deadline);
    co_await stopped_wait_.async_wait(use_tuple);
  }
  server_.close_connections();
  if (live_sessions_ > 0) spdlog::warn("{} session(s) still ending at shutdown", live_sessions_);
}

void http_front::impl::stop() {
  if (stopping_) return;
  stopping_ = true;
  server_.stop();
  stopped_wait_.cancel();
}

asio::awaitable<void> http_front::impl::sweep() {
  asio::steady_timer tick(executor_);
  while (!stopping_) {
    tick.expires_after(std::min<std::chrono::milliseconds>(options_.idle_timeout / 4 + 1ms, 5000ms));
    auto [ec] = co_await tick.async_wait(use_tuple);
    if (ec == asio::error::operation_aborted) co_return;  // the listener has ended
    const auto now = clock_type::now();
    for (auto& [id, s] : sessions_) {
      bool streaming = false;
      for (auto& [sid, out] : s->streams) streaming = streaming || (out->conn && !out->conn->closed && !out->finished);
      if (!streaming && now - s->last_active > options_.idle_timeout && !s->input_closed) {
        spdlog::info("session {} idle for {} ms; ending it", id, options_.idle_timeout.count());
        s->close_input();
      }
    }
  }
}

// Listener checks (probes, Host/Origin, bearer token) are done: route by path and method.
asio::awaitable<bool> http_front::impl::handle(any_stream& stream, request_t& req) {
  const std::string_view target = req.target();
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == options_.mcp_path) {
    switch (req.method()) {
      case http::verb::post: co_return co_await handle_post(stream, req);
      case http::verb::get: co_return co_await handle_get(stream, req);
      case http::verb::delete_: co_return co_await handle_delete(stream, req);
      default:
        co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "GET, POST, DELETE");
    }
  }
  if (path == options_.sse_path) {
    if (req.method() == http::verb::get) co_return co_await handle_legacy_get(stream, req);
    co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "GET");
  }
  if (path == options_.message_path) {
    if (req.method() == http::verb::post) co_return co_await handle_legacy_post(stream, req);
    co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "POST");
  }
  co_return co_await send_error(stream, req, http::status::not_found, -32600, "Not found");
}

asio::awaitable<bool> http_front::impl::handle_post(any_stream& stream, request_t& req) {
  const std::string_view accept = req[http::field::accept];
  if (!transports::accepts(accept, "application/json") || !transports::accepts(accept, "text/event-stream"))
    co_return co_await send_error(stream, req, http::status::not_acceptable, -32000,
                                  "Not Acceptable: Client must accept both application/json and text/event-stream");
  if (!transports::is_media_type(req[http::field::content_type], "application/json"))
    co_return co_await send_error(stream, req, http::status::unsupported_media_type, -32000,
                                  "Unsupported Media Type: Content-Type must be application/json");
  const json doc = json::parse(req.body(), nullptr, false);
  if (doc.is_discarded()) co_return co_await send_error(stream, req, http::status::bad_request, -32700, "Parse error: invalid JSON");
  const body_summary summary = summarize(doc);
  if (!summary.valid)
    co_return co_await send_error(stream, req, http::status::bad_request, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
  const std::string_view version_header = req["mcp-protocol-version"];
  if (!version_header.empty() && !transports::is_known_protocol_version(version_header))
    co_return co_await send_error(stream, req, http::status::bad_request, -32000,
                                  "Bad Request: Unsupported protocol version: " + std::string(version_header));
  const std::string session_header(req["mcp-session-id"]);

  std::shared_ptr<front_session> s;
  if (summary.has_initialize) {
    if (summary.items != 1)
      co_return co_await send_error(stream, req, http::status::bad_request, -32600,
                                    "Invalid Request: Only one initialization request is allowed");
    if (sessions_.size() >= options_.max_sessions)
      co_return co_await send_error(stream, req, http::status::service_unavailable, -32000,
                                    "Service Unavailable: too many sessions (" + std::to_string(options_.max_sessions) + ")");
    auto created = create_session(session_kind::streamable);
    if (!created) {
      spdlog::error("cannot start a server for a new session: {}", created.error_message());
      // The answer to the client's initialize, with its id: the cause is what the client shows.
      auto res = make_http_response(req, http::status::bad_gateway,
                               jsonrpc_error_body(-32000, "mcp-warden cannot start the server: " + created.error_message(),
                                                  summary.request_ids.empty() ? json(nullptr) : summary.request_ids.front()));
      co_return co_await send(stream, std::move(res));
    }
    s = *created;
    s->protocol_version = summary.init_version;
  } else if (!session_header.empty()) {
    s = find_session(session_header);
    if (!s || s->kind != session_kind::streamable)
      co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  } else if (!summary.modern_version.empty() || transports::is_stateless_protocol_version(version_header)) {
    if (summary.request_ids.empty()) {
      // A stateless notification or response has nobody to go to without a session.
      co_return co_await send(stream, make_http_response(req, http::status::accepted, ""));
    }
    auto created = create_session(session_kind::stateless);
    if (!created)
      co_return co_await send_error(stream, req, http::status::bad_gateway, -32000,
                                    "mcp-warden cannot start the server: " + created.error_message());
    s = *created;
    s->protocol_version = summary.modern_version;
  } else {
    co_return co_await send_error(stream, req, http::status::bad_request, -32000,
                                  "Bad Request: Mcp-Session-Id header is required");
  }

  std::string body = transports::json_on_one_line(std::move(req.body()));
  if (summary.request_ids.empty()) {
    co_await s->inbound.async_send(error_code{}, std::move(body), use_tuple);
    co_return co_await send(stream, make_http_response(req, http::status::accepted, ""));
  }
  auto out = s->open_stream(false);
  for (const auto& id : summary.request_ids) {
    out->awaiting.insert(id_key(id));
    s->routes[id_key(id)] = out;
  }
  for (const auto& token : summary.progress_tokens) s->progress_routes[token] = out;
  auto conn = std::make_shared<attachment>(executor_);
  out->conn = conn;
  auto [sec] = co_await s->inbound.async_send(error_code{}, std::move(body), use_tuple);
  if (sec) {
    s->finish(*out);
    co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  }
  std::vector<std::pair<std::string, std::string>> headers;
  if (s->kind == session_kind::streamable) headers.emplace_back("Mcp-Session-Id", s->id);
  // Since 2025-11-25 a stream starts with an event id so that the client can resume it.
  std::string preamble;
  const std::string version = !version_header.empty() ? std::string(version_header) : s->protocol_version;
  if (version >= "2025-11-25" && s->kind == session_kind::streamable) preamble = "id: " + out->id + "_0\ndata: \n\n";
  const bool keep = co_await pump_stream(stream, req, s, out, conn, std::move(headers), std::move(preamble), false);
  if (s->kind == session_kind::stateless) s->close_input();  // one exchange per stateless session
  co_return keep;
}

// Nothing more comes from a client on an SSE stream: a completed read means it went away.
static asio::awaitable<void> watch_disconnect(any_stream& stream, std::shared_ptr<attachment> conn) {
  std::array<char, 512> sink;
  for (;;) {
    auto [ec, n] = co_await stream.visit([&](auto& st) { return st.async_read_some(asio::buffer(sink), use_tuple); });
    (void)n;
    if (ec || conn->closed) break;
  }
  conn->closed = true;
  conn->watching = false;
  conn->notify();
}

// Writes the SSE response head, then whatever is routed to `out` until it finishes or the
// connection goes. Returns whether the connection can carry another request.
asio::awaitable<bool> http_front::impl::pump_stream(any_stream& stream, request_t& req, std::shared_ptr<front_session> s,
                                                    std::shared_ptr<out_stream> out, std::shared_ptr<attachment> conn,
                                                    std::vector<std::pair<std::string, std::string>> headers,
                                                    std::string preamble, bool watch_for_disconnect) {
  http::response<http::empty_body> res{http::status::ok, req.version()};
  res.set(http::field::server, "mcp-warden");
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  for (auto& [k, v] : headers) res.set(k, v);
  const bool chunked = req.version() >= 11;
  res.keep_alive(chunked && req.keep_alive() && !watch_for_disconnect);
  if (chunked) res.chunked(true);
  http::response_serializer<http::empty_body> head{res};
  stream.expires_after(options_.listen.header_timeout);
  auto [hec, hn] = co_await stream.visit([&](auto& st) { return http::async_write_header(st, head, use_tuple); });
  (void)hn;
  if (hec) {
    conn->closed = true;
    co_return false;
  }
  auto write_text = [&](const std::string& text) -> asio::awaitable<bool> {
    stream.expires_after(options_.listen.header_timeout * 3);  // a client that stops reading is dropped
    if (chunked) {
      auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, http::make_chunk(asio::buffer(text)), use_tuple); });
      (void)n;
      co_return !ec;
    }
    auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, asio::buffer(text), use_tuple); });
    (void)n;
    co_return !ec;
  };
  bool ok = preamble.empty() || co_await write_text(preamble);
  if (watch_for_disconnect && ok) {
    conn->watching = true;
    asio::co_spawn(executor_, watch_disconnect(stream, conn), asio::detached);
  }
  bool last_chunk_sent = false;
  while (ok) {
    if (!conn->queue.empty()) {
      const event_text text = std::move(conn->queue.front());
      conn->queue.pop_front();
      conn->queued_bytes -= text->size();
      if (chunked && !watch_for_disconnect && out->finished && conn->queue.empty() && !conn->closed && out->conn == conn) {
        // The last event of a finished stream (usually the answer): it and the terminating
        // chunk in one write, one system call fewer per request.
        stream.expires_after(options_.listen.header_timeout * 3);
        auto [ec, n] = co_await stream.visit([&](auto& st) {
          return asio::async_write(st, beast::buffers_cat(http::make_chunk(asio::buffer(*text)), http::make_chunk_last()),
                                   use_tuple);
        });
        (void)n;
        ok = !ec;
        last_chunk_sent = ok;
        if (ok) break;
        continue;
      }
      ok = co_await write_text(*text);
      continue;
    }
    if (conn->closed || out->conn != conn) {
      ok = false;
      break;
    }
    if (out->finished || s->ended || stopping_) break;
    stream.expires_never();
    conn->wake.expires_at(clock_type::time_point::max());
    co_await conn->wake.async_wait(use_tuple);
  }
  if (out->conn == conn) out->conn.reset();
  if (conn->watching) {
    // The watcher reads from this stream: it must be done before the stream goes away.
    conn->closed = true;
    stream.close();
    while (conn->watching) {
      conn->wake.expires_at(clock_type::time_point::max());
      co_await conn->wake.async_wait(use_tuple);
    }
    co_return false;
  }
  if (!ok) {
    conn->closed = true;
    if (!out->finished && !out->standalone) spdlog::debug("session {}: stream {} lost its connection", s->id, out->id);
    co_return false;
  }
  if (chunked && !last_chunk_sent) {
    stream.expires_after(options_.listen.header_timeout);
    auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, http::make_chunk_last(), use_tuple); });
    (void)n;
    if (ec) co_return false;
  }
  co_return res.keep_alive() && !watch_for_disconnect;
}

asio::awaitable<bool> http_front::impl::handle_get(any_stream& stream, request_t& req) {
  if (!transports::accepts(req[http::field::accept], "text/event-stream"))
    co_return co_await send_error(stream, req, http::status::not_acceptable, -32000,
                                  "Not Acceptable: Client must accept text/event-stream");
  const std::string session_header(req["mcp-session-id"]);
  if (session_header.empty())
    co_return co_await send_error(stream, req, http::status::bad_request, -32000, "Bad Request: Mcp-Session-Id header is required");
  auto s = find_session(session_header);
  if (!s || s->kind != session_kind::streamable)
    co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  const std::string_view version_header = req["mcp-protocol-version"];
  if (!version_header.empty() && !transports::is_known_protocol_version(version_header))
    co_return co_await send_error(stream, req, http::status::bad_request, -32000,
                                  "Bad Request: Unsupported protocol version: " + std::string(version_header));
  auto conn = std::make_shared<attachment>(executor_);
  std::shared_ptr<out_stream> out;
  const std::string last_event_id(req["last-event-id"]);
  if (const auto sep = last_event_id.rfind('_'); sep != std::string::npos) {
    // Resumption: replay what the client missed on that stream, then continue it here.
    if (auto it = s->streams.find(last_event_id.substr(0, sep)); it != s->streams.end()) {
      out = it->second;
      std::uint64_t after = 0;
      try {
        after = std::stoull(last_event_id.substr(sep + 1));
      } catch (const std::exception&) {
        after = 0;
      }
      // What the client missed, in order: kept events, and an error for each answer given up.
      std::vector<std::pair<std::uint64_t, event_text>> missed;
      for (const auto& [seq, id] : out->lost_answers)
        if (seq > after)
          missed.emplace_back(seq, std::make_shared<const std::string>(transports::format_sse_event(
                                       jsonrpc_error_body(error_codes::limit_exceeded,
                                                          "mcp-warden: this answer was dropped from the stream's "
                                                          "replay buffer; send the request again",
                                                          id),
                                       out->id + "_" + std::to_string(seq), "message")));
      for (const auto& past : out->history)
        if (past.seq > after) missed.emplace_back(past.seq, past.text);
      std::stable_sort(missed.begin(), missed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [seq, text] : missed) {
        conn->queued_bytes += text->size();
        conn->queue.push_back(std::move(text));
      }
      if (out->conn) {
        out->conn->closed = true;
        out->conn->notify();
      }
    }
  }
  if (!out) {
    if (s->standalone && s->standalone->conn && !s->standalone->conn->closed)
      co_return co_await send_error(stream, req, http::status::conflict, -32000,
                                    "Conflict: Only one SSE stream is allowed per session");
    if (!s->standalone) s->standalone = s->open_stream(true);
    out = s->standalone;
    while (!s->backlog.empty()) {
      std::string bytes = std::move(s->backlog.front());
      s->backlog.pop_front();
      s->backlog_bytes -= bytes.size();
      s->deliver(*out, bytes);  // no connection yet: lands in the history ...
      const auto& text = out->history.back().text;
      conn->queued_bytes += text->size();  // ... and in this connection's queue
      conn->queue.push_back(text);
    }
  }
  out->conn = conn;
  std::vector<std::pair<std::string, std::string>> headers;
  headers.emplace_back("Mcp-Session-Id", s->id);
  co_return co_await pump_stream(stream, req, s, out, conn, std::move(headers), std::string(), true);
}

asio::awaitable<bool> http_front::impl::handle_delete(any_stream& stream, request_t& req) {
  const std::string session_header(req["mcp-session-id"]);
  if (session_header.empty())
    co_return co_await send_error(stream, req, http::status::bad_request, -32000, "Bad Request: Mcp-Session-Id header is required");
  auto s = find_session(session_header);
  if (!s) co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  spdlog::info("session {} deleted by the client", s->id);
  sessions_.erase(s->id);
  s->close_input();
  co_return co_await send(stream, make_http_response(req, http::status::ok, ""));
}

asio::awaitable<bool> http_front::impl::handle_legacy_get(any_stream& stream, request_t& req) {
  if (sessions_.size() >= options_.max_sessions)
    co_return co_await send_error(stream, req, http::status::service_unavailable, -32000,
                                  "Service Unavailable: too many sessions (" + std::to_string(options_.max_sessions) + ")");
  auto created = create_session(session_kind::legacy);
  if (!created)
    co_return co_await send_error(stream, req, http::status::bad_gateway, -32000,
                                  "mcp-warden cannot start the server: " + created.error_message());
  auto s = *created;
  s->standalone = s->open_stream(true);
  auto conn = std::make_shared<attachment>(executor_);
  s->standalone->conn = conn;
  const std::string preamble = transports::format_sse_event(options_.message_path + "?sessionId=" + s->id, {}, "endpoint");
  co_await pump_stream(stream, req, s, s->standalone, conn, std::vector<std::pair<std::string, std::string>>(), preamble, true);
  // The stream is the session: when the client hangs up, the session ends.
  if (!s->input_closed) spdlog::info("session {}: the client closed its event stream", s->id);
  sessions_.erase(s->id);
  s->close_input();
  co_return false;
}

asio::awaitable<bool> http_front::impl::handle_legacy_post(any_stream& stream, request_t& req) {
  const std::string_view target = req.target();
  std::string id;
  if (const auto q = target.find("sessionId="); q != std::string_view::npos) {
    id = std::string(target.substr(q + 10));
    id = id.substr(0, id.find('&'));
  }
  auto s = id.empty() ? nullptr : find_session(id);
  if (!s || s->kind != session_kind::legacy)
    co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  if (!transports::is_media_type(req[http::field::content_type], "application/json"))
    co_return co_await send_error(stream, req, http::status::unsupported_media_type, -32000,
                                  "Unsupported Media Type: Content-Type must be application/json");
  const json doc = json::parse(req.body(), nullptr, false);
  if (doc.is_discarded()) co_return co_await send_error(stream, req, http::status::bad_request, -32700, "Parse error: invalid JSON");
  auto [ec] = co_await s->inbound.async_send(error_code{}, transports::json_on_one_line(std::move(req.body())), use_tuple);
  if (ec) co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  co_return co_await send(stream, make_http_response(req, http::status::accepted, "Accepted", "text/plain"));
}

// ---------------------------------------------------------------------------------------------

http_front::http_front(asio::any_io_executor executor, http_front_options options, session_options session,
                       server_factory factory, session_hook hook)
    : impl_(std::make_shared<impl>(std::move(executor), std::move(options), session, std::move(factory), std::move(hook))) {}

http_front::~http_front() = default;

result<bool> http_front::listen() { return impl_->server_.listen(); }
bool http_front::accepting() const { return impl_->server_.accepting(); }
std::string http_front::url() const { return impl_->url(); }
asio::awaitable<void> http_front::run() { return impl_->run(); }
void http_front::stop() { impl_->stop(); }

}  // namespace warden::proxy
