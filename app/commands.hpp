#pragma once
// The subcommands of mcp-warden. Each takes the arguments after its own name and returns the
// process exit code; each prints its own errors.
#include <string>
#include <vector>

namespace warden::app {

int run_proxy_command(const std::vector<std::string>& args);     // mcp-warden [options] -- COMMAND...
int run_serve_command(const std::vector<std::string>& args);     // mcp-warden serve [options] -- COMMAND... | --upstream URL
int run_scan_command(const std::vector<std::string>& args);      // mcp-warden scan ...
int run_rules_command(const std::vector<std::string>& args);     // mcp-warden rules
int run_explain_command(const std::vector<std::string>& args);   // mcp-warden explain RULE_ID
int run_discover_command(const std::vector<std::string>& args);  // mcp-warden discover
int run_wrap_command(const std::vector<std::string>& args);      // mcp-warden wrap [CONFIG...|--all]
int run_unwrap_command(const std::vector<std::string>& args);    // mcp-warden unwrap [CONFIG...|--all]
int run_policy_command(const std::vector<std::string>& args);    // mcp-warden policy check FILE
int run_pins_command(const std::vector<std::string>& args);      // mcp-warden pins list|diff|approve
int run_log_command(const std::vector<std::string>& args);       // mcp-warden log show|verify|keygen

}  // namespace warden::app
