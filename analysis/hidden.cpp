#include "analysis/hidden.hpp"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>

#include "analysis/char_classes.hpp"
#include "analysis/text.hpp"
#include "base/byte_scan.hpp"

namespace warden::analysis {
namespace {

using namespace chars;
using text::invalid_code_point;

using text::high_bits;
using text::load8;

// Bytes 0x20..0x7E only (no control, DEL or non-ASCII byte).
bool printable_block(std::uint64_t w) { return !(w & high_bits) && text::bytes_between(w, 0x20, 0x7E) == high_bits; }

// How many leading bytes of eight are printable ASCII (0x20..0x7E) with no space next to another
// space, not counting a space at the end of that prefix unless `next` (the byte after the eight, 0
// at the end of the text) shows that its run ends there.
[[gnu::always_inline]] inline std::size_t quiet_prefix(std::uint64_t w, unsigned char next) {
  if constexpr (std::endian::native != std::endian::little) return 0;

  constexpr std::uint64_t low7 = ~high_bits;
  const std::uint64_t ascii = ~w & high_bits, masked = w & low7;  // bytes_between is exact on masked
  const std::uint64_t printable = text::bytes_between(masked, 0x20, 0x7E) & ascii;
  const std::uint64_t spaces = text::bytes_between(masked, 0x20, 0x20) & ascii;
  const std::uint64_t paired = (spaces & (spaces << 8)) | (spaces & (spaces >> 8));
  const std::uint64_t bad = (~printable & high_bits) | paired;
  std::size_t quiet = bad ? static_cast<std::size_t>(std::countr_zero(bad)) / 8 : 8;
  if (quiet > 0 && ((spaces >> (8 * quiet - 1)) & 1) && !(quiet == 8 && next > 0x20 && next < 0x7F)) --quiet;
  return quiet;
}

// Eight bytes of accented Latin prose with nothing to report: printable ASCII with single spaces (as
// in quiet_prefix, a space at the end only when `next` is printable and not a space), and whole
// two-byte characters U+00C0..U+017F (lead byte C3..C5), each of them a letter or the signs × and
// ÷, none with a check of its own.
[[gnu::always_inline]] inline bool latin_block(std::uint64_t w, unsigned char next) {
  if constexpr (std::endian::native != std::endian::little) return false;
  constexpr std::uint64_t low7 = ~high_bits;
  const std::uint64_t high = w & high_bits, ascii = ~w & high_bits, low = w & low7;
  const std::uint64_t lead = text::bytes_between(low, 0x43, 0x45) & high;  // C3..C5
  const std::uint64_t cont = high & ~(w << 1);                             // 10xxxxxx
  if ((lead | cont) != high || cont != lead << 8 || (lead >> 63)) return false;
  if ((text::bytes_between(low, 0x20, 0x7E) & ascii) != ascii) return false;
  const std::uint64_t spaces = text::bytes_between(low, 0x20, 0x20) & ascii;
  return !(spaces & (spaces << 8)) && (!(spaces >> 63) || (next > 0x20 && next < 0x7F));
}

// Sixteen bytes at p that latin_block would pass as two blocks of eight (plain ASCII included);
// `next` is the byte after them, 0 at the end of the text. Accented prose is mostly such blocks.
[[gnu::always_inline]] inline bool latin_block16(const char* p, unsigned char next) {
  const base::block16 b = base::load16(p);
  const unsigned high = base::non_ascii16(b);
  const unsigned printable = base::mask16(base::between16(b, 0x20, 0x7E));
  if ((high | printable) != 0xFFFFu) return false;
  const unsigned spaces = base::mask16(base::equal16(b, ' '));
  if ((spaces & (spaces >> 1)) || ((spaces >> 15) && !(next > 0x20 && next < 0x7F))) return false;
  if (!high) return true;
  const unsigned lead = base::mask16(base::between16(b, 0xC3, 0xC5));
  const unsigned cont = base::mask16(base::between16(b, 0x80, 0xBF));
  return (lead | cont) == high && cont == ((lead << 1) & 0xFFFFu) && !(lead >> 15);
}

// The letters U+00C0..U+017F (two bytes, lead C3..C5) that can never make check_words report a
// word: Latin script, and a confusable skeleton that keeps a non-ASCII character. A word made of
// these, ASCII letters, digits and '_' is one script (no mixed-script hit), and its skeleton, the
// concatenation of its characters' skeletons, is never all ASCII (no "spells a Latin word" hit).
// Decided from ICU on first use, so a change of ICU data cannot leave a stale list behind. Indexed by
// (lead - 0xC3) * 64 + (trail & 0x3F).
const std::array<bool, 3 * 64>& quiet_latin_letters();

// A bidi embedding or isolate, judged once the whole text has been seen.
struct bidi_control {
  char32_t cp;
  std::size_t offset, end;
};

// One aggregated hit per rule and field keeps reports readable: first position, count, worst case.
struct aggregate {
  explicit aggregate(std::string_view id) : rule_id(id) {}
  std::string_view rule_id;
  severity level = severity::info;
  double confidence = 0.0;
  std::size_t begin = 0, end = 0, count = 0;
  std::string what;

  void add(severity s, double conf, std::size_t b, std::size_t e, std::string_view description) {
    if (count == 0) {
      begin = b;
      end = e;
      what = description;
    }
    if (s > level) {
      level = s;
      what = description;
    }
    confidence = std::max(confidence, conf);
    ++count;
  }
  void emit(std::vector<hidden_hit>& hits, std::string decoded = {}) const {
    if (count == 0) return;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%zu occurrence%s", count, count == 1 ? "" : "s");
    hits.push_back({rule_id, level, confidence, begin, end, std::move(decoded),
                    what + " (" + buffer + ")"});
  }
};

struct thresholds {
  std::size_t mid_line_spaces;
  std::size_t line_start_spaces;
  std::size_t blank_lines;
};

thresholds thresholds_for(text_kind kind) {
  switch (kind) {
    case text_kind::identifier: return {2, 2, 1};
    case text_kind::prose: return {24, 64, 10};
    case text_kind::result: return {160, 400, 60};
  }
  return {24, 64, 10};
}

// Properties of a non-ASCII code point that the scan asks for on every character, as bits.
constexpr std::uint8_t cp_alpha = 1, cp_latin = 2, cp_rtl = 4, cp_word = 8,
                       cp_ordinary = 16,  // no check applies: not a space, control, mark, tag, ...
    cp_known = 128;

std::uint8_t compute_properties(char32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  UErrorCode status = U_ZERO_ERROR;
  std::uint8_t bits = cp_known;
  if (u_isalpha(c)) bits |= cp_alpha;
  if (uscript_getScript(c, &status) == USCRIPT_LATIN && U_SUCCESS(status)) bits |= cp_latin;
  if (is_rtl(cp)) bits |= cp_rtl;
  const auto type = u_charType(c);
  if (u_isalnum(c) || type == U_NON_SPACING_MARK) bits |= cp_word;
  const bool has_check = is_space_like(cp) || cp == 0x2028 || cp == 0x2029 || is_tag(cp) ||
                         is_variation_selector(cp) || is_bidi_control(cp) || cp == 0x200E || cp == 0x200F ||
                         cp == 0x061C || cp == 0x200C || cp == 0x200D || cp == 0xFEFF || cp <= 0x9F ||
                         u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || type == U_FORMAT_CHAR ||
                         type == U_PRIVATE_USE_CHAR || u_hasBinaryProperty(c, UCHAR_NONCHARACTER_CODE_POINT);
  if (!has_check) bits |= cp_ordinary;
  return bits;
}

// ICU property lookups cost more than the rest of the scan together: answers for the first two
// planes are remembered process-wide (filled on first sight; racing fills store the same value).
std::uint8_t properties_of(char32_t cp) {
  constexpr char32_t cached = 0x20000;
  static std::atomic<std::uint8_t> table[cached];
  if (cp >= cached) return compute_properties(cp);
  auto bits = table[cp].load(std::memory_order_relaxed);
  if (!bits) {
    bits = compute_properties(cp);
    table[cp].store(bits, std::memory_order_relaxed);
  }
  return bits;
}

const std::array<bool, 3 * 64>& quiet_latin_letters() {
  static const auto table = [] {
    std::array<bool, 3 * 64> quiet{};
    for (char32_t cp = 0xC0; cp < 0x180; ++cp) {
      const auto props = properties_of(cp);
      if (!(props & cp_latin) || !(props & cp_word)) continue;
      std::string one;
      text::append_utf8(one, cp);
      const std::string skeleton = text::skeleton(one);
      quiet[cp - 0xC0] = std::any_of(skeleton.begin(), skeleton.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    }
    return quiet;
  }();
  return table;
}

class scanner {
 public:
  scanner(std::string_view raw, text_kind kind) : raw_(raw), kind_(kind), limits_(thresholds_for(kind)) {}

  hidden_scan run() {
    if (text::is_ascii(raw_))
      scan_ascii();
    else
      scan_unicode();
    finish();
    return std::move(out_);
  }

 private:
  // The byte after the eight at i, or 0 at the end of the text.
  unsigned char after_block(std::size_t i) const { return i + 8 < raw_.size() ? static_cast<unsigned char>(raw_[i + 8]) : 0; }

  // How many of the eight bytes w at i hold nothing to report: printable ASCII without two spaces
  // in a row (quiet_prefix), each space a run of one, shorter than every threshold. The common case
  // is tested first, cheaper: eight printable bytes, neither end a space.
  [[gnu::always_inline]] std::size_t quiet_ascii(std::size_t i, std::uint64_t w) const {
    if (printable_block(w) && raw_[i] != ' ' && raw_[i + 7] != ' ') return 8;
    return quiet_prefix(w, after_block(i));
  }

  // Byte-level checks shared by both paths; returns how many bytes were consumed (0: none).
  std::size_t ascii_event(std::size_t i) {
    const auto b = static_cast<unsigned char>(raw_[i]);
    if (b == 0x1b) {
      bool hiding = false;
      std::size_t len = parse_escape(raw_, i, hiding);
      escapes_.add(hiding ? severity::high : severity::medium, hiding ? 0.9 : 0.7, i, i + len,
                   hiding ? "terminal escape sequence that moves the cursor, erases, conceals or talks to the terminal"
                          : "terminal escape sequence (styling)");
      return len;
    }
    if (b == '\r') {
      if (i + 1 < raw_.size() && raw_[i + 1] == '\n') return 1;
      // A lone carriage return rewrites the current line in a terminal.
      controls_.add(kind_ == text_kind::result ? severity::low : severity::medium, 0.7, i, i + 1,
                    "carriage return without newline (overwrites the displayed line)");
      return 1;
    }
    if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7F) {
      controls_.add(kind_ == text_kind::result ? severity::low : severity::medium, 0.7, i, i + 1,
                    b == 0x08 ? "backspace control character" : "control character");
      return 1;
    }
    return 0;
  }

  void note_space_run(std::size_t begin, std::size_t end, std::size_t width, bool line_start) {
    if (kind_ == text_kind::identifier) return;  // identifiers get their own check
    std::size_t limit = line_start ? limits_.line_start_spaces : limits_.mid_line_spaces;
    if (width < limit || end >= raw_.size()) return;
    // Only padding followed by more text pushes something out of view.
    if (raw_[end] == '\n' || raw_[end] == '\r') return;
    whitespace_.add(severity::medium, 0.75, begin, end, "long run of spaces followed by more text");
  }

  void note_blank_lines(std::size_t begin, std::size_t end, std::size_t lines) {
    if (kind_ == text_kind::identifier || lines < limits_.blank_lines || end >= raw_.size()) return;
    whitespace_.add(severity::medium, 0.7, begin, end, "many blank lines followed by more text");
  }

  void scan_ascii() {
    const auto n = raw_.size();
    std::size_t i = 0;
    bool line_start = true;
    while (i < n) {
      // Hot path: sixteen printable bytes with no space next to another (the byte after them
      // included, so a run never starts unseen across the step).
      if (i + 17 <= n) {
        const base::block16 block = base::load16(raw_.data() + i), next = base::load16(raw_.data() + i + 1);
        const base::block16 paired = base::equal16(block, ' ') & base::equal16(next, ' ');
        if (base::mask16(base::and_not(base::between16(block, 0x20, 0x7E), paired)) == 0xFFFF) {
          line_start = false;
          i += 16;
          continue;
        }
      }
      // Then up to eight bytes at a time.
      if (i + 8 <= n)
        if (const std::size_t quiet = quiet_ascii(i, load8(raw_.data() + i)); quiet > 0) {
          line_start = false;
          i += quiet;
          continue;
        }
      const auto b = static_cast<unsigned char>(raw_[i]);
      if (b >= 0x21 && b < 0x7F) {
        line_start = false;
        ++i;
        continue;
      }
      if (b == ' ' || b == '\t') {
        std::size_t j = i;
        while (j < n && (raw_[j] == ' ' || raw_[j] == '\t')) ++j;
        note_space_run(i, j, j - i, line_start);
        i = j;
        continue;
      }
      if (b == '\n') {
        std::size_t j = i, lines = 0;
        while (j < n && (raw_[j] == '\n' || raw_[j] == ' ' || raw_[j] == '\t' || raw_[j] == '\r')) {
          if (raw_[j] == '\n') ++lines;
          ++j;
        }
        note_blank_lines(i, j, lines);
        // Re-scan the tail of the run for indentation; cheap since it is short or already reported.
        std::size_t k = j;
        while (k > i && (raw_[k - 1] == ' ' || raw_[k - 1] == '\t')) --k;
        if (k < j) note_space_run(k, j, j - k, true);
        for (std::size_t c = i; c < k; ++c)
          if (raw_[c] == '\r' && !(c + 1 < n && raw_[c + 1] == '\n')) ascii_event(c);
        line_start = true;
        i = j;
        continue;
      }
      std::size_t used = ascii_event(i);
      i += used ? used : 1;
    }
  }

  // A code point and the byte after it. Decoding is deterministic from any code point boundary,
  // so the passes below decode as they go instead of keeping an array of code points (for a long
  // result that array is a large, page-faulting allocation on every scan).
  struct decoded {
    char32_t cp;
    std::size_t next;
  };
  decoded at(std::size_t i) const noexcept {
    const char32_t cp = text::decode_utf8(raw_, i);
    return {cp, i};
  }

  // The run of code points from `offset` for which in_run(cp) holds; each(cp) sees every one.
  struct cp_run {
    std::size_t end, count;
    char32_t last;  // the run's last code point (invalid_code_point for an empty run)
  };
  template <typename InRun, typename Each>
  cp_run run_from(std::size_t offset, InRun in_run, Each each) const {
    cp_run r{offset, 0, invalid_code_point};
    for (decoded d; r.end < raw_.size() && in_run((d = at(r.end)).cp); r.end = d.next, ++r.count) {
      each(d.cp);
      r.last = d.cp;
    }
    return r;
  }
  template <typename InRun>
  cp_run run_from(std::size_t offset, InRun in_run) const {
    return run_from(offset, in_run, [](char32_t) {});
  }

  // Script statistics of the whole text: asked for only by a bidi control, a directional mark or
  // a word without Latin letters, so most texts never count them. (Counted in locals: members would
  // be stored on every byte, as the text's chars may alias them.)
  void count_scripts() {
    if (scripts_counted_) return;
    scripts_counted_ = true;
    const std::size_t n = raw_.size();
    std::size_t ascii_letters = 0, other_letters = 0, other_latin = 0;
    bool rtl = false;
    for (std::size_t i = 0; i < n;) {
      if (i + 8 <= n) {
        const std::uint64_t w = load8(raw_.data() + i);
        if (!(w & high_bits)) {
          ascii_letters += text::ascii_letters_in(w);
          i += 8;
          continue;
        }
      }
      const auto b = static_cast<unsigned char>(raw_[i]);
      if (b < 0x80) {
        // ASCII: never right-to-left; letters are Latin.
        ascii_letters += (b | 0x20) >= 'a' && (b | 0x20) <= 'z';
        ++i;
        continue;
      }
      const auto [cp, next] = at(i);
      i = next;
      if (cp == invalid_code_point) continue;
      const auto props = properties_of(cp);
      rtl = rtl || (props & cp_rtl);
      if (props & cp_alpha) {
        ++other_letters;
        other_latin += (props & cp_latin) != 0;
      }
    }
    letters_ = ascii_letters + other_letters;
    latin_letters_ = ascii_letters + other_latin;
    has_rtl_ = rtl;
  }
  bool has_rtl() {
    count_scripts();
    return has_rtl_;
  }

  void scan_unicode() {
    const std::size_t n = raw_.size();
    // Pass 2: every check, in one walk. `prev` is the code point before the current one.
    bool line_start = true;
    char32_t prev = invalid_code_point;
    std::size_t blank_run_end = 0;  // newlines before this byte belong to a run already judged
    for (std::size_t i = 0; i < n;) {
      // Sixteen, else up to eight, bytes at a time: accented Latin prose (latin_block16,
      // latin_block) or quiet ASCII (quiet_ascii). A space run never comes in from before, as
      // whole runs are consumed below and no step stops after a space whose run may go on.
      if (i + 16 <= n && latin_block16(raw_.data() + i, i + 16 < n ? static_cast<unsigned char>(raw_[i + 16]) : 0)) {
        line_start = false;
        const auto last = static_cast<unsigned char>(raw_[i + 15]);
        prev = last < 0x80 ? last : (char32_t(static_cast<unsigned char>(raw_[i + 14]) & 0x1F) << 6) | (last & 0x3F);
        i += 16;
        continue;
      }
      if (i + 8 <= n) {
        const std::uint64_t w = load8(raw_.data() + i);
        if ((w & high_bits) && latin_block(w, after_block(i))) {
          line_start = false;
          const auto last = static_cast<unsigned char>(raw_[i + 7]);
          prev = last < 0x80 ? last : (char32_t(static_cast<unsigned char>(raw_[i + 6]) & 0x1F) << 6) | (last & 0x3F);
          i += 8;
          continue;
        }
        if (const std::size_t quiet = quiet_ascii(i, w); quiet > 0) {
          line_start = false;
          prev = static_cast<unsigned char>(raw_[i + quiet - 1]);
          i += quiet;
          continue;
        }
      }
      const auto b = static_cast<unsigned char>(raw_[i]);
      if (b > 0x20 && b < 0x7F) {
        line_start = false;
        prev = b;
        ++i;
        continue;
      }
      const std::size_t offset = i;
      const auto [cp, end] = at(i);
      if (cp == invalid_code_point) {
        invalid_.add(severity::medium, 0.9, offset, end, "byte sequence that is not valid UTF-8");
        prev = cp;
        i = end;
        continue;
      }
      if (cp >= 0x80 && (properties_of(cp) & cp_ordinary)) {
        line_start = false;
        prev = cp;
        i = end;
        continue;
      }
      if (cp < 0x80) {
        if (cp == '\n') line_start = true;
        if (cp != ' ' && cp != '\t' && cp != '\n') {
          // Skip the code points an escape sequence covers.
          const std::size_t stop = offset + std::max<std::size_t>(ascii_event(offset), 1);
          while (i < stop) {
            const decoded d = at(i);
            prev = d.cp;
            i = d.next;
          }
          continue;
        }
      }
      if (is_space_like(cp)) {
        std::size_t odd = 0;
        const cp_run spaces = run_from(offset, is_space_like, [&](char32_t c) { odd += c != ' ' && c != '\t' && c != 0xA0 && c != 0x3000; });
        note_space_run(offset, spaces.end, spaces.count, line_start);
        if (kind_ == text_kind::identifier && cp != ' ')
          whitespace_.add(severity::medium, 0.7, offset, spaces.end, "unusual space character in an identifier");
        if (odd >= 3 && kind_ != text_kind::identifier)
          whitespace_.add(severity::low, 0.6, offset, spaces.end, "run of unusual Unicode space characters");
        prev = spaces.last;
        i = spaces.end;
        continue;
      }
      if (cp == '\n') {
        // A run of blank lines is judged once, at its first newline (judging it again at each of
        // its newlines was quadratic in the run's length).
        if (offset >= blank_run_end) {
          std::size_t lines = 0;
          const cp_run blank = run_from(
              offset, [](char32_t c) { return c == '\n' || c == '\r' || is_space_like(c); },
              [&](char32_t c) { lines += c == '\n'; });
          note_blank_lines(offset, blank.end, lines);
          blank_run_end = blank.end;
        }
        prev = cp;
        i = end;
        continue;
      }
      if (cp == 0x2028 || cp == 0x2029) {
        whitespace_.add(severity::low, 0.6, offset, end, "Unicode line or paragraph separator");
        prev = cp;
        i = end;
        continue;
      }
      // Tag characters: hidden ASCII, unless they form an emoji flag sequence.
      if (is_tag(cp)) {
        std::string hidden;
        const cp_run tags = run_from(offset, is_tag, [&](char32_t c) {
          if (const char32_t t = c - 0xE0000; t >= 0x20 && t < 0x7F) hidden.push_back(static_cast<char>(t));
        });
        const bool flag_sequence = prev == 0x1F3F4 && tags.last == 0xE007F && tags.count >= 2 && tags.count <= 8;
        if (!flag_sequence) {
          tag_payload_ += hidden;
          tags_.add(severity::high, 0.95, offset, tags.end, "invisible tag characters spelling hidden text");
        }
        prev = tags.last;
        i = tags.end;
        continue;
      }
      if (is_variation_selector(cp)) {
        std::string bytes;
        const cp_run selectors = run_from(offset, is_variation_selector, [&](char32_t c) {
          bytes.push_back(static_cast<char>(c <= 0xFE0F ? c - 0xFE00 : c - 0xE0100 + 16));
        });
        const bool has_base = prev != invalid_code_point && !is_space_like(prev) && prev >= 0x20;
        if (selectors.count >= 2 || !has_base) {
          vs_payload_ += bytes;
          vs_.add(selectors.count >= 4 ? severity::high : severity::medium, selectors.count >= 4 ? 0.9 : 0.6, offset,
                  selectors.end, "variation selectors that do not style a character (a hidden byte payload)");
        }
        prev = selectors.last;
        i = selectors.end;
        continue;
      }
      if (judge_single(cp, prev, offset, end)) {
        prev = cp;
        i = end;
        continue;
      }
      const auto c = static_cast<UChar32>(cp);
      const auto type = u_charType(c);
      if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || type == U_FORMAT_CHAR) {
        // Runs of invisible format characters are counted whole: long runs are how bits are smuggled.
        cp_run invisible = run_from(offset, is_invisible_format);
        if (invisible.count == 0) invisible = {end, 1, cp};
        const std::size_t length = invisible.count;
        const severity s = length >= 8                                       ? severity::high
                           : (length >= 3 || kind_ == text_kind::identifier) ? severity::medium
                                                                             : severity::low;
        invisible_.add(s, length >= 8 ? 0.85 : 0.7, offset, invisible.end,
                       length >= 8 ? "long run of invisible characters (possible binary payload)"
                                   : "zero-width or other invisible format character");
        prev = invisible.last;
        i = invisible.end;
        continue;
      }
      if (type == U_PRIVATE_USE_CHAR || u_hasBinaryProperty(c, UCHAR_NONCHARACTER_CODE_POINT))
        private_.add(kind_ == text_kind::identifier ? severity::medium : severity::low, 0.6, offset, end,
                     type == U_PRIVATE_USE_CHAR ? "private-use character" : "noncharacter code point");
      else
        line_start = false;
      prev = cp;
      i = end;
    }
    // Embeddings and isolates are legitimate inside right-to-left text when balanced.
    if (!pending_bidi_.empty()) {
      int depth = 0;
      bool balanced = true;
      for (auto& p : pending_bidi_) {
        const bool opens = p.cp != 0x202C && p.cp != 0x2069;
        depth += opens ? 1 : -1;
        if (depth < 0) balanced = false;
      }
      balanced = balanced && depth == 0;
      if (!has_rtl() || !balanced || kind_ == text_kind::identifier)
        for (auto& p : pending_bidi_)
          bidi_.add(severity::medium, 0.75, p.offset, p.end,
                    has_rtl_ ? "unbalanced bidi embedding or isolate" : "bidi embedding or isolate in left-to-right text");
    }
    check_words();
  }

  // Single code points with a check of their own: bidi controls, directional marks, zero-width
  // joiners, a byte order mark at the start, C1 controls. False for anything else.
  bool judge_single(char32_t cp, char32_t prev, std::size_t offset, std::size_t end) {
    if (is_bidi_control(cp)) {
      if (cp == 0x202D || cp == 0x202E)
        bidi_.add(severity::high, 0.9, offset, end, "bidi override character (reorders displayed text)");
      else
        pending_bidi_.push_back({cp, offset, end});
      return true;
    }
    if (cp == 0x200E || cp == 0x200F || cp == 0x061C) {
      if (!has_rtl() || kind_ == text_kind::identifier)
        bidi_.add(kind_ == text_kind::identifier ? severity::medium : severity::low, 0.6, offset, end,
                  "directional mark in text without right-to-left script");
      return true;
    }
    if (cp == 0x200C || cp == 0x200D) {
      const char32_t next = end < raw_.size() ? at(end).cp : invalid_code_point;
      const bool emoji_join = cp == 0x200D && prev != invalid_code_point && next != invalid_code_point &&
                              is_emoji_like(prev) && is_emoji_like(next);
      const bool script_join = is_joining_script_char(prev) || is_joining_script_char(next);
      if (!emoji_join && !script_join)
        invisible_.add(kind_ == text_kind::identifier ? severity::high : severity::low, 0.7, offset, end,
                       "zero-width joiner or non-joiner outside emoji or joining scripts");
      else
        ++legit_invisible_;
      return true;
    }
    if (cp == 0xFEFF && offset == 0) return true;  // byte order mark
    if (cp >= 0x80 && cp <= 0x9F) {
      if (cp == 0x9B)
        escapes_.add(severity::high, 0.85, offset, end, "C1 control sequence introducer (terminal escape)");
      else
        controls_.add(severity::medium, 0.7, offset, end, "C1 control character");
      return true;
    }
    return false;
  }

  // Look-alike letters inside words (prose) and look-alike identifiers.
  void check_words() {
    const std::size_t n = raw_.size();
    if (kind_ == text_kind::identifier) {
      if (text::fails_restriction(raw_)) {
        confusable_.add(severity::high, 0.85, 0, n, "identifier mixes scripts (UTS #39 restriction level)");
      } else {
        std::string skel = text::skeleton(raw_);
        if (text::is_ascii(skel) && skel != raw_) {
          bool letters_only_latinish = true;
          for (std::size_t i = 0; i < n;) {
            const decoded d = at(i);
            if (d.cp != invalid_code_point && d.cp >= 0x80 && !u_isalnum(static_cast<UChar32>(d.cp)))
              letters_only_latinish = false;
            i = d.next;
          }
          if (letters_only_latinish)
            confusable_.add(severity::high, 0.85, 0, n, "identifier looks like the ASCII name '" + skel + "'");
        }
      }
      return;
    }
    auto mostly_latin = [this] {
      count_scripts();
      return letters_ > 0 && latin_letters_ * 10 >= letters_ * 6;
    };
    auto ascii_word_byte = [](unsigned char c) {
      return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
    };
    auto is_word_cp = [&](char32_t c) {
      if (c < 0x80) return ascii_word_byte(static_cast<unsigned char>(c));
      return c != invalid_code_point && (properties_of(c) & cp_word);
    };
    // Only words with a non-ASCII character can be reported: jump from one non-ASCII byte to the
    // next and take the word around it (the bytes skipped before it are ASCII, so its start is
    // found by walking back over ASCII word bytes, never past the previous word's end).
    // Quiet Latin letters (accented prose is mostly these) are stepped over: a word is taken only
    // from a character that could make it reportable, back to its start over ASCII word bytes and
    // quiet letters (never past the end of the word taken before, `floor`).
    const auto& quiet = quiet_latin_letters();
    auto quiet_at = [this, &quiet](std::size_t k) {
      const unsigned lead = static_cast<unsigned char>(raw_[k]) - 0xC3u, trail = static_cast<unsigned char>(raw_[k + 1]);
      return lead < 3 && (trail & 0xC0) == 0x80 && quiet[lead * 64 + (trail & 0x3F)];
    };
    for (std::size_t i = 0, floor = 0; i < n;) {
      std::size_t q = text::next_non_ascii(raw_, i);
      if (q >= n) break;
      if (q + 1 < n && quiet_at(q)) {
        i = q + 2;
        continue;
      }
      const decoded first = at(q);
      if (!is_word_cp(first.cp)) {
        i = first.next;
        continue;
      }
      while (q > floor) {
        if (ascii_word_byte(static_cast<unsigned char>(raw_[q - 1]))) --q;
        else if (q - floor >= 2 && quiet_at(q - 2)) q -= 2;
        else break;
      }
      i = q;
      std::size_t j = i, count = 0;
      bool non_ascii = false, latin = false, all_latin = true;
      for (decoded d; j < n && is_word_cp((d = at(j)).cp); j = d.next) {
        if (d.cp >= 0x80) {
          non_ascii = true;
          all_latin = all_latin && (properties_of(d.cp) & cp_latin);
        } else if ((d.cp | 0x20) >= 'a' && (d.cp | 0x20) <= 'z') {
          latin = true;
        }
        ++count;
      }
      if (non_ascii && count >= 3) {
        const std::string_view word = raw_.substr(i, j - i);
        // A word of Latin letters (accented or not) and ASCII digits is one script: it passes the
        // restriction check without asking ICU ("zwölf", "réagi" are most such words).
        if (latin && !all_latin && text::fails_restriction(word)) {
          words_.add(severity::medium, 0.75, i, j, "word mixes Latin with look-alike letters of another script");
        } else if (!latin && mostly_latin()) {
          std::string skel = text::skeleton(word);
          bool ascii_letters = !skel.empty() && std::all_of(skel.begin(), skel.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
          });
          if (ascii_letters)
            words_.add(severity::medium, 0.7, i, j, "non-Latin word that spells the Latin word '" + skel + "'");
        }
      }
      i = floor = j;
    }
  }

  void finish() {
    tags_.emit(out_.hits, tag_payload_);
    vs_.emit(out_.hits, vs_payload_.empty() ? std::string() : printable_or_hex(vs_payload_));
    bidi_.emit(out_.hits);
    invisible_.emit(out_.hits);
    escapes_.emit(out_.hits);
    controls_.emit(out_.hits);
    private_.emit(out_.hits);
    whitespace_.emit(out_.hits);
    confusable_.emit(out_.hits);
    words_.emit(out_.hits);
    invalid_.emit(out_.hits);
    out_.revealed = tag_payload_;
    if (!vs_payload_.empty()) {
      std::string shown = printable_or_hex(vs_payload_);
      if (shown.rfind("hex:", 0) != 0) {
        if (!out_.revealed.empty()) out_.revealed += '\n';
        out_.revealed += shown;
      }
    }
  }

  std::string_view raw_;
  text_kind kind_;
  thresholds limits_;
  hidden_scan out_;
  bool scripts_counted_ = false, has_rtl_ = false;
  std::size_t letters_ = 0, latin_letters_ = 0, legit_invisible_ = 0;
  std::string tag_payload_, vs_payload_;
  std::vector<bidi_control> pending_bidi_;
  aggregate tags_{"unicode.tag-characters"}, vs_{"unicode.variation-selector-payload"},
      bidi_{"unicode.bidi-control"}, invisible_{"unicode.invisible-format"},
      escapes_{"unicode.terminal-escape"}, controls_{"unicode.control-character"},
      private_{"unicode.private-use"}, whitespace_{"unicode.deceptive-whitespace"},
      confusable_{"unicode.confusable-identifier"}, words_{"unicode.mixed-script-word"},
      invalid_{"unicode.invalid-utf8"};
};

// Printable ASCII in which no space follows another: scan_ascii finds nothing in it (no control,
// escape or newline; each space is a run of one, below every threshold). A short text is proved
// so before the scanner and its eleven aggregates are built: most short results and arguments are.
bool quiet_short_text(std::string_view raw) {
  constexpr std::size_t short_text = 1024;
  if (raw.size() > short_text) return false;
  std::size_t i = 0;
  for (; i + 8 <= raw.size(); i += 8)
    if (quiet_prefix(load8(raw.data() + i), i + 8 < raw.size() ? static_cast<unsigned char>(raw[i + 8]) : 0) < 8)
      return false;
  for (bool after_space = i > 0 && raw[i - 1] == ' '; i < raw.size(); ++i) {
    const auto b = static_cast<unsigned char>(raw[i]);
    if (b < 0x20 || b > 0x7E || (b == ' ' && after_space)) return false;
    after_space = b == ' ';
  }
  return true;
}

}  // namespace

hidden_scan scan_hidden(std::string_view raw, text_kind kind) {
  if (quiet_short_text(raw)) return {};
  scanner s(raw, kind);
  return s.run();
}

}  // namespace warden::analysis
