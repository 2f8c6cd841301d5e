#pragma once
// What the sentence shape rules (tool_claims, pretexts, schema_pins) share: patterns matched
// case-insensitively, quietly, against one sentence or value at a time.
#include <re2/re2.h>

#include <string_view>

namespace warden::analysis::shape {

inline re2::RE2::Options folded() {
  re2::RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  return o;
}

inline bool matches(std::string_view text, const re2::RE2& pattern) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace warden::analysis::shape
