// Request handling of the HTTP front: Streamable HTTP (POST, GET, DELETE on one endpoint) and the
// legacy HTTP+SSE endpoints, each checked and turned into session input and SSE streams.
#include "proxy/http_front_impl.hpp"

#include <spdlog/spdlog.h>

#include <optional>

#include "protocol/jsonrpc.hpp"
#include "transports/http_rules.hpp"
#include "transports/sse_parser.hpp"

namespace warden::proxy {

using namespace protocol;

namespace {

using transports::make_http_response;

// What a POST body holds, as far as routing is concerned.
struct body_summary {
  bool valid = true;  // every item is a JSON-RPC 2.0 message
  std::vector<json> request_ids;
  std::vector<std::string> progress_tokens;  // id keys of _meta.progressToken
  bool has_initialize = false;
  std::size_t items = 0;
  std::string modern_version;  // _meta protocol version (stateless era)
  std::string init_version;    // initialize params.protocolVersion
};

// Read from the body's classification (`bytes`: the body it was classified from).
body_summary summarize(const parse_outcome& parsed, std::string_view bytes) {
  body_summary s;
  s.valid = parsed.ok;
  auto note = [&](const message& item) {
    ++s.items;
    if (string_at(item, bytes, {"jsonrpc"}) != "2.0") s.valid = false;
    if (item.kind == message_kind::request) s.request_ids.push_back(item.id);
    if (item.kind != message_kind::request && item.kind != message_kind::notification) return;
    if (item.method == "initialize") {
      s.has_initialize = true;
      s.init_version = string_at(item, bytes, {"params", "protocolVersion"}).value_or("");
    }
    if (const json token = value_at(item, bytes, {"params", "_meta", "progressToken"}); !token.is_null())
      s.progress_tokens.push_back(id_key(token));
    if (auto version = string_at(item, bytes, {"params", "_meta", transports::meta_protocol_version})) s.modern_version = *version;
  };
  if (!parsed.ok) return s;
  if (parsed.value.kind == message_kind::batch) {
    for (const auto& item : parsed.value.items) note(item);
  } else {
    note(parsed.value);
  }
  return s;
}

// The 400 for a body that is not JSON (or nests deeper than the session accepts).
std::string parse_error_text(const parse_failure& failure) {
  return failure.reason.rfind("invalid JSON", 0) == 0 ? "Parse error: invalid JSON" : "Parse error: " + failure.reason;
}

// A POST body (Streamable HTTP or legacy), checked and classified once: on one line with its
// classification, or the error the client gets instead (`refused`: 415 for another media type,
// 400 for what is not JSON). What is JSON but no message is left for the caller to judge.
struct classified_body {
  std::string body;
  std::shared_ptr<parse_outcome> classified;
  std::optional<http::status> refused;
  int code = 0;
  std::string message;
};

classified_body classify_body(request_t& req, const parse_limits& limits) {
  classified_body out;
  if (!transports::is_media_type(req[http::field::content_type], "application/json")) {
    out.refused = http::status::unsupported_media_type;
    out.code = -32000;
    out.message = "Unsupported Media Type: Content-Type must be application/json";
    return out;
  }
  out.body = transports::json_on_one_line(std::move(req.body()));
  out.classified = std::make_shared<parse_outcome>(parse_message(out.body, limits));
  if (!out.classified->ok && out.classified->failure.code == error_codes::parse_error) {
    out.refused = http::status::bad_request;
    out.code = -32700;
    out.message = parse_error_text(out.classified->failure);
  }
  return out;
}

}  // namespace

asio::awaitable<bool> http_front::impl::send_error(any_stream& stream, const request_t& req, http::status status, int code,
                                                   const std::string& message, std::string header, std::string value) {
  auto res = make_http_response(req, status, error_response(nullptr, code, message));
  if (!header.empty()) res.set(header, value);
  co_return co_await send(stream, std::move(res));
}

asio::awaitable<bool> http_front::impl::handle_post(any_stream& stream, request_t& req) {
  const std::string_view accept = req[http::field::accept];
  if (!transports::accepts(accept, "application/json") || !transports::accepts(accept, "text/event-stream"))
    co_return co_await send_error(stream, req, http::status::not_acceptable, -32000,
                                  "Not Acceptable: Client must accept both application/json and text/event-stream");
  // Classified once, here: the session takes this classification with the body.
  auto [body, classified, refused, code, message] = classify_body(req, limits());
  if (refused) co_return co_await send_error(stream, req, *refused, code, message);
  const body_summary summary = summarize(*classified, body);
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
                                    error_response(summary.request_ids.empty() ? json(nullptr) : summary.request_ids.front(), -32000,
                                                   "mcp-warden cannot start the server: " + created.error_message()));
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

  if (summary.request_ids.empty()) {
    co_await s->inbound.async_send(error_code{}, std::move(body), std::move(classified), use_tuple);
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
  auto [sec] = co_await s->inbound.async_send(error_code{}, std::move(body), std::move(classified), use_tuple);
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
                                       error_response(id, error_codes::limit_exceeded,
                                                      "mcp-warden: this answer was dropped from the stream's "
                                                      "replay buffer; send the request again"),
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
  // Classified once, here; what is JSON but no message gets the session's answer on the stream.
  auto [body, classified, refused, code, message] = classify_body(req, limits());
  if (refused) co_return co_await send_error(stream, req, *refused, code, message);
  auto [ec] = co_await s->inbound.async_send(error_code{}, std::move(body), std::move(classified), use_tuple);
  if (ec) co_return co_await send_error(stream, req, http::status::not_found, -32001, "Session not found");
  co_return co_await send(stream, make_http_response(req, http::status::accepted, "Accepted", "text/plain"));
}

}  // namespace warden::proxy
