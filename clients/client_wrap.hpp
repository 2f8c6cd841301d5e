#pragma once
// Putting mcp-warden in front of the servers of a client config, and taking it out again, by
// splicing new text into the file's original bytes: nothing else in the file changes (other keys,
// order, formatting, comments).
//
// wrap: a stdio entry {"command": C, "args": [A...]} becomes
//   {"command": WARDEN, "args": [OPTS..., "--", C, A...]}
// where C is moved into args as its original token (escapes and quoting kept) and the original
// array text follows it unchanged; env, cwd and every other member are untouched. A missing args
// member is inserted right after the command. Wrapping an already wrapped entry changes nothing
// (or only its OPTS when they differ). A remote (HTTP/SSE) entry is left alone with a note, or,
// with front_http (or for clients whose config only takes stdio entries), replaced by
// {"command": WARDEN, "args": [OPTS..., "--upstream", URL, "--header", "K: V"...]}.
//
// unwrap: the inverse. wrap followed by unwrap gives back the original bytes. The one case the
// wrapped text cannot tell apart on its own (args absent vs. an empty args inserted the same way)
// and fronted remote entries are resolved from the backup written by the first wrap, when given.
// Pure functions; never throw on file content.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "clients/client_configs.hpp"

namespace warden::clients {

struct wrap_options {
  std::string warden_path;               // what goes into "command" (an absolute path, usually)
  std::vector<std::string> warden_args;  // options for every wrapped server, e.g. {"--policy", P}
  std::string audit_log_dir;             // set: each server also gets --audit-log DIR/CLIENT-NAME.jsonl
  bool front_http = false;               // rewrite remote entries to stdio entries with --upstream
};

enum class entry_action {
  wrapped,          // now runs under mcp-warden
  options_updated,  // was wrapped; mcp-warden's options replaced
  already_wrapped,  // nothing to do
  unwrapped,        // restored to the original entry
  not_wrapped,      // unwrap: nothing to do
  skipped,          // left alone; note says why
};
std::string_view to_string(entry_action action) noexcept;

struct entry_outcome {
  std::string name;
  std::string project;
  entry_action action = entry_action::skipped;
  std::string note;
};

struct rewrite {
  std::string text;                     // the new file content
  std::vector<entry_outcome> outcomes;  // one per server entry, in file order
  bool changed = false;
};

// mcp-warden's options for one entry: the common ones plus its own audit log when asked for.
std::vector<std::string> warden_args_for(const client_config& config, const server_entry& entry,
                                         const wrap_options& options);

// Errors only when the result would not read back as intended (a bug guard: nothing is written).
result<rewrite> wrap_config(const client_config& config, const wrap_options& options);
result<rewrite> unwrap_config(const client_config& config, const client_config* backup);

struct text_edit {
  std::size_t begin = 0;
  std::size_t end = 0;  // [begin, end) replaced by replacement; begin == end inserts
  std::string replacement;
};
// Applies non-overlapping edits (any order); error when two overlap or one is out of range.
result<std::string> apply_edits(std::string_view text, std::vector<text_edit> edits);

// A unified diff (3 lines of context) of two texts; empty when they are equal.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& label_before,
                         const std::string& label_after);

}  // namespace warden::clients
