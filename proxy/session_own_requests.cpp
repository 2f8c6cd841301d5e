// What mcp-warden asks on its own within a session: the user, about a request held meanwhile
// (elicitation/create), and the server, for its surface (the listings), plus the surface recorded
// from the client's own listings.
#include "proxy/session_impl.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace warden::proxy {

// Ids of our own requests: neither side can have issued them (the nonce is per session).
std::string session::impl::next_internal_id() {
  return "mcp-warden-" + nonce_ + "-" + std::to_string(++next_internal_id_);
}

asio::awaitable<void> session::impl::hold_and_ask(verdict&& decision, const message& msg, std::string&& raw) {
  const std::string id = next_internal_id();
  const std::string key = id_key(id);
  auto timer = std::make_shared<asio::steady_timer>(executor_, decision.more().ask_timeout);
  held_[key] = held_request{msg, std::move(raw), std::move(decision.more().resume), timer};
  spdlog::info("holding '{}' while the user is asked: {}", msg.method, decision.reason);
  spawn(expire_held(key, timer));
  json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "elicitation/create"}, {"params", std::move(decision.more().question)}};
  ++counters_.internal_requests;
  co_await send(to_client_, request.dump(-1, ' ', false, json::error_handler_t::replace));
}

asio::awaitable<void> session::impl::expire_held(std::string key, std::shared_ptr<asio::steady_timer> timer) {
  error_code ec;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (ec || !held_.count(key) || server_queue_closed_) co_return;
  spdlog::info("no answer from the user in time; the held request is decided without one");
  co_await resolve_held(key, nullptr);
}

asio::awaitable<void> session::impl::resolve_held(const std::string& key, const json* answer) {
  auto it = held_.find(key);
  if (it == held_.end()) co_return;
  held_request held = std::move(it->second);
  held_.erase(it);
  held.timer->cancel();
  verdict decision;
  try {
    decision = held.resume(answer);
  } catch (const std::exception& e) {
    ++counters_.inspector_failures;
    spdlog::error("deciding an asked request failed: {}; refusing it", e.what());
    decision.what = verdict::action::block;
    decision.more().reply = json::parse(error_response(held.msg.id, error_codes::server_unavailable, "mcp-warden: request refused"));
  }
  if (decision.what == verdict::action::ask) decision.what = verdict::action::block;
  if (server_queue_closed_ && decision.what != verdict::action::block) co_return;  // shutting down: failed later
  std::shared_ptr<const message> classified;                                       // what a writer that takes classified messages gets
  if (to_server_.takes_classified) classified = std::make_shared<const message>(std::move(held.msg));
  co_await apply(std::move(decision), classified ? *classified : held.msg, std::move(held.raw), classified, to_server_,
                 to_client_);
}

void session::impl::capture_response(const message& response, const pending_request& request) {
  const auto result = response.doc.find("result");
  if (result == response.doc.end()) return;
  if (request.method == "initialize") {
    recorder_.record_initialize(*result);
    spdlog::info("server '{}' {} speaks protocol {}", recorder_.surface().name, recorder_.surface().version,
                 recorder_.surface().protocol_version);
    if (surface_callback_) surface_callback_(recorder_.surface());
    maybe_start_enumeration();
    return;
  }
  if (auto kind = list_kind_of_method(request.method)) {
    const bool first_page = !request.params.is_object() || !request.params.contains("cursor");
    if (first_page) recorder_.start_listing(*kind, list_source::client);
    if (recorder_.add_page(*kind, list_source::client, *result) && surface_callback_)
      surface_callback_(recorder_.surface());
  }
}

// Runs once both the client's notifications/initialized has gone to the server and the
// initialize result is known (a client may send the notification before the answer arrives).
void session::impl::maybe_start_enumeration() {
  if (!options_.enumerate || enumeration_started_ || !client_initialized_ || !recorder_.initialized()) return;
  enumeration_started_ = true;
  for (list_kind kind : all_list_kinds)
    if (server_offers(recorder_.surface().capabilities, kind)) enumerate(kind);
}

void session::impl::enumerate(list_kind kind, const json& cursor) {
  if (server_queue_closed_) return;
  const auto index = static_cast<std::size_t>(kind);
  if (cursor.is_null()) {
    ++listing_generation_[index];
    recorder_.start_listing(kind, list_source::warden);
  }
  const std::string id = next_internal_id();
  internal_requests_[id_key(id)] = internal_request{kind, listing_generation_[index]};
  json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(list_method(kind))}};
  if (!cursor.is_null()) request["params"] = {{"cursor", cursor}};
  ++counters_.internal_requests;
  post(to_server_, request.dump());
}

void session::impl::consume_internal_response(const message& response, const internal_request& request) {
  const auto index = static_cast<std::size_t>(request.kind);
  if (request.generation != listing_generation_[index]) return;  // superseded by a newer listing
  const auto result = response.doc.find("result");
  if (result == response.doc.end()) {
    spdlog::warn("server refused mcp-warden's {}: {}", list_method(request.kind),
                 safe_excerpt(response.doc.value("error", json()).dump()));
    // An answer is an answer: the listing is over (what was confirmed before stays), so that
    // nothing waits for a list the server will not give.
    recorder_.finish_listing_refused(request.kind, list_source::warden);
    if (surface_callback_) surface_callback_(recorder_.surface());
    return;
  }
  if (recorder_.add_page(request.kind, list_source::warden, *result)) {
    spdlog::info("confirmed surface: {} {}", recorder_.count(request.kind), list_result_key(request.kind));
    if (surface_callback_) surface_callback_(recorder_.surface());
    return;
  }
  if (const auto next = result->find("nextCursor"); next != result->end()) enumerate(request.kind, *next);
}

}  // namespace warden::proxy
