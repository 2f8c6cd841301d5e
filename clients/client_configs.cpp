// Client-config discovery and reading (see client_configs.hpp, docs/clients.md).
#include "clients/client_configs.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "clients/command_line.hpp"
#include "clients/toml_reader.hpp"

namespace warden::clients {

namespace fs = std::filesystem;

namespace {

// Each client's id (command line, reports) and the name people know it by.
struct client_names {
  client_kind kind;
  std::string_view id, display;
};
constexpr client_names client_table[] = {
    {client_kind::claude_desktop, "claude-desktop", "Claude Desktop"},
    {client_kind::claude_code, "claude-code", "Claude Code"},
    {client_kind::cursor, "cursor", "Cursor"},
    {client_kind::vscode, "vscode", "VS Code"},
    {client_kind::windsurf, "windsurf", "Windsurf"},
    {client_kind::gemini, "gemini", "Gemini CLI"},
    {client_kind::codex, "codex", "Codex"},
    {client_kind::zed, "zed", "Zed"},
    {client_kind::continue_dev, "continue", "Continue"},
    {client_kind::other, "other", "MCP config"},
};

const client_names& names_of(client_kind client) noexcept {
  for (const auto& names : client_table)
    if (names.kind == client) return names;
  return client_table[std::size(client_table) - 1];
}

}  // namespace

std::string_view to_string(client_kind client) noexcept { return names_of(client).id; }

std::string_view display_name(client_kind client) noexcept { return names_of(client).display; }

std::string_view to_string(server_transport transport) noexcept {
  switch (transport) {
    case server_transport::stdio: return "stdio";
    case server_transport::http: return "http";
    case server_transport::sse: return "sse";
    case server_transport::unknown: return "unknown";
  }
  return "unknown";
}

platform current_platform() noexcept {
#if defined(_WIN32)
  return platform::windows;
#elif defined(__APPLE__)
  return platform::macos;
#else
  return platform::linux_desktop;
#endif
}

namespace {

std::string env_or(const discovery_options& options, const std::string& name) {
  const auto it = options.env.find(name);
  return it == options.env.end() ? std::string() : it->second;
}

// Where desktop applications keep per-user settings on each platform.
fs::path app_data_dir(const discovery_options& options) {
  switch (options.os) {
    case platform::macos: return options.home / "Library" / "Application Support";
    case platform::windows: {
      const std::string appdata = env_or(options, "APPDATA");
      return appdata.empty() ? options.home / "AppData" / "Roaming" : fs::path(appdata);
    }
    case platform::linux_desktop: break;
  }
  const std::string xdg = env_or(options, "XDG_CONFIG_HOME");
  return xdg.empty() ? options.home / ".config" : fs::path(xdg);
}

}  // namespace

std::vector<config_location> candidate_locations(const discovery_options& options) {
  std::vector<config_location> out;
  const auto add = [&](client_kind client, const char* scope, fs::path path, config_layout layout) {
    out.push_back(config_location{client, scope, std::move(path), layout});
  };
  const fs::path& home = options.home;
  const fs::path app_data = app_data_dir(options);

  add(client_kind::claude_desktop, "user", app_data / "Claude" / "claude_desktop_config.json", config_layout::mcp_servers);
  add(client_kind::claude_code, "user", home / ".claude.json", config_layout::claude_code_user);
  add(client_kind::cursor, "user", home / ".cursor" / "mcp.json", config_layout::mcp_servers);
  for (const char* edition : {"Code", "Code - Insiders"}) {
    add(client_kind::vscode, "user", app_data / edition / "User" / "settings.json", config_layout::vscode_settings);
    add(client_kind::vscode, "user", app_data / edition / "User" / "mcp.json", config_layout::vscode_mcp);
  }
  add(client_kind::windsurf, "user", home / ".codeium" / "windsurf" / "mcp_config.json", config_layout::mcp_servers);
  add(client_kind::gemini, "user", home / ".gemini" / "settings.json", config_layout::mcp_servers);
  const std::string codex_home = env_or(options, "CODEX_HOME");
  add(client_kind::codex, "user", (codex_home.empty() ? home / ".codex" : fs::path(codex_home)) / "config.toml",
      config_layout::codex_toml);
  // Zed keeps ~/.config/zed on macOS too; on Linux it follows XDG; on Windows %APPDATA%\Zed.
  const fs::path zed_dir = options.os == platform::windows ? app_data / "Zed"
                           : options.os == platform::macos ? home / ".config" / "zed"
                                                           : app_data / "zed";
  add(client_kind::zed, "user", zed_dir / "settings.json", config_layout::zed_settings);
  add(client_kind::continue_dev, "user", home / ".continue" / "config.json", config_layout::continue_json);
  add(client_kind::continue_dev, "user", home / ".continue" / "config.yaml", config_layout::unsupported);

  if (!options.project.empty()) {
    const fs::path& project = options.project;
    add(client_kind::claude_code, "project", project / ".mcp.json", config_layout::mcp_servers);
    add(client_kind::cursor, "project", project / ".cursor" / "mcp.json", config_layout::mcp_servers);
    add(client_kind::vscode, "project", project / ".vscode" / "mcp.json", config_layout::vscode_mcp);
    add(client_kind::gemini, "project", project / ".gemini" / "settings.json", config_layout::mcp_servers);
    add(client_kind::zed, "project", project / ".zed" / "settings.json", config_layout::zed_settings);
  }
  return out;
}

config_location classify_path(const fs::path& path, std::string_view content) {
  const std::string file = path.filename().string();
  const std::string parent = path.parent_path().filename().string();
  const auto at = [&](client_kind client, config_layout layout) { return config_location{client, "file", path, layout}; };
  if (file == "claude_desktop_config.json") return at(client_kind::claude_desktop, config_layout::mcp_servers);
  if (file == ".claude.json") return at(client_kind::claude_code, config_layout::claude_code_user);
  if (file == ".mcp.json") return at(client_kind::claude_code, config_layout::mcp_servers);
  if (file == "mcp_config.json" && parent == "windsurf") return at(client_kind::windsurf, config_layout::mcp_servers);
  if (file == "mcp.json" && parent == ".cursor") return at(client_kind::cursor, config_layout::mcp_servers);
  if (file == "mcp.json" && (parent == ".vscode" || parent == "User")) return at(client_kind::vscode, config_layout::vscode_mcp);
  if (file == "settings.json" && parent == "User") return at(client_kind::vscode, config_layout::vscode_settings);
  if (file == "settings.json" && parent == ".gemini") return at(client_kind::gemini, config_layout::mcp_servers);
  if (file == "settings.json" && (parent == "zed" || parent == ".zed" || parent == "Zed"))
    return at(client_kind::zed, config_layout::zed_settings);
  if (parent == ".continue" && file == "config.json") return at(client_kind::continue_dev, config_layout::continue_json);
  if (parent == ".continue" && (file == "config.yaml" || file == "config.yml"))
    return at(client_kind::continue_dev, config_layout::unsupported);
  if (path.extension() == ".toml") return at(client_kind::codex, config_layout::codex_toml);

  // Unknown name: look at what the file holds.
  if (auto parsed = parse_jsonc(content); parsed && parsed->is_object()) {
    if (parsed->find("mcpServers")) return at(client_kind::other, config_layout::mcp_servers);
    if (parsed->find("servers")) return at(client_kind::vscode, config_layout::vscode_mcp);
    if (parsed->find("context_servers")) return at(client_kind::zed, config_layout::zed_settings);
    if (const auto* mcp = parsed->find("mcp"); mcp && mcp->find("servers"))
      return at(client_kind::vscode, config_layout::vscode_settings);
  } else if (content.find("[mcp_servers") != std::string_view::npos) {
    return at(client_kind::codex, config_layout::codex_toml);
  }
  return at(client_kind::other, config_layout::mcp_servers);
}

bool is_warden_command(std::string_view command) {
  const auto slash = command.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? command : command.substr(slash + 1);
  if (base.size() > 4 && base.substr(base.size() - 4) == ".exe") base.remove_suffix(4);
  return base == "mcp-warden";
}

namespace {

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_-+=:,./") ==
                           std::string::npos)
    return word;
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace

std::string describe_entry(const server_entry& entry) {
  if (entry.transport == server_transport::stdio) {
    std::string out = "stdio:";
    for (const auto& word : entry.argv) out += " " + shell_quote(word);
    return out;
  }
  if (entry.transport == server_transport::unknown) return "unknown";
  return std::string(to_string(entry.transport)) + ": " + entry.url;
}

namespace {

// Reads one entry from a JSON object; `scope_note` prefixes messages with the file position.
class json_entry_reader {
 public:
  json_entry_reader(const config_location& location, std::string_view text) : location_(location), text_(text) {}

  std::string where(std::size_t offset) const { return location_.path.string() + ":" + line_col(text_, offset); }

  static std::map<std::string, std::string> string_map(const located_value& object) {
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < object.keys.size(); ++i) out[object.keys[i]] = object.items[i].text;
    return out;
  }

  server_entry read(std::string name, std::string project, const located_value& value) const {
    server_entry entry;
    entry.name = std::move(name);
    entry.project = std::move(project);
    entry.location_begin = value.begin;
    entry.location_end = value.end;
    if (!value.is_object()) {
      entry.note = where(value.begin) + ": server entry is not an object";
      return entry;
    }
    const located_value* holder = &value;
    if (location_.layout == config_layout::continue_json) {
      if (const auto* transport = value.find("transport"); transport && transport->is_object()) holder = transport;
    }
    // Zed's older form nests {path, args, env} under "command".
    const located_value* command = holder->find("command");
    const located_value* args = holder->find("args");
    const located_value* env = holder->find("env");
    if (command && command->is_object()) {
      const located_value* nested = command;
      command = nested->find("path");
      args = nested->find("args");
      if (const auto* nested_env = nested->find("env")) env = nested_env;
    }
    if (env && env->is_object()) entry.env = string_map(*env);
    if (const auto* cwd = holder->find("cwd"); cwd && cwd->is_string()) entry.cwd = cwd->text;
    for (const char* headers_key : {"headers", "http_headers", "requestInit"}) {
      if (const auto* headers = holder->find(headers_key); headers && headers->is_object()) {
        const located_value* actual = headers;
        if (const auto* nested = headers->find("headers"); nested && nested->is_object()) actual = nested;
        entry.headers = string_map(*actual);
        break;
      }
    }
    if (const auto* disabled = value.find("disabled"); disabled && disabled->text == "true") entry.disabled = true;
    if (const auto* enabled = value.find("enabled"); enabled && enabled->text == "false") entry.disabled = true;

    std::string type;
    if (const auto* t = holder->find("type"); t && t->is_string()) type = t->text;
    if (command) {
      if (!command->is_string()) {
        entry.note = where(command->begin) + ": \"command\" is not a string";
        return entry;
      }
      entry.transport = server_transport::stdio;
      entry.command_value = *command;
      entry.argv.push_back(command->text);
      if (args) {
        if (!args->is_array()) {
          entry.note = where(args->begin) + ": \"args\" is not an array";
          return entry;
        }
        for (const auto& item : args->items) {
          if (!item.is_string()) {
            entry.note = where(item.begin) + ": \"args\" holds a value that is not a string";
            return entry;
          }
          entry.argv.push_back(item.text);
        }
        entry.args_value = *args;
      }
      find_wrapped(entry);
      return entry;
    }
    for (const char* url_key : {"url", "serverUrl", "httpUrl"}) {
      const auto* url = holder->find(url_key);
      if (!url || !url->is_string()) continue;
      entry.url = url->text;
      const std::string key = url_key;
      if (type == "sse") entry.transport = server_transport::sse;
      else if (type == "http" || type == "streamable-http" || type == "streamableHttp" || type == "streamable_http")
        entry.transport = server_transport::http;
      else if (key == "url" && location_.client == client_kind::gemini) entry.transport = server_transport::sse;
      else entry.transport = server_transport::http;
      return entry;
    }
    if (location_.client == client_kind::zed && value.find("settings"))
      entry.note = "provided by a Zed extension (no command in settings.json)";
    else
      entry.note = where(value.begin) + ": server entry has neither \"command\" nor a URL";
    return entry;
  }

  // A command that is mcp-warden: its argv split where the proxy splits it (clients/command_line.hpp).
  // One mcp-warden could not run (an option without its value) is left as an ordinary entry.
  static void find_wrapped(server_entry& entry) {
    if (entry.argv.empty() || !is_warden_command(entry.argv.front())) return;
    const std::vector<std::string> args(entry.argv.begin() + 1, entry.argv.end());
    auto split = split_command_line(args, proxy_entry_options());
    if (!split) return;
    for (std::size_t i = 0; i < split->options.size(); ++i) {
      const std::string& word = split->options[i];
      if (word.starts_with("--upstream=")) entry.url = word.substr(11);
      else if (word == "--upstream" && i + 1 < split->options.size()) entry.url = split->options[i + 1];
    }
    if (!entry.url.empty() && split->command.empty()) {
      // A remote server fronted by mcp-warden: no inner argv, the URL is the server.
      entry.wrapped = true;
      entry.warden_args = args;
      return;
    }
    entry.url.clear();
    if (split->command.empty()) return;
    entry.wrapped = true;
    entry.warden_args = std::move(split->options);
    entry.inner_argv = std::move(split->command);
    entry.inner_at = args.size() - entry.inner_argv.size();
  }

 private:
  const config_location& location_;
  std::string_view text_;
};

void read_server_map(const json_entry_reader& reader, const located_value* servers, const std::string& project,
                     client_config& config) {
  if (!servers) return;
  if (!servers->is_object()) {
    config.notes.push_back(reader.where(servers->begin) + ": the server list is not an object; ignored");
    return;
  }
  for (std::size_t i = 0; i < servers->keys.size(); ++i)
    config.servers.push_back(reader.read(servers->keys[i], project, servers->items[i]));
}

result<client_config> read_json_config(client_config config) {
  auto parsed = parse_jsonc(config.text);
  if (!parsed) return error{config.location.path.string() + ":" + parsed.error_message()};
  const located_value& root = *parsed;
  if (!root.is_object()) return error{config.location.path.string() + ":" + line_col(config.text, root.begin) + ": the file is not a JSON object"};
  const json_entry_reader reader(config.location, config.text);
  switch (config.location.layout) {
    case config_layout::mcp_servers:
      read_server_map(reader, root.find("mcpServers"), "", config);
      break;
    case config_layout::claude_code_user:
      read_server_map(reader, root.find("mcpServers"), "", config);
      if (const auto* projects = root.find("projects"); projects && projects->is_object()) {
        for (std::size_t i = 0; i < projects->keys.size(); ++i)
          if (projects->items[i].is_object())
            read_server_map(reader, projects->items[i].find("mcpServers"), projects->keys[i], config);
      }
      break;
    case config_layout::vscode_settings:
      if (const auto* mcp = root.find("mcp"); mcp && mcp->is_object()) read_server_map(reader, mcp->find("servers"), "", config);
      break;
    case config_layout::vscode_mcp:
      read_server_map(reader, root.find("servers"), "", config);
      break;
    case config_layout::zed_settings:
      read_server_map(reader, root.find("context_servers"), "", config);
      break;
    case config_layout::continue_json:
      if (const auto* experimental = root.find("experimental"); experimental && experimental->is_object()) {
        if (const auto* list = experimental->find("modelContextProtocolServers"); list && list->is_array()) {
          for (std::size_t i = 0; i < list->items.size(); ++i) {
            const auto* name = list->items[i].find("name");
            config.servers.push_back(reader.read(name && name->is_string() ? name->text : "#" + std::to_string(i), "",
                                                 list->items[i]));
          }
        }
      }
      break;
    case config_layout::codex_toml:
    case config_layout::unsupported:
      break;
  }
  return config;
}

// Codex: [mcp_servers.NAME] tables (with [mcp_servers.NAME.env] subtables or dotted env.KEY
// keys), or inline tables in [mcp_servers]; each is read as a JSON entry is.
result<client_config> read_codex_config(client_config config) {
  auto parsed = parse_toml(config.text);
  if (!parsed) return error{config.location.path.string() + ":" + parsed.error_message()};
  const json_entry_reader reader(config.location, config.text);
  const located_value* servers = parsed->find("mcp_servers");
  if (!servers || !servers->is_object()) return config;  // [[mcp_servers]] is not Codex's syntax either
  for (std::size_t i = 0; i < servers->keys.size(); ++i) {
    const located_value& server = servers->items[i];
    if (!server.is_object()) continue;
    server_entry entry = reader.read(servers->keys[i], "", server);
    entry.syntax = config.text.compare(server.begin, 1, "{") == 0 ? entry_syntax::toml_inline : entry_syntax::toml_table;
    config.servers.push_back(std::move(entry));
  }
  return config;
}

}  // namespace

result<client_config> parse_client_config(const config_location& location, std::string text) {
  client_config config;
  config.location = location;
  config.text = std::move(text);
  if (location.layout == config_layout::unsupported) {
    config.notes.push_back(location.path.string() + ": YAML configs are not supported; use config.json");
    return config;
  }
  if (location.layout == config_layout::codex_toml) return read_codex_config(std::move(config));
  return read_json_config(std::move(config));
}

result<client_config> load_client_config(const config_location& location) {
  std::error_code ec;
  const auto size = fs::file_size(location.path, ec);
  if (ec) return error{location.path.string() + ": cannot be read: " + ec.message()};
  if (size > jsonc_limits{}.max_bytes) return error{location.path.string() + ": larger than a config file can be"};
  std::ifstream in(location.path, std::ios::binary);
  if (!in) return error{location.path.string() + ": cannot be read"};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) return error{location.path.string() + ": read error"};
  return parse_client_config(location, std::move(bytes).str());
}

}  // namespace warden::clients
