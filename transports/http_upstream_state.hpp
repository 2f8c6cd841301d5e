#pragma once
// The inside of the HTTP upstream (transports/http_upstream.hpp), shared by the files that
// implement it (internal to transports/):
//   http_upstream.cpp              the server_link surface, shutdown, the factory and option parsing
//   http_upstream_connections.cpp  the connection pool, building and sending requests (OAuth retries)
//   http_upstream_streamable.cpp   Streamable HTTP: POSTs, their JSON or SSE answers, the GET stream,
//                                  resumption, re-initialisation; delivering server messages
//   http_upstream_legacy.cpp       the legacy HTTP+SSE transport of 2024-11-05
// Single-threaded, like every stream.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/jsonrpc.hpp"
#include "transports/beast_stream.hpp"
#include "transports/http_request.hpp"
#include "transports/http_rules.hpp"
#include "transports/http_upstream.hpp"
#include "transports/sse_parser.hpp"

namespace warden::transports {

namespace asio = boost::asio;
namespace http = beast::http;
using nlohmann::json;

inline constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
using protocol::id_key;
using protocol::error_codes::limit_exceeded;
using protocol::error_codes::server_unavailable;

// Server messages for the session, each with the classification made to read its ids.
using output_channel = asio::experimental::channel<void(error_code, frame, std::shared_ptr<protocol::parse_outcome>)>;

// What the upstream needs to know about one outgoing message, from its classification.
struct message_info {
  std::vector<json> request_ids;  // requests in it (a batch may hold several)
  std::string method;             // of a single request or notification
  bool initialize = false;
  bool initialized_notification = false;
  std::string modern_version;  // _meta protocol version of a stateless-era request
  std::string mcp_name;        // Mcp-Name header value for modern requests
};

// What the upstream needs to know about one outgoing message (http_upstream.cpp), read from its
// classification (and `bytes`, which it was classified from) without a document.
message_info note_message(const protocol::message& msg, std::string_view bytes);
// The keys of the requests in an outgoing message: the answers still awaited for it.
std::set<std::string> awaited_keys(const message_info& info);

struct response_head {
  unsigned status = 0;
  std::string reason;
  std::string content_type;
  std::string session_id;
};

// "the server answered HTTP <status> <reason>[: <detail>]", for a refusal (detail cut at 500 bytes).
std::string refusal_text(const response_head& head, const std::string& detail);
// An answer that is an event stream: 200 with text/event-stream.
bool is_event_stream(const response_head& head);

class upstream_state : public std::enable_shared_from_this<upstream_state> {
 public:
  upstream_state(asio::any_io_executor executor, http_upstream_options options, http_url url)
      : executor_(executor),
        options_(std::move(options)),
        limits_{options_.max_depth, /*document=*/false},
        url_(std::move(url)),
        output_(executor, 64),
        exit_wait_(executor),
        endpoint_wait_(executor) {}

  result<bool> init_tls() {
    if (!url_.tls) return true;
    tls_.emplace(asio::ssl::context::tls_client);
    return configure_tls_client(*tls_, tls_files{options_.ca_file, options_.client_cert, options_.client_key});
  }

  // ---- server_link surface --------------------------------------------------------------

  asio::awaitable<read_outcome> read();
  void cancel_read() { output_.cancel(); }

  // `classified`: `bytes` classified by the sender; null: classified here.
  asio::awaitable<error_code> write(std::string_view bytes, std::shared_ptr<const protocol::message> classified);
  // What the upstream needs of a message nobody classified yet (the session's own, ours).
  message_info note_own_message(std::string_view bytes) const;
  void close_input();
  void request_exit();
  void abort();
  asio::awaitable<int> wait_exit();

  std::string describe() const { return url_.to_string(); }

 private:
  // ---- connections ------------------------------------------------------------------------

  // A connection that is closed on abort while in use; returned to the pool when reusable.
  struct lease {
    std::shared_ptr<upstream_state> owner;
    std::unique_ptr<any_stream> stream;
    bool reused = false;
    beast::flat_buffer buffer;
    std::unique_ptr<http::response_parser<http::buffer_body>> parser;
    lease() = default;
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() {
      if (stream && owner) owner->active_.erase(stream.get());
    }
    void give_back() {
      if (!stream || !owner || owner->aborted_ || !stream->is_open() || owner->idle_.size() >= 8) return;
      owner->active_.erase(stream.get());
      stream->expires_never();
      owner->idle_.push_back(std::move(stream));
    }
  };
  asio::awaitable<std::unique_ptr<lease>> connect(std::string& failure, bool allow_reuse = true);
  http::request<http::string_body> make_request(http::verb verb, const std::string& target, const message_info* info);
  http::request<http::string_body> make_post(const message_info* info, std::string body);
  http::request<http::string_body> make_stream_get();
  asio::awaitable<std::unique_ptr<lease>> send_request(http::request<http::string_body>& req, std::string& failure);
  asio::awaitable<std::unique_ptr<lease>> send_once(http::request<http::string_body>& req, std::string& failure);

  // Reads the body in pieces, handing each to `sink`; false from the sink stops reading.
  // Returns an empty string at the end of the body, else why it stopped.
  template <typename Sink>
  asio::awaitable<std::string> read_body(lease& l, bool streaming, Sink&& sink) {
    auto& parser = *l.parser;
    std::array<char, 65536> chunk;
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      if (streaming) l.stream->expires_never();
      else l.stream->expires_after(options_.read_timeout);
      auto [ec, n] = co_await l.stream->visit([&](auto& s) { return http::async_read_some(s, l.buffer, parser, use_tuple); });
      (void)n;
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = chunk.size() - parser.get().body().size;
      if (got > 0 && !co_await sink(std::string_view(chunk.data(), got))) co_return "stopped";
      if (ec) co_return ec == beast::error::timeout ? std::string("timed out") : ec.message();
    }
    co_return std::string();
  }

  response_head head_of(const http::response_parser<http::buffer_body>& parser);
  asio::awaitable<std::string> read_detail(lease& l, std::string& detail);

  // ---- output -----------------------------------------------------------------------------

  // Hands a message to the session, classified (with the session's limits) when not yet.
  asio::awaitable<void> emit(std::string bytes, std::shared_ptr<protocol::parse_outcome> classified = nullptr);
  asio::awaitable<void> emit_error(const json& id, int code, const std::string& text);
  asio::awaitable<void> fail_requests(const std::set<std::string>& ids, int code, const std::string& text);
  asio::awaitable<void> deliver(std::string bytes, std::set<std::string>& awaiting);
  asio::awaitable<void> deliver_oversized(const sse_event& event, std::set<std::string>& awaiting);
  asio::awaitable<std::string> read_events(lease& l, std::set<std::string>& awaiting, std::string& last_id,
                                           std::optional<std::uint64_t>& retry, bool& progress,
                                           std::function<bool(const sse_event&)> special = {});

  // ---- Streamable HTTP --------------------------------------------------------------------

  asio::awaitable<void> post(std::string body, message_info info);
  asio::awaitable<void> handle_response(std::unique_ptr<lease> l, response_head head, std::string body, message_info info, std::set<std::string> awaiting);
  bool retried_after_reinit(const std::string& body) { return retry_once_.erase(body) > 0; }

  asio::awaitable<bool> reinitialize();
  asio::awaitable<void> resume(std::set<std::string> awaiting, std::string last_id, std::optional<std::uint64_t> retry,
                               std::string cause);
  static asio::awaitable<void> get_stream(std::shared_ptr<upstream_state> self);
  void get_retry_timer_cancel() {
    if (get_retry_) get_retry_->cancel();
  }

  // ---- legacy HTTP+SSE --------------------------------------------------------------------

  asio::awaitable<bool> ensure_legacy_endpoint(std::string& failure);
  static asio::awaitable<void> legacy_stream(std::shared_ptr<upstream_state> self);
  asio::awaitable<void> legacy_post(std::string body, message_info info);

  // ---- shutdown ---------------------------------------------------------------------------

  static asio::awaitable<void> finish(std::shared_ptr<upstream_state> self, bool wait_for_answers);

  asio::any_io_executor executor_;
  http_upstream_options options_;
  protocol::parse_limits limits_;  // the session's, for what the server sends
  http_url url_;
  std::optional<asio::ssl::context> tls_;
  output_channel output_;
  asio::steady_timer exit_wait_;
  asio::steady_timer endpoint_wait_;
  std::unique_ptr<asio::steady_timer> get_retry_;

  http_transport mode_ = http_transport::auto_detect;
  std::string session_id_;
  std::string protocol_version_;
  std::string initialize_bytes_;
  std::string initialize_key_;
  std::set<std::string> retry_once_;
  bool reinit_running_ = false;
  unsigned reinit_count_ = 0;
  bool get_stream_started_ = false;

  std::optional<http_url> endpoint_;
  bool legacy_started_ = false;
  std::string legacy_failure_;

  std::vector<std::unique_ptr<any_stream>> idle_;
  std::set<any_stream*> active_;
  int inflight_ = 0;
  bool closing_ = false;
  bool exit_requested_ = false;
  bool deleting_ = false;
  bool aborted_ = false;
  bool exited_ = false;
  int exit_status_ = 0;
};

}  // namespace warden::transports
