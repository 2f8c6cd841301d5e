#pragma once
// The policy's decisions, independent of any transport: which tools/call to allow, deny or ask
// about, which listed items to hide, and what to do with results. Holds the session's runtime state
// (flow taint, rate-limit windows, surface judgements, drift). Pure (no I/O) and single-threaded:
// one engine per session, used from the session's thread.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/surface.hpp"
#include "policy/lockfile.hpp"
#include "policy/policy.hpp"

namespace warden::protocol::json_text {
struct lookup;
}

namespace warden::proxy {

// The reason of a call no rule decided and the default allowed. decide_call leaves `reason` empty
// for it rather than build this text on every call; the call's audit record says it.
inline constexpr std::string_view allowed_by_default = "allowed by default";

struct call_decision {
  policy::action what = policy::action::allow;
  std::string reason;                // precise, for the audit log (never shown to the model); "" for allowed_by_default
  std::string ask_text;              // for the user when what == ask
  std::vector<std::string> rules;    // every rule that matched, e.g. "tools[1]", "flow.untrusted_then_sink"
  std::vector<std::string> secrets;  // credential kinds seen in the arguments
};

struct result_judgement {
  enum class outcome { pass,
                       sanitized,
                       blocked } what = outcome::pass;
  std::vector<std::string> rules;  // analysis rule ids / result rules that fired
  std::string reason;
  std::size_t secrets_redacted = 0;
  std::size_t removed_invisible = 0, removed_escapes = 0;
  nlohmann::json replacement;  // sanitized: the new result; blocked: the error result (tools/call)
  bool changed = false;        // replacement differs from the original (sanitised or redacted)
};

// A tools/call's arguments: the client's JSON text, or a document. The policy searches the text
// for credentials and builds the document only when a rule needs it; otherwise the audit record
// parses its copy on the audit writer's thread, off the relay.
class call_arguments {
 public:
  call_arguments() = default;                                                  // none: an empty object
  call_arguments(nlohmann::json document) : document_(std::move(document)) {}  // NOLINT: implicit, a document is one
  // One JSON value, already validated (a slice of an accepted message).
  static call_arguments from_text(std::string_view text);

  // Parsed from the text on first use.
  const nlohmann::json& document() const;
  nlohmann::json take_document() &&;
  // The text the arguments came as, when they came as one (else they are only a document).
  bool has_text() const noexcept { return !text_.empty(); }
  std::string take_text() && { return std::move(text_); }
  // Credential kinds in the string values, in the document's order (secret_kinds_in).
  std::vector<std::string> secret_kinds(bool generic) const;

 private:
  std::string text_;  // "" when there is none, or a document
  mutable std::optional<nlohmann::json> document_;
};

// The kinds of listed items the surface rules cover.
enum class item_kind { tool,
                       prompt,
                       resource,
                       resource_template };
std::string_view to_string(item_kind kind) noexcept;

// Generic texts the model sees; deliberately say nothing about which rule fired.
inline constexpr std::string_view denied_call_text = "This tool call was blocked by the security policy.";
inline constexpr std::string_view blocked_result_text =
    "The tool result was withheld by the security policy because it contained unsafe content.";

class policy_engine {
 public:
  using clock = std::chrono::steady_clock;

  policy_engine(policy::policy rules, policy::mode mode);

  const policy::policy& rules() const noexcept { return policy_; }
  policy::mode mode() const noexcept { return mode_; }
  bool enforcing() const noexcept { return mode_ == policy::mode::enforce; }
  void set_server_name(std::string name) { server_name_ = std::move(name); }

  // --- surface ---
  // Analyses the items of a surface (or of one listing page) and remembers, per item, whether the
  // surface rules hide it. Results are cached by item digest, so repeated listings cost little.
  void judge_items(const analysis::server_surface& surface);
  // Pins of this server (nullptr: none yet). Items that differ from them, or are new, are drifted.
  void set_pins(const policy::server_pins* pins);
  // Why an item is hidden ("" when it is not): surface findings, or drift from the pins.
  std::string hidden_reason(item_kind kind, const nlohmann::json& item) const;
  // A copy of a list result without the hidden items; `removed` gets "name: reason" entries.
  nlohmann::json filter_listing(item_kind kind, const nlohmann::json& result, std::vector<std::string>& removed) const;

  // --- calls ---
  call_decision decide_call(std::string_view tool, const call_arguments& arguments, clock::time_point now);
  // A tools/call result came back: updates the session's flow state.
  void note_call_result(std::string_view tool, bool is_error);
  // Refusal for prompts/get and resources/read of hidden items ("" when allowed).
  std::string refuse_item(item_kind kind, std::string_view name) const;

  // --- results --- (method: tools/call, resources/read, prompts/get)
  result_judgement judge_result(std::string_view method, const nlohmann::json& result) const;
  // The same judgement read from the result's JSON text (see json_text), for the common case where
  // nothing must be rewritten; nullopt when it must be judged as a document: a text to sanitise
  // or redact, or an escaped key the text walk cannot be sure of.
  // With `is_error`, also the result's "isError" member (as json_text::member reads it), found in
  // the same pass over a tools/call result; filled whenever a judgement is returned.
  std::optional<result_judgement> judge_result_text(std::string_view method, std::string_view result,
                                                    protocol::json_text::lookup* is_error = nullptr) const;

  policy::role_set roles_of(std::string_view tool) const;
  bool saw_untrusted() const noexcept { return !untrusted_source_.empty(); }

 private:
  struct item_verdict {
    std::string hide_reason;  // surface findings at or above the threshold
    policy::role_set roles = 0;
  };
  // An item as last listed, with its pin digest computed once (calls look it up by name).
  struct known_item {
    item_kind kind;
    nlohmann::json definition;
    std::string digest;
    const item_verdict* verdict = nullptr;  // verdicts_[digest], set once judge_items has judged it
  };
  const item_verdict* verdict_for(const std::string& digest) const;
  std::string drift_reason(item_kind kind, const std::string& name, const std::string& digest) const;
  std::string hidden_reason(item_kind kind, const std::string& name, const std::string& digest) const;
  const known_item* current_tool(std::string_view name) const;

  policy::policy policy_;
  policy::mode mode_;
  std::string server_name_;
  std::string home_;
  std::map<std::string, item_verdict> verdicts_;                // by pin digest
  std::map<std::string, known_item, std::less<>> known_tools_;  // latest definition seen per tool name
  std::map<std::string, known_item> known_items_;               // prompts/resources by kind:name
  const policy::server_pins* pins_ = nullptr;
  bool pins_set_ = false;
  std::string untrusted_source_;                                                         // first untrusted-content tool that returned data
  std::string private_source_;                                                           // first private-data tool that returned data
  std::map<std::size_t, std::map<std::string, std::deque<clock::time_point>>> windows_;  // rule -> tool -> calls
};

}  // namespace warden::proxy
