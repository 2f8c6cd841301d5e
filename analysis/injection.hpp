#pragma once
// Poisoning / prompt-injection detectors over one LLM-visible text. Text is normalised first
// (analysis/text.hpp) and scanned once by a multi-pattern RE2 set for weak *signals* (who is
// addressed, what is demanded, what is hidden, where data goes); rules fire on combinations of
// signals, never on a single phrase. Pure, linear time in the input, thread-safe.
#include <bitset>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/finding.hpp"

namespace warden::analysis {

// Where the text sits; some rules read differently in a parameter description than in a result.
enum class field_role : std::uint8_t {
  server_text,            // server instructions, server info
  tool_description,       // tool/prompt/resource description or title
  name,                   // tool, prompt, resource, argument names
  parameter_description,  // description/title of a schema property or prompt argument
  schema_text,            // other schema strings: enum values, defaults, examples, patterns
  annotation,             // tool annotations (title etc.)
  result,                 // runtime text: tool results, resource reads, prompt bodies
};

// The tool names of a surface, lower-cased and indexed once per server, so that each sentence
// looks its words up instead of walking every name (a 1,000-tool surface has 11,000 strings).
struct tool_name_index {
  std::unordered_set<std::string> siblings, foreign;
  std::unordered_set<std::string> sibling_tails;     // "list-properties" of "hubspot-list-properties"
  std::unordered_set<std::string> sibling_families;  // "get-" of "get-env"
  std::vector<std::string> squashed_siblings;        // for names a server's docs write loosely
  tool_name_index() = default;
  tool_name_index(const std::vector<std::string>* sibling_tools, const std::vector<std::string>* foreign_tools);
  // One of the server's own tools: by name, by a tail of its name ("list-properties"), or as its
  // docs write it loosely ("FETCH_PROJECT_INFO tool" for "qmetry_fetch_qmetry_project_info": the
  // letters of a long name in order within one tool's name not twice as long).
  bool is_sibling(const std::string& lowered) const;
};

struct field_context {
  field_role role = field_role::tool_description;
  std::string_view own_name;                                     // the item this text belongs to
  const std::vector<std::string>* sibling_tools = nullptr;       // tool names of the same server
  const std::vector<std::string>* foreign_tools = nullptr;       // tool names of other servers
  int depth = 0;                                                 // nesting of decoded payload analysis
  const tool_name_index* names = nullptr;                        // the two lists indexed (built on demand when null)
  const std::unordered_set<std::string>* own_params = nullptr;   // the server's property names and enum values, squashed_name()
  const std::unordered_set<std::string>* own_options = nullptr;  // the server's enum and const values alone, squashed_name()
};

// A name lower-cased without '_', '-' and '.': "VoiceUrl", "voice_url" and "voice-url" are one name.
std::string squashed_name(std::string_view name);

struct text_hit {
  std::string_view rule_id;
  severity level = severity::low;
  double confidence = 0.5;
  std::size_t begin = 0, end = 0;  // byte range in the raw text (for the evidence excerpt)
  std::string decoded;
  std::string message;
};

// Signals seen in a text, for callers that combine evidence across fields of one tool.
enum class signal : std::uint8_t {
  tag_strong,
  tag_weak,
  html_comment,
  role_token,
  role_line,
  address_model,
  oblige,
  oblige_strong,
  authority,
  conceal,
  conceal_weak,
  consent_skip,
  deceive,
  override_,
  impersonation,
  seq_global,
  seq_local,
  sensitive_path,
  secret_noun,
  env_vars,
  refuse,
  detection,
  user_secret,
  grab_all,
  convo_self,
  history_weak,
  context_data,
  self_context,
  sys_prompt,
  model_self,
  user_data,
  move_param,
  move_out,
  also_sink,
  read_secret,
  dest_email,
  quoted_field,
  redirect,
  redirect_weak,
  hijack_strong,
  hijack_weak,
  deprecate,
  cross_cue,
  decode_exec,
  shell_danger,
  url_data,
  claimed_consent,
  phished_secret,
  count_
};
using signal_set = std::bitset<static_cast<std::size_t>(signal::count_)>;

struct injection_result {
  std::vector<text_hit> hits;
  signal_set signals;
};

injection_result inspect_injection(std::string_view raw, const field_context& context);

// For tests and start-up checks: every pattern compiled (empty when all is well).
std::vector<std::string> injection_pattern_errors();

namespace detail {
// The obfuscation cues that decide whether a text is read again as a joined or decoded view,
// exposed for their tests. Lone-letter pairs that belong to a chain of three or more lone letters
// ("s e n d", "p.a.s.s"); words of three bytes or more that mix letters with 0 1 3 4 5 7 and hold
// no other digit ("r34d").
std::size_t count_spaced_letters(std::string_view view);
std::size_t count_leet_words(std::string_view view);
}  // namespace detail

}  // namespace warden::analysis
