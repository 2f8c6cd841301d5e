#include "transports/http_upstream.hpp"

#include "transports/http_upstream_state.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

namespace warden::transports {

using namespace std::chrono_literals;

namespace {

using protocol::message_kind;

void note_item(const protocol::message& item, std::string_view bytes, message_info& info) {
  if (item.kind == message_kind::request) info.request_ids.push_back(item.id);
  if (item.kind != message_kind::request && item.kind != message_kind::notification) return;
  info.method = item.method;
  info.initialize = info.initialize || info.method == "initialize";
  info.initialized_notification = info.method == "notifications/initialized";
  // The params members the headers carry: the _meta protocol revision of the stateless era and
  // the name of what a call addresses (Mcp-Name).
  if (auto version = protocol::string_at(item, bytes, {"params", "_meta", meta_protocol_version})) info.modern_version = *version;
  static const std::pair<std::string_view, std::string_view> name_sources[] = {
      {"tools/call", "name"}, {"prompts/get", "name"}, {"resources/read", "uri"}, {"tasks/get", "taskId"}, {"tasks/update", "taskId"}, {"tasks/cancel", "taskId"}};
  for (const auto& [m, field] : name_sources)
    if (info.method == m)
      if (auto name = protocol::string_at(item, bytes, {"params", field})) info.mcp_name = encode_mcp_header_value(*name);
}

}  // namespace

message_info note_message(const protocol::message& msg, std::string_view bytes) {
  message_info info;
  if (msg.kind == message_kind::batch) {
    for (const auto& item : msg.items) note_item(item, bytes, info);
    info.method.clear();
  } else {
    note_item(msg, bytes, info);
  }
  return info;
}

message_info upstream_state::note_own_message(std::string_view bytes) const {
  protocol::parse_outcome parsed = protocol::parse_message(bytes, limits_);
  return parsed.ok ? note_message(parsed.value, bytes) : message_info{};
}

std::set<std::string> awaited_keys(const message_info& info) {
  std::set<std::string> keys;
  for (const auto& id : info.request_ids) keys.insert(id_key(id));
  return keys;
}

// ---- server_link surface --------------------------------------------------------------

asio::awaitable<read_outcome> upstream_state::read() {
  auto [ec, f, classified] = co_await output_.async_receive(use_tuple);
  if (ec) co_return read_outcome{ec == asio::experimental::error::channel_closed ? error_code(asio::error::eof) : ec, {}, {}};
  co_return read_outcome{{}, std::move(f), std::move(classified)};
}

asio::awaitable<error_code> upstream_state::write(std::string_view bytes, std::shared_ptr<const protocol::message> classified) {
  if (closing_ || aborted_) co_return asio::error::bad_descriptor;
  auto self = shared_from_this();
  std::string body(bytes);
  message_info info = classified ? note_message(*classified, body) : note_own_message(body);
  classified.reset();
  if (mode_ == http_transport::auto_detect) {
    if (options_.transport != http_transport::auto_detect) mode_ = options_.transport;
    else if (!info.initialize) mode_ = http_transport::streamable_http;
  }
  if (mode_ == http_transport::sse) {
    co_await legacy_post(std::move(body), std::move(info));
    co_return error_code{};
  }
  if (info.initialize) initialize_bytes_ = body;
  // initialize is answered before anything else goes out: later requests need its session id
  // and protocol version (and in auto mode it decides the transport).
  co_await post(std::move(body), std::move(info));
  co_return error_code{};
}

void upstream_state::close_input() {
  if (closing_ || aborted_) return;
  closing_ = true;
  asio::co_spawn(executor_, finish(shared_from_this(), true), asio::detached);
}

void upstream_state::request_exit() {
  if (aborted_) return;
  closing_ = true;
  asio::co_spawn(executor_, finish(shared_from_this(), false), asio::detached);
}

void upstream_state::abort() {
  if (aborted_) return;
  aborted_ = true;
  closing_ = true;
  for (any_stream* s : active_) s->close();
  idle_.clear();
  output_.close();
  endpoint_wait_.cancel();
  get_retry_timer_cancel();
  exited_ = true;
  exit_wait_.cancel();
}

asio::awaitable<int> upstream_state::wait_exit() {
  auto self = shared_from_this();
  while (!exited_) {
    exit_wait_.expires_at(std::chrono::steady_clock::time_point::max());
    co_await exit_wait_.async_wait(use_tuple);
  }
  co_return exit_status_;
}

// ---- shutdown ---------------------------------------------------------------------------

asio::awaitable<void> upstream_state::finish(std::shared_ptr<upstream_state> self, bool wait_for_answers) {
  if (wait_for_answers) {
    // No more input: let the answers in flight arrive (the session sends request_exit() if
    // this takes too long).
    while (self->inflight_ > 0 && !self->aborted_ && !self->exit_requested_) {
      self->exit_wait_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await self->exit_wait_.async_wait(use_tuple);
    }
  } else {
    self->exit_requested_ = true;
    self->exit_wait_.cancel();
  }
  if (self->deleting_ || self->aborted_) co_return;
  self->deleting_ = true;
  self->get_retry_timer_cancel();
  if (self->mode_ == http_transport::streamable_http && !self->session_id_.empty()) {
    // End the session on the server; best effort, bounded by the timeouts.
    auto req = self->make_request(http::verb::delete_, self->url_.target, nullptr);
    std::string failure;
    const auto saved = self->options_.read_timeout;
    self->options_.read_timeout = std::min<std::chrono::milliseconds>(saved, 2000ms);
    if (auto l = co_await self->send_request(req, failure); l)
      spdlog::debug("{}: DELETE session answered {}", self->url_.to_string(), l->parser->get().result_int());
    self->options_.read_timeout = saved;
  }
  self->abort();
}

namespace {

class upstream_reader final : public message_reader {
 public:
  explicit upstream_reader(std::shared_ptr<upstream_state> s) : state_(std::move(s)) {}
  asio::awaitable<read_outcome> async_read_message() override { return state_->read(); }
  void cancel() override { state_->cancel_read(); }

 private:
  std::shared_ptr<upstream_state> state_;
};

class upstream_writer final : public message_writer {
 public:
  explicit upstream_writer(std::shared_ptr<upstream_state> s) : state_(std::move(s)) {}
  asio::awaitable<error_code> async_write_message(std::string_view bytes) override { return state_->write(bytes, nullptr); }
  bool takes_classified() const override { return true; }
  asio::awaitable<error_code> async_write_classified(std::string_view bytes,
                                                     std::shared_ptr<const protocol::message> classified) override {
    return state_->write(bytes, std::move(classified));
  }
  void close() override { state_->close_input(); }

 private:
  std::shared_ptr<upstream_state> state_;
};

class http_link final : public server_link {
 public:
  explicit http_link(std::shared_ptr<upstream_state> s) : state_(s), reader_(s), writer_(s) {}
  ~http_link() override { state_->abort(); }
  message_reader& output() override { return reader_; }
  message_writer& input() override { return writer_; }
  std::string describe() const override { return state_->describe(); }
  asio::awaitable<int> async_wait_exit() override { return state_->wait_exit(); }
  void request_exit() override { state_->request_exit(); }
  void kill() override { state_->abort(); }

 private:
  std::shared_ptr<upstream_state> state_;
  upstream_reader reader_;
  upstream_writer writer_;
};

}  // namespace

result<std::unique_ptr<server_link>> connect_http_upstream(asio::any_io_executor executor,
                                                           const http_upstream_options& options) {
  auto url = parse_http_url(options.url);
  if (!url) return error{"--upstream: " + url.error_message()};
  for (const auto& [name, value] : options.headers) {
    if (name.empty() || name.find_first_of(" \t\r\n:") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
      return error{"invalid header '" + name + "'"};
  }
  auto state = std::make_shared<upstream_state>(executor, options, *url);
  if (auto tls = state->init_tls(); !tls) return error{tls.error_message()};
  return std::unique_ptr<server_link>(std::make_unique<http_link>(std::move(state)));
}

result<std::pair<std::string, std::string>> parse_header_option(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return error{"--header expects 'Name: value', got '" + text + "'"};
  std::string name = text.substr(0, colon);
  std::string value = text.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  if (name.find_first_of(" \t\r\n") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
    return error{"--header: invalid header '" + text + "'"};
  return std::pair{name, value};
}

result<http_transport> parse_transport_option(const std::string& text) {
  if (text == "auto") return http_transport::auto_detect;
  if (text == "streamable-http") return http_transport::streamable_http;
  if (text == "sse") return http_transport::sse;
  return error{"--transport must be auto, streamable-http or sse, got '" + text + "'"};
}

}  // namespace warden::transports
