// The session relaying between a fake client stream and a fake server link (fake_session.hpp):
// byte-for-byte passthrough, errors for requests a dying server leaves pending, shutdown when the
// client goes, and malformed input from either side.
#include "proxy/session.hpp"

#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "fake_session.hpp"
#include "protocol/jsonrpc.hpp"

using namespace warden;
using namespace warden::test;
using nlohmann::json;

namespace {

// The session's log while it is alive, for the cases where a log line is the only trace.
struct captured_log {
  std::ostringstream text;
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  captured_log() {
    auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_st>(text));
    logger->set_pattern("%l %v");
    spdlog::set_default_logger(logger);
  }
  ~captured_log() { spdlog::set_default_logger(previous); }
  bool has(const std::string& part) const { return text.str().find(part) != std::string::npos; }
};

json error_of(const json& id, int code, const std::string& text) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", text}}}};
}

}  // namespace

TEST_CASE("requests, responses and notifications pass byte for byte in both directions") {
  session_harness h;
  // Odd spacing, member order, escapes and a string id: re-serialising would change each of them.
  static const std::string initialize =
      R"({ "id" : "a-1", "method":"initialize","jsonrpc":"2.0","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t\u00e9st","version":"1"}}})";
  static const std::string initialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
  static const std::string init_result =
      R"({"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1.0"},"instructions":"caf\u00e9  \/ ok"},"jsonrpc":"2.0","id":"a-1"})";
  static const std::string roots_request = R"({"jsonrpc":"2.0","id":0,"method":"roots/list"})";
  static const std::string roots_answer = R"({"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///tmp"}]}})";
  static const std::string call = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"1e2"}}})";
  static const std::string call_result = R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"1e2"}],"n":1.0E2}})";
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(initialize);
    co_await s.server_has(1);
    s.server->out().push(init_result);
    co_await s.client_has(1);
    s.client_in->push(initialized);
    s.server->out().push(roots_request);  // the server's own request, id 0 like the client's first
    co_await s.client_has(2);
    s.client_in->push(roots_answer);
    s.client_in->push(call);
    co_await s.server_has(4);
    s.server->out().push(call_result);
    co_await s.client_has(3);
    s.client_in->end();
  });
  CHECK(h.server->in().written == std::vector<std::string>{initialize, initialized, roots_answer, call});
  CHECK(h.client_out->written == std::vector<std::string>{init_result, roots_request, call_result});
  CHECK(h.session->initialized());
  CHECK(h.session->surface().name == "fake");
  CHECK(h.session->counters().client_messages == 4);
  CHECK(h.session->counters().server_messages == 3);
  CHECK(h.outcome->exit_code == 0);
  CHECK(h.outcome->reason == "server exited with status 0");
}

TEST_CASE("a server that ends mid-request: each pending request gets a JSON-RPC error, answered ones none") {
  int status = 0;
  std::string how;
  SUBCASE("exits") {
    status = 1;
    how = "exited with status 1";
  }
  SUBCASE("killed by a signal") {
    status = 128 + 9;
    how = "was killed by signal 9";
  }
  session_harness h;
  h.run([status](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}})");
    co_await s.server_has(1);  // sent before the others: the errors come oldest first
    s.client_in->push(R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
    s.client_in->push(R"({"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"file:///x"}})");
    co_await s.server_has(3);
    s.server->out().push(R"({"jsonrpc":"2.0","id":"p","result":{}})");
    co_await s.client_has(1);
    s.server->exit(status);
    co_await s.until([&s] { return s.client_out->closed; });
  });
  REQUIRE(h.client_out->written.size() == 3);
  CHECK(h.client_out->written[0] == R"({"jsonrpc":"2.0","id":"p","result":{}})");
  // Oldest first, each naming what the server did and which request it left.
  CHECK(h.client_out->message(1) == error_of(7, -32000, "mcp-warden: the MCP server " + how + " before answering 'tools/call'"));
  CHECK(h.client_out->message(2) == error_of(8, -32000, "mcp-warden: the MCP server " + how + " before answering 'resources/read'"));
  CHECK(h.outcome->exit_code == status);
  CHECK(h.outcome->reason == "server " + how);
  CHECK(h.server->in().closed);
  CHECK(h.client_in->cancelled());
}

TEST_CASE("a client that vanishes shuts the session down cleanly") {
  SUBCASE("its input ends: the server's input is closed after what was queued, and the server exits") {
    session_harness h;
    h.run([](session_harness& s) -> asio::awaitable<void> {
      s.client_in->push(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
      s.client_in->push(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
      s.client_in->end();
      co_return;
    });
    CHECK(h.server->in().written.size() == 2);
    CHECK(h.server->in().closed);
    CHECK(h.server->request_exit_calls == 0);
    CHECK(h.server->kill_calls == 0);
    CHECK(h.client_out->closed);
    CHECK(h.outcome->exit_code == 0);
  }
  SUBCASE("writes to it fail: the session stops reading and ends the server") {
    session_harness h;
    h.client_out->fail_with = asio::error::broken_pipe;
    h.run([](session_harness& s) -> asio::awaitable<void> {
      s.server->out().push(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}})");
      co_await s.until([&s] { return s.server->in().closed; });
    });
    CHECK(h.client_out->written.empty());
    CHECK(h.server->in().closed);
    CHECK(h.client_in->cancelled());
    CHECK(h.outcome->exit_code == 0);
  }
  SUBCASE("a server that ignores the end of its input gets SIGTERM, then SIGKILL") {
    session_harness h;
    h.server->exits_when_input_closes = false;
    bool obeys = true;
    SUBCASE("obeys SIGTERM") {}
    SUBCASE("ignores SIGTERM") { obeys = false; }
    h.server->obeys_request_exit = obeys;
    h.run([](session_harness& s) -> asio::awaitable<void> {
      s.client_in->end();
      co_return;
    });
    CHECK(h.server->in().closed);
    CHECK(h.server->request_exit_calls == 1);
    CHECK(h.server->kill_calls == (obeys ? 0 : 1));
    CHECK(h.outcome->exit_code == (obeys ? 143 : 137));
    CHECK(h.outcome->reason == (obeys ? "server was killed by signal 15" : "server was killed by signal 9"));
  }
}

TEST_CASE("malformed JSON from the client gets an error naming the fault; the relay goes on") {
  session_harness h;
  static const std::string valid = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(R"({"jsonrpc":"2.0","id":1,"method":)");
    s.client_in->push(R"({"jsonrpc":"2.0","id":3})");  // valid JSON, not a JSON-RPC message
    s.client_in->push(valid);
    co_await s.server_has(1);
    s.server->out().push(R"({"jsonrpc":"2.0","id":2,"result":{}})");
    co_await s.client_has(3);
    s.client_in->end();
  });
  CHECK(h.server->in().written == std::vector<std::string>{valid});
  REQUIRE(h.client_out->written.size() == 3);
  CHECK(h.client_out->message(0) ==
        error_of(nullptr, -32700,
                 "mcp-warden: invalid JSON: parse error at line 1, column 34: syntax error while parsing value - unexpected end of "
                 "input; expected '[', '{', or a literal"));
  CHECK(h.client_out->message(1) == error_of(3, -32600, "mcp-warden: neither a request, a notification nor a response"));
  CHECK(h.client_out->written[2] == R"({"jsonrpc":"2.0","id":2,"result":{}})");
  CHECK(h.session->counters().client_rejected == 2);
}

TEST_CASE("an over-size client message is refused with an error carrying its id") {
  session_harness h;
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push_oversized(70u << 20, R"({"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"x","arguments":{"blob":")",
                                R"(AAAA"}}})");
    co_await s.client_has(1);
    s.client_in->end();
  });
  CHECK(h.server->in().written.empty());
  CHECK(h.client_out->message(0) ==
        error_of(41, -32600, "mcp-warden: message of " + std::to_string(70u << 20) + " bytes exceeds the limit of " + std::to_string(64u << 20) + " bytes"));
}

TEST_CASE("malformed JSON from the server is dropped with a logged reason; the relay goes on") {
  captured_log log;
  session_harness h;
  static const std::string answer = R"({"jsonrpc":"2.0","id":1,"result":{}})";
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    co_await s.server_has(1);
    s.server->out().push("Starting server on stdio...");
    s.server->out().push(R"({"jsonrpc":"2.0","id":1,"result":)");
    s.server->out().push(answer);
    co_await s.client_has(1);
    s.client_in->end();
  });
  CHECK(h.client_out->written == std::vector<std::string>{answer});
  CHECK(h.session->counters().server_dropped == 2);
  CHECK(log.has(
      "warning server sent an invalid message (invalid JSON: parse error at line 1, column 1: syntax error while "
      "parsing value - invalid literal; last read: 'S'); dropped: Starting server on stdio..."));
  CHECK(log.has(
      "warning server sent an invalid message (invalid JSON: parse error at line 1, column 34: syntax error "
      "while parsing value - unexpected end of input; expected '[', '{', or a literal); dropped: "));
  CHECK(log.has("dropped: Starting server on stdio..."));
}

TEST_CASE("an inspector that throws is counted and the message forwarded unchanged (fail open)") {
  struct throwing final : proxy::inspector {
    std::string_view name() const override { return "throwing"; }
    proxy::verdict inspect(const protocol::message&, const proxy::message_context&) override {
      throw std::runtime_error("boom");
    }
  };
  session_harness h;
  h.session->add_inspector(std::make_unique<throwing>());
  static const std::string request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}})";
  static const std::string answer = R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})";
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(request);
    co_await s.server_has(1);
    s.server->out().push(answer);
    co_await s.client_has(1);
    s.client_in->end();
  });
  CHECK(h.server->in().written == std::vector<std::string>{request});
  CHECK(h.client_out->written == std::vector<std::string>{answer});
  CHECK(h.session->counters().inspector_failures == 2);
}

TEST_CASE("the session's own enumeration is answered by the server and never reaches the client") {
  proxy::session_options options = quick_options();
  options.enumerate = true;
  session_harness h(options);
  h.session->on_surface_changed([&h](const analysis::server_surface&) { h.changes.poke(); });  // wakes the script
  h.run([](session_harness& s) -> asio::awaitable<void> {
    s.client_in->push(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})");
    co_await s.server_has(1);
    s.server->out().push(R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}})");
    s.client_in->push(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    co_await s.server_has(3);  // initialize, initialized, and our tools/list
    const json own = s.server->in().message(2);
    CHECK(own["method"] == "tools/list");
    CHECK(own["id"].get<std::string>().rfind("mcp-warden-", 0) == 0);
    json answer = {{"jsonrpc", "2.0"}, {"id", own["id"]}, {"result", {{"tools", json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}})}}}};
    s.server->out().push(answer.dump());
    co_await s.until([&s] { return s.session->surface_complete(); });
    s.client_in->end();
  });
  CHECK(h.client_out->written.size() == 1);  // the initialize result only
  REQUIRE(h.session->surface().tools.size() == 1);
  CHECK(h.session->surface().tools[0]["name"] == "echo");
  CHECK(h.session->counters().internal_requests == 1);
}
