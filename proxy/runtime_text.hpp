#pragma once
// Runtime text handling for the policy path: credential detection and redaction, and sanitising of
// invisible characters and terminal escapes in text a model will read. Pure, thread-safe (compiled
// RE2 patterns are shared and immutable), linear time, never throws on any input.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/secrets.hpp"

namespace warden::proxy {

struct secret_hit {
  std::string_view kind;           // "aws-access-key-id", "github-token", "private-key", "high-entropy", ...
  std::size_t begin = 0, end = 0;  // byte range of the credential itself
};

// The credential shapes of the shared catalogue (analysis/secrets.hpp).
using analysis::secret_shape;
std::span<const secret_shape> secret_shapes();

// A necessary condition for any shape of the set to match (generic: all of them; otherwise the
// issuers' only), found in one pass without RE2's fixed cost per search: false means
// find_secrets(text, generic) finds nothing.
bool may_hold_secret(std::string_view text, bool generic);

// The filters of the generic shapes' matches: a high-entropy run is reported only when it looks
// random (a mix of letters and digits at 4.3 bits a character or more: not words, paths or hex
// digests); an assignment only when its value carries 2.5 bits a character ("password=changeme" is
// not reported).
double entropy_bits(std::string_view s);
bool looks_random(std::string_view token);

// Known credential shapes. `generic` also reports password=/token= assignments and long
// high-entropy tokens: right for arguments and the audit log, too noisy for tool results (which
// legitimately carry hashes and encoded data).
std::vector<secret_hit> find_secrets(std::string_view text, bool generic);

// The text with each credential replaced by "[REDACTED:<kind>]"; `count` (optional) gets the number.
std::string redact_secrets(std::string_view text, bool generic, std::size_t* count = nullptr);
// The same, or nothing when the text holds no credential (no copy of a clean text is made).
std::optional<std::string> redacted_copy(std::string_view text, bool generic, std::size_t* count = nullptr);

// Redacts every string (and object key value) inside a JSON value in place; returns the count.
std::size_t redact_json(nlohmann::json& value, bool generic);

// Kinds of credentials found anywhere in a JSON value (strings only), de-duplicated, in order.
std::vector<std::string> secret_kinds_in(const nlohmann::json& value, bool generic);
// Appends the kinds found in one text that `kinds` does not hold yet.
void add_secret_kinds(std::string_view text, bool generic, std::vector<std::string>& kinds);

struct sanitized {
  std::string text;
  std::size_t invisible = 0;  // removed invisible / format / tag / bidi / variation-selector characters
  std::size_t escapes = 0;    // removed terminal escape sequences and control characters
  bool changed() const { return invisible + escapes > 0; }
};

// Removes what a reader cannot see but a model reads: Unicode tag characters, variation-selector
// runs (payload carriers; a single emoji presentation selector is kept), bidi embeddings,
// overrides and isolates, zero-width spaces and word joiners, a mid-text BOM, Hangul fillers;
// ANSI/OSC escape sequences; C0 (except tab, LF, CR) and C1 controls. ZWJ/ZWNJ are kept (emoji and
// several scripts need them). Invalid UTF-8 becomes U+FFFD.
sanitized sanitize_text(std::string_view text);

// True when the text holds an ESC or C1 CSI: a terminal escape sequence.
bool has_terminal_escapes(std::string_view text) noexcept;

// Caps a JSON value for the audit log: strings longer than max_string bytes are cut (at a UTF-8
// boundary) with a note of the original size; arrays/objects deeper than max_depth are summarised.
void cap_json(nlohmann::json& value, std::size_t max_string, std::size_t max_depth = 16);
// The string rule of cap_json for one text.
void cap_text(std::string& text, std::size_t max_string);

}  // namespace warden::proxy
