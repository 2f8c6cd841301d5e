// Client-config discovery and reading, over the sample configs of every client.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include "clients/client_configs.hpp"

namespace fs = std::filesystem;
using namespace warden::clients;

namespace {

const fs::path samples = WARDEN_CONFIG_SAMPLES;

discovery_options sample_discovery() {
  discovery_options options;
  options.home = samples / "home";
  options.project = samples / "project";
  options.os = platform::linux_desktop;
  return options;
}

client_config load(const fs::path& relative, client_kind client, config_layout layout) {
  auto config = load_client_config({client, "user", samples / relative, layout});
  REQUIRE_MESSAGE(config, config.error_message());
  return *config;
}

const server_entry& entry(const client_config& config, const std::string& name) {
  const auto it = std::find_if(config.servers.begin(), config.servers.end(),
                               [&](const server_entry& e) { return e.name == name; });
  REQUIRE_MESSAGE(it != config.servers.end(), name);
  return *it;
}

using argv_t = std::vector<std::string>;

}  // namespace

TEST_CASE("discovery: per-platform locations") {
  discovery_options options;
  options.home = "/h";
  SUBCASE("linux honours XDG_CONFIG_HOME") {
    options.os = platform::linux_desktop;
    options.env["XDG_CONFIG_HOME"] = "/xdg";
    const auto all = candidate_locations(options);
    const auto has = [&](const std::string& path) {
      return std::any_of(all.begin(), all.end(), [&](const config_location& l) { return l.path == path; });
    };
    for (const char* path : {"/xdg/Claude/claude_desktop_config.json", "/xdg/Code/User/settings.json", "/xdg/zed/settings.json",
                             "/h/.claude.json", "/h/.cursor/mcp.json", "/h/.codeium/windsurf/mcp_config.json",
                             "/h/.gemini/settings.json", "/h/.codex/config.toml", "/h/.continue/config.json"}) {
      CAPTURE(path);
      CHECK(has(path));
    }
  }
  SUBCASE("macOS") {
    options.os = platform::macos;
    const auto all = candidate_locations(options);
    CHECK(all[0].path == "/h/Library/Application Support/Claude/claude_desktop_config.json");
    const auto zed = std::find_if(all.begin(), all.end(), [](const config_location& l) { return l.client == client_kind::zed; });
    CHECK(zed->path == "/h/.config/zed/settings.json");
  }
  SUBCASE("Windows uses APPDATA; CODEX_HOME moves Codex") {
    options.os = platform::windows;
    options.env["APPDATA"] = "/h/AppData/Roaming";
    options.env["CODEX_HOME"] = "/codex";
    const auto all = candidate_locations(options);
    CHECK(all[0].path == "/h/AppData/Roaming/Claude/claude_desktop_config.json");
    const auto codex = std::find_if(all.begin(), all.end(), [](const config_location& l) { return l.client == client_kind::codex; });
    CHECK(codex->path == "/codex/config.toml");
  }
  SUBCASE("project files only with a project") {
    const auto all = candidate_locations(options);
    CHECK(std::none_of(all.begin(), all.end(), [](const config_location& l) { return l.scope == "project"; }));
    options.project = "/p";
    const auto with = candidate_locations(options);
    CHECK(std::count_if(with.begin(), with.end(), [](const config_location& l) { return l.scope == "project"; }) == 5);
  }
}

TEST_CASE("discovery: every sample config is found and reads cleanly") {
  std::vector<std::string> found;
  for (const auto& location : candidate_locations(sample_discovery())) {
    if (!fs::exists(location.path)) continue;
    found.push_back(fs::relative(location.path, samples).string());
    auto config = load_client_config(location);
    CHECK_MESSAGE(config, config.error_message());
  }
  const std::vector<std::string> expected{
      "home/.config/Claude/claude_desktop_config.json", "home/.claude.json", "home/.cursor/mcp.json",
      "home/.config/Code/User/settings.json", "home/.codeium/windsurf/mcp_config.json",
      "home/.gemini/settings.json", "home/.codex/config.toml", "home/.config/zed/settings.json",
      "home/.continue/config.json", "project/.mcp.json", "project/.cursor/mcp.json",
      "project/.vscode/mcp.json"};
  CHECK(found == expected);
}

TEST_CASE("reading: Claude Desktop") {
  const auto config = load("home/.config/Claude/claude_desktop_config.json", client_kind::claude_desktop, config_layout::mcp_servers);
  REQUIRE(config.servers.size() == 4);
  CHECK(entry(config, "filesystem").argv ==
        argv_t{"npx", "-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\me\\Desktop", "/home/me/caf\xC3\xA9"});
  CHECK(entry(config, "memory").env.at("MEMORY_FILE_PATH") == "/tmp/memory.json");
  CHECK(entry(config, "bare").argv == argv_t{"/usr/local/bin/my-server"});
  CHECK_FALSE(entry(config, "bare").args_value.has_value());
  CHECK(entry(config, "remote").transport == server_transport::http);
  CHECK(entry(config, "remote").headers.at("Authorization") == "Bearer abc");
}

TEST_CASE("reading: Claude Code user file with projects, and a project .mcp.json") {
  const auto user = load("home/.claude.json", client_kind::claude_code, config_layout::claude_code_user);
  REQUIRE(user.servers.size() == 3);
  CHECK(entry(user, "linear").transport == server_transport::http);
  CHECK(entry(user, "postgres").project == "/home/me/work/api");
  CHECK(entry(user, "postgres").argv == argv_t{"uvx", "mcp-server-postgres", "postgresql://localhost/api"});
  const auto project = load("project/.mcp.json", client_kind::claude_code, config_layout::mcp_servers);
  CHECK(entry(project, "puppeteer").env.at("DOCKER_CONTAINER") == "true");
}

TEST_CASE("reading: Cursor with comments and trailing commas") {
  const auto config = load("home/.cursor/mcp.json", client_kind::cursor, config_layout::mcp_servers);
  REQUIRE(config.servers.size() == 3);
  CHECK(entry(config, "github").argv.size() == 7);
  CHECK(entry(config, "remote-docs").transport == server_transport::http);
  CHECK(entry(config, "disabled-one").disabled);
  const auto project = load("project/.cursor/mcp.json", client_kind::cursor, config_layout::mcp_servers);
  CHECK(entry(project, "local-tools").cwd == "/home/me/work/tools");
}

TEST_CASE("reading: VS Code settings.json and .vscode/mcp.json") {
  const auto settings = load("home/.config/Code/User/settings.json", client_kind::vscode, config_layout::vscode_settings);
  REQUIRE(settings.servers.size() == 2);
  CHECK(entry(settings, "time").argv == argv_t{"uvx", "mcp-server-time", "--local-timezone=Europe/Paris"});
  const auto project = load("project/.vscode/mcp.json", client_kind::vscode, config_layout::vscode_mcp);
  CHECK(entry(project, "filesystem").argv.back() == "${workspaceFolder}");
  CHECK(entry(project, "remote").transport == server_transport::sse);
  CHECK(entry(project, "gh").transport == server_transport::http);
}

TEST_CASE("reading: Windsurf, Gemini CLI, Continue") {
  const auto windsurf = load("home/.codeium/windsurf/mcp_config.json", client_kind::windsurf, config_layout::mcp_servers);
  CHECK(entry(windsurf, "figma").url == "https://mcp.figma.com/mcp");
  const auto gemini = load("home/.gemini/settings.json", client_kind::gemini, config_layout::mcp_servers);
  CHECK(entry(gemini, "pythonTools").cwd == "./mcp-servers/python");
  CHECK(entry(gemini, "httpServer").transport == server_transport::http);
  CHECK(entry(gemini, "sseServer").transport == server_transport::sse);
  const auto cont = load("home/.continue/config.json", client_kind::continue_dev, config_layout::continue_json);
  REQUIRE(cont.servers.size() == 2);
  CHECK(cont.servers[0].name == "#0");
  CHECK(cont.servers[0].argv.front() == "uvx");
  CHECK(entry(cont, "memory").argv == argv_t{"npx", "-y", "@modelcontextprotocol/server-memory"});
}

TEST_CASE("reading: Codex TOML") {
  const auto config = load("home/.codex/config.toml", client_kind::codex, config_layout::codex_toml);
  REQUIRE(config.servers.size() == 4);
  CHECK(entry(config, "docs").argv == argv_t{"docs-server"});
  CHECK(entry(config, "docs").env.at("API_KEY") == "value");
  CHECK(entry(config, "docs").env.at("TIMEOUT") == "30");
  CHECK(entry(config, "filesystem").argv ==
        argv_t{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/with \"quotes\""});
  CHECK(entry(config, "filesystem").env.at("NODE_OPTIONS") == "--max-old-space-size=256");
  CHECK(entry(config, "quoted name").disabled);
  CHECK(entry(config, "quoted name").argv.back() == "/home/me/repo");
  CHECK(entry(config, "remote").transport == server_transport::http);
}

TEST_CASE("reading: Zed, both command forms and an extension entry") {
  const auto config = load("home/.config/zed/settings.json", client_kind::zed, config_layout::zed_settings);
  REQUIRE(config.servers.size() == 3);
  CHECK(entry(config, "mcp-server-sqlite").argv == argv_t{"uvx", "mcp-server-sqlite", "--db-path", "/tmp/test.db"});
  CHECK(entry(config, "everything").env.at("DEBUG") == "1");
  CHECK(entry(config, "mcp-server-github").note == "provided by a Zed extension (no command in settings.json)");
}

TEST_CASE("reading: Continue YAML is reported as unsupported") {
  auto config = parse_client_config({client_kind::continue_dev, "user", "/h/.continue/config.yaml", config_layout::unsupported},
                                    "mcpServers:\n  - name: x\n");
  REQUIRE(config);
  CHECK(config->servers.empty());
  CHECK(config->notes == std::vector<std::string>{"/h/.continue/config.yaml: YAML configs are not supported; use config.json"});
}

TEST_CASE("reading: errors carry path:line:col") {
  const config_location at{client_kind::cursor, "user", "/h/.cursor/mcp.json", config_layout::mcp_servers};
  SUBCASE("syntax") {
    auto config = parse_client_config(at, "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",, }\n  }\n}\n");
    REQUIRE_FALSE(config);
    CHECK(config.error_message() == "/h/.cursor/mcp.json:3:26: expected a member name in double quotes, got ','");
  }
  SUBCASE("not an object") {
    auto config = parse_client_config(at, "[1]");
    REQUIRE_FALSE(config);
    CHECK(config.error_message() == "/h/.cursor/mcp.json:1:1: the file is not a JSON object");
  }
  SUBCASE("bad entries become notes, not failures") {
    auto config = parse_client_config(at, R"({"mcpServers": {"a": 3, "b": {"command": 1}, "c": {"command": "x", "args": [1]}, "d": {}}})");
    REQUIRE(config);
    REQUIRE(config->servers.size() == 4);
    CHECK(config->servers[0].note == "/h/.cursor/mcp.json:1:22: server entry is not an object");
    CHECK(config->servers[1].note == "/h/.cursor/mcp.json:1:42: \"command\" is not a string");
    CHECK(config->servers[2].note == "/h/.cursor/mcp.json:1:77: \"args\" holds a value that is not a string");
    CHECK(config->servers[3].note == "/h/.cursor/mcp.json:1:87: server entry has neither \"command\" nor a URL");
  }
  SUBCASE("TOML") {
    auto config = parse_client_config({client_kind::codex, "user", "/h/.codex/config.toml", config_layout::codex_toml},
                                      "[mcp_servers.x]\ncommand = \"a\nargs = []\n");
    REQUIRE_FALSE(config);
    // toml++'s message: the string runs into the end of the line.
    CHECK(config.error_message() ==
          "/h/.codex/config.toml:2:13: Error while parsing string: unescaped control characters other than TAB (U+0009) are explicitly prohibited");
  }
}

TEST_CASE("reading: an entry already under mcp-warden") {
  auto config = parse_client_config(
      {client_kind::cursor, "user", "/h/.cursor/mcp.json", config_layout::mcp_servers},
      R"({"mcpServers": {"a": {"command": "/opt/bin/mcp-warden", "args": ["--policy", "p.json", "--", "npx", "-y", "pkg"]},
          "b": {"command": "C:\\tools\\mcp-warden.exe", "args": ["--upstream", "https://x/mcp"]}}})");
  REQUIRE(config);
  CHECK(config->servers[0].wrapped);
  CHECK(config->servers[0].warden_args == argv_t{"--policy", "p.json"});
  CHECK(config->servers[0].inner_argv == argv_t{"npx", "-y", "pkg"});
  CHECK(config->servers[1].wrapped);
  CHECK(config->servers[1].url == "https://x/mcp");
}

TEST_CASE("classify_path: by name, then by content") {
  // A path and its content, and the client or the layout expected of them.
  struct row {
    std::string path, content;
    std::optional<client_kind> client;
    std::optional<config_layout> layout;
  };
  const row rows[] = {
      {"/x/claude_desktop_config.json", "", client_kind::claude_desktop, {}},
      {"/x/.claude.json", "", {}, config_layout::claude_code_user},
      {"/x/.mcp.json", "", client_kind::claude_code, {}},
      {"/p/.cursor/mcp.json", "", client_kind::cursor, {}},
      {"/p/.vscode/mcp.json", "", {}, config_layout::vscode_mcp},
      {"/c/Code/User/settings.json", "", {}, config_layout::vscode_settings},
      {"/h/.gemini/settings.json", "", client_kind::gemini, {}},
      {"/h/.config/zed/settings.json", "", client_kind::zed, {}},
      {"/h/.codeium/windsurf/mcp_config.json", "", client_kind::windsurf, {}},
      {"/h/.codex/config.toml", "", client_kind::codex, {}},
      {"/h/.continue/config.json", "", {}, config_layout::continue_json},
      {"/h/.continue/config.yaml", "", {}, config_layout::unsupported},
      {"/t/any.json", R"({"servers": {}})", {}, config_layout::vscode_mcp},
      {"/t/any.json", "// c\n{\"context_servers\": {}}", {}, config_layout::zed_settings},
      {"/t/any.json", R"({"mcpServers": {}})", client_kind::other, {}},
      {"/t/any.conf", "[mcp_servers.x]\ncommand = \"y\"\n", {}, config_layout::codex_toml},
  };
  for (const row& r : rows) {
    CAPTURE(r.path);
    CAPTURE(r.content);
    const auto found = classify_path(r.path, r.content);
    if (r.client) CHECK(found.client == *r.client);
    if (r.layout) CHECK(found.layout == *r.layout);
  }
}

TEST_CASE("is_warden_command and describe_entry") {
  const std::pair<std::string_view, bool> commands[] = {
      {"mcp-warden", true},
      {"/usr/local/bin/mcp-warden", true},
      {"C:\\bin\\mcp-warden.exe", true},
      {"mcp-warden-helper", false},
      {"npx", false},
  };
  for (const auto& [command, ours] : commands) {
    CAPTURE(command);
    CHECK(is_warden_command(command) == ours);
  }
  server_entry e;
  e.transport = server_transport::stdio;
  e.argv = {"npx", "-y", "a b", "it's"};
  CHECK(describe_entry(e) == "stdio: npx -y 'a b' 'it'\\''s'");
}

TEST_CASE("examples/clients: every example config reads back with its stdio servers under mcp-warden") {
  const fs::path examples = WARDEN_EXAMPLES_CLIENTS;
  int files = 0;
  for (const auto& item : fs::recursive_directory_iterator(examples)) {
    if (!item.is_regular_file() || item.path().extension() == ".md") continue;
    ++files;
    CAPTURE(item.path().string());
    std::ifstream in(item.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const auto location = classify_path(item.path(), bytes.str());
    CHECK(location.client != client_kind::other);
    auto config = parse_client_config(location, bytes.str());
    REQUIRE_MESSAGE(config, config.error_message());
    CHECK_FALSE(config->servers.empty());
    for (const auto& server : config->servers) {
      CAPTURE(server.name);
      if (server.transport == server_transport::stdio || server.wrapped) {
        CHECK(server.wrapped);
        CHECK(server.argv.front() == "/usr/local/bin/mcp-warden");
      }
    }
  }
  CHECK(files == 9);
}
