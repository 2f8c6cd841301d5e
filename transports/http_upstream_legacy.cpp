// The legacy HTTP+SSE transport (2024-11-05) towards the server: the GET stream gives the endpoint
// to POST to; answers come back on that stream.
#include "transports/http_upstream_state.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

namespace warden::transports {

asio::awaitable<bool> upstream_state::ensure_legacy_endpoint(std::string& failure) {
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

asio::awaitable<void> upstream_state::legacy_stream(std::shared_ptr<upstream_state> self) {
  auto req = self->make_stream_get();
  std::string failure;
  auto l = co_await self->send_request(req, failure);
  if (l) {
    const response_head head = self->head_of(*l->parser);
    if (!is_event_stream(head)) {
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

asio::awaitable<void> upstream_state::legacy_post(std::string body, message_info info) {
  auto self = shared_from_this();
  std::set<std::string> awaiting = awaited_keys(info);
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
  const std::string cause = co_await read_detail(*l, detail);
  if (cause.empty()) l->give_back();
  if (head.status < 200 || head.status >= 300) {
    const std::string text = refusal_text(head, detail);
    spdlog::warn("{}: {}", url_.to_string(), text);
    co_await fail_requests(awaiting, server_unavailable, text);
  }
}

}  // namespace warden::transports
