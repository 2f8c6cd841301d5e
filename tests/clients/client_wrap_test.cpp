// wrap / unwrap by splicing: every sample wraps, wraps again without change, and unwraps to the
// original bytes; exact texts for the small cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "clients/client_wrap.hpp"

namespace fs = std::filesystem;
using namespace warden::clients;

namespace {

const fs::path samples = WARDEN_CONFIG_SAMPLES;
constexpr const char* warden_bin = "/opt/mcp-warden/bin/mcp-warden";

client_config parse(const std::string& text, config_layout layout = config_layout::mcp_servers,
                    client_kind client = client_kind::cursor, const std::string& path = "/h/.cursor/mcp.json") {
  auto config = parse_client_config({client, "user", path, layout}, text);
  REQUIRE_MESSAGE(config, config.error_message());
  return *config;
}

wrap_options options(std::vector<std::string> args = {}) {
  wrap_options o;
  o.warden_path = warden_bin;
  o.warden_args = std::move(args);
  return o;
}

std::string wrapped_text(const client_config& config, const wrap_options& o) {
  auto out = wrap_config(config, o);
  REQUIRE_MESSAGE(out, out.error_message());
  return out->text;
}

std::string unwrapped_text(const client_config& config, const client_config* backup = nullptr) {
  auto out = unwrap_config(config, backup);
  REQUIRE_MESSAGE(out, out.error_message());
  return out->text;
}

}  // namespace

TEST_CASE("wrap: every sample config wraps, is idempotent, and unwraps to the original bytes") {
  discovery_options discovery;
  discovery.home = samples / "home";
  discovery.project = samples / "project";
  discovery.os = platform::linux_desktop;
  int files = 0;
  for (const auto& location : candidate_locations(discovery)) {
    if (!fs::exists(location.path)) continue;
    ++files;
    CAPTURE(location.path.string());
    auto original = load_client_config(location);
    REQUIRE_MESSAGE(original, original.error_message());
    const auto o = options({"--policy", "/etc/mcp-warden/strict.json"});

    auto first = wrap_config(*original, o);
    REQUIRE_MESSAGE(first, first.error_message());
    CHECK(first->changed);
    auto wrapped = parse_client_config(location, first->text);
    REQUIRE_MESSAGE(wrapped, wrapped.error_message());

    // Each stdio entry now runs mcp-warden with the original argv after "--"; env untouched.
    REQUIRE(wrapped->servers.size() == original->servers.size());
    for (std::size_t i = 0; i < original->servers.size(); ++i) {
      const auto& before = original->servers[i];
      const auto& after = wrapped->servers[i];
      CAPTURE(before.name);
      CHECK(after.env == before.env);
      CHECK(after.cwd == before.cwd);
      if (before.transport == server_transport::stdio && before.note.empty()) {
        CHECK(after.wrapped);
        CHECK(after.argv.front() == warden_bin);
        CHECK(after.warden_args == std::vector<std::string>{"--policy", "/etc/mcp-warden/strict.json"});
        CHECK(after.inner_argv == before.argv);
      }
    }

    auto second = wrap_config(*wrapped, o);
    REQUIRE(second);
    CHECK_FALSE(second->changed);
    CHECK(second->text == first->text);

    SUBCASE("unwrap with the backup") { CHECK(unwrapped_text(*wrapped, &*original) == original->text); }
    SUBCASE("unwrap without a backup") {
      const auto restored = unwrapped_text(*wrapped);
      // Fronted remote entries need the backup for exactness; everything else is exact on its own.
      const bool fronted = std::any_of(first->outcomes.begin(), first->outcomes.end(), [](const entry_outcome& e) {
        return e.note == "fronted with mcp-warden --upstream";
      });
      if (!fronted) CHECK(restored == original->text);
    }
  }
  CHECK(files == 12);
}

TEST_CASE("wrap: exact text for the usual shapes") {
  SUBCASE("compact args") {
    const auto config = parse(R"({"mcpServers":{"a":{"command":"npx","args":["-y","x"]}}})");
    CHECK(wrapped_text(config, options({"--policy", "p.json"})) ==
          R"({"mcpServers":{"a":{"command":"/opt/mcp-warden/bin/mcp-warden","args":["--policy", "p.json", "--", "npx", "-y","x"]}}})");
  }
  SUBCASE("no args member: inserted after the command") {
    const auto config = parse("{\"mcpServers\": {\"a\": {\"command\": \"srv\" /* c */, \"env\": {\"K\": \"V\"}}}}");
    CHECK(wrapped_text(config, options()) ==
          "{\"mcpServers\": {\"a\": {\"command\": \"/opt/mcp-warden/bin/mcp-warden\", \"args\": [\"--\", \"srv\"] /* c */, "
          "\"env\": {\"K\": \"V\"}}}}");
  }
  SUBCASE("empty multi-line args keeps its layout") {
    const auto config = parse("{\"mcpServers\": {\"a\": {\"command\": \"srv\", \"args\": [\n]}}}");
    CHECK(wrapped_text(config, options()) ==
          "{\"mcpServers\": {\"a\": {\"command\": \"/opt/mcp-warden/bin/mcp-warden\", \"args\": [\"--\", \"srv\"\n]}}}");
  }
  SUBCASE("the command's original token (escapes and all) moves into args") {
    const auto config = parse(R"({"mcpServers": {"a": {"command": "C:\\tools\\s\u00e9rver.exe", "args": ["x"]}}})");
    CHECK(wrapped_text(config, options()) ==
          R"({"mcpServers": {"a": {"command": "/opt/mcp-warden/bin/mcp-warden", "args": ["--", "C:\\tools\\s\u00e9rver.exe", "x"]}}})");
  }
  SUBCASE("Zed's nested command object") {
    const auto config = parse(R"({"context_servers": {"z": {"command": {"path": "uvx", "args": ["s"]}}}})",
                              config_layout::zed_settings, client_kind::zed, "/h/.config/zed/settings.json");
    CHECK(wrapped_text(config, options()) ==
          R"({"context_servers": {"z": {"command": {"path": "/opt/mcp-warden/bin/mcp-warden", "args": ["--", "uvx", "s"]}}}})");
  }
}

TEST_CASE("wrap: TOML tables and inline tables") {
  const config_layout toml = config_layout::codex_toml;
  // A file, and what wrapping writes; unwrapping that gives the file back.
  const std::pair<std::string, std::string> rows[] = {
      // a table without args, CRLF
      {"[mcp_servers.a]\r\ncommand = 'srv' # the server\r\nenv = { K = \"V\" }\r\n",
       "[mcp_servers.a]\r\ncommand = \"/opt/mcp-warden/bin/mcp-warden\"\r\nargs = [\"--\", 'srv'] # the server\r\n"
       "env = { K = \"V\" }\r\n"},
      // inline tables in [mcp_servers]
      {"[mcp_servers]\na = { command = \"srv\" }\nb = { command = \"x\", args = [\"1\"] }\n",
       "[mcp_servers]\na = { command = \"/opt/mcp-warden/bin/mcp-warden\", args = [\"--\", \"srv\"] }\n"
       "b = { command = \"/opt/mcp-warden/bin/mcp-warden\", args = [\"--\", \"x\", \"1\"] }\n"},
  };
  for (const auto& [text, expected] : rows) {
    CAPTURE(text);
    const auto wrapped = wrapped_text(parse(text, toml, client_kind::codex, "/h/.codex/config.toml"), options());
    CHECK(wrapped == expected);
    CHECK(unwrapped_text(parse(wrapped, toml, client_kind::codex)) == text);
  }
}

TEST_CASE("wrap: already wrapped entries are never wrapped twice; options are updated in place") {
  const std::string original = "{\"mcpServers\": {\"a\": {\"command\": \"npx\", \"args\": [\n  \"-y\", \"x\"\n]}}}";
  const auto first = wrapped_text(parse(original), options({"--policy", "one.json"}));
  SUBCASE("same options: no change") {
    auto again = wrap_config(parse(first), options({"--policy", "one.json"}));
    REQUIRE(again);
    CHECK_FALSE(again->changed);
    CHECK(again->outcomes[0].action == entry_action::already_wrapped);
  }
  SUBCASE("other options: only they change") {
    auto again = wrap_config(parse(first), options({"--policy", "two.json"}));
    REQUIRE(again);
    CHECK(again->outcomes[0].action == entry_action::options_updated);
    CHECK(again->text ==
          "{\"mcpServers\": {\"a\": {\"command\": \"/opt/mcp-warden/bin/mcp-warden\", \"args\": [\"--policy\", \"two.json\", "
          "\"--\", \"npx\", \n  \"-y\", \"x\"\n]}}}");
    CHECK(unwrapped_text(parse(again->text)) == original);
  }
  SUBCASE("a wrapped entry written by hand unwraps too") {
    const auto hand = parse(R"({"mcpServers": {"a": {"command": "mcp-warden", "args": ["--", "npx",   "-y"]}}})");
    CHECK(unwrapped_text(hand) == R"({"mcpServers": {"a": {"command": "npx", "args": [  "-y"]}}})");
  }
}

TEST_CASE("wrap: hand-written entries without \"--\" are read as the proxy reads its argv") {
  const std::string hand =
      R"({"mcpServers": {"a": {"command": "mcp-warden", "args": ["--policy", "one.json", "--no-enumerate", "npx", "-y", "x", "--", "--policy"]}}})";
  const auto config = parse(hand);
  REQUIRE(config.servers[0].wrapped);
  CHECK(config.servers[0].warden_args == std::vector<std::string>{"--policy", "one.json", "--no-enumerate"});
  CHECK(config.servers[0].inner_argv == std::vector<std::string>{"npx", "-y", "x", "--", "--policy"});
  SUBCASE("wrap leaves it alone: never wrapped twice") {
    auto again = wrap_config(config, options({"--policy", "one.json", "--no-enumerate"}));
    REQUIRE(again);
    CHECK_FALSE(again->changed);
    CHECK(again->outcomes[0].action == entry_action::already_wrapped);
  }
  SUBCASE("other options: they are replaced and a \"--\" goes before the original command") {
    CHECK(wrapped_text(config, options({"--policy", "two.json"})) ==
          R"({"mcpServers": {"a": {"command": "mcp-warden", "args": ["--policy", "two.json", "--", "npx", "-y", "x", "--", "--policy"]}}})");
  }
  SUBCASE("unwrap restores the original command and its args, the server's own \"--\" included") {
    CHECK(unwrapped_text(config) == R"({"mcpServers": {"a": {"command": "npx", "args": ["-y", "x", "--", "--policy"]}}})");
  }
  SUBCASE("an option without its value: not an entry mcp-warden runs, so not wrapped") {
    CHECK_FALSE(parse(R"({"mcpServers": {"a": {"command": "mcp-warden", "args": ["--policy"]}}})").servers[0].wrapped);
  }
}

TEST_CASE("wrap: per-server audit logs") {
  const auto config = parse(R"({"mcpServers": {"my server/1": {"command": "s"}}})");
  wrap_options o = options();
  o.audit_log_dir = "/var/log/mcp-warden/";
  const auto args = warden_args_for(config, config.servers[0], o);
  CHECK(args == std::vector<std::string>{"--audit-log", "/var/log/mcp-warden/cursor-my_server_1.jsonl"});
}

TEST_CASE("unwrap: args absent vs. empty is settled by the backup") {
  const std::string absent = R"({"mcpServers": {"a": {"command": "srv"}}})";
  const std::string empty = R"({"mcpServers": {"a": {"command": "srv", "args": []}}})";
  const auto from_absent = wrapped_text(parse(absent), options());
  const auto from_empty = wrapped_text(parse(empty), options());
  CHECK(from_absent == from_empty);  // the one shape the wrapped text cannot tell apart
  const auto backup_empty = parse(empty);
  const auto backup_absent = parse(absent);
  CHECK(unwrapped_text(parse(from_empty), &backup_empty) == empty);
  CHECK(unwrapped_text(parse(from_absent), &backup_absent) == absent);
  CHECK(unwrapped_text(parse(from_absent)) == absent);  // no backup: the member goes (same meaning)
}

TEST_CASE("wrap: remote entries") {
  const std::string text = R"({"mcpServers": {"r": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}}}})";
  SUBCASE("left alone with a note where the client speaks HTTP") {
    auto out = wrap_config(parse(text), options());
    REQUIRE(out);
    CHECK_FALSE(out->changed);
    CHECK(out->outcomes[0].action == entry_action::skipped);
    CHECK(out->outcomes[0].note ==
          "remote server: Cursor connects to it directly, left as is (--front-http routes it through mcp-warden --upstream)");
  }
  SUBCASE("fronted with --upstream on request, restored from the backup") {
    wrap_options o = options();
    o.front_http = true;
    const auto wrapped = wrapped_text(parse(text), o);
    CHECK(wrapped == R"({"mcpServers": {"r": {"command": "/opt/mcp-warden/bin/mcp-warden", "args": ["--upstream", "https://h/mcp", "--header", "Authorization: Bearer t"]}}})");
    const auto reread = parse(wrapped);
    CHECK(reread.servers[0].wrapped);
    CHECK(reread.servers[0].url == "https://h/mcp");
    const auto backup = parse(text);
    CHECK(unwrapped_text(reread, &backup) == text);
    CHECK(unwrapped_text(reread) == R"({"mcpServers": {"r": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}}}})");
  }
  SUBCASE("Claude Desktop takes only stdio entries: fronted by default") {
    auto out = wrap_config(parse(text, config_layout::mcp_servers, client_kind::claude_desktop, "/h/claude_desktop_config.json"),
                           options());
    REQUIRE(out);
    CHECK(out->outcomes[0].action == entry_action::wrapped);
  }
}

TEST_CASE("apply_edits and unified_diff") {
  auto edited = apply_edits("abcdef", {{1, 2, "X"}, {4, 4, "Y"}});
  REQUIRE(edited);
  CHECK(*edited == "aXcdYef");
  CHECK_FALSE(apply_edits("abc", {{0, 2, ""}, {1, 3, ""}}));
  CHECK_FALSE(apply_edits("abc", {{2, 5, ""}}));

  CHECK(unified_diff("same\n", "same\n", "a", "b").empty());
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
  CHECK(unified_diff(before, after, "a", "b") == "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  CHECK(unified_diff("x", "y", "a", "b") ==
        "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n");
}

TEST_CASE("robustness: mutated configs never crash the readers, wrap or unwrap") {
  discovery_options discovery;
  discovery.home = samples / "home";
  discovery.project = samples / "project";
  discovery.os = platform::linux_desktop;
  std::uint64_t seed = 0x9E3779B97F4A7C15u;
  const auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const char alphabet[] = "{}[],:\"'\\/*#\n =-0a\x00\xC3\xE2\x80\xAE";
  int parsed = 0, wrapped = 0;
  for (const auto& location : candidate_locations(discovery)) {
    if (!fs::exists(location.path)) continue;
    auto original = load_client_config(location);
    REQUIRE(original);
    for (int round = 0; round < 150; ++round) {
      std::string text = original->text;
      for (int edits = 1 + static_cast<int>(next() % 4); edits > 0 && !text.empty(); --edits) {
        const std::size_t at = next() % text.size();
        const char c = alphabet[next() % (sizeof alphabet - 1)];
        switch (next() % 3) {
          case 0: text[at] = c; break;
          case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
          default: text.erase(at, 1 + next() % 8); break;
        }
      }
      auto config = parse_client_config(location, text);
      if (!config) continue;
      ++parsed;
      auto out = wrap_config(*config, options({"--policy", "p"}));
      if (!out || !out->changed) continue;
      ++wrapped;
      auto reread = parse_client_config(location, out->text);
      REQUIRE_MESSAGE(reread, reread.error_message());
      auto back = unwrap_config(*reread, &*config);
      REQUIRE_MESSAGE(back, back.error_message());
      const bool had_wrapped = std::any_of(config->servers.begin(), config->servers.end(),
                                           [](const server_entry& e) { return e.wrapped; });
      if (!had_wrapped) CHECK(back->text == text);  // with the backup, always the same bytes
    }
  }
  CHECK(parsed > 100);
  CHECK(wrapped > 50);
}

TEST_CASE("wrap: repeated server names are each wrapped and restored") {
  const std::string text = R"({"mcpServers": {"a": {"command": "x"}, "a": {"command": "y", "args": []}}})";
  const auto original = parse(text);
  const auto wrapped = wrapped_text(original, options());
  CHECK(unwrapped_text(parse(wrapped), &original) == text);
}
