// The session table of the HTTP front: each MCP session with its proxy::session, its SSE streams
// and the routing of server messages to them.
#include "proxy/http_front_impl.hpp"

#include <openssl/rand.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

#include "metrics/warden_metrics.hpp"
#include "protocol/jsonrpc.hpp"
#include "transports/sse_parser.hpp"

namespace warden::proxy {

using namespace protocol;

namespace {

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

}  // namespace

void http_front::impl::front_session::route(std::string bytes, std::shared_ptr<const message> classified) {
  if (kind == session_kind::legacy) {
    if (standalone) deliver(*standalone, bytes);
    return;
  }
  if (!classified) {
    // The envelope scan reads id and method without building the message as a document (a
    // large result would be copied into one just to find its id).
    parse_outcome parsed = parse_message(bytes, front.limits());
    if (parsed.ok) classified = std::make_shared<const message>(std::move(parsed.value));
  }
  std::shared_ptr<out_stream> target;
  bool answers = false;
  std::vector<json> answered;
  const message none{};
  const message& msg = classified ? *classified : none;
  const message& first = msg.kind == message_kind::batch && !msg.items.empty() ? msg.items.front() : msg;
  if (!classified) {
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
    if (const json token = value_at(first, bytes, {"params", "progressToken"}); !token.is_null())
      if (auto it = progress_routes.find(id_key(token)); it != progress_routes.end() && !it->second->finished)
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

void http_front::impl::front_session::deliver(out_stream& s, std::string_view bytes, std::vector<json> answers) {
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

void http_front::impl::front_session::finish(out_stream& s) {
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
void http_front::impl::front_session::trim_finished_history() {
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

void http_front::impl::front_session::end_all_streams() {
  for (auto& [sid, s] : streams) {
    s->finished = true;
    if (s->conn) s->conn->notify();
  }
}

// The session's client side: reads what POSTs delivered, writes into the routing above.
class http_front::impl::front_reader final : public transports::message_reader {
 public:
  explicit front_reader(std::shared_ptr<front_session> s) : s_(std::move(s)) {}
  asio::awaitable<transports::read_outcome> async_read_message() override {
    auto [ec, bytes, classified] = co_await s_->inbound.async_receive(use_tuple);
    if (ec) co_return transports::read_outcome{asio::error::eof, {}, {}};
    transports::read_outcome out;
    out.message.size = bytes.size();
    out.message.bytes = std::move(bytes);
    out.classified = std::move(classified);
    co_return out;
  }
  void cancel() override { s_->close_input(); }

 private:
  std::shared_ptr<front_session> s_;
};

class http_front::impl::front_writer final : public transports::message_writer {
 public:
  explicit front_writer(std::shared_ptr<front_session> s) : s_(std::move(s)) {}
  // Never waits: routing only queues (a client that does not read is dropped, see deliver).
  asio::awaitable<error_code> async_write_message(std::string_view bytes) override {
    return async_write_classified(bytes, nullptr);
  }
  bool takes_classified() const override { return true; }
  asio::awaitable<error_code> async_write_classified(std::string_view bytes,
                                                     std::shared_ptr<const message> classified) override {
    if (!s_->ended) s_->route(std::string(bytes), std::move(classified));
    co_return error_code{};
  }
  void close() override { s_->end_all_streams(); }

 private:
  std::shared_ptr<front_session> s_;
};

result<std::shared_ptr<http_front::impl::front_session>> http_front::impl::create_session(session_kind kind) {
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

asio::awaitable<void> http_front::impl::run_session(std::shared_ptr<impl> self, std::shared_ptr<front_session> s) {
  spdlog::info("session {} started ({})", s->id.empty() ? "(stateless)" : s->id,
               s->kind == session_kind::legacy ? "HTTP+SSE" : s->kind == session_kind::stateless ? "stateless"
                                                                                                 : "Streamable HTTP");
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

std::shared_ptr<http_front::impl::front_session> http_front::impl::find_session(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->ended || it->second->input_closed) return nullptr;
  it->second->last_active = clock_type::now();
  return it->second;
}

}  // namespace warden::proxy
