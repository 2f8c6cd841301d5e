// `[options] [--] COMMAND [ARGS...]`: where options end, what a value is, and the exact errors.
#include <doctest/doctest.h>

#include "clients/command_line.hpp"

using namespace warden::clients;
using strings = std::vector<std::string>;

namespace {

// A small option table: --env/-e and -o take a value, --quiet/-q and -v are flags.
std::optional<option_kind> table(std::string_view spelling) {
  if (spelling == "--env" || spelling == "-e" || spelling == "-o" || spelling == "--log-level") return option_kind::takes_value;
  if (spelling == "--quiet" || spelling == "-q" || spelling == "-v" || spelling == "--help") return option_kind::flag;
  return std::nullopt;
}

command_line split(const strings& args) {
  auto out = split_command_line(args, table);
  REQUIRE_MESSAGE(out, out.error_message());
  return *out;
}

std::string failure(const strings& args) {
  auto out = split_command_line(args, table);
  REQUIRE_FALSE(out);
  return out.error_message();
}

}  // namespace

TEST_CASE("options end at the first word that is neither an option nor a value") {
  SUBCASE("no options") {
    const auto s = split({"node", "server.js", "--env", "X=1"});
    CHECK(s.options.empty());
    CHECK(s.command == strings{"node", "server.js", "--env", "X=1"});
    CHECK_FALSE(s.separator);
  }
  SUBCASE("a value option consumes the next word: the word after it is COMMAND") {
    const auto s = split({"--env", "K=V", "node", "server.js"});
    CHECK(s.options == strings{"--env", "K=V"});
    CHECK(s.command == strings{"node", "server.js"});
    CHECK(s.given == strings{"--env"});
  }
  SUBCASE("a flag consumes nothing") {
    const auto s = split({"--quiet", "node", "--quiet"});
    CHECK(s.options == strings{"--quiet"});
    CHECK(s.command == strings{"node", "--quiet"});
  }
  SUBCASE("everything after COMMAND is untouched, including our own options and '--'") {
    const auto s = split({"-q", "python3", "-m", "srv", "--", "--env", "A=B", "--help", "-"});
    CHECK(s.command == strings{"python3", "-m", "srv", "--", "--env", "A=B", "--help", "-"});
  }
  SUBCASE("a lone '-' is COMMAND") {
    CHECK(split({"-q", "-", "x"}).command == strings{"-", "x"});
  }
  SUBCASE("only options: no command") {
    const auto s = split({"--env", "A=1", "-q"});
    CHECK(s.command.empty());
    CHECK(s.given == strings{"--env", "-q"});
  }
}

TEST_CASE("'--' ends the options and is dropped; the next word is COMMAND whatever it looks like") {
  SUBCASE("the documented form") {
    const auto s = split({"--env", "A=1", "--", "node", "s.js"});
    CHECK(s.options == strings{"--env", "A=1"});
    CHECK(s.command == strings{"node", "s.js"});
    CHECK(s.separator);
  }
  SUBCASE("a COMMAND that starts with '-'") {
    CHECK(split({"--", "-weird", "--env"}).command == strings{"-weird", "--env"});
  }
  SUBCASE("a second '--' belongs to the server") {
    CHECK(split({"--", "node", "--", "x"}).command == strings{"node", "--", "x"});
  }
  SUBCASE("'--' alone") {
    const auto s = split({"--"});
    CHECK(s.command.empty());
    CHECK(s.separator);
  }
}

TEST_CASE("values in the same word and words that look like options as values") {
  SUBCASE("--name=value takes nothing more") {
    const auto s = split({"--env=A=1", "node"});
    CHECK(s.options == strings{"--env=A=1"});
    CHECK(s.given == strings{"--env"});
    CHECK(s.command == strings{"node"});
  }
  SUBCASE("-oVALUE and -o VALUE") {
    CHECK(split({"-ofile", "node"}).options == strings{"-ofile"});
    CHECK(split({"-o", "file", "node"}).options == strings{"-o", "file"});
  }
  SUBCASE("grouped short flags, the last one taking a value") {
    const auto s = split({"-qvo", "file", "node"});
    CHECK(s.options == strings{"-qvo", "file"});
    CHECK(s.given == strings{"-q", "-v", "-o"});
    CHECK(s.command == strings{"node"});
  }
  SUBCASE("a value that starts with '-' is still the value") {
    const auto s = split({"--log-level", "--quiet", "node"});
    CHECK(s.options == strings{"--log-level", "--quiet"});
    CHECK(s.command == strings{"node"});
  }
}

TEST_CASE("errors: unknown option before COMMAND, missing value") {
  CHECK(failure({"--nope", "node"}) ==
        "unknown option '--nope' (options come before COMMAND; a COMMAND that starts with '-' goes after '--')");
  CHECK(failure({"--nope=1"}) ==
        "unknown option '--nope' (options come before COMMAND; a COMMAND that starts with '-' goes after '--')");
  CHECK(failure({"-qx", "node"}) ==
        "unknown option '-x' (options come before COMMAND; a COMMAND that starts with '-' goes after '--')");
  CHECK(failure({"--env"}) == "option --env needs a value");
  CHECK(failure({"-q", "-o"}) == "option -o needs a value");
  CHECK(failure({"--env", "--", "node"}) == "option --env needs a value");
}

TEST_CASE("proxy_entry_options: the proxy's flags take no value, every other option one") {
  const auto lookup = proxy_entry_options();
  for (const char* flag : {"--no-enumerate", "--scrub-env", "--oauth-no-browser", "--no-oauth-token-cache", "--help"})
    CHECK(lookup(flag) == option_kind::flag);
  for (const char* option : {"--policy", "--env", "--save-surface", "--some-future-option"})
    CHECK(lookup(option) == option_kind::takes_value);
  auto s = split_command_line({"--no-enumerate", "--audit-log", "a.jsonl", "npx", "-y", "pkg"}, lookup);
  REQUIRE(s);
  CHECK(s->command == strings{"npx", "-y", "pkg"});
}
