#pragma once
// The analysis entry points: one or more confirmed surfaces in, a deterministic report out; and
// scan_text() for runtime text (tool results) using the same detectors. Pure functions: no I/O,
// no global state beyond immutable compiled patterns; safe to call from several threads. Nothing
// here throws on any input (malformed JSON shapes, invalid UTF-8, deep nesting, huge strings).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.hpp"
#include "analysis/surface.hpp"

namespace warden::analysis {

struct server_input {
  server_surface surface;
  std::string source;  // where it came from, for display and SARIF: a manifest path or the argv
};

enum class role : std::uint8_t {
  untrusted_input = 1 << 0,   // brings text the user did not write into the session (web, email, issues)
  private_data = 1 << 1,      // reads the user's private data (files, mail, databases, memory)
  external_sink = 1 << 2,     // sends data somewhere others can read it (email, posts, uploads, payments)
  code_execution = 1 << 3,    // runs commands or code
  destructive = 1 << 4,       // deletes or irreversibly changes data
  filesystem_write = 1 << 5,  // creates or modifies local files
};
std::string_view to_string(role r) noexcept;
inline constexpr role all_roles[] = {role::untrusted_input, role::private_data, role::external_sink,
                                     role::code_execution, role::destructive, role::filesystem_write};

struct tool_capability {
  std::string server;
  std::string tool;
  std::uint8_t roles = 0;            // bit set of role
  std::vector<std::string> reasons;  // "name: delete", "description: sends email", ...
  bool has(role r) const noexcept { return roles & static_cast<std::uint8_t>(r); }
};

enum class capability_level : std::uint8_t { minimal,
                                             moderate,
                                             high,
                                             critical };
std::string_view to_string(capability_level level) noexcept;

struct toxic_flow {
  std::string rule_id;
  severity level = severity::medium;
  bool cross_server = false;
  std::vector<std::string> untrusted, private_data, sinks, destructive;  // "server/tool" or "tool"
  std::string summary;
};

struct trust_score {
  int score = 100;  // 0..100
  char grade = 'A';
};

struct server_summary {
  std::string name, version, identity, source, digest;
  bool live = false;
  std::size_t tools = 0, prompts = 0, resources = 0, resource_templates = 0;
  trust_score trust;
};

struct report_stats {
  std::size_t servers = 0, tools = 0, prompts = 0, resources = 0, resource_templates = 0;
  std::size_t strings_scanned = 0, bytes_scanned = 0;
};

struct analysis_report {
  std::vector<server_summary> servers;
  std::vector<finding> findings;  // ordered: severity (worst first), then server, location, rule
  std::vector<tool_capability> capabilities;
  std::vector<toxic_flow> flows;
  trust_score trust;
  capability_level capability = capability_level::minimal;
  std::string surface_digest;  // sha256 (hex) of the canonical surface JSON
  report_stats stats;
  bool live = false;  // every surface was enumerated from a running server
};

analysis_report analyse(const std::vector<server_input>& servers);

// Runtime text (tool results, resource reads, prompt bodies): hidden-text and injection detectors.
// `location` is copied into each finding. Fast path for ASCII; linear time. A text of
// parallel_scan_min bytes or more is scanned on up to max_threads threads (0: one per core, at
// most 4); the findings are the same for any thread count.
inline constexpr std::size_t parallel_scan_min = 256 * 1024;
std::vector<finding> scan_text(std::string_view text, std::string_view location = "result", unsigned max_threads = 0);

// Scoring (docs/scoring.md). Only findings whose rule is a threat count.
trust_score score_findings(const std::vector<finding>& findings);
char grade_for(int score) noexcept;
bool is_flagged(const trust_score& trust) noexcept;  // grade C or worse

}  // namespace warden::analysis
