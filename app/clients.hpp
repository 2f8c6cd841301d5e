#pragma once
// Shared by discover / wrap / unwrap and scan --config: finding the client configs to work on.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "clients/client_configs.hpp"

namespace warden::app {

// home empty: $HOME plus APPDATA / XDG_CONFIG_HOME / CODEX_HOME from the environment; an explicit
// home ignores those (a sandbox). project empty: the current directory.
clients::discovery_options discovery_from(const std::string& home, const std::string& project);
// --home and --project, the two arguments of discovery_from.
void add_discovery_options(CLI::App& cli, std::string& home, std::string& project);

// The candidate locations that exist as regular files.
std::vector<clients::config_location> existing_locations(const clients::discovery_options& options);

// An explicitly named config file, classified by name and content.
result<clients::config_location> location_of_file(const std::string& path);

}  // namespace warden::app
