#include "analysis/text.hpp"

#include "base/byte_scan.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <memory>
#include <unordered_map>
#include <utility>

namespace warden::analysis::text {

namespace {

struct icu_tools {
  const icu::Normalizer2* nfkc_cf = nullptr;
  USpoofChecker* skeleton_checker = nullptr;     // only used for skeletons
  USpoofChecker* restriction_checker = nullptr;  // highly restrictive + invisible checks

  icu_tools() {
    UErrorCode status = U_ZERO_ERROR;
    nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
    if (U_FAILURE(status)) nfkc_cf = nullptr;
    status = U_ZERO_ERROR;
    skeleton_checker = uspoof_open(&status);
    if (U_FAILURE(status)) skeleton_checker = nullptr;
    status = U_ZERO_ERROR;
    restriction_checker = uspoof_open(&status);
    if (U_SUCCESS(status)) {
      uspoof_setChecks(restriction_checker, USPOOF_RESTRICTION_LEVEL | USPOOF_INVISIBLE | USPOOF_MIXED_NUMBERS,
                       &status);
      uspoof_setRestrictionLevel(restriction_checker, USPOOF_HIGHLY_RESTRICTIVE);
    }
    if (U_FAILURE(status)) restriction_checker = nullptr;
  }
  // Process-lifetime singletons: never closed, so no destruction-order issues at exit.
};

const icu_tools& icu() {
  static const icu_tools tools;
  return tools;
}

std::string icu_skeleton(std::string_view utf8) {
  const auto* checker = icu().skeleton_checker;
  if (!checker || utf8.size() > 1 << 20) return std::string(utf8);
  UErrorCode status = U_ZERO_ERROR;
  std::string out(utf8.size() * 3 + 16, '\0');
  auto len = uspoof_getSkeletonUTF8(checker, 0, utf8.data(), static_cast<int32_t>(utf8.size()), out.data(),
                                    static_cast<int32_t>(out.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    out.assign(static_cast<std::size_t>(len) + 1, '\0');
    len = uspoof_getSkeletonUTF8(checker, 0, utf8.data(), static_cast<int32_t>(utf8.size()), out.data(),
                                 static_cast<int32_t>(out.size()), &status);
  }
  if (U_FAILURE(status) || len < 0) return std::string(utf8);
  out.resize(static_cast<std::size_t>(len));
  return out;
}

struct folded_cp {
  std::string normal;   // NFKC + case fold (empty for default-ignorables)
  std::string ascii;    // confusable skeleton when it is plain ASCII letters/digits, else empty
  bool letter = false;  // alphabetic (decides word membership)
  bool folds = false;   // ascii is set and differs from normal: folding a word changes this one
};

// NFKC + case fold of one non-ASCII code point, and its ASCII look-alike if it has one.
folded_cp compute_fold(char32_t cp) {
  folded_cp out;
  const auto* nfkc = icu().nfkc_cf;
  icu::UnicodeString source(static_cast<UChar32>(cp));
  icu::UnicodeString normal;
  UErrorCode status = U_ZERO_ERROR;
  if (nfkc) normal = nfkc->normalize(source, status);
  if (!nfkc || U_FAILURE(status)) normal = source;
  bool all_ascii_skeleton = true;
  for (int32_t i = 0; i < normal.length();) {
    UChar32 c = normal.char32At(i);
    i += U16_LENGTH(c);
    append_utf8(out.normal, static_cast<char32_t>(c));
    if (c < 0x80) {
      out.ascii.push_back(static_cast<char>(c));
      out.letter = out.letter || std::isalpha(c);
      continue;
    }
    out.letter = out.letter || u_isalpha(c);
    std::string one;
    append_utf8(one, static_cast<char32_t>(c));
    std::string skel = icu_skeleton(one);
    std::string ascii;
    for (std::size_t k = 0; k < skel.size();) {
      char32_t sc = decode_utf8(skel, k);
      if (sc == invalid_code_point) {
        all_ascii_skeleton = false;
        break;
      }
      if (u_charType(static_cast<UChar32>(sc)) == U_NON_SPACING_MARK) continue;  // accents
      if (sc >= 0x80) {
        all_ascii_skeleton = false;
        break;
      }
      ascii.push_back(static_cast<char>(sc >= 'A' && sc <= 'Z' ? sc + 32 : sc));
    }
    // Only letters and digits are folded: punctuation skeletons would invent syntax.
    if (!u_isalnum(c) || ascii.empty()) all_ascii_skeleton = false;
    out.ascii += ascii;
  }
  if (!all_ascii_skeleton) out.ascii.clear();
  out.folds = !out.ascii.empty() && out.ascii != out.normal;
  return out;
}

// Folds remembered: the Basic Multilingual Plane in a process-wide table (filled on first sight,
// never freed: at most 65,536 small entries), other planes per thread.
constexpr char32_t tabled_folds = 0x10000;
std::atomic<const folded_cp*> fold_table[tabled_folds];

const folded_cp& fold_code_point_slow(char32_t cp) {
  if (cp < tabled_folds) {
    if (const auto* known = fold_table[cp].load(std::memory_order_acquire)) return *known;
    auto fresh = std::make_unique<const folded_cp>(compute_fold(cp));
    const folded_cp* expected = nullptr;
    if (fold_table[cp].compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
    return *expected;  // another thread filled it first
  }
  thread_local std::unordered_map<char32_t, folded_cp> cache;
  if (auto it = cache.find(cp); it != cache.end()) return it->second;
  if (cache.size() > 65536) cache.clear();  // bounded memory on adversarial inputs
  return cache.emplace(cp, compute_fold(cp)).first->second;
}

// The fold of a code point; the table lookup inline (normalisation asks for every non-ASCII one).
inline const folded_cp& fold_code_point(char32_t cp) {
  if (cp < tabled_folds)
    if (const auto* known = fold_table[cp].load(std::memory_order_acquire)) return *known;
  return fold_code_point_slow(cp);
}

bool is_invisible_or_odd(char32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return true;
  if (cp < 0x80) return false;
  if (cp <= 0x9F) return true;  // C1
  auto c = static_cast<UChar32>(cp);
  if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) return true;
  auto type = u_charType(c);
  if (type == U_FORMAT_CHAR || type == U_PRIVATE_USE_CHAR || type == U_UNASSIGNED || type == U_LINE_SEPARATOR ||
      type == U_PARAGRAPH_SEPARATOR || type == U_SPACE_SEPARATOR || type == U_CONTROL_CHAR || type == U_SURROGATE)
    return true;
  if (u_hasBinaryProperty(c, UCHAR_VARIATION_SELECTOR)) return true;
  return false;
}

}  // namespace

std::size_t normalized::original_offset(std::size_t i) const noexcept {
  if (identity_) return std::min(i, raw_size_);
  if (i >= owned_.size()) return raw_size_;
  // The last segment starting at or before i (the first starts at 0).
  const auto after = std::upper_bound(segments_.begin(), segments_.end(), i,
                                      [](std::size_t v, const segment& s) { return v < s.view; });
  const segment& s = *std::prev(after);
  return s.linear ? s.raw + (i - s.view) : s.raw;
}

namespace {

// One unit of normalised text: a source code point that is neither invalid UTF-8 (reported by the
// hidden-text scan) nor default-ignorable; both are skipped, so a word stays whole across them.
struct unit {
  const folded_cp* fold = nullptr;  // null for ASCII
  char ascii = 0;                   // lower-cased, for ASCII
  std::size_t next = 0;             // source byte after it
  bool skip = false;                // invalid or default-ignorable: contributes nothing
  bool word() const {
    if (fold) return fold->letter || !fold->ascii.empty();
    const auto c = static_cast<unsigned char>(ascii);
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
};

[[gnu::always_inline]] inline unit unit_at(std::string_view raw, std::size_t i) {
  const auto b = static_cast<unsigned char>(raw[i]);
  if (b < 0x80) return {nullptr, static_cast<char>(b >= 'A' && b <= 'Z' ? b + 32 : b), i + 1};
  const char32_t cp = decode_utf8(raw, i);
  if (cp == invalid_code_point) return {nullptr, 0, i, true};
  const folded_cp& f = fold_code_point(cp);
  if (f.normal.empty()) return {nullptr, 0, i, true};
  return {&f, 0, i};
}

}  // namespace

// Appends normalised bytes and keeps the map back to the original: a segment only where the
// plain continuation breaks, so an ASCII stretch costs a copy and nothing per byte.
class normal_writer {
 public:
  normal_writer(normalized& out, std::string_view raw)
      : text_(out.owned_), segments_(out.segments_), raw_end_(raw.data() + raw.size()) {
    text_.resize(raw.size() + 64);
    target_ = text_.data();
    room_ = text_.size();
    segments_.reserve(raw.size() / 8 + 16);
  }
  // An ASCII stretch, lower-cased; its byte k comes from raw offset from + k.
  [[gnu::always_inline]] void ascii(const char* source, std::size_t length, std::size_t from) {
    room(length + 16);
    linear(from, length);
    char* const target = target_ + w_;
    w_ += length;
    std::size_t k = 0;
    // Sixteen bytes a step wherever they can be read, the stretch's tail too: as below, the bytes
    // written past it are overwritten later or cut, and non-ASCII bytes stay as they are.
    for (; k < length && source + k + 16 <= raw_end_; k += 16) {
      const base::block16 block = base::load16(source + k);
      base::store16(target + k, block | (base::between16(block, 'A', 'Z') & base::splat16(0x20)));
    }
    if (k >= length) return;
    for (; k + 8 <= length; k += 8) {
      const std::uint64_t lowered = ascii_lower(load8(source + k));
      __builtin_memcpy(target + k, &lowered, 8);
    }
    // The tail as one more block when eight bytes can be read: the bytes past it are overwritten
    // later or cut by finish(), and a carry in ascii_lower only runs towards the higher bytes.
    if (std::endian::native == std::endian::little && k < length && source + k + 8 <= raw_end_) {
      const std::uint64_t lowered = ascii_lower(load8(source + k));
      __builtin_memcpy(target + k, &lowered, 8);
      return;
    }
    for (; k < length; ++k) {
      const auto c = static_cast<unsigned char>(source[k]);
      target[k] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
  }
  // The normalised bytes of one character that starts at raw offset from.
  [[gnu::always_inline]] void character(std::string_view bytes, std::size_t from) {
    room(bytes.size());
    if (bytes.size() == 1) {
      linear(from, 1);  // its next byte, a continuation byte, never continues the segment
    } else {
      segments_.push_back({static_cast<std::uint32_t>(w_), static_cast<std::uint32_t>(from), false});
      linear_next_ = no_linear;
    }
    char* target = target_ + w_;         // a local pointer: stores through it cannot move the members
    for (char c : bytes) *target++ = c;  // a few bytes: a loop beats memcpy's call
    w_ += bytes.size();
  }
  void finish() { text_.resize(w_); }
  // Where the text stands, to go back to it (a word written the wrong way).
  struct position {
    std::size_t written, segments, linear_next;
  };
  position mark() const { return {w_, segments_.size(), linear_next_}; }
  void rewind(position to) {
    w_ = to.written;
    segments_.resize(to.segments);
    linear_next_ = to.linear_next;
  }

 private:
  static constexpr std::size_t no_linear = ~std::size_t{0};
  [[gnu::always_inline]] void room(std::size_t more) {
    if (w_ + more > room_) [[unlikely]]
      grow(more);
  }
  [[gnu::noinline]] void grow(std::size_t more) {
    text_.resize(std::max(text_.size() * 2, w_ + more));
    target_ = text_.data();
    room_ = text_.size();
  }
  // `length` bytes from raw offset `from` written at w_: the last segment goes on when it is
  // linear and ends just before `from`, else a linear segment starts.
  [[gnu::always_inline]] void linear(std::size_t from, std::size_t length) {
    if (from != linear_next_) segments_.push_back({static_cast<std::uint32_t>(w_), static_cast<std::uint32_t>(from), true});
    linear_next_ = from + length;
  }
  std::string& text_;
  std::vector<normalized::segment>& segments_;
  const char* raw_end_;
  char* target_ = nullptr;  // text_.data(), and its size, kept apart from the string
  std::size_t room_ = 0;
  std::size_t w_ = 0;
  std::size_t linear_next_ = no_linear;  // the raw offset that continues the last segment
};

namespace {

// Whether at least 60% of the text's letters are Latin (or it has none).
bool mostly_latin_letters(std::string_view raw) {
  const std::size_t n = raw.size();
  // First a bound without decoding: ASCII letters are Latin, and there are no more other letters
  // than non-ASCII characters (lead bytes). Ordinary accented prose is settled by it.
  {
    std::size_t ascii_letters = 0, leads = 0, i = 0;
    // Sixteen bytes a step, counted per byte lane (a lane's count is subtracted -1s) and summed
    // before a lane can overflow. Most chunks of accented prose ask this once ("à").
    while (i + 16 <= n) {
      base::block16 letter_counts = base::zero16(), lead_counts = base::zero16();
      for (int steps = 0; steps < 255 && i + 16 <= n; ++steps, i += 16) {
        const base::block16 b = base::load16(raw.data() + i);
        letter_counts = base::sub16(letter_counts, base::ascii_letter16(b));
        lead_counts = base::sub16(lead_counts, base::between16(b, 0xC0, 0xFF));
      }
      ascii_letters += base::sum16(letter_counts);
      leads += base::sum16(lead_counts);
    }
    for (; i + 8 <= n; i += 8) {
      const std::uint64_t w = load8(raw.data() + i), high = w & high_bits;
      const std::uint64_t non_ascii = (high >> 7) * 0xFF;                         // 0xFF in each non-ASCII byte
      ascii_letters += ascii_letters_in((w & ~non_ascii) | (0x20 * every_byte));  // those become spaces
      leads += (((high & (w << 1)) >> 7) * every_byte) >> 56;                     // 11xxxxxx
    }
    for (; i < n; ++i) {
      const auto b = static_cast<unsigned char>(raw[i]);
      ascii_letters += b < 0x80 && (b | 0x20) >= 'a' && (b | 0x20) <= 'z';
      leads += b >= 0xC0;
    }
    if (ascii_letters * 10 >= (ascii_letters + leads) * 6) return true;
  }
  std::size_t latin = 0, letters = 0;
  for (std::size_t i = 0; i < n;) {
    if (i + 8 <= n) {
      if (const std::uint64_t w = load8(raw.data() + i); !(w & high_bits)) {
        const unsigned found = ascii_letters_in(w);
        latin += found;
        letters += found;
        i += 8;
        continue;
      }
    }
    const auto b = static_cast<unsigned char>(raw[i]);
    if (b < 0x80) {
      if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') {
        ++latin;
        ++letters;
      }
      ++i;
      continue;
    }
    const unit u = unit_at(raw, i);
    i = u.next;
    if (u.fold && u.fold->letter) {
      ++letters;
      // Full-width and other compatibility forms of Latin letters are Latin.
      if (static_cast<unsigned char>(u.fold->normal[0]) < 0x80) ++latin;
    }
  }
  return letters == 0 || latin * 10 >= letters * 6;
}

// Each byte's part in a word as normalisation reads one: a digit, a letter (ASCII), or neither
// (every other byte, non-ASCII ones included).
constexpr std::uint8_t word_digit = 1, word_letter = 2;
constexpr auto ascii_word_class = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = '0'; c <= '9'; ++c) classes[c] = word_digit;
  for (int c = 'a'; c <= 'z'; ++c) classes[c] = classes[c - 32] = word_letter;
  return classes;
}();

// The end of the run of ASCII letters and digits that starts at `from`, and whether it holds a
// letter (words in accented prose go on in ASCII after each accent).
struct ascii_word_run {
  std::size_t end;
  bool letter;
};
[[gnu::always_inline]] inline ascii_word_run ascii_word_from(std::string_view raw, std::size_t from) {
  std::size_t k = from;
  bool letter = false;
  for (; k + 16 <= raw.size(); k += 16) {
    const base::block16 block = base::load16(raw.data() + k);
    const unsigned letters = base::mask16(base::ascii_letter16(block));
    if (const unsigned stop = ~base::mask16(base::ascii_word16(block)) & 0xFFFFu) {
      const int length = std::countr_zero(stop);
      return {k + static_cast<std::size_t>(length), letter || (letters & ((1u << length) - 1))};
    }
    letter = letter || letters;
  }
  std::uint8_t parts = 0;
  for (std::uint8_t part; k < raw.size() && (part = ascii_word_class[static_cast<unsigned char>(raw[k])]); ++k) parts |= part;
  return {k, letter || (parts & word_letter)};
}

}  // namespace

normalized normalize(std::string_view raw) {
  normalized out;
  out.raw_size_ = raw.size();
  if (is_ascii(raw)) {
    out.view_ = raw;
    out.identity_ = true;
    return out;
  }
  out.identity_ = false;
  const std::size_t n = raw.size();
  normal_writer put(out, raw);
  // Words decide whether look-alike letters are folded to ASCII. A word that mixes Latin with other
  // scripts, or a non-Latin word inside mostly-Latin text, is folded ("pаypal"); genuine text in
  // another script is kept as it is. The text's share of Latin letters is counted only when a word
  // without Latin letters asks for it.
  int mostly_latin = -1;
  auto text_is_mostly_latin = [&] {
    if (mostly_latin < 0) mostly_latin = mostly_latin_letters(raw) ? 1 : 0;
    return mostly_latin == 1;
  };
  // Whether the text read so far ends inside a word, and if so whether that word has an ASCII
  // letter yet. ASCII bytes read the same folded or not, so a word's ASCII start is written with
  // its run; the word's decision is taken from its first non-ASCII letter on.
  enum class open_word { none,
                         without_letter,
                         with_letter } open = open_word::none;
  for (std::size_t i = 0; i < n;) {
    if (static_cast<unsigned char>(raw[i]) < 0x80) {
      const std::size_t run_end = next_non_ascii(raw, i);
      put.ascii(raw.data() + i, run_end - i, i);
      if (run_end < n) {
        // The word the run ends in: a letter in it (usually the last byte) settles it.
        std::size_t k = run_end;
        bool letter = false;
        for (std::uint8_t part; k > i && (part = ascii_word_class[static_cast<unsigned char>(raw[k - 1])]); --k)
          if (part == word_letter) {
            letter = true;
            break;
          }
        if (letter) open = open_word::with_letter;
        else if (k > i) open = k < run_end ? open_word::without_letter : open_word::none;
        else if (open != open_word::with_letter) open = open_word::without_letter;  // digits since a skipped character
      }
      i = run_end;
      continue;
    }
    const unit u = unit_at(raw, i);
    if (u.skip) {
      i = u.next;
      continue;
    }  // invisible inside a word too: the word goes on
    if (!u.word()) {
      put.character(u.fold->normal, i);
      open = open_word::none;
      i = u.next;
      continue;
    }
    // The rest of a word from its first non-ASCII letter, written folded as it is read; written
    // again unfolded when its scripts say so (most words with a non-ASCII letter mix it with ASCII
    // ones, and are folded).
    bool has_latin = open == open_word::with_letter, has_other = false, folded = false;
    const auto word_start = put.mark();
    auto write_letter = [&](const folded_cp& fold, std::size_t at) __attribute__((always_inline)) {
      if (static_cast<unsigned char>(fold.normal[0]) < 0x80) has_latin = true;
      else has_other = true;
      put.character(fold.folds ? fold.ascii : fold.normal, at);
      folded = folded || fold.folds;
    };
    write_letter(*u.fold, i);
    std::size_t end = u.next;
    for (std::size_t j = end; j < n;) {
      if (static_cast<unsigned char>(raw[j]) < 0x80) {
        const ascii_word_run run = ascii_word_from(raw, j);
        if (run.end == j) break;
        has_latin = has_latin || run.letter;
        put.ascii(raw.data() + j, run.end - j, j);
        j = end = run.end;
        continue;
      }
      const unit v = unit_at(raw, j);
      if (v.skip) {
        j = v.next;
        continue;
      }
      if (!v.word()) break;
      write_letter(*v.fold, j);
      j = end = v.next;
    }
    if (folded && !(has_other && (has_latin || text_is_mostly_latin()))) {
      put.rewind(word_start);
      for (std::size_t j = i; j < end;) {
        const unit v = unit_at(raw, j);
        if (!v.skip) {
          if (v.fold) put.character(v.fold->normal, j);
          else put.ascii(raw.data() + j, 1, j);
        }
        j = v.next;
      }
    }
    open = open_word::none;  // the word ended at a character that is not part of one
    i = end;
  }
  put.finish();
  out.view_ = out.owned_;
  return out;
}

std::string skeleton(std::string_view raw) {
  if (!is_valid_utf8(raw)) {
    std::string lowered(raw);
    for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lowered;
  }
  std::string skel = icu_skeleton(raw);
  for (auto& c : skel)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return skel;
}

bool fails_restriction(std::string_view utf8) {
  const auto* checker = icu().restriction_checker;
  if (!checker || !is_valid_utf8(utf8) || utf8.size() > 4096) return false;
  // Prose repeats its words: short answers are remembered (per thread, bounded).
  struct view_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view v) const noexcept { return std::hash<std::string_view>{}(v); }
  };
  thread_local std::unordered_map<std::string, bool, view_hash, std::equal_to<>> cache;
  const bool cacheable = utf8.size() <= 64;
  if (cacheable)
    if (auto it = cache.find(utf8); it != cache.end()) return it->second;
  UErrorCode status = U_ZERO_ERROR;
  int32_t result = uspoof_checkUTF8(checker, utf8.data(), static_cast<int32_t>(utf8.size()), nullptr, &status);
  const bool fails = U_SUCCESS(status) && result != 0;
  if (cacheable) {
    if (cache.size() >= 4096) cache.clear();
    cache.emplace(std::string(utf8), fails);
  }
  return fails;
}

std::string make_visible(std::string_view raw, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(raw.size(), max_bytes) + 16);
  char buffer[48];
  for (std::size_t i = 0; i < raw.size();) {
    if (out.size() >= max_bytes) {
      out += "\xE2\x80\xA6";  // ellipsis
      break;
    }
    const auto b = static_cast<unsigned char>(raw[i]);
    if (b == ' ') {
      std::size_t j = i;
      while (j < raw.size() && raw[j] == ' ') ++j;
      if (j - i >= 8) {
        std::snprintf(buffer, sizeof buffer, "<%zu spaces>", j - i);
        out += buffer;
      } else {
        out.append(j - i, ' ');
      }
      i = j;
      continue;
    }
    if (b == '\n') {
      out += "\\n";
      ++i;
      continue;
    }
    if (b == '\r') {
      out += "\\r";
      ++i;
      continue;
    }
    if (b == '\t') {
      out += "\\t";
      ++i;
      continue;
    }
    if (b < 0x20 || b == 0x7F) {
      std::snprintf(buffer, sizeof buffer, "\\x%02x", b);
      out += buffer;
      ++i;
      continue;
    }
    if (b < 0x80) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    const auto start = i;
    char32_t cp = decode_utf8(raw, i);
    if (cp == invalid_code_point) {
      std::snprintf(buffer, sizeof buffer, "\\x%02x", b);
      out += buffer;
      continue;
    }
    if (is_invisible_or_odd(cp)) {
      std::snprintf(buffer, sizeof buffer, "<U+%04X>", static_cast<unsigned>(cp));
      out += buffer;
    } else {
      out.append(raw.substr(start, i - start));
    }
  }
  return out;
}

std::string excerpt(std::string_view raw, std::size_t begin, std::size_t end, std::size_t context,
                    std::size_t max_bytes) {
  begin = std::min(begin, raw.size());
  end = std::clamp(end, begin, raw.size());
  std::size_t from = begin > context ? begin - context : 0;
  std::size_t to = std::min(raw.size(), end + context);
  auto is_cont = [&](std::size_t k) { return k < raw.size() && (static_cast<unsigned char>(raw[k]) & 0xC0) == 0x80; };
  while (from > 0 && is_cont(from)) --from;
  while (to < raw.size() && is_cont(to)) ++to;
  std::string out;
  if (from > 0) out += "\xE2\x80\xA6";
  out += make_visible(raw.substr(from, to - from), max_bytes);
  if (to < raw.size() && out.size() < max_bytes + 8) out += "\xE2\x80\xA6";
  return out;
}

std::size_t find_identifier(std::string_view text, std::string_view name, std::size_t from) {
  if (name.empty()) return std::string_view::npos;
  const auto word = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'; };
  for (auto at = text.find(name, from); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const auto end = at + name.size();
    if ((at == 0 || !word(at - 1)) && (end >= text.size() || !word(end))) return at;
  }
  return std::string_view::npos;
}

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.size() - a.size() > limit) return limit + 1;
  std::vector<std::size_t> prev(a.size() + 1), cur(a.size() + 1);
  for (std::size_t i = 0; i <= a.size(); ++i) prev[i] = i;
  for (std::size_t j = 1; j <= b.size(); ++j) {
    cur[0] = j;
    std::size_t row_min = cur[0];
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[i] = std::min({prev[i] + 1, cur[i - 1] + 1, prev[i - 1] + cost});
      row_min = std::min(row_min, cur[i]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return prev[a.size()];
}

}  // namespace warden::analysis::text
