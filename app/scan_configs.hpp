#pragma once
// mcp-warden scan --config FILE... | --all-configs: every server the user's MCP clients name,
// enumerated live and concurrently, then one cross-server analysis and one report.
#include <string>
#include <vector>

namespace warden::app {

// True when a scan command line asks for configs (--config / --all-configs) rather than a
// manifest or a command.
bool is_config_scan(const std::vector<std::string>& args);

// Exit codes as `scan`: 0 clean or below the gate, 1 gate failed, 2 usage or input error,
// 3 no server could be enumerated.
int run_config_scan_command(const std::vector<std::string>& args);

}  // namespace warden::app
