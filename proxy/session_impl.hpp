#pragma once
// The inside of proxy::session, shared by the files that implement it (internal to proxy/):
//   session.cpp              the lifecycle: start, supervision, shutdown order, request timeouts
//   session_relay.cpp        reading each direction, refusing what cannot pass, inspection, routing
//   session_queues.cpp       the write side: bounded per-direction queues and their writers
//   session_own_requests.cpp requests mcp-warden makes itself: asking the user, enumerating the surface
// Single-threaded, like the session.
#include <array>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocol/jsonrpc.hpp"
#include "proxy/runtime_text.hpp"
#include "proxy/session.hpp"
#include "proxy/surface_recorder.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
using namespace protocol;  // messages, ids, errors: the session speaks JSON-RPC throughout
using nlohmann::json;
using clock_type = std::chrono::steady_clock;
using error_code = boost::system::error_code;

// One direction's write queue: bounded in messages by the channel and in bytes by `queued_bytes`
// (a slow reader must not make us buffer without end), with one writer draining it. Each message
// is its bytes and, for a writer that takes classified messages
// (transports::message_writer::takes_classified), the classification it was relayed under (null
// for messages the session built or changed).
struct message_queue {
  message_queue(asio::any_io_executor executor, std::size_t depth)
      : channel(executor, depth), space_freed(executor) {}
  asio::experimental::channel<void(error_code, std::string, std::shared_ptr<const message>)> channel;
  std::size_t queued_bytes = 0;
  asio::steady_timer space_freed;  // cancelled whenever the writer has taken bytes off
  // For the direct write (see try_enqueue): the queue's writer, whether it waits with nothing in
  // hand, and whether the reader feeding this queue already holds more messages to batch.
  transports::message_writer* writer = nullptr;
  bool takes_classified = false;  // the writer's message_writer::takes_classified(), set with it
  bool writer_idle = false;
  bool more_coming = false;
  unsigned burst = 0;  // messages of the reader's current burst queued since the writer's last turn
};

struct pending_request {
  std::string method;
  json params;  // listings only: the cursor tells a first page from a later one
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

// What may appear of an untrusted line in our own log: short, escaped, and without credentials
// (logs are read and shipped by people who must not see the secrets passing through).
inline std::string safe_excerpt(std::string_view bytes) {
  return log_excerpt(redact_secrets(bytes.substr(0, 4096), true));
}

class session::impl {
 public:
  impl(asio::any_io_executor executor, session_options options,
       std::unique_ptr<transports::message_reader> client_in,
       std::unique_ptr<transports::message_writer> client_out,
       std::unique_ptr<transports::server_link> server);

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
  // `classified`: `msg` to hand to the other end's writer along with `raw` (null: it takes none);
  // taken when the message is forwarded. Like `msg`, it lives in relay() until these complete.
  asio::awaitable<void> handle_client_message(message& msg, std::string&& raw, std::shared_ptr<const message>& classified);
  asio::awaitable<void> handle_server_message(message& msg, std::string&& raw, std::shared_ptr<const message>& classified);
  void note_client_item(const message& item);
  bool note_server_item(const message& item);  // false: an answer to our own request, consumed
  void capture_response(const message& response, const pending_request& request);
  verdict run_inspectors(const message& msg, const message_context& context);
  asio::awaitable<void> apply(verdict&& decision, const message& msg, std::string&& raw,
                              std::shared_ptr<const message> classified, message_queue& forward_queue,
                              message_queue& reply_queue);
  asio::awaitable<void> inspect_batch(message& msg, std::string&& raw, direction from);

  // --- asking the user (elicitation/create of our own, the request held meanwhile) ---
  asio::awaitable<void> hold_and_ask(verdict&& decision, const message& msg, std::string&& raw);
  asio::awaitable<void> resolve_held(const std::string& key, const json* answer);
  asio::awaitable<void> expire_held(std::string key, std::shared_ptr<asio::steady_timer> timer);

  // --- our own enumeration ---
  std::string next_internal_id();
  void enumerate(list_kind kind, const json& cursor = json());
  void maybe_start_enumeration();
  void consume_internal_response(const message& response, const internal_request& request);

  // --- plumbing ---
  asio::awaitable<void> send(message_queue& queue, std::string bytes, std::shared_ptr<const message> classified = nullptr);
  bool try_enqueue(message_queue& queue, std::string& bytes, std::shared_ptr<const message>& classified);
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
  bool client_input_done_ = false;  // EOF or error on the client's side
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

}  // namespace warden::proxy
