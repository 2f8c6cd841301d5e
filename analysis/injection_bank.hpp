// The injection pattern bank: the signal patterns compiled into one RE2 set (with a literal
// prefilter), and the secret shapes matched on raw text. Internal to analysis/injection*.cpp.
#pragma once

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/injection.hpp"
#include "analysis/literals.hpp"

namespace warden::analysis::injection_internal {

bool any_of(const std::vector<bool>& bits);

// Conservative literal prefilter over a list of regexes: RE2's FilteredRE2 derives, per regex, an
// AND/OR tree of literals every match must contain; one Aho-Corasick pass finds which literals occur.
// A regex that fails the tree cannot match; regexes the prefilter cannot analyse always pass.
class prefilter {
 public:
  void add(const std::string& expression, const re2::RE2::Options& options) {
    int id = -1;
    if (filter_.Add(expression, options, &id) == re2::RE2::NoError) filter_ids_.push_back(static_cast<int>(count_));
    else unfiltered_.push_back(static_cast<int>(count_));
    ++count_;
  }
  void compile() {
    if (!filter_ids_.empty()) filter_.Compile(&atom_list_);
    atoms_ = literal_matcher(atom_list_);
    when_none_found_ = possible_from_atoms({});
    any_when_none_found_ = any_of(when_none_found_);
  }
  // The literals the prefilter looks for (after compile).
  const std::vector<std::string>& atoms() const { return atom_list_; }
  // possible[i] is false only when regex i provably cannot match text. Short texts skip the
  // prefilter: its fixed cost (atom tree propagation) exceeds a DFA pass over a few hundred bytes.
  std::vector<bool> possible(std::string_view text) const {
    if (text.size() < min_text || filter_ids_.empty()) return std::vector<bool>(count_, true);
    return possible_from(atoms_.find_all(text));
  }
  // The same answer from the atoms (indices into atoms(), ascending) found in the text by some
  // other pass, e.g. the signal set's.
  std::vector<bool> possible_from(const std::vector<int>& found) const {
    return found.empty() ? when_none_found_ : possible_from_atoms(found);
  }
  // Whether any regex may match, from the atoms found: most texts hold none, and that answer
  // never changes (the regexes without atoms), so it is worked out once.
  bool any_possible_from(const std::vector<int>& found) const {
    return found.empty() ? any_when_none_found_ : any_of(possible_from_atoms(found));
  }
  static constexpr std::size_t min_text = 512;

 private:
  std::vector<bool> possible_from_atoms(const std::vector<int>& found) const {
    if (filter_ids_.empty()) return std::vector<bool>(count_, true);
    std::vector<bool> out(count_, false);
    for (int i : unfiltered_) out[static_cast<std::size_t>(i)] = true;
    std::vector<int> passed;
    filter_.AllPotentials(found, &passed);
    for (int id : passed) out[static_cast<std::size_t>(filter_ids_[static_cast<std::size_t>(id)])] = true;
    return out;
  }

  re2::FilteredRE2 filter_{2};
  literal_matcher atoms_;
  std::vector<std::string> atom_list_;
  std::vector<int> filter_ids_;  // filter id -> regex index
  std::vector<int> unfiltered_;  // regexes RE2 would not take: never filtered out
  std::size_t count_ = 0;
  std::vector<bool> when_none_found_;  // possible_from({}), set by compile()
  bool any_when_none_found_ = false;
};

struct compiled_bank {
  std::unique_ptr<re2::RE2::Set> set;
  prefilter filter;  // over the full patterns, indexed like patterns[]
  // Set index -> pattern (index in patterns[]) and part: 0 is the trigger (or the whole pattern),
  // 1.. the parts after its windows. Robust to a failed Add. Two more kinds of entry ride in the
  // same pass: cue words (part: the cue's bit number) and the secret patterns' literal atoms (part:
  // the atom's index), so that no separate literal pass over the text is needed.
  static constexpr int cue_entry = -1, secret_atom_entry = -2;
  struct set_entry {
    int pattern;
    int part;
  };
  std::vector<set_entry> entries;
  std::vector<bool> confirm;                       // per pattern: the set holds a trigger only
  std::vector<int> parts_in_set;                   // per pattern: its entries in the set (trigger + gating parts)
  std::vector<std::unique_ptr<re2::RE2>> singles;  // same patterns, for match positions
  std::vector<std::string> errors;
  // Words announcing an encoding (alternative views): their bits in a set pass's cues.
  std::uint32_t rot13_cue = 0, rot_13_cue = 0, caesar_cue = 0, revers_cue = 0;
  // Every secret atom is in the set and is ASCII: then the set's pass over a normalised view tells
  // which atoms the raw text may hold (normalising keeps every ASCII run in one piece, lower-cased,
  // and the set ignores case, so an atom absent from the view is absent from the raw text).
  bool secret_atoms_in_set = true;
};

// The signal patterns compiled once (thread-safe static).
const compiled_bank& bank();
// The signal of pattern `index` (an index into the bank's patterns).
signal pattern_signal(int index);
re2::RE2::Options bank_options();

// Secrets are matched case-sensitively on the raw text, with the shared catalogue's issuer shapes
// and credential assignments (high-entropy runs are too common in metadata: hashes, ids).
std::vector<std::string> secret_patterns();
// The issuer shapes come first in secret_patterns().
std::size_t issuer_shape_count();

struct secret_bank {
  std::unique_ptr<re2::RE2::Set> set;  // one pass decides whether any pattern can match
  prefilter filter;                    // skips that pass when no pattern can
  std::vector<std::unique_ptr<re2::RE2>> patterns;
};

const secret_bank& secrets();

double shannon_entropy(std::string_view s);
bool looks_like_placeholder(std::string_view s);

}  // namespace warden::analysis::injection_internal
