#pragma once
// What the sentence shape rules (tool_claims, pretexts, schema_pins) share: patterns matched
// case-insensitively, quietly, against one sentence or value at a time.
#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace warden::analysis::shape {

inline re2::RE2::Options folded() {
  re2::RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  return o;
}

// Every pattern of the shape rules is built here, at start-up (namespace-scope objects), so that
// pattern_errors() can tell a test that each one compiled: RE2 reports a bad pattern only by never
// matching.
struct pattern_book {
  std::mutex lock;
  std::vector<std::unique_ptr<re2::RE2>> patterns;
  std::vector<std::string> errors;
};
inline pattern_book& book() {
  static pattern_book b;
  return b;
}
inline const re2::RE2& pattern(std::string_view expression, const re2::RE2::Options& options = folded()) {
  auto compiled = std::make_unique<re2::RE2>(re2::StringPiece(expression.data(), expression.size()), options);
  auto& b = book();
  const std::lock_guard<std::mutex> guard(b.lock);
  if (!compiled->ok()) b.errors.push_back(compiled->pattern() + ": " + compiled->error());
  b.patterns.push_back(std::move(compiled));
  return *b.patterns.back();
}
inline std::vector<std::string> pattern_errors() {
  auto& b = book();
  const std::lock_guard<std::mutex> guard(b.lock);
  return b.errors;
}

inline bool matches(std::string_view text, const re2::RE2& pattern) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace warden::analysis::shape
