#pragma once
// A multi-literal matcher (Aho–Corasick over lower-cased bytes) that reports which of a fixed set of
// literals occur in a text. Used as a conservative prefilter in front of regex passes: a pattern whose
// required literals are absent cannot match, so its regex need not run. Immutable once built; thread-safe.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warden::analysis {

class literal_matcher {
 public:
  literal_matcher() = default;
  // Literals are matched case-insensitively for ASCII letters. A literal with bytes >= 0x80 is
  // reported whenever the text has any such byte (a conservative stand-in for Unicode case rules),
  // and every literal is reported when the text holds a character that folds to an ASCII letter.
  // Only the first `prefix` bytes of each literal are looked for (a literal counts as present when
  // its prefix is): a smaller automaton stays in L1/L2 cache and the answer stays conservative.
  explicit literal_matcher(const std::vector<std::string>& literals, std::size_t prefix = 5);

  // Indices (into the constructor's list) of the literals found in text, ascending.
  std::vector<int> find_all(std::string_view text) const;

 private:
  static constexpr std::uint32_t no_output = 0xFFFFFFFFu;
  // Transitions are 16-bit (a small table stays in cache); the top bit marks a target with outputs.
  static constexpr std::uint16_t output_bit = 0x8000, max_states = 0x8000;
  std::uint8_t byte_class_[256] = {};  // lower-cased byte -> column; 0 for bytes no literal uses
  std::size_t columns_ = 1;
  std::vector<std::uint16_t> next_;     // states x columns: the full (failure-resolved) transition table
  bool overflow_ = false;               // too many states: report every literal (still conservative)
  std::vector<std::uint32_t> outputs_;  // per state: first index in output_ids_ or no_output
  std::vector<int> output_ids_;         // per state run of literal ids, terminated by -1
  std::vector<int> non_ascii_;          // literals reported when the text has a byte >= 0x80
  std::size_t literal_count_ = 0;
  std::size_t longest_ = 0;
  std::vector<std::uint32_t> output_states_;  // states with outputs            // longest prefix looked for (lanes of a long text overlap by longest_ - 1)
};

}  // namespace warden::analysis
