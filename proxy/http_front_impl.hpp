#pragma once
// The inside of proxy::http_front, shared by the files that implement it (internal to proxy/),
// split by role as Beast's chat-multi example is:
//   http_front.cpp           the listener: run, stop, the idle sweep, routing by path and method
//   http_front_requests.cpp  request handling: Streamable HTTP POST / GET / DELETE, legacy HTTP+SSE
//   http_front_sessions.cpp  the session table: creating, finding and ending sessions, and routing
//                            each server message to the stream the client expects it on
//   http_front_sse.cpp       one SSE response: writing a stream's events to its connection
// Single-threaded, like the front.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "protocol/jsonrpc.hpp"
#include "proxy/http_front.hpp"
#include "proxy/session.hpp"
#include "transports/beast_stream.hpp"
#include "transports/http_server.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;
using transports::any_stream;
using error_code = boost::system::error_code;
using clock_type = std::chrono::steady_clock;

inline constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
inline constexpr std::size_t kept_finished_streams = 16;

using request_t = transports::http_request;
// POSTed messages for the session, each with the classification the front read it by.
using inbound_channel = asio::experimental::channel<void(error_code, std::string, std::shared_ptr<protocol::parse_outcome>)>;

// A formatted SSE event, shared by a stream's replay history and the connections sending it:
// a large answer is held once, not once per place.
using event_text = std::shared_ptr<const std::string>;

// An HTTP response that currently carries an SSE stream.
struct attachment {
  explicit attachment(asio::any_io_executor ex) : wake(ex) {}
  std::deque<event_text> queue;
  std::size_t queued_bytes = 0;
  bool closed = false;    // the connection went away or was dropped
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
  bool standalone = false;         // the GET stream (or the legacy stream)
  std::set<std::string> awaiting;  // request ids still to be answered on it
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

enum class session_kind { streamable,
                          legacy,
                          stateless };

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
  // How the front classifies messages: as the session would (its depth limit, no document).
  protocol::parse_limits limits() const { return {session_options_.max_depth, /*document=*/false}; }
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

    // A message from the server, routed to the stream the client expects it on; `classified` is
    // the session's classification of it (null: a message the session built, classified here).
    void route(std::string bytes, std::shared_ptr<const protocol::message> classified);
    void deliver(out_stream& s, std::string_view bytes, std::vector<json> answers = {});
    void finish(out_stream& s);
    void trim_finished_history();
    void end_all_streams();
  };

  // The session's two ends on the client side (http_front_sessions.cpp).
  class front_reader;
  class front_writer;

  result<std::shared_ptr<front_session>> create_session(session_kind kind);
  static asio::awaitable<void> run_session(std::shared_ptr<impl> self, std::shared_ptr<front_session> s);
  std::shared_ptr<front_session> find_session(const std::string& id);

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
                                   const std::string& message, std::string header = {}, std::string value = {});

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

}  // namespace warden::proxy
