// bench_echo_server: a minimal, fast MCP server over stdio for the benchmarks, so that the
// server's own cost does not hide the proxy's. Tools: `echo {message}` (the same shape as
// server-everything's) and `blob {bytes}` (a text result of that many bytes).
// All replies to one read() go out in one write(), as a well-behaved fast server would.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_json.hpp"

namespace {

using namespace warden::bench;

std::string blob_cache;

void append_result_head(std::string& out, std::string_view id) {
  out += R"({"jsonrpc":"2.0","id":)";
  out += id;
  out += R"(,"result":)";
}

void answer(std::string_view line, std::string& out) {
  const auto method_token = member(line, "method");
  const auto id = member(line, "id");
  if (!method_token || !id) return;  // notifications and responses get no answer
  const std::string_view method = string_body(*method_token);
  if (method == "tools/call") {
    const auto params = member(line, "params");
    const std::string_view name = params ? string_body(member(*params, "name").value_or("")) : "";
    const auto arguments = params ? member(*params, "arguments") : std::nullopt;
    if (name == "echo" && arguments) {
      append_result_head(out, *id);
      out += R"({"content":[{"type":"text","text":"Echo: )";
      out += string_body(member(*arguments, "message").value_or(""));  // escapes stay valid JSON
      out += "\"}]}}\n";
      return;
    }
    if (name == "blob" && arguments) {
      const auto size = to_int(member(*arguments, "bytes").value_or("0")).value_or(0);
      if (blob_cache.size() != static_cast<std::size_t>(size)) blob_cache.assign(static_cast<std::size_t>(size), 'x');
      append_result_head(out, *id);
      out += R"({"content":[{"type":"text","text":")";
      out += blob_cache;
      out += "\"}]}}\n";
      return;
    }
    out += R"({"jsonrpc":"2.0","id":)";
    out += *id;
    out += R"(,"error":{"code":-32602,"message":"unknown tool"}})";
    out += '\n';
    return;
  }
  append_result_head(out, *id);
  if (method == "initialize") {
    out += R"({"protocolVersion":"2025-06-18","capabilities":{"tools":{}},)"
           R"("serverInfo":{"name":"bench-echo","version":"1.0.0"}})";
  } else if (method == "tools/list") {
    out += R"({"tools":[)"
           R"({"name":"echo","description":"Echoes the message back.","inputSchema":{"type":"object",)"
           R"("properties":{"message":{"type":"string"}},"required":["message"]}},)"
           R"({"name":"blob","description":"Returns a text of the requested size.","inputSchema":{)"
           R"("type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}}]})";
  } else if (method == "ping") {
    out += "{}";
  } else {
    out.resize(out.size() - std::strlen(R"(,"result":)"));
    out += R"(,"error":{"code":-32601,"message":"method not found"})";
  }
  out += "}\n";
}

bool write_all(const std::string& data) {
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(STDOUT_FILENO, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

int main() {
  std::vector<char> chunk(1 << 16);
  std::string pending;  // an incomplete line
  std::string out;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    std::string_view data(chunk.data(), static_cast<std::size_t>(n));
    out.clear();
    for (;;) {
      const auto newline = data.find('\n');
      if (newline == std::string_view::npos) {
        pending.append(data);
        break;
      }
      if (pending.empty()) {
        answer(data.substr(0, newline), out);
      } else {
        pending.append(data.substr(0, newline));
        answer(pending, out);
        pending.clear();
      }
      data.remove_prefix(newline + 1);
    }
    if (!out.empty() && !write_all(out)) return 0;
  }
}
