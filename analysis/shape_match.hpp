#pragma once
// What the sentence shape rules (tool_claims, pretexts, schema_pins) share: patterns matched
// case-insensitively, quietly, against one sentence or value at a time.
#include <re2/re2.h>
#include <re2/set.h>

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

// Which of several patterns occur anywhere in a text, in one pass: a rule whose necessary pattern
// is absent from the whole text need not look at its sentences. A '^' (a sentence's start, in the
// rules) is widened to any line or sentence start, so the gate never says no where a sentence
// would say yes.
class gate {
 public:
  explicit gate(std::initializer_list<const re2::RE2*> patterns) : set_(roomy(), re2::RE2::UNANCHORED) {
    for (const auto* p : patterns) {
      std::string widened;
      const std::string& e = p->pattern();
      for (std::size_t i = 0; i < e.size(); ++i) {
        const bool escaped = i > 0 && e[i - 1] == '\\';
        if (e[i] == '^' && !escaped && (i == 0 || e[i - 1] != '[')) widened += R"((?:^|[\n.!?;:]))";
        else widened += e[i];
      }
      std::string error;
      if (set_.Add(widened, &error) < 0) {
        auto& b = book();
        const std::lock_guard<std::mutex> guard(b.lock);
        b.errors.push_back("gate: " + widened + ": " + error);
      }
      ++size_;
    }
    ok_ = set_.Compile();
  }
  // One flag per pattern, in order; all true when the set could not be built or run.
  std::vector<bool> match(std::string_view text) const {
    std::vector<bool> out(size_, !ok_);
    if (!ok_) return out;
    std::vector<int> hits;
    re2::RE2::Set::ErrorInfo info{};
    if (!set_.Match(re2::StringPiece(text.data(), text.size()), &hits, &info)) {
      if (info.kind != re2::RE2::Set::kNoError) out.assign(size_, true);  // out of memory: look at everything
      return out;
    }
    for (int h : hits) out[static_cast<std::size_t>(h)] = true;
    return out;
  }

 private:
  // A gate's set holds many long patterns: with RE2's default 8 MiB its DFA keeps discarding its
  // states on ordinary prose (measured: the scan is faster with room to keep them).
  static re2::RE2::Options roomy() {
    auto o = folded();
    o.set_max_mem(std::int64_t{64} << 20);
    return o;
  }
  re2::RE2::Set set_;
  std::size_t size_ = 0;
  bool ok_ = false;
};

inline bool matches(std::string_view text, const re2::RE2& pattern) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

// A value written as a placeholder names nobody: "you@example.com", "user@host", "<email>",
// "{recipient}", "your-bucket", an address at a documentation domain (RFC 2606). One definition for
// schema defaults, named recipients and the sentence model.
inline bool placeholder_value(std::string_view value) {
  static const re2::RE2& written =
      pattern(R"(your|placeholder|xxx|<|\{|^(?:you|user|name|someone|me|test|john\.?doe|jane\.?doe|email)@|@example\.(?:com|org|net)$)");
  return matches(value, written);
}

}  // namespace warden::analysis::shape
