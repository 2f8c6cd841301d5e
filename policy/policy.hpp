#pragma once
// The runtime capability policy: what mcp-warden allows, refuses or asks about on live traffic.
// Loaded from a human-edited JSON file (comments and trailing commas allowed); every error carries
// file:line:col. A loaded policy is immutable and safe to read from any thread.
// Format reference: docs/policy.md.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.hpp"
#include "base/result.hpp"

namespace re2 {
class RE2;
}

namespace warden::policy {

enum class action : std::uint8_t { allow,
                                   deny,
                                   ask };
std::string_view to_string(action what) noexcept;

// audit: decide and record, but forward everything; enforce: act on the decisions.
enum class mode : std::uint8_t { audit,
                                 enforce };
std::string_view to_string(mode what) noexcept;

// What to do with a tool result (or resource read, prompt body) that trips a result rule.
enum class result_action : std::uint8_t { off,
                                          log,
                                          sanitize,
                                          block };
std::string_view to_string(result_action what) noexcept;

// Capability roles of a tool at runtime (the analysis assigns them; the policy may override).
enum class role : std::uint8_t {
  untrusted_content,  // brings text from outside the user's control into the session
  private_data,       // reads the user's private data
  external_sink,      // sends data out of the machine / to third parties
  code_execution,
  destructive,
  filesystem_write,
};
inline constexpr std::size_t role_count = 6;
std::string_view to_string(role what) noexcept;
std::optional<role> parse_role(std::string_view text) noexcept;
using role_set = std::uint8_t;  // bit (1 << role)
inline constexpr role_set role_bit(role r) { return static_cast<role_set>(1u << static_cast<unsigned>(r)); }

// Limits on one argument. Absent members are not checked.
struct argument_constraint {
  std::string name;  // top-level argument name, or a JSON pointer ("/a/b")
  bool required = false;
  std::vector<std::string> path_allow;  // globs over the normalised path (and its symlink target)
  std::vector<std::string> path_deny;
  std::vector<std::string> hosts;         // URL host globs ("*.example.com")
  std::vector<std::string> schemes;       // URL schemes ("https")
  std::shared_ptr<const re2::RE2> regex;  // must match the whole string
  std::string regex_text;
  std::optional<std::size_t> min_length, max_length;  // in code points
  std::optional<double> minimum, maximum;
  std::string location;  // file:line:col of the constraint, for messages
};

struct rate_limit {
  std::uint32_t calls = 0;
  double per_seconds = 0;
};

// One rule for tools/call. The first rule whose server and tool globs match decides the action;
// its constraints, rate limit and roles apply to the call.
struct tool_rule {
  std::string server = "*";        // glob over serverInfo.name
  std::string tool = "*";          // glob over the tool name
  std::optional<action> decision;  // absent: the default action (the rule only adds checks)
  std::string reason;              // shown to the user in an ask, recorded in the audit log
  std::vector<argument_constraint> arguments;
  std::optional<rate_limit> limit;
  std::optional<role_set> roles;  // replaces the analysis' roles for matching tools
  std::string location;           // file:line:col of the rule
};

struct surface_rules {
  std::optional<analysis::severity> hide_at;  // hide items with findings at or above; none: off
  bool tools = true, prompts = true, resources = true;
};

struct result_rules {
  result_action injection = result_action::block;
  analysis::severity injection_at = analysis::severity::high;
  result_action hidden_unicode = result_action::sanitize;
  analysis::severity hidden_unicode_at = analysis::severity::high;
  result_action ansi = result_action::sanitize;
  bool scan_resources = true;  // resources/read results
  bool scan_prompts = true;    // prompts/get results
};

struct secret_rules {
  // Credentials in tools/call arguments: what to do when the tool is an external sink (or any tool
  // when `all_tools`).
  std::optional<action> in_arguments;  // none: only record and redact
  bool all_tools = false;
  bool redact_results = true;
  bool redact_audit = true;
};

// Runtime toxic flows: what happens to a call once the session has seen a risky earlier step.
struct flow_rules {
  std::optional<action> untrusted_then_sink;
  std::optional<action> untrusted_then_destructive;
  std::optional<action> private_then_sink;
};

enum class pin_mode : std::uint8_t { tofu,
                                     strict };

struct pin_rules {
  pin_mode first_sight = pin_mode::tofu;
  bool hide_drift = true;  // enforce: hide changed/new items and refuse their calls until approved
};

struct policy {
  std::string source = "<built-in default>";
  std::optional<mode> preferred_mode;  // from the file; the command line wins
  action default_action = action::allow;
  std::vector<tool_rule> tools;
  std::vector<std::pair<std::string, role_set>> roles;  // tool glob -> roles, first match wins
  surface_rules surface;
  result_rules results;
  secret_rules secrets;
  flow_rules flows;
  pin_rules pins;
  std::uint32_t ask_timeout_seconds = 120;
};

// The built-in default: record everything; in enforce mode hide high/critical surface findings,
// refuse drifted tools, block/sanitise high injection or hidden Unicode in results, redact secrets.
policy default_policy();

// Parses a policy document. `name` is used in error messages ("policy.json:3:9: ...").
result<policy> parse_policy(std::string_view text, std::string_view name);
// Reads and parses a file; errors name the file.
result<policy> load_policy(const std::string& path);

// Line and column (1-based, columns in bytes) of a byte offset in text.
struct text_position {
  std::size_t line = 1, column = 1;
};
text_position position_of(std::string_view text, std::size_t offset) noexcept;

}  // namespace warden::policy
