#include "analysis/literals.hpp"

#include <algorithm>
#include <deque>

#include "analysis/text.hpp"

namespace warden::analysis {

namespace {
inline unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }
}  // namespace

literal_matcher::literal_matcher(const std::vector<std::string>& all_literals, std::size_t prefix)
    : literal_count_(all_literals.size()) {
  std::vector<std::string_view> literals(all_literals.begin(), all_literals.end());
  for (auto& literal : literals) {
    literal = literal.substr(0, prefix);
    longest_ = std::max(longest_, literal.size());
  }
  // Columns only for bytes some literal uses: keeps the table small enough to stay in cache.
  for (const auto& literal : literals)
    for (unsigned char c : literal)
      if (c < 0x80 && !byte_class_[lower(c)]) byte_class_[lower(c)] = static_cast<std::uint8_t>(columns_++);
  for (int c = 'A'; c <= 'Z'; ++c) byte_class_[c] = byte_class_[c + 32];

  // Trie (0 = root; "absent" edges are 0 until the failure pass fills them in). Built with 32-bit
  // states, then packed.
  std::vector<std::vector<int>> ids(1);
  std::vector<std::uint32_t> next(columns_, 0);
  for (std::size_t index = 0; index < literals.size(); ++index) {
    const std::string_view literal = literals[index];
    if (literal.empty()) continue;
    if (std::any_of(literal.begin(), literal.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
      non_ascii_.push_back(static_cast<int>(index));
      continue;
    }
    std::uint32_t state = 0;
    for (unsigned char c : literal) {
      const std::size_t at = state * columns_ + byte_class_[lower(c)];
      if (!next[at]) {
        next[at] = static_cast<std::uint32_t>(ids.size());
        ids.emplace_back();
        next.resize(next.size() + columns_, 0);
      }
      state = next[at];
    }
    ids[state].push_back(static_cast<int>(index));
  }

  // Breadth-first failure links; each state inherits the outputs of its failure state.
  const std::size_t states = ids.size();
  std::vector<std::uint32_t> fail(states, 0);
  std::deque<std::uint32_t> queue;
  for (std::size_t col = 1; col < columns_; ++col)
    if (auto child = next[col]) queue.push_back(child);
  while (!queue.empty()) {
    std::uint32_t state = queue.front();
    queue.pop_front();
    auto& mine = ids[state];
    mine.insert(mine.end(), ids[fail[state]].begin(), ids[fail[state]].end());
    for (std::size_t col = 1; col < columns_; ++col) {
      auto& slot = next[state * columns_ + col];
      std::uint32_t via_fail = next[fail[state] * columns_ + col];
      if (slot) {
        fail[slot] = via_fail;
        queue.push_back(slot);
      } else {
        slot = via_fail;
      }
    }
  }
  if (states >= max_states) {
    overflow_ = true;
    return;
  }
  next_.resize(next.size());
  for (std::size_t i = 0; i < next.size(); ++i)
    next_[i] = static_cast<std::uint16_t>(next[i] | (ids[next[i]].empty() ? 0 : output_bit));
  outputs_.assign(states, no_output);
  for (std::size_t s = 0; s < states; ++s) {
    if (ids[s].empty()) continue;
    output_states_.push_back(static_cast<std::uint32_t>(s));
    outputs_[s] = static_cast<std::uint32_t>(output_ids_.size());
    output_ids_.insert(output_ids_.end(), ids[s].begin(), ids[s].end());
    output_ids_.push_back(-1);
  }
}

std::vector<int> literal_matcher::find_all(std::string_view text) const {
  std::vector<int> found;
  if (overflow_) {
    for (std::size_t i = 0; i < literal_count_; ++i) found.push_back(static_cast<int>(i));
    return found;
  }
  if (next_.empty()) return found;
  // Most texts are short: per-call cost must not grow with the number of literals. Each state's
  // outputs are recorded once per call (stamped with a per-thread call counter).
  thread_local std::vector<std::uint32_t> stamp;
  thread_local std::uint32_t epoch = 0;
  if (stamp.size() < outputs_.size() || ++epoch == 0) {
    stamp.assign(std::max(stamp.size(), outputs_.size()), 0);
    epoch = 1;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  auto emit = [&](std::uint16_t step) {
    const std::uint32_t state = step & ~output_bit;
    if (stamp[state] != epoch) {
      stamp[state] = epoch;
      for (auto k = outputs_[state]; output_ids_[k] >= 0; ++k) found.push_back(output_ids_[k]);
    }
  };
  // One automaton step depends on the previous one, and the table lives in L2: a single walk is
  // bound by load latency. Long texts are cut into `lanes` parts walked in lockstep, each part
  // starting longest-prefix - 1 bytes early so an occurrence that straddles a cut is still seen
  // whole by one lane (occurrences seen twice are reported once: outputs are stamped).
  const std::uint16_t* table = next_.data();
  const std::uint8_t* column = byte_class_;
  const std::size_t columns = columns_;
  std::size_t from = 0;
  if (n >= 2048) {
    constexpr std::size_t lanes = 8;
    const std::size_t part = n / lanes, overlap = longest_ > 0 ? longest_ - 1 : 0;
    const unsigned char* start[lanes];
    for (std::size_t j = 0; j < lanes; ++j) start[j] = j == 0 ? bytes : bytes + j * part - overlap;
    std::uint32_t lane_state[lanes] = {};
    // Every state entered is stamped, without a branch (outputs are frequent in prose, and a
    // mispredicted branch per output cost more than the store); states with outputs are read
    // back once at the end.
    std::uint32_t* seen = stamp.data();
    const std::uint32_t now = epoch;
    for (std::size_t i = 0; i < part; ++i) {  // every lane has at least `part` bytes
      for (std::size_t j = 0; j < lanes; ++j) lane_state[j] = table[lane_state[j] * columns + column[start[j][i]]] & ~output_bit;
      for (std::size_t j = 0; j < lanes; ++j) seen[lane_state[j]] = now;
    }
    // The remainders: later lanes are `overlap` bytes longer, the last lane also takes n % lanes.
    for (std::size_t j = 0; j < lanes; ++j) {
      std::uint32_t s = lane_state[j];
      const unsigned char* stop = j + 1 == lanes ? bytes + n : bytes + (j + 1) * part;
      for (const unsigned char* q = start[j] + part; q < stop; ++q) {
        s = table[s * columns + column[*q]] & ~output_bit;
        seen[s] = now;
      }
    }
    for (std::uint32_t state : output_states_)
      if (seen[state] == now)
        for (auto k = outputs_[state]; output_ids_[k] >= 0; ++k) found.push_back(output_ids_[k]);
    from = n;
  }
  {
    std::uint32_t state = 0;
    for (std::size_t i = from; i < n; ++i) {
      const std::uint16_t step = table[state * columns + column[bytes[i]]];
      state = step & ~output_bit;
      if (step & output_bit) emit(step);
    }
  }
  if (!text::is_ascii(text)) {
    // RE2's case folding lets the Kelvin sign match 'k' and the long s match 's': with either in the
    // text, no ASCII literal can be ruled out.
    if (text.find("\xE2\x84\xAA") != std::string_view::npos || text.find("\xC5\xBF") != std::string_view::npos) {
      found.clear();
      for (std::size_t i = 0; i < literal_count_; ++i) found.push_back(static_cast<int>(i));
      return found;
    }
    found.insert(found.end(), non_ascii_.begin(), non_ascii_.end());
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace warden::analysis
