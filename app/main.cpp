// mcp-warden: a live auditing proxy for the Model Context Protocol.
// main() only picks the subcommand; each command reads: parse args -> load config -> run.
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/logging.hpp"
#include "app/scan_configs.hpp"
#include "app/version.hpp"

int main(int argc, char** argv) {
  using namespace warden::app;
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string first = args.empty() ? std::string() : args.front();
  const std::vector<std::string> rest = args.empty() ? args : std::vector<std::string>(args.begin() + 1, args.end());

  // Diagnostics go to stderr from the start: stdout carries MCP messages or reports.
  (void)configure_logging("warn", "");
  if (first == "--version") {
    std::printf("mcp-warden %s\nallocator: %s\n", version, WARDEN_ALLOCATOR_NAME);
    return 0;
  }
  if (first == "serve") return run_serve_command(rest);
  if (first == "discover") return run_discover_command(rest);
  if (first == "wrap") return run_wrap_command(rest);
  if (first == "unwrap") return run_unwrap_command(rest);
  if (first == "scan" && is_config_scan(rest)) return run_config_scan_command(rest);
  if (first == "policy") return run_policy_command(rest);
  if (first == "pins") return run_pins_command(rest);
  if (first == "log") return run_log_command(rest);
  if (first == "scan") return run_scan_command(rest);
  if (first == "rules") return run_rules_command(rest);
  if (first == "explain") return run_explain_command(rest);
  return run_proxy_command(args);
}
