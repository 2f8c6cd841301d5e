#pragma once
// MCP client configurations: where each client keeps its server list (per platform), and what a
// given file says. Reading never throws on a file's content; errors carry file:line:col.
// Paths per client and platform are documented in docs/clients.md.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "clients/jsonc.hpp"

namespace warden::clients {

enum class client_kind { claude_desktop,
                         claude_code,
                         cursor,
                         vscode,
                         windsurf,
                         gemini,
                         codex,
                         zed,
                         continue_dev,
                         other };

std::string_view to_string(client_kind client) noexcept;     // "claude-desktop", "claude-code", ..., "other"
std::string_view display_name(client_kind client) noexcept;  // "Claude Desktop", ...

// How a file arranges its servers; the same client may use several (Claude Code: ~/.claude.json
// has user and per-project lists, a project's .mcp.json has one).
enum class config_layout {
  mcp_servers,       // {"mcpServers": {NAME: entry}}                   Claude Desktop, Cursor, Windsurf, Gemini, .mcp.json
  claude_code_user,  // mcpServers plus projects.PATH.mcpServers        ~/.claude.json
  vscode_settings,   // {"mcp": {"servers": {NAME: entry}}}            VS Code user settings.json
  vscode_mcp,        // {"servers": {NAME: entry}}                      .vscode/mcp.json, VS Code user mcp.json
  zed_settings,      // {"context_servers": {NAME: entry}}              Zed settings.json
  continue_json,     // {"experimental": {"modelContextProtocolServers": [entry]}}  Continue config.json
  codex_toml,        // [mcp_servers.NAME] tables                       Codex config.toml
  unsupported,       // known file we cannot read (Continue's config.yaml)
};

enum class platform { linux_desktop,
                      macos,
                      windows };
platform current_platform() noexcept;

struct config_location {
  client_kind client = client_kind::claude_desktop;
  std::string scope;  // "user", "project", or "file" (named on the command line, scope unknown)
  std::filesystem::path path;
  config_layout layout = config_layout::mcp_servers;
};

struct discovery_options {
  std::filesystem::path home;     // the user's home directory
  std::filesystem::path project;  // project directory for project-scoped files (empty: none)
  platform os = current_platform();
  std::map<std::string, std::string> env;  // APPDATA, XDG_CONFIG_HOME, CODEX_HOME when set
};

// Every place a known client may keep its MCP servers, whether or not the file exists.
std::vector<config_location> candidate_locations(const discovery_options& options);

// The location an explicitly named file most likely is: by its name and folder, then by content
// (mcpServers / servers / context_servers / TOML). Never fails: unknown files are read as
// {"mcpServers": ...}.
config_location classify_path(const std::filesystem::path& path, std::string_view content);

enum class server_transport { stdio,
                              http,
                              sse,
                              unknown };
std::string_view to_string(server_transport transport) noexcept;

// Where an entry's editable values sit in the file, for splicing.
enum class entry_syntax { json,
                          toml_table,
                          toml_inline };

struct server_entry {
  std::string name;     // key in the config (Continue: its "name", else "#INDEX")
  std::string project;  // Claude Code ~/.claude.json: the project it belongs to, else ""
  server_transport transport = server_transport::unknown;
  std::vector<std::string> argv;  // stdio: command then args, decoded
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string url;  // http / sse
  std::map<std::string, std::string> headers;
  bool disabled = false;
  // Already running under mcp-warden: its options and the original argv, split as the proxy splits
  // its own argv ([options] [--] COMMAND...); inner_at is the index in "args" of the original command.
  bool wrapped = false;
  std::vector<std::string> warden_args;
  std::vector<std::string> inner_argv;
  std::size_t inner_at = 0;
  std::string note;  // why this entry cannot be wrapped or scanned, if so

  // Editing anchors: the command string and the args array (when present) as located in the file.
  entry_syntax syntax = entry_syntax::json;
  std::optional<located_value> command_value;
  std::optional<located_value> args_value;
  std::size_t location_begin = 0;  // the entry's value (object / table header) in the file
  std::size_t location_end = 0;

  // A stable key for matching the same entry in two versions of a file.
  std::string key() const { return project + "\x1f" + name; }
};

struct client_config {
  config_location location;
  std::string text;  // the file's bytes as read
  std::vector<server_entry> servers;
  std::vector<std::string> notes;  // file-level remarks (unsupported format, odd members)
};

// Reads and interprets `text` as the file at `location`. Errors read "PATH:LINE:COL: what".
result<client_config> parse_client_config(const config_location& location, std::string text);

// Reads the file; error when it cannot be read or parsed.
result<client_config> load_client_config(const config_location& location);

// The file name of mcp-warden's own executable (with or without .exe) at the end of a command.
bool is_warden_command(std::string_view command);

// One line describing a server entry: "stdio: npx -y pkg" / "http: https://..." (shell-quoted).
std::string describe_entry(const server_entry& entry);

}  // namespace warden::clients
