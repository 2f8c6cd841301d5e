// Streamable HTTP towards the server: each message a POST answered with JSON or an SSE stream, the
// standalone GET stream, resumption with Last-Event-ID, re-initialisation after a 404; and the
// delivery of what the server sends to the session (shared with the legacy transport).
#include "transports/http_upstream_state.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

#include "transports/http_server.hpp"

namespace warden::transports {

using namespace std::chrono_literals;

namespace {

using protocol::message_kind;

// The keys of the ids a message answers (a response or a batch of them).
void answered_keys(const protocol::message& msg, std::vector<std::string>& out) {
  if (msg.kind == message_kind::response) out.push_back(msg.key());
  for (const auto& item : msg.items)
    if (item.kind == message_kind::response) out.push_back(item.key());
}

}  // namespace

// ---- output -----------------------------------------------------------------------------

asio::awaitable<void> upstream_state::emit(std::string bytes, std::shared_ptr<protocol::parse_outcome> classified) {
  frame f;
  f.size = bytes.size();
  f.bytes = json_on_one_line(std::move(bytes));  // same length: classifications stay valid
  if (!classified) classified = std::make_shared<protocol::parse_outcome>(protocol::parse_message(f.bytes, limits_));
  co_await output_.async_send(error_code{}, std::move(f), std::move(classified), use_tuple);
}

asio::awaitable<void> upstream_state::emit_error(const json& id, int code, const std::string& text) {
  co_await emit(protocol::error_response(id, code, "mcp-warden: " + text));
}

asio::awaitable<void> upstream_state::fail_requests(const std::set<std::string>& ids, int code, const std::string& text) {
  for (const auto& key : ids) co_await emit_error(json::parse(key), code, text);
}

// A frame from the server, classified here once and handed to the session with it (which drops
// what is not a message): answers to `awaiting` are crossed off; the initialize answer tells the
// negotiated protocol version.
asio::awaitable<void> upstream_state::deliver(std::string bytes, std::set<std::string>& awaiting) {
  bytes = json_on_one_line(std::move(bytes));
  auto classified = std::make_shared<protocol::parse_outcome>(protocol::parse_message(bytes, limits_));
  std::vector<std::string> answered;
  if (classified->ok) answered_keys(classified->value, answered);
  for (const auto& key : answered) {
    awaiting.erase(key);
    if (key == initialize_key_ && classified->value.kind == message_kind::response)
      protocol_version_ = protocol::string_at(classified->value, bytes, {"result", "protocolVersion"}).value_or("");
  }
  co_await emit(std::move(bytes), std::move(classified));
}

asio::awaitable<void> upstream_state::deliver_oversized(const sse_event& event, std::set<std::string>& awaiting) {
  frame f;
  f.oversized = true;
  f.size = event.size;
  f.head = event.head;
  f.tail = event.tail;
  if (awaiting.size() == 1) awaiting.clear();  // the session answers the client from the excerpts
  co_await output_.async_send(error_code{}, std::move(f), nullptr, use_tuple);
}

// Reads an SSE body: messages are delivered, the last event id and retry are remembered.
// Returns "" at a clean end of stream, else the cause.
asio::awaitable<std::string> upstream_state::read_events(lease& l, std::set<std::string>& awaiting, std::string& last_id,
                                                         std::optional<std::uint64_t>& retry, bool& progress,
                                                         std::function<bool(const sse_event&)> special) {
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
      co_await deliver(std::move(e.data), awaiting);
    }
    ready.clear();
    co_return !aborted_;
  });
  co_return cause;
}

// ---- Streamable HTTP --------------------------------------------------------------------

asio::awaitable<void> upstream_state::post(std::string body, message_info info) {
  auto self = shared_from_this();
  std::set<std::string> awaiting = awaited_keys(info);
  if (info.initialize && !info.request_ids.empty()) initialize_key_ = id_key(info.request_ids.front());

  auto req = make_post(&info, body);
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

asio::awaitable<void> upstream_state::handle_response(std::unique_ptr<lease> l, response_head head, std::string body, message_info info, std::set<std::string> awaiting) {
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
    co_await read_detail(*l, detail);
    const json doc = json::parse(detail, nullptr, false);
    if (doc.is_object() && doc.contains("error") && doc["error"].is_object())
      detail = doc["error"].value("message", detail);
    const std::string text = refusal_text(head, detail);
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
    co_await fail_requests(awaiting, limit_exceeded, "the server's answer exceeds the message size limit of " + std::to_string(options_.max_message_bytes) + " bytes");
    co_return;
  }
  if (!cause.empty()) {
    co_await fail_requests(awaiting, server_unavailable, "reading the server's answer failed: " + cause);
    co_return;
  }
  l->give_back();
  l.reset();
  if (json_body.find_first_not_of(" \t\r\n") != std::string::npos) co_await deliver(std::move(json_body), awaiting);
  if (!awaiting.empty())
    co_await fail_requests(awaiting, server_unavailable, "the server answered HTTP " + std::to_string(head.status) + " without a response");
}

// The server dropped our session (404): start a new one with the client's own initialize
// (under an id of ours, answer not forwarded), then go on. The client keeps its view.
asio::awaitable<bool> upstream_state::reinitialize() {
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
    const std::string request = init.dump();
    message_info info = note_own_message(request);
    auto req = make_post(&info, request);
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
      auto req2 = make_post(nullptr, note.dump());
      std::string failure2;
      if (auto l2 = co_await send_request(req2, failure2); !l2) ok = false;
    }
  }
  reinit_running_ = false;
  if (ok) spdlog::info("{}: new session {}", url_.to_string(), session_id_);
  co_return ok && !session_id_.empty();
}

// Opens a GET for `last_id` and reads it like the stream it continues.
asio::awaitable<void> upstream_state::resume(std::set<std::string> awaiting, std::string last_id,
                                             std::optional<std::uint64_t> retry, std::string cause) {
  for (unsigned attempt = 0; !awaiting.empty() && !aborted_ && !last_id.empty() && attempt < options_.max_reconnects; ++attempt) {
    asio::steady_timer pause(executor_, std::chrono::milliseconds(retry.value_or(1000)));
    co_await pause.async_wait(use_tuple);
    if (aborted_) co_return;
    auto req = make_stream_get();
    req.set("Last-Event-ID", last_id);
    std::string failure;
    auto l = co_await send_request(req, failure);
    if (!l) {
      cause = failure;
      continue;
    }
    const response_head head = head_of(*l->parser);
    if (!is_event_stream(head)) {
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
asio::awaitable<void> upstream_state::get_stream(std::shared_ptr<upstream_state> self) {
  std::string last_id;
  std::optional<std::uint64_t> retry;
  unsigned failures = 0;
  while (!self->closing_ && failures < self->options_.max_reconnects) {
    auto req = self->make_stream_get();
    if (!last_id.empty()) req.set("Last-Event-ID", last_id);
    std::string failure;
    auto l = co_await self->send_request(req, failure);
    if (!l) {
      ++failures;
    } else {
      const response_head head = self->head_of(*l->parser);
      if (head.status == 405) co_return;  // the server offers no GET stream
      if (!is_event_stream(head)) {
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

}  // namespace warden::transports
