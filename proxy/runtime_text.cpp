#include "proxy/runtime_text.hpp"

#include "analysis/secrets.hpp"
#include "base/byte_scan.hpp"
#include "base/invisible.hpp"
#include "base/utf8.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string_view>

namespace warden::proxy {

using nlohmann::json;

namespace {

using base::block16, base::byte_set;

// Bit k set: byte k of the block is one of the set's.
unsigned bytes_in(block16 block, const byte_set& set) { return base::mask16(base::any_of16(block, set)); }

// Bit k set: byte k of the block is in [first, last].
unsigned bytes_between(block16 block, unsigned char first, unsigned char last) { return base::mask16(base::between16(block, first, last)); }

// The shared catalogue (analysis/secrets.hpp); may_hold_secret() below looks for its prefixes.
constexpr const auto& patterns = analysis::secret_shapes;

// high-entropy is found without RE2 (see add_random_runs); it must stay last, so that the RE2 sets'
// indices, which skip it, are still indices into patterns[].
constexpr std::size_t high_entropy_index = patterns.size() - 1;
static_assert(patterns[high_entropy_index].kind == "high-entropy");

// The specific set's indices are indices into patterns[] only while the generic shapes come last.
constexpr bool generic_patterns_last() {
  bool generic_seen = false;
  for (const auto& p : patterns) {
    if (p.generic) generic_seen = true;
    else if (generic_seen) return false;
  }
  return true;
}
static_assert(generic_patterns_last(), "keep the generic patterns at the end of the list");

struct compiled {
  // Set indices are indices into patterns[]; `specific` holds the issuer shapes only (the generic
  // ones come last), so that a search without them never matches a long word or a hash. `all`
  // holds every shape but high-entropy.
  std::unique_ptr<re2::RE2::Set> all, specific;
  std::vector<std::unique_ptr<re2::RE2>> each;
};

const compiled& bank() {
  static const compiled instance = [] {
    compiled c;
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(64 << 20);
    c.all = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
    c.specific = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
    for (const auto& p : patterns) {
      if (&p != &patterns[high_entropy_index]) c.all->Add(p.regex, nullptr);
      if (!p.generic) c.specific->Add(p.regex, nullptr);
      c.each.push_back(std::make_unique<re2::RE2>(p.regex, options));
    }
    c.all->Compile();
    c.specific->Compile();
    return c;
  }();
  return instance;
}

}  // namespace

double entropy_bits(std::string_view s) {
  std::array<int, 256> counts{};
  for (unsigned char c : s) ++counts[c];
  double bits = 0;
  for (int n : counts) {
    if (!n) continue;
    const double p = static_cast<double>(n) / static_cast<double>(s.size());
    bits -= p * std::log2(p);
  }
  return bits;
}

// Random-looking: high entropy per character and a mix of letters and digits. Hex digests top out
// at 4 bits per character and stay below the threshold; so do words and paths.
bool looks_random(std::string_view s) {
  bool digit = false, upper = false, lower = false;
  std::size_t i = 0;
  for (; i + 16 <= s.size(); i += 16) {
    const block16 block = base::load16(s.data() + i);
    digit = digit || bytes_between(block, '0', '9');
    upper = upper || bytes_between(block, 'A', 'Z');
    lower = lower || bytes_between(block, 'a', 'z');
  }
  for (char c : s.substr(i)) {
    digit = digit || (c >= '0' && c <= '9');
    upper = upper || (c >= 'A' && c <= 'Z');
    lower = lower || (c >= 'a' && c <= 'z');
  }
  return digit && upper && lower && entropy_bits(s) >= 4.3;
}

namespace {

constexpr const auto& issuer_prefixes = analysis::secret_issuer_prefixes;

// The prefixes' first two bytes as a 64 Ki-bit set: a text is walked one pair at a time, and only
// a pair in this set (a few per kilobyte of prose: "ey", "ho", "sk"...) is compared with them.
constexpr std::array<std::uint64_t, 1024> issuer_pairs = [] {
  std::array<std::uint64_t, 1024> bits{};
  for (std::string_view prefix : issuer_prefixes) {
    const unsigned pair = static_cast<unsigned char>(prefix[0]) << 8 | static_cast<unsigned char>(prefix[1]);
    bits[pair >> 6] |= std::uint64_t{1} << (pair & 63);
  }
  return bits;
}();

bool issuer_prefix_at(std::string_view text, std::size_t i) {
  const unsigned pair = static_cast<unsigned char>(text[i]) << 8 | static_cast<unsigned char>(text[i + 1]);
  if (!(issuer_pairs[pair >> 6] >> (pair & 63) & 1)) return false;
  const std::string_view rest = text.substr(i);
  return std::any_of(issuer_prefixes.begin(), issuer_prefixes.end(),
                     [&](std::string_view p) { return p[0] == rest[0] && p[1] == rest[1] && rest.starts_with(p); });
}

// The distinct bytes the issuer prefixes have at one position.
constexpr byte_set issuer_bytes_at(std::size_t position) {
  byte_set set;
  for (std::string_view prefix : issuer_prefixes) {
    bool have = false;
    for (std::size_t k = 0; k < set.size; ++k) have = have || set.bytes[k] == prefix[position];
    if (!have) set.bytes[set.size++] = prefix[position];
  }
  return set;
}
constexpr byte_set issuer_first_bytes = issuer_bytes_at(0), issuer_second_bytes = issuer_bytes_at(1);

// Whether an issuer's prefix starts anywhere in the text. Sixteen positions a step: only where a
// prefix's first byte is followed by one of their second bytes is the position compared.
bool has_issuer_prefix(std::string_view text) {
  std::size_t i = 0;
  const auto block_has_prefix = [&](std::size_t at) {
    unsigned candidates = bytes_in(base::load16(text.data() + at), issuer_first_bytes) &
                          bytes_in(base::load16(text.data() + at + 1), issuer_second_bytes);
    for (; candidates != 0; candidates &= candidates - 1)
      if (issuer_prefix_at(text, at + static_cast<std::size_t>(std::countr_zero(candidates)))) return true;
    return false;
  };
  for (; i + 17 <= text.size(); i += 16)
    if (block_has_prefix(i)) return true;
  // The last positions as one more block, overlapping the one before (most strings are short).
  if (i > 0 && i + 1 < text.size()) return block_has_prefix(text.size() - 17);
  for (; i + 1 < text.size(); ++i) {
    const unsigned pair = static_cast<unsigned char>(text[i]) << 8 | static_cast<unsigned char>(text[i + 1]);
    if ((issuer_pairs[pair >> 6] >> (pair & 63) & 1) && issuer_prefix_at(text, i)) return true;
  }
  return false;
}

// Byte classes for may_hold_secret's generic pass.
enum : unsigned char { base64_byte = 1,
                       assignment_byte = 2,
                       non_ascii_byte = 4 };
constexpr std::array<unsigned char, 256> secret_byte_classes = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
        c == '+' || c == '/' || c == '=')
      t[c] |= base64_byte;
    if (c == ':' || c == '=') t[c] |= assignment_byte;
    if (c >= 0x80) t[c] |= non_ascii_byte;
  }
  return t;
}();

constexpr byte_set base64_punctuation{{'+', '/', '=', '_', '-'}, 5}, assignment_marks{{':', '='}, 2};

// Bit k set: byte k of the block is one of [A-Za-z0-9+/_=-].
std::uint16_t base64_bytes(block16 block) {
  return static_cast<std::uint16_t>(bytes_between(block, 'A', 'Z') | bytes_between(block, 'a', 'z') |
                                    bytes_between(block, '0', '9') | bytes_in(block, base64_punctuation));
}

// Whether an ASCII text names a credential the way credential-assignment's keywords do: each of
// them contains "pass", "pwd", "secret", "key" or "token", in any case.
bool names_credential(std::string_view text) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; };
  static constexpr std::string_view words[] = {"pass", "pwd", "secret", "key", "token"};
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char first = lower(text[i]);
    if (first != 'p' && first != 's' && first != 'k' && first != 't') continue;  // most bytes
    for (std::string_view word : words) {
      if (first != word[0] || text.size() - i < word.size()) continue;
      std::size_t k = 1;
      while (k < word.size() && lower(text[i + k]) == word[k]) ++k;
      if (k == word.size()) return true;
    }
  }
  return false;
}

// Which families of shapes can match a text, found in one pass without RE2's fixed cost per
// search. With `first_only`, the pass stops at the first family found.
struct secret_candidates {
  bool issuer = false;      // an issuer's prefix
  bool assignment = false;  // generic: a credential keyword, and ':' or '='
  bool long_run = false;    // generic: 32 or more [A-Za-z0-9+/_=-] in a row, high-entropy's shape
  bool any() const { return issuer || assignment || long_run; }
};

secret_candidates scan_candidates(std::string_view text, bool generic, bool first_only) {
  secret_candidates found;
  // The shortest text any pattern matches is 12 bytes ("pwd=" and 8 characters).
  if (text.size() < 12) return found;
  // Issuer shapes: an issuer's prefix (every prefix is at least 3 bytes, so no pair starts last).
  found.issuer = has_issuer_prefix(text);
  if (!generic || (first_only && found.issuer)) return found;
  std::size_t base64_run = 0;
  unsigned seen = 0;
  std::size_t i = 0;
  // Sixteen bytes a step; a run of 32 spans at least two blocks, so only runs that cross a block's
  // edge are counted: the block's leading base64 bytes extend the run, its trailing ones start the next.
  for (; i + 16 <= text.size(); i += 16) {
    const block16 block = base::load16(text.data() + i);
    const std::uint16_t base64 = base64_bytes(block);
    if (bytes_in(block, assignment_marks)) seen |= assignment_byte;
    if (base::non_ascii16(block)) seen |= non_ascii_byte;
    base64_run = base64 == 0xFFFF ? base64_run + 16 : base64_run + static_cast<std::size_t>(std::countr_one(base64));
    if (base64_run >= 32) {
      found.long_run = true;
      if (first_only) return found;
    }
    if (base64 != 0xFFFF) base64_run = static_cast<std::size_t>(std::countl_one(base64));
  }
  for (char c : text.substr(i)) {
    const unsigned char classes = secret_byte_classes[static_cast<unsigned char>(c)];
    seen |= classes;
    base64_run = (classes & base64_byte) ? base64_run + 1 : 0;
    if (base64_run >= 32) {
      found.long_run = true;
      if (first_only) return found;
    }
  }
  // credential-assignment: a keyword, then ':' or '='. RE2's case folding also maps the Kelvin
  // sign to 'k' and the long s to 's': with any non-ASCII byte, the keyword is not looked for.
  found.assignment = (seen & assignment_byte) && ((seen & non_ascii_byte) || names_credential(text));
  return found;
}

// high-entropy's pattern, ([A-Za-z0-9+/_=-]{32,}), matches exactly the maximal runs of 32 or more
// of those bytes; each that looks random is a hit. One pass here: RE2's capturing search is
// expensive per byte of a long run, so a long argument cost the relay more than all else.
void add_random_runs(std::string_view text, std::vector<secret_hit>& hits) {
  std::size_t start = 0;  // of the current run
  const auto run_ends_at = [&](std::size_t end) {
    if (end - start >= 32 && looks_random(text.substr(start, end - start)))
      hits.push_back({patterns[high_entropy_index].kind, start, end});
    start = end + 1;
  };
  std::size_t i = 0;
  // Sixteen bytes a step: a block inside a run is passed over whole.
  for (; i + 16 <= text.size() && hits.size() < 1000; i += 16) {
    const std::uint16_t base64 = base64_bytes(base::load16(text.data() + i));
    for (unsigned others = static_cast<std::uint16_t>(~base64); others != 0 && hits.size() < 1000; others &= others - 1)
      run_ends_at(i + static_cast<std::size_t>(std::countr_zero(others)));
  }
  for (; i <= text.size() && hits.size() < 1000; ++i)
    if (i == text.size() || !(secret_byte_classes[static_cast<unsigned char>(text[i])] & base64_byte)) run_ends_at(i);
}

// Hits of the shapes RE2 looks for (every one but high-entropy), in the order of patterns[].
void add_shape_matches(std::string_view text, bool generic, std::vector<secret_hit>& hits) {
  const compiled& c = bank();
  // Most texts hold no credential: ask the set without collecting matches first (that call
  // allocates nothing), and only then which patterns matched.
  const re2::RE2::Set& set = generic ? *c.all : *c.specific;
  if (!set.Match(text, nullptr)) return;
  std::vector<int> matched;
  if (!set.Match(text, &matched)) return;
  std::sort(matched.begin(), matched.end());
  for (int index : matched) {
    const secret_shape& p = patterns[static_cast<std::size_t>(index)];
    if (p.generic && !generic) continue;
    const re2::RE2& re = *c.each[static_cast<std::size_t>(index)];
    const int groups = re.NumberOfCapturingGroups();
    re2::StringPiece input(text.data(), text.size());
    std::array<re2::StringPiece, 4> parts;
    std::size_t pos = 0;
    while (pos < text.size() && hits.size() < 1000) {
      if (!re.Match(input, pos, text.size(), re2::RE2::UNANCHORED, parts.data(), std::min(groups + 1, 4))) break;
      const re2::StringPiece whole = parts[0];
      const re2::StringPiece key = (groups >= 1 && !parts[1].empty() && p.kind != "private-key") ? parts[1] : whole;
      const auto begin = static_cast<std::size_t>(key.data() - text.data());
      const auto end = begin + key.size();
      // "password=changeme" stays
      const bool keep = p.kind != "credential-assignment" || entropy_bits(std::string_view(key.data(), key.size())) >= 2.5;
      if (keep) hits.push_back({p.kind, begin, end});
      const auto next = static_cast<std::size_t>(whole.data() - text.data()) + std::max<std::size_t>(whole.size(), 1);
      pos = next;
    }
  }
}

}  // namespace

bool may_hold_secret(std::string_view text, bool generic) { return scan_candidates(text, generic, true).any(); }

std::span<const secret_shape> secret_shapes() { return patterns; }

std::vector<secret_hit> find_secrets(std::string_view text, bool generic) {
  std::vector<secret_hit> hits;
  const secret_candidates candidates = scan_candidates(text, generic, false);
  if (candidates.issuer || candidates.assignment) add_shape_matches(text, generic, hits);
  if (candidates.long_run) add_random_runs(text, hits);
  // Overlaps (a token both "github-token" and "high-entropy"): keep the first, most specific kind.
  std::stable_sort(hits.begin(), hits.end(), [](const secret_hit& a, const secret_hit& b) { return a.begin < b.begin; });
  std::vector<secret_hit> merged;
  for (const auto& h : hits) {
    if (!merged.empty() && h.begin < merged.back().end) {
      merged.back().end = std::max(merged.back().end, h.end);
      continue;
    }
    merged.push_back(h);
  }
  return merged;
}

std::string redact_secrets(std::string_view text, bool generic, std::size_t* count) {
  auto redacted = redacted_copy(text, generic, count);
  return redacted ? std::move(*redacted) : std::string(text);
}

std::optional<std::string> redacted_copy(std::string_view text, bool generic, std::size_t* count) {
  const auto hits = find_secrets(text, generic);
  if (count) *count = hits.size();
  if (hits.empty()) return std::nullopt;
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  for (const auto& h : hits) {
    out.append(text.substr(at, h.begin - at));
    out += "[REDACTED:";
    out += h.kind;
    out += "]";
    at = h.end;
  }
  out.append(text.substr(at));
  return out;
}

std::size_t redact_json(json& value, bool generic) {
  std::size_t total = 0;
  if (value.is_string()) {
    std::size_t n = 0;
    if (auto redacted = redacted_copy(value.get_ref<const std::string&>(), generic, &n)) value = std::move(*redacted);
    return n;
  }
  if (value.is_array() || value.is_object())
    for (auto& child : value) total += redact_json(child, generic);
  return total;
}

void add_secret_kinds(std::string_view text, bool generic, std::vector<std::string>& kinds) {
  for (const auto& h : find_secrets(text, generic))
    if (std::find(kinds.begin(), kinds.end(), h.kind) == kinds.end()) kinds.emplace_back(h.kind);
}

std::vector<std::string> secret_kinds_in(const json& value, bool generic) {
  std::vector<std::string> kinds;
  auto walk = [&](const json& v, auto& self) -> void {
    if (v.is_string()) {
      add_secret_kinds(v.get_ref<const std::string&>(), generic, kinds);
    } else if (v.is_array() || v.is_object()) {
      for (const auto& child : v) self(child, self);
    }
  };
  walk(value, walk);
  return kinds;
}

// ---------------------------------------------------------------------------------------------

namespace {

// One code point at `pos` (advancing it); U+FFFD and one byte for anything ill-formed.
char32_t next_code_point(std::string_view s, std::size_t& pos, bool& invalid) {
  const char32_t cp = base::decode_utf8(s, pos);
  invalid = cp == base::invalid_code_point;
  return invalid ? 0xFFFD : cp;
}

using base::is_invisible, base::is_variation_selector;  // base/invisible.hpp: the one table

}  // namespace

bool has_terminal_escapes(std::string_view text) noexcept {
  return text.find('\x1b') != std::string_view::npos || text.find("\xc2\x9b") != std::string_view::npos;
}

sanitized sanitize_text(std::string_view text) {
  sanitized out;
  out.text.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '\x1b') {  // ESC: drop the whole sequence
      ++out.escapes;
      ++pos;
      if (pos < text.size() && text[pos] == '[') {  // CSI: parameters, then a final byte @..~
        ++pos;
        while (pos < text.size() && !(text[pos] >= '@' && text[pos] <= '~')) ++pos;
        if (pos < text.size()) ++pos;
      } else if (pos < text.size() && (text[pos] == ']' || text[pos] == 'P' || text[pos] == '_' || text[pos] == '^')) {
        ++pos;  // OSC/DCS/APC/PM: up to BEL or ST (ESC \)
        while (pos < text.size() && text[pos] != '\x07' && !(text[pos] == '\x1b' && pos + 1 < text.size() && text[pos + 1] == '\\')) ++pos;
        if (pos < text.size()) pos += text[pos] == '\x07' ? 1 : 2;
      } else if (pos < text.size()) {
        ++pos;
      }
      continue;
    }
    bool invalid = false;
    const std::size_t start = pos;
    const char32_t cp = next_code_point(text, pos, invalid);
    if (invalid) {
      base::append_utf8(out.text, 0xFFFD);
      continue;
    }
    if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
      ++out.escapes;
      continue;
    }
    if (is_invisible(cp) && !(cp == 0xFEFF && start == 0)) {
      ++out.invisible;
      continue;
    }
    if (is_variation_selector(cp)) {
      // Keep one selector after a visible character (emoji presentation); drop runs and supplements.
      std::size_t peek = pos;
      bool next_invalid = false;
      const bool run = peek < text.size() && is_variation_selector(next_code_point(text, peek, next_invalid));
      const bool previous_selector = !out.text.empty() && start > 0 && [&] {
        std::size_t back = start - 1;
        while (back > 0 && (static_cast<unsigned char>(text[back]) & 0xC0) == 0x80) --back;
        std::size_t probe = back;
        bool bad = false;
        return is_variation_selector(next_code_point(text, probe, bad));
      }();
      if (cp >= 0xE0100 || run || previous_selector) {
        ++out.invisible;
        continue;
      }
    }
    out.text.append(text.substr(start, pos - start));
  }
  return out;
}

void cap_text(std::string& text, std::size_t max_string) {
  if (text.size() <= max_string) return;
  std::size_t cut = max_string;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  const std::size_t size = text.size();
  text.resize(cut);
  text += "...[" + std::to_string(size) + " bytes]";
}

void cap_json(json& value, std::size_t max_string, std::size_t max_depth) {
  if (value.is_string()) {
    cap_text(value.get_ref<std::string&>(), max_string);
    return;
  }
  if (!value.is_array() && !value.is_object()) return;
  if (max_depth == 0) {
    value = "[" + std::string(value.is_array() ? "array" : "object") + " of " + std::to_string(value.size()) + "]";
    return;
  }
  for (auto& child : value) cap_json(child, max_string, max_depth - 1);
}

}  // namespace warden::proxy
