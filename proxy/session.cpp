#include "proxy/session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <random>
#include <spdlog/spdlog.h>
#include <unordered_map>

#include "proxy/jsonrpc.hpp"
#include "proxy/runtime_text.hpp"
#include "proxy/surface_recorder.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;
using error_code = boost::system::error_code;

namespace {

// One direction's write queue: bounded in messages by the channel and in bytes by `queued_bytes`
// (a slow reader must not make us buffer without end), with one writer draining it.
struct message_queue {
  message_queue(asio::any_io_executor executor, std::size_t depth)
      : channel(executor, depth), space_freed(executor) {}
  asio::experimental::channel<void(error_code, std::string)> channel;
  std::size_t queued_bytes = 0;
  asio::steady_timer space_freed;  // cancelled whenever the writer has taken bytes off
  // For the direct write (see try_enqueue): the queue's writer, whether it waits with nothing in
  // hand, and whether the reader feeding this queue already holds more messages to batch.
  transports::message_writer* writer = nullptr;
  bool writer_idle = false;
  bool more_coming = false;
  unsigned burst = 0;  // messages of the reader's current burst queued since the writer's last turn
};

// A reader hands a burst (messages read together) to the writer every this many messages instead
// of once at its end, so that the peer starts on the first messages while the rest are framed
// (see writer_turn_due). Too small a step spends the relay on turns; too large one lets the
// processes take turns again. The value is the best of those tried with bench/run.sh's pipelined
// passthrough case (docs/benchmarks.md).
constexpr unsigned burst_hand_over = 8;
// With inspectors each message costs the relay several times more, so fewer turns pay off
// (chosen the same way, with a policy in enforce mode).
constexpr unsigned inspected_hand_over = 16;

struct pending_request {
  std::string method;
  json params;          // listings only: the cursor tells a first page from a later one
  clock_type::time_point sent;
};

struct internal_request {
  list_kind kind;
  std::uint64_t generation;  // a newer listing of the same kind supersedes older pages
};

// A client request held while the user is asked about it (verdict::action::ask).
struct held_request {
  message msg;
  std::string raw;
  std::function<verdict(const json*)> resume;
  std::shared_ptr<asio::steady_timer> timer;
};

// The params kept with a relayed request: only a listing's are read later (its cursor), so a
// tools/call's arguments are not copied; null when the document was not built (see needs_document).
json listing_params_of(const message& item) {
  if (!item.has_document || !list_kind_of_method(item.method)) return json();
  const auto params = item.doc.find("params");
  return params == item.doc.end() ? json() : *params;
}

// What may appear of an untrusted line in our own log: short, escaped, and without credentials
// (logs are read and shipped by people who must not see the secrets passing through).
std::string safe_excerpt(std::string_view bytes) {
  return log_excerpt(redact_secrets(bytes.substr(0, 4096), true));
}

std::string describe_exit(int status) {
  if (status > 128) return "was killed by signal " + std::to_string(status - 128);
  return "exited with status " + std::to_string(status);
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

class session::impl {
 public:
  impl(asio::any_io_executor executor, session_options options,
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
  }

  asio::awaitable<session_outcome> run();

  std::vector<std::unique_ptr<inspector>> inspectors_;
  std::function<void(const analysis::server_surface&)> surface_callback_;
  surface_recorder recorder_;
  session_counters counters_;

 private:
  // --- the activities of a session (relay and drain_queue run once per direction) ---
  asio::awaitable<void> relay(direction from);
  asio::awaitable<void> drain_queue(message_queue& queue, transports::message_writer& out,
                                    bool& failed, bool& done);
  asio::awaitable<void> watch_child();
  asio::awaitable<void> watch_signals();
  asio::awaitable<session_outcome> supervise();

  // --- message handling ---
  asio::awaitable<void> refuse_oversized(direction from, const transports::frame& frame);
  asio::awaitable<void> refuse_invalid(direction from, const parse_failure& failure, std::string_view bytes);
  bool needs_document(const message& msg, direction from) const;
  asio::awaitable<void> handle_client_message(message& msg, std::string&& raw);
  asio::awaitable<void> handle_server_message(message& msg, std::string&& raw);
  void note_client_item(const message& item);
  bool note_server_item(const message& item);  // false: an answer to our own request, consumed
  void capture_response(const message& response, const pending_request& request);
  verdict run_inspectors(const message& msg, const message_context& context);
  asio::awaitable<void> apply(verdict&& decision, const message& msg, std::string&& raw,
                              message_queue& forward_queue, message_queue& reply_queue);
  asio::awaitable<void> inspect_batch(message& msg, std::string&& raw, direction from);

  // --- asking the user (elicitation/create of our own, the request held meanwhile) ---
  asio::awaitable<void> hold_and_ask(verdict&& decision, const message& msg, std::string&& raw);
  asio::awaitable<void> resolve_held(const std::string& key, const json* answer);
  asio::awaitable<void> expire_held(std::string key, std::shared_ptr<asio::steady_timer> timer);

  // --- our own enumeration ---
  void enumerate(list_kind kind, const json& cursor = json());
  void maybe_start_enumeration();
  void consume_internal_response(const message& response, const internal_request& request);

  // --- plumbing ---
  asio::awaitable<void> send(message_queue& queue, std::string bytes);
  bool try_enqueue(message_queue& queue, std::string& bytes);
  bool writer_turn_due(message_queue& queue);
  asio::awaitable<void> close_queue(message_queue& queue);
  void post(message_queue& queue, std::string bytes);
  // Every coroutine of the session starts here and is counted, so that run() can return only
  // once none is left: the session may then be destroyed at once.
  void spawn(asio::awaitable<void> task);
  asio::awaitable<void> stop_tasks();
  static void release(message_queue& queue, std::size_t size);
  asio::awaitable<void> expire_requests();
  void notify() { wakeup_.cancel(); }
  asio::awaitable<bool> wait_until(const std::function<bool()>& done, clock_type::time_point deadline);
  asio::awaitable<void> fail_pending_requests(const std::string& cause);

  asio::any_io_executor executor_;
  session_options options_;
  std::unique_ptr<transports::message_reader> client_in_;
  std::unique_ptr<transports::message_writer> client_out_;
  std::unique_ptr<transports::server_link> server_;
  message_queue to_client_;
  message_queue to_server_;
  asio::steady_timer wakeup_;
  asio::steady_timer sweep_timer_;
  asio::signal_set signals_;
  bool finished_ = false;
  std::size_t live_tasks_ = 0;

  std::unordered_map<std::string, pending_request> client_requests_;  // client -> server
  std::unordered_map<std::string, pending_request> server_requests_;  // server -> client
  std::unordered_map<std::string, internal_request> internal_requests_;
  std::unordered_map<std::string, held_request> held_;  // by id_key of our elicitation request
  std::array<std::uint64_t, 4> listing_generation_{};
  std::string nonce_;
  std::uint64_t next_internal_id_ = 0;

  // Shutdown state, read by supervise().
  bool client_input_done_ = false;   // EOF or error on the client's side
  bool client_writer_failed_ = false;
  bool client_writer_done_ = false;
  bool server_writer_failed_ = false;
  bool server_writer_done_ = false;
  bool server_output_done_ = false;  // EOF on the child's stdout
  bool child_exited_ = false;
  bool enumeration_started_ = false;
  bool client_initialized_ = false;
  bool server_queue_closed_ = false;
  int child_status_ = 0;
  int signal_number_ = 0;
};

// ---------------------------------------------------------------------------------------------

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
    parse_outcome parsed = parse_message(in.message.bytes, limits);
    if (!parsed.ok) {
      co_await refuse_invalid(from, parsed.failure, in.message.bytes);
      continue;
    }
    if (from_client && parsed.value.had_invalid_utf8)
      spdlog::warn("client message contains invalid UTF-8; forwarded unchanged");
    if (needs_document(parsed.value, from)) load_document(parsed.value, in.message.bytes);
    if (from_client) co_await handle_client_message(parsed.value, std::move(in.message.bytes));
    else co_await handle_server_message(parsed.value, std::move(in.message.bytes));
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

asio::awaitable<void> session::impl::drain_queue(message_queue& queue, transports::message_writer& out,
                                                 bool& failed, bool& done) {
  std::vector<std::string> batch;
  bool end = false;
  queue.writer = &out;
  while (!end) {
    error_code ec;
    queue.writer_idle = !failed;
    std::string bytes = co_await queue.channel.async_receive(asio::redirect_error(asio::use_awaitable, ec));
    queue.writer_idle = false;
    if (ec) break;  // close_queue(): no more
    batch.push_back(std::move(bytes));
    // Whatever is queued behind it goes out in the same write: one system call for many messages.
    while (batch.size() < options_.queue_depth && !end &&
           queue.channel.try_receive([&](error_code e, std::string more) {
             if (e) end = true;
             else batch.push_back(std::move(more));
           })) {
    }
    std::size_t size = 0;
    for (const auto& message : batch) size += message.size();
    // When the peer is gone, keep draining so producers never block on it.
    if (!failed) ec = co_await out.async_write_messages(batch);
    // Free the messages now, not when the next one comes: after a burst of large results the
    // queue would otherwise keep up to queue_depth of them alive while the session idles.
    batch.clear();
    release(queue, size);
    if (ec) {
      failed = true;
      spdlog::warn("writing to the {} failed: {}", &out == client_out_.get() ? "client" : "server",
                   ec.message());
      notify();
    }
  }
  out.close();
  done = true;
  notify();
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

// ---------------------------------------------------------------------------------------------

asio::awaitable<void> session::impl::send(message_queue& queue, std::string bytes) {
  // Back-pressure by bytes as well as by count; one message larger than the budget still passes
  // once the queue is empty, so nothing within --max-message-bytes can wedge a direction.
  while (queue.queued_bytes > 0 && queue.queued_bytes + bytes.size() > options_.queue_bytes) {
    if (finished_) co_return;
    queue.space_freed.expires_at(clock_type::time_point::max());
    error_code ignored;
    co_await queue.space_freed.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (finished_ || try_enqueue(queue, bytes)) co_return;
  queue.queued_bytes += bytes.size();
  error_code ignored;
  co_await queue.channel.async_send(error_code{}, std::move(bytes), asio::redirect_error(asio::use_awaitable, ignored));
}

// Room in the queue and the channel (the usual case): queued at once, with no coroutine and no
// trip through the scheduler. False leaves `bytes` to send(), which the caller co_awaits; after a
// partial direct write `bytes` holds what is left (possibly only the newline, as "").
bool session::impl::try_enqueue(message_queue& queue, std::string& bytes) {
  if (finished_ || (queue.queued_bytes > 0 && queue.queued_bytes + bytes.size() > options_.queue_bytes)) return false;
  // One message with nothing ahead of it and none behind it in the reader (one call at a time):
  // written here, saving the writer's wake-up and a pass of the event loop. Messages that arrive
  // together still go through the writer, which sends them in one system call.
  if (queue.writer_idle && queue.queued_bytes == 0 && !queue.more_coming) {
    const std::size_t written = queue.writer->try_write_now(bytes);
    if (written > bytes.size()) return true;
    bytes.erase(0, written);  // the rest goes next, through the writer
  }
  const std::size_t size = bytes.size();
  queue.queued_bytes += size;
  if (queue.channel.try_send(error_code{}, std::move(bytes))) return true;  // moved only on success
  queue.queued_bytes -= size;
  return false;
}

// Whether the reader feeding `queue` should step aside for its writer now. Without it a burst is
// written only after its last message is framed, so the peer waits for the whole burst before it
// starts on the first, and on two cores the three processes take turns instead of overlapping
// (throughput then falls to one over the sum of all three processes' CPU per message).
bool session::impl::writer_turn_due(message_queue& queue) {
  if (!queue.more_coming) {
    queue.burst = 0;
    return false;
  }
  if (++queue.burst < (inspectors_.empty() ? burst_hand_over : inspected_hand_over)) return false;
  queue.burst = 0;
  return true;
}

// The writer finishes what is queued before this, then closes its stream.
asio::awaitable<void> session::impl::close_queue(message_queue& queue) {
  if (finished_ || queue.channel.try_send(asio::error::eof, std::string())) co_return;
  error_code ignored;
  co_await queue.channel.async_send(asio::error::eof, std::string(), asio::redirect_error(asio::use_awaitable, ignored));
}

void session::impl::release(message_queue& queue, std::size_t size) {
  queue.queued_bytes -= std::min(queue.queued_bytes, size);
  queue.space_freed.cancel();
}

void session::impl::post(message_queue& queue, std::string bytes) {
  // Our own messages must never wait behind back-pressure in the reader that produced them.
  spawn(send(queue, std::move(bytes)));
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
      return msg.method == "notifications/cancelled";   // its params name the request
    case message_kind::request:
      return from == direction::client_to_server && is_listing(msg.method);  // cursor of a page
    case message_kind::response: {
      if (from == direction::client_to_server) return !held_.empty();  // maybe the user's answer
      const std::string& key = msg.key();
      if (internal_requests_.count(key)) return true;   // our own enumeration
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

asio::awaitable<void> session::impl::handle_client_message(message& msg, std::string&& raw) {
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
  if (decision.what != verdict::action::forward || !try_enqueue(to_server_, raw))
    co_await apply(std::move(decision), msg, std::move(raw), to_server_, to_client_);

  if (starts_session) {
    client_initialized_ = true;
    maybe_start_enumeration();
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

asio::awaitable<void> session::impl::handle_server_message(message& msg, std::string&& raw) {
  if (msg.kind == message_kind::batch) {
    co_await inspect_batch(msg, std::move(raw), direction::server_to_client);
    co_return;
  }
  if (!note_server_item(msg)) co_return;  // the answer to one of our own requests

  message_context context;
  context.from = direction::server_to_client;
  context.raw = raw;
  verdict decision = run_inspectors(msg, context);
  if (decision.what != verdict::action::forward || !try_enqueue(to_client_, raw))
    co_await apply(std::move(decision), msg, std::move(raw), to_client_, to_server_);
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
                                           message_queue& forward_queue, message_queue& reply_queue) {
  switch (decision.what) {
    case verdict::action::forward:
      co_await send(forward_queue, std::move(raw));
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
        co_await apply(std::move(fallback), msg, std::move(raw), forward_queue, reply_queue);
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

asio::awaitable<void> session::impl::hold_and_ask(verdict&& decision, const message& msg, std::string&& raw) {
  const std::string id = "mcp-warden-" + nonce_ + "-" + std::to_string(++next_internal_id_);
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
  co_await apply(std::move(decision), held.msg, std::move(held.raw), to_server_, to_client_);
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

void session::impl::enumerate(list_kind kind, const json& cursor) {
  if (server_queue_closed_) return;
  const auto index = static_cast<std::size_t>(kind);
  if (cursor.is_null()) {
    ++listing_generation_[index];
    recorder_.start_listing(kind, list_source::warden);
  }
  const std::string id = "mcp-warden-" + nonce_ + "-" + std::to_string(++next_internal_id_);
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
