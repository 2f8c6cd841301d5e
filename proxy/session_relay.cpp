// The read side of a session: one relay loop per direction, what it refuses, and what happens to
// each message on its way (bookkeeping of pending requests, inspection, the verdict applied).
#include "proxy/session_impl.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace warden::proxy {

namespace {

// The params kept with a relayed request: only a listing's are read later (its cursor), so a
// tools/call's arguments are not copied; null when the document was not built (see needs_document).
json listing_params_of(const message& item) {
  if (!item.has_document || !list_kind_of_method(item.method)) return json();
  const auto params = item.doc.find("params");
  return params == item.doc.end() ? json() : *params;
}

// Recovers the id of an over-size message from its retained excerpts, when it sits where
// JSON-RPC peers put it: first member after "jsonrpc", or the last member of the object.
json salvage_id(const transports::frame& frame) {
  auto parse_value = [](std::string_view text) -> json {
    try {
      json value = json::parse(text);
      return value.is_string() || value.is_number_integer() ? value : json();
    } catch (const json::exception&) {
      return json();
    }
  };
  // ... ,"id":<value>}
  std::string_view tail = frame.tail;
  while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\r')) tail.remove_suffix(1);
  if (!tail.empty() && tail.back() == '}') {
    const auto key = tail.rfind("\"id\":");
    if (key != std::string_view::npos) {
      json id = parse_value(tail.substr(key + 5, tail.size() - 1 - (key + 5)));
      if (!id.is_null()) return id;
    }
  }
  // {"jsonrpc":"2.0","id":<value>, ...
  std::string_view head = frame.head;
  constexpr std::string_view prefix = R"({"jsonrpc":"2.0","id":)";
  if (head.substr(0, prefix.size()) == prefix) {
    head.remove_prefix(prefix.size());
    const auto end = head.find(',');
    if (end != std::string_view::npos) return parse_value(head.substr(0, end));
  }
  return json();
}

}  // namespace

// One direction of the session: reads from one end, refuses what cannot be relayed, and hands
// the rest to that direction's handling, which queues it for the other end. The two directions
// differ only in what they refuse and how (see refuse_oversized and refuse_invalid).
asio::awaitable<void> session::impl::relay(direction from) {
  const bool from_client = from == direction::client_to_server;
  transports::message_reader& in_stream = from_client ? *client_in_ : server_->output();
  message_queue& forward_queue = from_client ? to_server_ : to_client_;
  std::uint64_t& messages = from_client ? counters_.client_messages : counters_.server_messages;
  const parse_limits limits{options_.max_depth, /*document=*/false};
  while (!finished_) {
    transports::read_outcome in;
    if (!in_stream.try_take_buffered(in.message)) in = co_await in_stream.async_read_message();
    forward_queue.more_coming = in_stream.has_buffered();
    if (in.ec) {
      if (in.ec != asio::error::eof && in.ec != asio::error::operation_aborted)
        spdlog::warn("reading from the {} failed: {}", from_client ? "client" : "server", in.ec.message());
      break;
    }
    ++messages;
    if (in.message.oversized) {
      co_await refuse_oversized(from, in.message);
      continue;
    }
    // Classified once: by the reader when it had to (the HTTP upstream and front), else here; kept
    // shared when the other end's writer takes it along (see message_writer::takes_classified).
    std::shared_ptr<parse_outcome>& shared = in.classified;
    if (!shared && forward_queue.takes_classified)
      shared = std::make_shared<parse_outcome>(parse_message(in.message.bytes, limits));
    parse_outcome local = shared ? parse_outcome{} : parse_message(in.message.bytes, limits);
    parse_outcome& parsed = shared ? *shared : local;
    if (!parsed.ok) {
      co_await refuse_invalid(from, parsed.failure, in.message.bytes);
      continue;
    }
    if (from_client && parsed.value.had_invalid_utf8)
      spdlog::warn("client message contains invalid UTF-8; forwarded unchanged");
    if (needs_document(parsed.value, from)) load_document(parsed.value, in.message.bytes);
    // A batch's members are taken apart by its inspection (inspect_batch): its writer classifies it.
    std::shared_ptr<const message> classified;
    if (shared && forward_queue.takes_classified && parsed.value.kind != message_kind::batch)
      classified = std::shared_ptr<const message>(shared, &shared->value);
    if (from_client) co_await handle_client_message(parsed.value, std::move(in.message.bytes), classified);
    else co_await handle_server_message(parsed.value, std::move(in.message.bytes), classified);
    if (writer_turn_due(forward_queue)) co_await asio::post(executor_, asio::use_awaitable);
  }
  (from_client ? client_input_done_ : server_output_done_) = true;
  notify();
}

// A message over --max-message-bytes is never relayed. The client is told about its own (under
// the id salvaged from the excerpts); the server's is dropped, and when it answers a pending
// client request the client gets an error for that request instead.
asio::awaitable<void> session::impl::refuse_oversized(direction from, const transports::frame& frame) {
  const json id = salvage_id(frame);
  if (from == direction::client_to_server) {
    ++counters_.client_rejected;
    spdlog::warn("client message of {} bytes exceeds the limit of {} bytes; refused",
                 frame.size, options_.max_message_bytes);
    co_await send(to_client_, error_response(id, error_codes::invalid_request,
                                             "mcp-warden: message of " + std::to_string(frame.size) +
                                                 " bytes exceeds the limit of " +
                                                 std::to_string(options_.max_message_bytes) + " bytes"));
    co_return;
  }
  ++counters_.server_dropped;
  spdlog::error("server message of {} bytes exceeds the limit of {} bytes; dropped",
                frame.size, options_.max_message_bytes);
  if (id.is_null()) co_return;
  if (auto it = client_requests_.find(id_key(id)); it != client_requests_.end()) {
    client_requests_.erase(it);
    co_await send(to_client_, error_response(id, error_codes::limit_exceeded,
                                             "mcp-warden: the server's answer (" + std::to_string(frame.size) +
                                                 " bytes) exceeds the message size limit"));
  }
}

// A line that is not a JSON-RPC message: the client gets the parse error as an answer; the
// server's is dropped (answering a server with an error would only start a quarrel).
asio::awaitable<void> session::impl::refuse_invalid(direction from, const parse_failure& failure,
                                                    std::string_view bytes) {
  if (from == direction::client_to_server) {
    ++counters_.client_rejected;
    spdlog::warn("client sent an invalid message ({}): {}", failure.reason, safe_excerpt(bytes));
    co_await send(to_client_, error_response(failure.id, failure.code, "mcp-warden: " + failure.reason));
    co_return;
  }
  ++counters_.server_dropped;
  spdlog::warn("server sent an invalid message ({}); dropped: {}", failure.reason, safe_excerpt(bytes));
}

// Passthrough needs only the envelope (kind, method, id); the whole document is built only when
// something will read it: an inspector that says so, or the session's own bookkeeping below.
bool session::impl::needs_document(const message& msg, direction from) const {
  if (msg.has_document) return true;
  for (const auto& next : inspectors_)
    if (next->needs_document(msg, from)) return true;
  const auto is_listing = [](std::string_view method) {
    return method == "initialize" || list_kind_of_method(method).has_value();
  };
  switch (msg.kind) {
    case message_kind::notification:
      return msg.method == "notifications/cancelled";  // its params name the request
    case message_kind::request:
      return from == direction::client_to_server && is_listing(msg.method);  // cursor of a page
    case message_kind::response: {
      if (from == direction::client_to_server) return !held_.empty();  // maybe the user's answer
      const std::string& key = msg.key();
      if (internal_requests_.count(key)) return true;  // our own enumeration
      const auto it = client_requests_.find(key);
      return it != client_requests_.end() && is_listing(it->second.method);  // recorded surface
    }
    case message_kind::batch:
      return true;
  }
  return true;
}

void session::impl::note_client_item(const message& item) {
  switch (item.kind) {
    case message_kind::request:
      client_requests_[item.key()] =
          pending_request{item.method, listing_params_of(item), clock_type::now()};
      break;
    case message_kind::response:
      server_requests_.erase(item.key());
      break;
    case message_kind::notification:
      if (item.method == "notifications/cancelled") {
        // After a cancellation the server sends no answer: forget the request.
        const json& params = item.doc.value("params", json::object());
        if (params.is_object() && params.contains("requestId"))
          client_requests_.erase(id_key(params["requestId"]));
      }
      break;
    case message_kind::batch:
      break;
  }
}

asio::awaitable<void> session::impl::handle_client_message(message& msg, std::string&& raw,
                                                           std::shared_ptr<const message>& classified) {
  if (msg.kind == message_kind::batch) {
    std::size_t requests = 0;
    for (const auto& item : msg.items) requests += item.kind == message_kind::request;
    if (client_requests_.size() + requests > options_.max_pending) {
      ++counters_.client_rejected;
      spdlog::warn("batch refused: more than {} requests pending", options_.max_pending);
      co_await send(to_client_, error_response(nullptr, error_codes::limit_exceeded,
                                               "mcp-warden: too many requests pending"));
      co_return;
    }
    for (const auto& item : msg.items) note_client_item(item);
    co_await inspect_batch(msg, std::move(raw), direction::client_to_server);
    co_return;
  }
  if (msg.kind == message_kind::response && !held_.empty()) {
    // The user's answer to one of our own questions: never forwarded.
    if (const std::string& key = msg.key(); held_.count(key)) {
      co_await resolve_held(key, &msg.doc);
      co_return;
    }
  }
  if (msg.kind == message_kind::request && client_requests_.size() >= options_.max_pending &&
      !client_requests_.count(msg.key())) {
    ++counters_.client_rejected;
    spdlog::warn("request '{}' refused: {} requests already pending", msg.method, client_requests_.size());
    co_await send(to_client_, error_response(msg.id, error_codes::limit_exceeded,
                                             "mcp-warden: too many requests pending"));
    co_return;
  }
  note_client_item(msg);

  message_context context;
  context.from = direction::client_to_server;
  context.raw = raw;
  verdict decision = run_inspectors(msg, context);
  const bool starts_session = msg.kind == message_kind::notification &&
                              msg.method == "notifications/initialized";
  // The common case (forward, room in the queue) needs no further coroutine frame.
  if (decision.what != verdict::action::forward || !try_enqueue(to_server_, raw, classified))
    co_await apply(std::move(decision), msg, std::move(raw), std::move(classified), to_server_, to_client_);

  if (starts_session) {
    client_initialized_ = true;
    maybe_start_enumeration();
  }
}

bool session::impl::note_server_item(const message& item) {
  switch (item.kind) {
    case message_kind::response: {
      const std::string& key = item.key();
      if (auto own = internal_requests_.find(key); own != internal_requests_.end()) {
        const internal_request request = own->second;
        internal_requests_.erase(own);
        consume_internal_response(item, request);
        return false;
      }
      if (auto it = client_requests_.find(key); it != client_requests_.end()) {
        capture_response(item, it->second);
        client_requests_.erase(it);
      }
      return true;
    }
    case message_kind::request:
      server_requests_[item.key()] = pending_request{item.method, json(), clock_type::now()};
      return true;
    case message_kind::notification:
      if (auto kind = list_kind_of_change(item.method); kind && options_.enumerate && enumeration_started_) {
        enumerate(*kind);
        if (*kind == list_kind::resources &&
            server_offers(recorder_.surface().capabilities, list_kind::resource_templates))
          enumerate(list_kind::resource_templates);
      }
      return true;
    case message_kind::batch:
      return true;
  }
  return true;
}

asio::awaitable<void> session::impl::handle_server_message(message& msg, std::string&& raw,
                                                           std::shared_ptr<const message>& classified) {
  if (msg.kind == message_kind::batch) {
    co_await inspect_batch(msg, std::move(raw), direction::server_to_client);
    co_return;
  }
  if (!note_server_item(msg)) co_return;  // the answer to one of our own requests

  message_context context;
  context.from = direction::server_to_client;
  context.raw = raw;
  verdict decision = run_inspectors(msg, context);
  if (decision.what != verdict::action::forward || !try_enqueue(to_client_, raw, classified))
    co_await apply(std::move(decision), msg, std::move(raw), std::move(classified), to_client_, to_server_);
}

verdict session::impl::run_inspectors(const message& msg, const message_context& context) {
  for (auto& next : inspectors_) {
    try {
      verdict decision = next->inspect(msg, context);
      if (decision.what != verdict::action::forward) return decision;
    } catch (const std::exception& e) {
      ++counters_.inspector_failures;
      spdlog::error("inspector '{}' failed: {}; message forwarded unchanged", next->name(), e.what());
    }
  }
  return verdict::forward();
}

asio::awaitable<void> session::impl::apply(verdict&& decision, const message& msg, std::string&& raw,
                                           std::shared_ptr<const message> classified, message_queue& forward_queue,
                                           message_queue& reply_queue) {
  switch (decision.what) {
    case verdict::action::forward:
      co_await send(forward_queue, std::move(raw), std::move(classified));
      break;
    case verdict::action::replace:
      spdlog::info("message replaced: {}", decision.reason);
      co_await send(forward_queue, decision.more().replacement.dump(-1, ' ', false, json::error_handler_t::replace));
      break;
    case verdict::action::ask:
      if (&forward_queue == &to_server_ && msg.kind == message_kind::request && decision.more().resume && !server_queue_closed_) {
        co_await hold_and_ask(std::move(decision), msg, std::move(raw));
        break;
      }
      // Nobody to ask: the inspector decides without an answer (resume must not ask again).
      if (decision.more().resume) {
        verdict fallback = decision.more().resume(nullptr);
        if (fallback.what == verdict::action::ask) fallback.what = verdict::action::block;
        co_await apply(std::move(fallback), msg, std::move(raw), std::move(classified), forward_queue, reply_queue);
      }
      break;
    case verdict::action::block:
      spdlog::info("message blocked: {}", decision.reason);
      if (msg.kind == message_kind::request) {
        // The sender gets an answer instead; forget the request we will never forward.
        auto& pending = &forward_queue == &to_server_ ? client_requests_ : server_requests_;
        pending.erase(msg.key());
        if (!decision.more().reply.is_null())
          co_await send(reply_queue, decision.more().reply.dump(-1, ' ', false, json::error_handler_t::replace));
      }
      break;
  }
}

// Batch members are inspected one by one; members kept unchanged keep the original bytes when the
// whole batch is unchanged, otherwise the batch is re-serialised without what was blocked.
asio::awaitable<void> session::impl::inspect_batch(message& msg, std::string&& raw, direction from) {
  const bool from_client = from == direction::client_to_server;
  message_queue& forward_queue = from_client ? to_server_ : to_client_;
  message_queue& reply_queue = from_client ? to_client_ : to_server_;
  json kept = json::array();
  std::vector<json> replies;
  bool changed = false;
  for (auto& item : msg.items) {
    if (!from_client && !note_server_item(item)) {  // answer to our own request: consumed
      changed = true;
      continue;
    }
    message_context context;
    context.from = from;
    verdict decision = inspectors_.empty() ? verdict::forward() : run_inspectors(item, context);
    if (decision.what == verdict::action::ask) {  // cannot hold one member of a batch
      decision = decision.more().resume ? decision.more().resume(nullptr) : verdict{};
      if (decision.what == verdict::action::ask) decision.what = verdict::action::block;
    }
    switch (decision.what) {
      case verdict::action::forward:
        kept.push_back(std::move(item.doc));
        break;
      case verdict::action::replace:
        spdlog::info("batch member replaced: {}", decision.reason);
        kept.push_back(std::move(decision.more().replacement));
        changed = true;
        break;
      default:
        spdlog::info("batch member blocked: {}", decision.reason);
        changed = true;
        if (item.kind == message_kind::request) {
          (from_client ? client_requests_ : server_requests_).erase(item.key());
          if (!decision.more().reply.is_null()) replies.push_back(std::move(decision.more().reply));
        }
    }
  }
  if (!changed) co_await send(forward_queue, std::move(raw));
  else if (!kept.empty()) co_await send(forward_queue, kept.dump(-1, ' ', false, json::error_handler_t::replace));
  for (auto& reply : replies) co_await send(reply_queue, reply.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace warden::proxy
