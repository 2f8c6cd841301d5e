// Overhead of the policy path per tools/call: the policy inspector deciding the request (rule
// match, argument constraints, secret scan, flows) and judging the response (result scan,
// redaction), with the audit record queued to the log writer. Not a test: prints figures.
// Usage: policy_bench [CALLS] [AUDIT_LOG_PATH]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "policy/policy.hpp"
#include "proxy/audit_log.hpp"
#include "protocol/jsonrpc.hpp"
#include "policy/policy_inspector.hpp"
#include "proxy/runtime_text.hpp"

using namespace warden;
using nlohmann::json;

namespace {

// As the session reads a message: its envelope only, and the whole document when the inspector
// asks for it (a tools/call and its answer are read from their text).
protocol::message parse(const std::string& text) {
  protocol::parse_limits limits;
  limits.document = false;
  return protocol::parse_message(text, limits).value;
}

protocol::message parse_for(const proxy::policy_inspector& inspector, const std::string& text, proxy::direction from) {
  protocol::message msg = parse(text);
  if (inspector.needs_document(msg, from)) protocol::load_document(msg, text);
  return msg;
}

double run(proxy::policy_inspector& inspector, int calls, const std::string& result_text) {
  using clock = std::chrono::steady_clock;
  std::vector<std::string> requests, responses;
  for (int i = 0; i < calls; ++i) {
    requests.push_back(json({{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/call"}, {"params", {{"name", "read_path"}, {"arguments", {{"path", "/srv/data/file" + std::to_string(i % 50) + ".txt"}}}}}})
                           .dump());
    responses.push_back(json({{"jsonrpc", "2.0"}, {"id", i}, {"result", {{"content", json::array({{{"type", "text"}, {"text", result_text}}})}}}}).dump());
  }
  const auto start = clock::now();
  for (int i = 0; i < calls; ++i) {
    const protocol::message request = parse_for(inspector, requests[i], proxy::direction::client_to_server);
    proxy::message_context up{proxy::direction::client_to_server, requests[i]};
    inspector.inspect(request, up);
    const protocol::message response = parse_for(inspector, responses[i], proxy::direction::server_to_client);
    proxy::message_context down{proxy::direction::server_to_client, responses[i]};
    inspector.inspect(response, down);
  }
  return std::chrono::duration<double, std::micro>(clock::now() - start).count() / calls;
}

double parse_only(int calls, const std::string& result_text) {
  using clock = std::chrono::steady_clock;
  const std::string request = json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "read_path"}, {"arguments", {{"path", "/srv/data/x.txt"}}}}}}).dump();
  const std::string response = json({{"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"content", json::array({{{"type", "text"}, {"text", result_text}}})}}}}).dump();
  const auto start = clock::now();
  for (int i = 0; i < calls; ++i) {
    volatile auto a = parse(request).kind;
    volatile auto b = parse(response).kind;
    (void)a;
    (void)b;
  }
  return std::chrono::duration<double, std::micro>(clock::now() - start).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::stoi(argv[1]) : 20000;
  const std::string log_path = argc > 2 ? argv[2] : (std::filesystem::temp_directory_path() / "policy_bench.audit.jsonl").string();
  std::filesystem::remove(log_path);
  auto policy = policy::parse_policy(R"({"tools":[
      {"tool":"delete_*","action":"deny"},
      {"tool":"read_path","arguments":{"path":{"paths":{"allow":["/srv/data/**"],"deny":["**/.ssh/**"]}}},
       "rateLimit":{"calls":1000000,"perSeconds":1}}],
    "secrets":{"arguments":"deny"},"flows":{"untrustedThenSink":"deny"}})",
                                     "bench");
  if (!policy) {
    std::fprintf(stderr, "%s\n", policy.error_message().c_str());
    return 2;
  }
  const std::string small = "The file contains 42 lines of ordinary text about the weather in Paris.";
  std::string large;
  while (large.size() < 16384) large += small + "\n";

  std::printf("calls per run: %d\n", calls);
  for (const auto& [label, text] : {std::pair<const char*, const std::string*>{"70-byte result", &small}, {"16 KiB result", &large}}) {
    const double baseline = parse_only(calls, *text);
    for (bool with_log : {false, true}) {
      std::unique_ptr<proxy::audit_log> log;
      if (with_log) {
        proxy::audit_options options;
        options.path = log_path;
        options.redact_secrets = true;
        options.max_string = 2048;
        options.max_depth = 12;
        auto opened = proxy::audit_log::open(options);
        log = std::move(*opened);
      }
      proxy::policy_inspector_options options;
      options.rules = *policy;
      options.mode = policy::mode::enforce;
      options.audit = log.get();
      options.session_id = "bench";
      auto created = proxy::policy_inspector::create(options);
      auto inspector = std::move(*created);
      run(*inspector, calls / 10, *text);  // warm-up
      const double per_call = run(*inspector, calls, *text);
      const auto queued_at = std::chrono::steady_clock::now();
      if (log) log->close();
      const double drain_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - queued_at).count();
      std::printf("%-15s audit log %-3s: policy path %.2f us/call (envelopes alone %.2f us/call)%s\n", label,
                  with_log ? "on" : "off", per_call, baseline,
                  with_log ? (", writer drained the rest in " + std::to_string(static_cast<int>(drain_ms)) + " ms").c_str() : "");
      if (log) {
        const auto stats = log->stats();
        std::printf("                written %llu, dropped %llu\n", static_cast<unsigned long long>(stats.written),
                    static_cast<unsigned long long>(stats.dropped));
      }
    }
  }
  std::filesystem::remove(log_path);
  return 0;
}
