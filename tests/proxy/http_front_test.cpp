// The HTTP front of `mcp-warden serve` (proxy/http_front.hpp) in-process: real sessions, each
// with a scripted fake server (fake_session.hpp), and a Beast client on 127.0.0.1.
#include "proxy/http_front.hpp"

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "fake_session.hpp"

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using namespace warden;
using namespace warden::test;
using nlohmann::json;

namespace {

const std::string initialize = initialize_request(1);
const std::string& initialized = initialized_notification;
const std::string echo_call = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})";
const std::string init_result = initialize_response(1, R"({"tools":{}})");
const std::string echo_result = R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}})";

using header_list = std::vector<std::pair<std::string, std::string>>;
const header_list mcp_headers = {header_list::value_type{"Accept", "application/json, text/event-stream"},
                                 header_list::value_type{"Content-Type", "application/json"}};

header_list with(header_list headers, const std::string& name, const std::string& value) {
  headers.emplace_back(name, value);
  return headers;
}

struct http_answer {
  unsigned status = 0;
  std::string content_type, session_id, body;
  json error() const { return json::parse(body, nullptr, false); }
};

// The servers the front starts: each answers initialize and tools/call (echo) at once. What
// each received outlives it (its session, which owns it, ends with the front).
struct fake_servers {
  explicit fake_servers(activity& wake) : changes(wake) {}
  struct record {
    std::vector<std::string> received;
    bool input_closed = false;
  };
  activity& changes;
  bool refuse = false;  // the factory fails, as a server that cannot start
  std::vector<std::shared_ptr<record>> made;

  proxy::server_factory factory() {
    return [this]() -> result<std::unique_ptr<transports::server_link>> {
      if (refuse) return error{"cannot run 'fake-mcp': No such file or directory"};
      auto link = std::make_unique<fake_server_link>(changes);
      fake_server_link* server = link.get();
      auto seen = std::make_shared<record>();
      server->in().on_close = [seen, exit = std::move(server->in().on_close)] {
        seen->input_closed = true;
        exit();
      };
      server->in().on_write = [server, seen](const std::string& bytes) {
        seen->received.push_back(bytes);
        const json msg = json::parse(bytes);
        if (!msg.contains("id") || !msg.contains("method")) return;
        if (msg["method"] == "initialize") server->out().push(init_result);
        else if (msg["method"] == "tools/call") server->out().push(echo_result);
      };
      made.push_back(seen);
      return std::unique_ptr<transports::server_link>(std::move(link));
    };
  }
};

struct front_run {
  asio::io_context io;
  activity changes{io.get_executor()};
  fake_servers servers{changes};
  std::unique_ptr<proxy::http_front> front;
  std::uint16_t port = 0;
  using script = std::function<asio::awaitable<void>(front_run&)>;

  front_run() {
    proxy::http_front_options options;
    options.listen.port = 0;
    front = std::make_unique<proxy::http_front>(io.get_executor(), options, quick_options(), servers.factory());
    auto listening = front->listen();
    REQUIRE_MESSAGE(listening, (listening ? std::string() : listening.error_message()));
    const std::string url = front->url();  // http://127.0.0.1:PORT/mcp
    port = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }
  ~front_run() { front.reset(); }

  void run(script steps) {
    steps_ = std::move(steps);
    bool front_done = false, script_done = false;
    std::exception_ptr failure;
    asio::co_spawn(io, front->run(), [&](std::exception_ptr) { front_done = true; });
    asio::co_spawn(io, steps_(*this), [&](std::exception_ptr e) {
      failure = e;
      script_done = true;
      front->stop();
    });
    io.run_for(std::chrono::seconds(20));
    if (failure) std::rethrow_exception(failure);
    REQUIRE_MESSAGE(script_done, "the test script did not finish in time");
    REQUIRE_MESSAGE(front_done, "the front did not stop in time");
  }

  // One request on a connection of its own, read to its end (an SSE stream ends once it has
  // carried the answers to its requests).
  asio::awaitable<http_answer> request(http::verb verb, const std::string& body, const header_list& headers) {
    tcp::socket socket(io);
    co_await socket.async_connect({asio::ip::make_address("127.0.0.1"), port}, asio::use_awaitable);
    http::request<http::string_body> req{verb, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    for (const auto& [name, value] : headers) req.set(name, value);
    req.body() = body;
    req.prepare_payload();
    co_await http::async_write(socket, req, asio::use_awaitable);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    co_await http::async_read(socket, buffer, res, asio::use_awaitable);
    co_return http_answer{res.result_int(), std::string(res[http::field::content_type]), std::string(res["mcp-session-id"]),
                          res.body()};
  }
  asio::awaitable<http_answer> post(const std::string& body, const header_list& headers = mcp_headers) {
    return request(http::verb::post, body, headers);
  }

 private:
  script steps_;
};

bool has_event(const http_answer& answer, const std::string& message) {
  return answer.body.find("data: " + message + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("http front: a session's requests reach its server byte for byte; answers come back on SSE streams") {
  front_run f;
  static http_answer init, note, call;
  f.run([](front_run& r) -> asio::awaitable<void> {
    init = co_await r.post(initialize);
    const header_list in_session = with(with(mcp_headers, "Mcp-Session-Id", init.session_id), "MCP-Protocol-Version", "2025-06-18");
    note = co_await r.post(initialized, in_session);
    call = co_await r.post(echo_call, in_session);
  });
  CHECK(init.status == 200);
  CHECK(init.content_type == "text/event-stream");
  CHECK_FALSE(init.session_id.empty());
  CHECK(has_event(init, init_result));
  CHECK(note.status == 202);
  CHECK(note.body.empty());
  CHECK(call.status == 200);
  CHECK(has_event(call, echo_result));
  REQUIRE(f.servers.made.size() == 1);  // one server for the session
  CHECK(f.servers.made[0]->received == std::vector<std::string>{initialize, initialized, echo_call});
  CHECK(f.servers.made[0]->input_closed);  // stop() ended the session
}

TEST_CASE("http front: refused requests get the HTTP status and a JSON-RPC error, and start no server") {
  front_run f;
  struct refusal {
    unsigned status;
    int code;
    std::string message;
  };
  static std::vector<http_answer> answers;
  answers.clear();
  f.run([](front_run& r) -> asio::awaitable<void> {
    answers.push_back(co_await r.post(initialize, with(with({}, "Accept", "application/json"), "Content-Type", "application/json")));
    answers.push_back(
        co_await r.post(initialize, with(with({}, "Accept", "application/json, text/event-stream"), "Content-Type", "text/plain")));
    answers.push_back(co_await r.post("{\"jsonrpc\":", mcp_headers));
    answers.push_back(co_await r.post(echo_call, mcp_headers));
    answers.push_back(co_await r.post(echo_call, with(mcp_headers, "Mcp-Session-Id", "no-such-session")));
    answers.push_back(co_await r.post(initialize, with(mcp_headers, "MCP-Protocol-Version", "1999-01-01")));
  });
  const std::vector<refusal> expected = {
      {406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream"},
      {415, -32000, "Unsupported Media Type: Content-Type must be application/json"},
      {400, -32700, "Parse error: invalid JSON"},
      {400, -32000, "Bad Request: Mcp-Session-Id header is required"},
      {404, -32001, "Session not found"},
      {400, -32000, "Bad Request: Unsupported protocol version: 1999-01-01"},
  };
  REQUIRE(answers.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(answers[i].status == expected[i].status);
    CHECK(answers[i].error()["error"]["code"] == expected[i].code);
    CHECK(answers[i].error()["error"]["message"] == expected[i].message);
  }
  CHECK(f.servers.made.empty());
}

TEST_CASE("http front: a request from another site's page (Origin) is refused with 403") {
  front_run f;
  static http_answer answer;
  f.run([](front_run& r) -> asio::awaitable<void> {
    answer = co_await r.post(initialize, with(mcp_headers, "Origin", "http://evil.example"));
  });
  CHECK(answer.status == 403);
  CHECK(answer.body.find("Forbidden: ") != std::string::npos);
  CHECK(f.servers.made.empty());
}

TEST_CASE("http front: DELETE ends the session; its server's input is closed and its id is unknown after") {
  front_run f;
  static http_answer deleted, after;
  f.run([](front_run& r) -> asio::awaitable<void> {
    const http_answer init = co_await r.post(initialize);
    const header_list in_session = with(mcp_headers, "Mcp-Session-Id", init.session_id);
    deleted = co_await r.request(http::verb::delete_, "", in_session);
    co_await r.changes.until([&r] { return r.servers.made.size() == 1 && r.servers.made[0]->input_closed; });
    after = co_await r.post(echo_call, in_session);
  });
  CHECK(deleted.status == 200);
  CHECK(after.status == 404);
  CHECK(after.error()["error"]["message"] == "Session not found");
  REQUIRE(f.servers.made.size() == 1);
  CHECK(f.servers.made[0]->received == std::vector<std::string>{initialize});
}

TEST_CASE("http front: a server that cannot start: the initialize gets 502 and a JSON-RPC error with its id") {
  front_run f;
  f.servers.refuse = true;
  static http_answer answer;
  f.run([](front_run& r) -> asio::awaitable<void> { answer = co_await r.post(initialize); });
  CHECK(answer.status == 502);
  CHECK(answer.error() == json{{"jsonrpc", "2.0"},
                               {"id", 1},
                               {"error", {{"code", -32000}, {"message", "mcp-warden cannot start the server: cannot run 'fake-mcp': No such file or directory"}}}});
}
