#include "proxy/session.hpp"

#include "proxy/session_impl.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <random>
#include <spdlog/spdlog.h>

namespace warden::proxy {

namespace {

std::string describe_exit(int status) {
  if (status > 128) return "was killed by signal " + std::to_string(status - 128);
  return "exited with status " + std::to_string(status);
}

}  // namespace

session::impl::impl(asio::any_io_executor executor, session_options options,
                    std::unique_ptr<transports::message_reader> client_in,
                    std::unique_ptr<transports::message_writer> client_out,
                    std::unique_ptr<transports::server_link> server)
    : executor_(executor),
      options_(options),
      client_in_(std::move(client_in)),
      client_out_(std::move(client_out)),
      server_(std::move(server)),
      to_client_(executor, options.queue_depth),
      to_server_(executor, options.queue_depth),
      wakeup_(executor),
      sweep_timer_(executor),
      signals_(executor, SIGINT, SIGTERM, SIGHUP) {
  std::random_device entropy;
  nonce_ = std::to_string(entropy()) + std::to_string(entropy());
  // Known before the first message is relayed: each message then carries its classification to
  // a writer that takes it.
  to_client_.takes_classified = client_out_->takes_classified();
  to_server_.takes_classified = server_->input().takes_classified();
}

asio::awaitable<session_outcome> session::impl::run() {
  spawn(relay(direction::client_to_server));
  spawn(relay(direction::server_to_client));
  spawn(drain_queue(to_client_, *client_out_, client_writer_failed_, client_writer_done_));
  spawn(drain_queue(to_server_, server_->input(), server_writer_failed_, server_writer_done_));
  spawn(watch_child());
  spawn(watch_signals());
  if (options_.request_timeout.count() > 0) spawn(expire_requests());
  session_outcome outcome = co_await supervise();
  co_await stop_tasks();
  co_return outcome;
}

void session::impl::spawn(asio::awaitable<void> task) {
  ++live_tasks_;
  asio::co_spawn(executor_, std::move(task), [this](std::exception_ptr failure) {
    --live_tasks_;
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        spdlog::error("session task failed: {}", e.what());
      } catch (...) {
        spdlog::error("session task failed");
      }
    }
    notify();
  });
}

// After supervise(): everything still waiting is woken with an error or end of input, and we
// wait until the last coroutine has returned (repeating the wake-up for any that started a new
// wait meanwhile), so nothing touches the session after run() completes.
asio::awaitable<void> session::impl::stop_tasks() {
  finished_ = true;
  for (int round = 0; live_tasks_ > 0; ++round) {
    client_in_->cancel();
    server_->output().cancel();
    to_client_.channel.close();
    to_server_.channel.close();
    to_client_.space_freed.cancel();
    to_server_.space_freed.cancel();
    if (!client_writer_done_) client_out_->close();
    signals_.cancel();
    sweep_timer_.cancel();
    for (auto& [key, held] : held_) held.timer->cancel();
    if (co_await wait_until([&] { return live_tasks_ == 0; }, clock_type::now() + std::chrono::milliseconds(200))) break;
    if (round == 10) spdlog::warn("{} session tasks still running after the session ended", live_tasks_);
  }
}

asio::awaitable<void> session::impl::watch_child() {
  child_status_ = co_await server_->async_wait_exit();
  child_exited_ = true;
  spdlog::info("{} {}", server_->describe(), describe_exit(child_status_));
  notify();
}

asio::awaitable<void> session::impl::watch_signals() {
  error_code ec;
  const int number = co_await signals_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  signal_number_ = number;
  spdlog::info("received signal {}; shutting the server down", number);
  notify();
}

asio::awaitable<bool> session::impl::wait_until(const std::function<bool()>& done,
                                                clock_type::time_point deadline) {
  while (!done()) {
    if (clock_type::now() >= deadline) co_return false;
    wakeup_.expires_at(deadline);
    error_code ignored;
    co_await wakeup_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  co_return true;
}

asio::awaitable<session_outcome> session::impl::supervise() {
  constexpr auto forever = clock_type::time_point::max();
  const auto client_gone = [this] { return client_input_done_ || client_writer_failed_; };
  co_await wait_until([&] { return client_gone() || server_output_done_ || child_exited_ ||
                                   server_writer_failed_ || signal_number_ != 0; },
                      forever);

  // Whoever ended first, the child must end now: close its stdin after what is queued for it,
  // then SIGTERM and SIGKILL after the grace times (the SDK client's sequence).
  server_queue_closed_ = true;
  co_await close_queue(to_server_);
  if (!co_await wait_until([&] { return child_exited_; }, clock_type::now() + options_.stdin_grace)) {
    spdlog::info("server still running {} ms after its stdin closed; sending SIGTERM",
                 options_.stdin_grace.count());
    server_->request_exit();
    if (!co_await wait_until([&] { return child_exited_; }, clock_type::now() + options_.term_grace)) {
      spdlog::warn("server ignored SIGTERM for {} ms; sending SIGKILL", options_.term_grace.count());
      server_->kill();
      co_await wait_until([&] { return child_exited_; }, forever);
    }
  }
  // What the child wrote before exiting is still in the pipe: relay it before failing requests.
  if (!co_await wait_until([&] { return server_output_done_; }, clock_type::now() + options_.output_drain))
    server_->output().cancel();
  co_await wait_until([&] { return server_output_done_; }, forever);
  co_await server_->async_stop_leftovers(options_.term_grace);

  co_await fail_pending_requests("the MCP server " + describe_exit(child_status_));
  co_await close_queue(to_client_);
  if (!co_await wait_until([&] { return client_writer_done_; }, clock_type::now() + options_.client_flush))
    spdlog::warn("the client did not read the last messages within {} ms", options_.client_flush.count());
  client_in_->cancel();
  signals_.cancel();
  for (auto& [key, held] : held_) held.timer->cancel();
  finished_ = true;
  sweep_timer_.cancel();

  session_outcome outcome;
  if (signal_number_ != 0) {
    outcome.exit_code = 128 + signal_number_;
    outcome.reason = "stopped by signal " + std::to_string(signal_number_);
  } else {
    outcome.exit_code = child_status_;
    outcome.reason = "server " + describe_exit(child_status_);
  }
  co_return outcome;
}

asio::awaitable<void> session::impl::fail_pending_requests(const std::string& cause) {
  if (client_requests_.empty()) co_return;
  spdlog::warn("{} request(s) left unanswered: {}", client_requests_.size(), cause);
  // Stable order for the client: oldest first.
  std::vector<std::pair<std::string, pending_request>> pending(client_requests_.begin(), client_requests_.end());
  std::sort(pending.begin(), pending.end(),
            [](const auto& a, const auto& b) { return a.second.sent < b.second.sent; });
  for (const auto& [key, request] : pending) {
    co_await send(to_client_, error_response(json::parse(key), error_codes::server_unavailable,
                                             "mcp-warden: " + cause + " before answering '" + request.method + "'"));
  }
  client_requests_.clear();
}

// A hung server must not hang the client: past --request-timeout-ms a request gets an error, and
// the server is told to stop working on it (notifications/cancelled), as the SDK client does.
asio::awaitable<void> session::impl::expire_requests() {
  const auto period = std::clamp(options_.request_timeout / 4, std::chrono::milliseconds(20),
                                 std::chrono::milliseconds(1000));
  while (!finished_) {
    sweep_timer_.expires_after(period);
    error_code ec;
    co_await sweep_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (finished_ || server_queue_closed_) break;
    const auto now = clock_type::now();
    std::vector<std::pair<std::string, pending_request>> expired;
    for (const auto& [key, request] : client_requests_)
      if (now - request.sent >= options_.request_timeout) expired.emplace_back(key, request);
    for (const auto& [key, request] : expired) {
      client_requests_.erase(key);
      const json id = json::parse(key);
      spdlog::warn("request '{}' (id {}) unanswered after {} ms; answered with an error and cancelled",
                   request.method, key, options_.request_timeout.count());
      const json cancel = {{"jsonrpc", "2.0"},
                           {"method", "notifications/cancelled"},
                           {"params", {{"requestId", id}, {"reason", "mcp-warden: request timed out"}}}};
      post(to_server_, cancel.dump());
      co_await send(to_client_, error_response(id, error_codes::request_timeout,
                                               "mcp-warden: the server did not answer '" + request.method +
                                                   "' within " + std::to_string(options_.request_timeout.count()) +
                                                   " ms"));
    }
  }
}

// ---------------------------------------------------------------------------------------------

session::session(asio::any_io_executor executor, session_options options,
                 std::unique_ptr<transports::message_reader> client_in,
                 std::unique_ptr<transports::message_writer> client_out,
                 std::unique_ptr<transports::server_link> server)
    : impl_(std::make_unique<impl>(std::move(executor), options, std::move(client_in), std::move(client_out),
                                   std::move(server))) {}

session::~session() = default;

void session::add_inspector(std::unique_ptr<inspector> next) { impl_->inspectors_.push_back(std::move(next)); }

void session::on_surface_changed(std::function<void(const analysis::server_surface&)> callback) {
  impl_->surface_callback_ = std::move(callback);
}

asio::awaitable<session_outcome> session::run() { return impl_->run(); }

const analysis::server_surface& session::surface() const { return impl_->recorder_.surface(); }

bool session::initialized() const { return impl_->recorder_.initialized(); }

bool session::surface_complete() const {
  const surface_recorder& recorder = impl_->recorder_;
  if (!recorder.initialized()) return false;
  for (list_kind kind : all_list_kinds)
    if (server_offers(recorder.surface().capabilities, kind) && !recorder.listed(kind)) return false;
  return true;
}

const session_counters& session::counters() const { return impl_->counters_; }

}  // namespace warden::proxy
