// The Streamable HTTP upstream (transports/http_upstream.hpp) against an HTTP server the test runs
// on 127.0.0.1:0: answers as JSON and as SSE streams, the session id on later requests, a new
// session after a 404, and a 401 without OAuth.
#include "transports/http_upstream.hpp"

#include "protocol/jsonrpc.hpp"

#include <doctest/doctest.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using nlohmann::json;
using namespace warden;

namespace {

struct seen_request {
  std::string method, target, body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  json doc() const { return json::parse(body, nullptr, false); }
};

struct reply {
  unsigned status = 200;
  std::string content_type = "application/json";  // "": none
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

reply json_reply(const json& doc, std::string session = "") {
  reply r;
  r.body = doc.dump();
  if (!session.empty()) r.headers.emplace_back("Mcp-Session-Id", std::move(session));
  return r;
}

reply accepted() { return {202, "", "", {}}; }

// An HTTP/1.1 server on 127.0.0.1:0 (keep-alive) that records each request and answers it with
// `answer`. Runs on the test's io_context.
class fake_http_server {
 public:
  fake_http_server(asio::io_context& io, std::function<reply(const seen_request&)> answer)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), answer_(std::move(answer)) {
    asio::co_spawn(io, accept_loop(), asio::detached);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/mcp"; }
  void stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    for (auto& socket : sockets_) socket->close(ignored);
  }
  std::vector<seen_request> requests;

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      auto shared = std::make_shared<tcp::socket>(std::move(socket));
      sockets_.push_back(shared);
      asio::co_spawn(acceptor_.get_executor(), serve(shared), asio::detached);
    }
  }
  asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket) {
    boost::beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      auto [ec, n] = co_await http::async_read(*socket, buffer, req, asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      seen_request seen{std::string(req.method_string()), std::string(req.target()), req.body(), {}};
      for (const auto& field : req) {
        std::string name(field.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        seen.headers[name] = std::string(field.value());
      }
      requests.push_back(seen);
      const reply r = answer_(seen);
      http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
      if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);
      for (const auto& [name, value] : r.headers) res.set(name, value);
      res.body() = r.body;
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      auto [write_ec, written] = co_await http::async_write(*socket, res, asio::as_tuple(asio::use_awaitable));
      if (write_ec || !res.keep_alive()) co_return;
    }
  }

  tcp::acceptor acceptor_;
  std::function<reply(const seen_request&)> answer_;
  std::vector<std::shared_ptr<tcp::socket>> sockets_;
};

const json initialize = {{"jsonrpc", "2.0"},
                         {"id", 0},
                         {"method", "initialize"},
                         {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "c"}, {"version", "1"}}}}}};
const std::string initialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

json initialize_result(const json& id) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"result", {{"protocolVersion", "2025-06-18"}, {"capabilities", {{"tools", json::object()}}}, {"serverInfo", {{"name", "fake-http"}, {"version", "1"}}}}}};
}

// What the servers here answer alike: GET (no stream offered: 405), initialize (a session named
// `session`) and notifications (202). nullopt: the test answers.
std::optional<reply> common_reply(const seen_request& r, const std::string& session) {
  if (r.method != "POST") return reply{405, "", "", {}};
  const json doc = r.doc();
  if (doc.value("method", "") == "initialize") return json_reply(initialize_result(doc["id"]), session);
  if (!doc.contains("id")) return accepted();
  return std::nullopt;
}

// The upstream link to a fake server; run(script) drives both on one io_context.
struct upstream_run {
  asio::io_context io;
  fake_http_server server;
  std::unique_ptr<transports::server_link> link;
  using script = std::function<asio::awaitable<void>(upstream_run&)>;

  explicit upstream_run(std::function<reply(const seen_request&)> answer) : server(io, std::move(answer)) {
    transports::http_upstream_options options;
    options.url = server.url();
    options.transport = transports::http_transport::streamable_http;
    options.read_timeout = std::chrono::seconds(5);
    auto made = transports::connect_http_upstream(io.get_executor(), options);
    REQUIRE_MESSAGE(made, (made ? std::string() : made.error_message()));
    link = std::move(*made);
  }

  void run(script steps) {
    steps_ = std::move(steps);
    bool done = false;
    std::exception_ptr failure;
    asio::co_spawn(io, steps_(*this), [&](std::exception_ptr e) {
      failure = e;
      done = true;
      link->kill();
      server.stop();
      io.stop();
    });
    io.run_for(std::chrono::seconds(20));
    if (failure) std::rethrow_exception(failure);
    REQUIRE_MESSAGE(done, "the test script did not finish in time");
  }

  // The handshake every script starts with: initialize, its answer (returned), initialized.
  asio::awaitable<std::string> open_session() {
    co_await send(initialize.dump());
    std::string answer = co_await receive();
    co_await send(initialized);
    co_return answer;
  }

  asio::awaitable<void> send(const std::string& bytes) {
    const auto ec = co_await link->input().async_write_message(bytes);
    REQUIRE_MESSAGE(!ec, ec.message());
  }
  asio::awaitable<std::string> receive() {
    auto in = co_await link->output().async_read_message();
    REQUIRE_MESSAGE(!in.ec, in.ec.message());
    co_return std::move(in.message.bytes);
  }
  // The requests of one HTTP method, in order.
  std::vector<seen_request> requests(const std::string& method) const {
    std::vector<seen_request> out;
    for (const auto& r : server.requests)
      if (r.method == method) out.push_back(r);
    return out;
  }

 private:
  script steps_;
};

}  // namespace

TEST_CASE("http upstream: a POST answered with JSON; the session id and protocol version go on later requests") {
  static const std::string list_result = R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}})";
  upstream_run u([](const seen_request& r) -> reply {
    if (auto common = common_reply(r, "session-1")) return *common;
    reply answer;
    answer.body = list_result;
    return answer;
  });
  static std::string init_answer, list_answer;
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    init_answer = co_await up.open_session();
    co_await up.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    list_answer = co_await up.receive();
  });
  CHECK(json::parse(init_answer) == initialize_result(0));
  CHECK(list_answer == list_result);  // byte for byte
  const auto posts = u.requests("POST");
  REQUIRE(posts.size() == 3);
  CHECK(posts[0].target == "/mcp");
  CHECK(posts[0].header("accept") == "application/json, text/event-stream");
  CHECK(posts[0].header("content-type") == "application/json");
  CHECK(posts[0].header("mcp-session-id").empty());
  CHECK(posts[0].body == initialize.dump());
  for (std::size_t i = 1; i < posts.size(); ++i) {
    CHECK(posts[i].header("mcp-session-id") == "session-1");
    CHECK(posts[i].header("mcp-protocol-version") == "2025-06-18");
  }
  CHECK(posts[2].body == R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
}

TEST_CASE("http upstream: a POST answered with an SSE stream yields each event's message in order") {
  static const std::string progress =
      R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}})";
  static const std::string result = R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}})";
  upstream_run u([](const seen_request& r) -> reply {
    if (auto common = common_reply(r, "session-1")) return *common;
    reply stream;
    stream.content_type = "text/event-stream";
    stream.body = "id: e1\nretry: 1000\ndata:\n\nevent: message\nid: e2\ndata: " + progress + "\n\nid: e3\ndata: " + result + "\n\n";
    return stream;
  });
  static std::vector<std::string> received;
  received.clear();
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    co_await up.open_session();
    co_await up.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t"}}})");
    received.push_back(co_await up.receive());
    received.push_back(co_await up.receive());
  });
  CHECK(received == std::vector<std::string>{progress, result});
}

TEST_CASE("http upstream: a 404 for the session starts a new one with the client's initialize and sends the request again") {
  struct state {
    int sessions = 0;
    bool expired_once = false;
  };
  static state s;
  s = {};
  static const std::string list_result = R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})";
  upstream_run u([](const seen_request& r) -> reply {
    if (r.method != "POST") return {405, "", "", {}};
    const json doc = r.doc();
    if (doc.value("method", "") == "initialize") return json_reply(initialize_result(doc["id"]), "session-" + std::to_string(++s.sessions));
    if (r.header("mcp-session-id") != "session-" + std::to_string(s.sessions)) return {404, "", "", {}};
    if (!doc.contains("id")) return accepted();
    if (!s.expired_once) {  // the server forgets session-1 while it is in use
      s.expired_once = true;
      return {404, "application/json", R"({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}})", {}};
    }
    reply answer;
    answer.body = list_result;
    return answer;
  });
  static std::string answer;
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    co_await up.open_session();
    co_await up.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    answer = co_await up.receive();  // the re-initialisation's own answer is not delivered
  });
  CHECK(answer == list_result);
  const auto posts = u.requests("POST");
  REQUIRE(posts.size() == 6);
  CHECK(posts[2].header("mcp-session-id") == "session-1");  // tools/list: 404
  CHECK(posts[3].doc()["method"] == "initialize");          // the client's initialize again,
  CHECK(posts[3].doc()["id"] == "mcp-warden-reinit-1");     // under an id of ours
  CHECK(posts[3].doc()["params"] == initialize["params"]);
  CHECK(posts[3].header("mcp-session-id").empty());
  CHECK(posts[4].doc()["method"] == "notifications/initialized");
  CHECK(posts[4].header("mcp-session-id") == "session-2");
  CHECK(posts[5].body == R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK(posts[5].header("mcp-session-id") == "session-2");
}

TEST_CASE("http upstream: a 401 without OAuth answers the request with a JSON-RPC error naming the status") {
  upstream_run u([](const seen_request&) -> reply {
    return {401, "text/plain", "missing bearer token", {{"WWW-Authenticate", R"(Bearer realm="mcp")"}}};
  });
  static std::string answer;
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    co_await up.send(initialize.dump());
    answer = co_await up.receive();
  });
  CHECK(json::parse(answer) ==
        json{{"jsonrpc", "2.0"},
             {"id", 0},
             {"error", {{"code", -32000}, {"message", "mcp-warden: the server answered HTTP 401 Unauthorized: missing bearer token"}}}});
  CHECK(u.requests("POST").size() == 1);
}

TEST_CASE("http upstream: a classified write is not classified again, and each server message comes with its classification") {
  static const std::string call_result = R"({"jsonrpc":"2.0","id":3,"result":{"content":[]}})";
  upstream_run u([](const seen_request& r) -> reply {
    if (auto common = common_reply(r, "session-1")) return *common;
    reply answer;
    answer.body = call_result;
    return answer;
  });
  static transports::read_outcome answer;
  answer = {};
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    co_await up.open_session();
    // The name's key is escaped: the headers come from the classification and its text alone.
    const std::string call =
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"n\u0061me":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})";
    auto parsed = protocol::parse_message(call, protocol::parse_limits{512, /*document=*/false});
    REQUIRE(parsed.ok);
    REQUIRE(up.link->input().takes_classified());
    const auto ec = co_await up.link->input().async_write_classified(call, std::make_shared<const protocol::message>(std::move(parsed.value)));
    REQUIRE(!ec);
    answer = co_await up.link->output().async_read_message();
  });
  const auto posts = u.requests("POST");
  REQUIRE(posts.size() == 3);
  CHECK(posts[2].header("mcp-protocol-version") == "2026-07-28");
  CHECK(posts[2].header("mcp-method") == "tools/call");
  CHECK(posts[2].header("mcp-name") == "echo");
  CHECK(answer.message.bytes == call_result);
  REQUIRE(answer.classified);
  REQUIRE(answer.classified->ok);
  CHECK(answer.classified->value.kind == protocol::message_kind::response);
  CHECK(answer.classified->value.key() == "3");
  CHECK_FALSE(answer.classified->value.has_document);  // classified without building a document
}

TEST_CASE("http upstream: an answer that is not JSON goes to the session classified as a parse error") {
  upstream_run u([](const seen_request& r) -> reply {
    if (auto common = common_reply(r, "session-1")) return *common;
    reply answer;
    answer.body = "{not json";
    return answer;
  });
  static std::vector<transports::read_outcome> received;
  received.clear();
  u.run([](upstream_run& up) -> asio::awaitable<void> {
    co_await up.open_session();
    co_await up.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})");
    received.push_back(co_await up.link->output().async_read_message());
    received.push_back(co_await up.link->output().async_read_message());
  });
  REQUIRE(received.size() == 2);
  CHECK(received[0].message.bytes == "{not json");
  REQUIRE(received[0].classified);
  CHECK_FALSE(received[0].classified->ok);
  CHECK(received[0].classified->failure.code == protocol::error_codes::parse_error);
  // The request still gets an answer: the session drops what is not a message.
  CHECK(json::parse(received[1].message.bytes) ==
        json{{"jsonrpc", "2.0"},
             {"id", 4},
             {"error", {{"code", -32000}, {"message", "mcp-warden: the server answered HTTP 200 without a response"}}}});
}
