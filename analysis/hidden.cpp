#include "analysis/hidden.hpp"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "analysis/text.hpp"

namespace warden::analysis {
namespace {

using text::invalid_code_point;

struct cp_at {
  char32_t cp;
  std::uint32_t offset;
  std::uint32_t length;
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
    if (count == 0) { begin = b; end = e; what = description; }
    if (s > level) { level = s; what = description; }
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

bool is_space_like(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000 || cp == 0x1680;
}

bool is_emoji_like(char32_t cp) {
  auto c = static_cast<UChar32>(cp);
  return u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC) || u_hasBinaryProperty(c, UCHAR_EMOJI_MODIFIER) ||
         u_hasBinaryProperty(c, UCHAR_REGIONAL_INDICATOR) || cp == 0xFE0F || cp == 0x20E3;
}

// Scripts whose orthography uses ZWJ/ZWNJ (Arabic, Persian, Indic, ...): anything that is a letter
// or mark outside Latin/Greek/Cyrillic/Common.
bool is_joining_script_char(char32_t cp) {
  if (cp == invalid_code_point || cp < 0x80) return false;
  UErrorCode status = U_ZERO_ERROR;
  auto script = uscript_getScript(static_cast<UChar32>(cp), &status);
  if (U_FAILURE(status)) return false;
  return script != USCRIPT_LATIN && script != USCRIPT_COMMON && script != USCRIPT_INHERITED &&
         script != USCRIPT_GREEK && script != USCRIPT_CYRILLIC && script != USCRIPT_UNKNOWN;
}

bool is_rtl(char32_t cp) {
  auto dir = u_charDirection(static_cast<UChar32>(cp));
  return dir == U_RIGHT_TO_LEFT || dir == U_RIGHT_TO_LEFT_ARABIC;
}

bool is_variation_selector(char32_t cp) {
  return (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

std::string printable_or_hex(const std::string& bytes) {
  std::size_t printable = 0;
  for (unsigned char c : bytes)
    if ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t' || c >= 0x80) ++printable;
  if (!bytes.empty() && text::is_valid_utf8(bytes) && printable * 10 >= bytes.size() * 9) return bytes;
  std::string hex;
  char buffer[4];
  for (unsigned char c : bytes) {
    std::snprintf(buffer, sizeof buffer, "%02x", c);
    hex += buffer;
  }
  return "hex:" + hex;
}

// ESC at raw[i]: returns the length of the sequence and whether it hides or rewrites text.
std::size_t parse_escape(std::string_view raw, std::size_t i, bool& hiding) {
  hiding = false;
  std::size_t j = i + 1;
  if (j >= raw.size()) return 1;
  char kind = raw[j];
  if (kind == '[') {
    ++j;
    std::size_t params_start = j;
    while (j < raw.size() && raw[j] >= 0x30 && raw[j] <= 0x3F) ++j;
    std::string_view params = raw.substr(params_start, j - params_start);
    while (j < raw.size() && raw[j] >= 0x20 && raw[j] <= 0x2F) ++j;
    if (j < raw.size() && raw[j] >= 0x40 && raw[j] <= 0x7E) {
      char final = raw[j];
      ++j;
      if (std::string_view("ABCDEFGHJKSTfsuhl").find(final) != std::string_view::npos) hiding = true;
      if (final == 'm') {
        // SGR 8 conceals text; colour codes alone only restyle it.
        std::size_t k = 0;
        while (k <= params.size()) {
          auto semi = params.find(';', k);
          auto token = params.substr(k, semi == std::string_view::npos ? std::string_view::npos : semi - k);
          if (token == "8" || token == "08") hiding = true;
          if (semi == std::string_view::npos) break;
          k = semi + 1;
        }
      }
    }
    return j - i;
  }
  if (kind == ']' || kind == 'P' || kind == '_' || kind == '^' || kind == 'X') {
    hiding = true;  // OSC/DCS/APC talk to the terminal itself (title, hyperlinks, clipboard)
    std::size_t limit = std::min(raw.size(), i + 8192);
    for (++j; j < limit; ++j) {
      if (raw[j] == '\x07') return j + 1 - i;
      if (raw[j] == '\x1b' && j + 1 < raw.size() && raw[j + 1] == '\\') return j + 2 - i;
    }
    return j - i;
  }
  return 2;
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
      // Hot path, eight bytes at a time: printable bytes and spaces only, the first and last not a
      // space. Any run of spaces inside such a block is shorter than every threshold, and none
      // continues past it, so the block holds nothing to report.
      if (i + 8 <= n) {
        std::uint64_t w;
        std::memcpy(&w, raw_.data() + i, 8);
        constexpr std::uint64_t high = 0x8080808080808080ull;
        const bool printable = !(w & high) && ((w + 0x6060606060606060ull) & high) == high &&
                               !((w + 0x0101010101010101ull) & high);
        if (printable && raw_[i] != ' ' && raw_[i + 7] != ' ') {
          line_start = false;
          i += 8;
          continue;
        }
      }
      const auto b = static_cast<unsigned char>(raw_[i]);
      if (b >= 0x21 && b < 0x7F) { line_start = false; ++i; continue; }
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

  void scan_unicode() {
    std::vector<cp_at> cps;
    cps.reserve(raw_.size());
    for (std::size_t i = 0; i < raw_.size();) {
      const auto start = i;
      char32_t cp = text::decode_utf8(raw_, i);
      cps.push_back({cp, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(i - start)});
      if (cp < 0x80) {
        // ASCII: never right-to-left; letters are Latin.
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') {
          ++letters_;
          ++latin_letters_;
        }
        continue;
      }
      if (cp != invalid_code_point && is_rtl(cp)) has_rtl_ = true;
      if (cp != invalid_code_point && cp >= 0x41) {
        UErrorCode status = U_ZERO_ERROR;
        if (u_isalpha(static_cast<UChar32>(cp))) {
          ++letters_;
          if (uscript_getScript(static_cast<UChar32>(cp), &status) == USCRIPT_LATIN) ++latin_letters_;
        }
      }
    }
    bool line_start = true;
    int bidi_depth = 0;
    for (std::size_t k = 0; k < cps.size();) {
      const auto [cp, offset, length] = cps[k];
      const std::size_t end = offset + length;
      if (cp == invalid_code_point) {
        invalid_.add(severity::medium, 0.9, offset, end, "byte sequence that is not valid UTF-8");
        ++k;
        continue;
      }
      if (cp < 0x80) {
        if (cp > 0x20 && cp < 0x7F) { line_start = false; ++k; continue; }
        if (cp == '\n') { line_start = true; }
        if (cp != ' ' && cp != '\t' && cp != '\n') {
          std::size_t used = ascii_event(offset);
          // Skip code points covered by an escape sequence.
          std::size_t stop = offset + std::max<std::size_t>(used, 1);
          while (k < cps.size() && cps[k].offset < stop) ++k;
          continue;
        }
      }
      if (is_space_like(cp)) {
        std::size_t j = k, width = 0;
        while (j < cps.size() && is_space_like(cps[j].cp)) { ++width; ++j; }
        std::size_t run_end = j < cps.size() ? cps[j].offset : raw_.size();
        note_space_run(offset, run_end, width, line_start);
        if (kind_ == text_kind::identifier && cp != ' ')
          whitespace_.add(severity::medium, 0.7, offset, run_end, "unusual space character in an identifier");
        std::size_t odd = 0;
        for (std::size_t m = k; m < j; ++m) odd += cps[m].cp != ' ' && cps[m].cp != '\t' && cps[m].cp != 0xA0 && cps[m].cp != 0x3000;
        if (odd >= 3 && kind_ != text_kind::identifier)
          whitespace_.add(severity::low, 0.6, offset, run_end, "run of unusual Unicode space characters");
        k = j;
        continue;
      }
      if (cp == '\n') {
        std::size_t j = k, lines = 0;
        while (j < cps.size() && (cps[j].cp == '\n' || is_space_like(cps[j].cp) || cps[j].cp == '\r')) {
          if (cps[j].cp == '\n') ++lines;
          ++j;
        }
        note_blank_lines(offset, j < cps.size() ? cps[j].offset : raw_.size(), lines);
        ++k;
        continue;
      }
      if (cp == 0x2028 || cp == 0x2029) {
        whitespace_.add(severity::low, 0.6, offset, end, "Unicode line or paragraph separator");
        ++k;
        continue;
      }
      // Tag characters: hidden ASCII, unless they form an emoji flag sequence.
      if (cp >= 0xE0000 && cp <= 0xE007F) {
        std::size_t j = k;
        std::string hidden;
        while (j < cps.size() && cps[j].cp >= 0xE0000 && cps[j].cp <= 0xE007F) {
          char32_t t = cps[j].cp - 0xE0000;
          if (t >= 0x20 && t < 0x7F) hidden.push_back(static_cast<char>(t));
          ++j;
        }
        bool flag_sequence = k > 0 && cps[k - 1].cp == 0x1F3F4 && cps[j - 1].cp == 0xE007F && j - k >= 2 &&
                             j - k <= 8;
        if (!flag_sequence) {
          std::size_t run_end = j < cps.size() ? cps[j].offset : raw_.size();
          tag_payload_ += hidden;
          tags_.add(severity::high, 0.95, offset, run_end, "invisible tag characters spelling hidden text");
        }
        k = j;
        continue;
      }
      if (is_variation_selector(cp)) {
        std::size_t j = k;
        std::string bytes;
        while (j < cps.size() && is_variation_selector(cps[j].cp)) {
          char32_t v = cps[j].cp;
          bytes.push_back(static_cast<char>(v <= 0xFE0F ? v - 0xFE00 : v - 0xE0100 + 16));
          ++j;
        }
        bool has_base = k > 0 && cps[k - 1].cp != invalid_code_point && !is_space_like(cps[k - 1].cp) &&
                        cps[k - 1].cp >= 0x20;
        if (j - k >= 2 || !has_base) {
          std::size_t run_end = j < cps.size() ? cps[j].offset : raw_.size();
          vs_payload_ += bytes;
          vs_.add(j - k >= 4 ? severity::high : severity::medium, j - k >= 4 ? 0.9 : 0.6, offset, run_end,
                  "variation selectors that do not style a character (a hidden byte payload)");
        }
        k = j;
        continue;
      }
      // Bidi controls.
      if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
        bool opens = cp == 0x202A || cp == 0x202B || cp == 0x202D || cp == 0x202E || (cp >= 0x2066 && cp <= 0x2068);
        bidi_depth += opens ? 1 : -1;
        if (cp == 0x202D || cp == 0x202E)
          bidi_.add(severity::high, 0.9, offset, end, "bidi override character (reorders displayed text)");
        else
          pending_bidi_.push_back({cp, offset, length});
        ++k;
        continue;
      }
      if (cp == 0x200E || cp == 0x200F || cp == 0x061C) {
        if (!has_rtl_ || kind_ == text_kind::identifier)
          bidi_.add(kind_ == text_kind::identifier ? severity::medium : severity::low, 0.6, offset, end,
                    "directional mark in text without right-to-left script");
        ++k;
        continue;
      }
      if (cp == 0x200C || cp == 0x200D) {
        char32_t prev = k > 0 ? cps[k - 1].cp : invalid_code_point;
        char32_t next = k + 1 < cps.size() ? cps[k + 1].cp : invalid_code_point;
        bool emoji_join = cp == 0x200D && prev != invalid_code_point && next != invalid_code_point &&
                          is_emoji_like(prev) && is_emoji_like(next);
        bool script_join = is_joining_script_char(prev) || is_joining_script_char(next);
        if (!emoji_join && !script_join)
          invisible_.add(kind_ == text_kind::identifier ? severity::high : severity::low, 0.7, offset, end,
                         "zero-width joiner or non-joiner outside emoji or joining scripts");
        else
          ++legit_invisible_;
        ++k;
        continue;
      }
      if (cp == 0xFEFF && offset == 0) { ++k; continue; }  // byte order mark
      auto c = static_cast<UChar32>(cp);
      if (cp >= 0x80 && cp <= 0x9F) {
        if (cp == 0x9B)
          escapes_.add(severity::high, 0.85, offset, end, "C1 control sequence introducer (terminal escape)");
        else
          controls_.add(severity::medium, 0.7, offset, end, "C1 control character");
        ++k;
        continue;
      }
      auto type = u_charType(c);
      if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || type == U_FORMAT_CHAR) {
        // Count the whole run: long invisible runs are how bits are smuggled.
        std::size_t j = k;
        while (j < cps.size() && cps[j].cp != invalid_code_point && cps[j].cp >= 0x80 &&
               (u_hasBinaryProperty(static_cast<UChar32>(cps[j].cp), UCHAR_DEFAULT_IGNORABLE_CODE_POINT) ||
                u_charType(static_cast<UChar32>(cps[j].cp)) == U_FORMAT_CHAR) &&
               !is_variation_selector(cps[j].cp) && !(cps[j].cp >= 0xE0000 && cps[j].cp <= 0xE007F))
          ++j;
        if (j == k) j = k + 1;
        std::size_t run = j - k;
        std::size_t run_end = j < cps.size() ? cps[j].offset : raw_.size();
        severity s = run >= 8 ? severity::high : (run >= 3 || kind_ == text_kind::identifier) ? severity::medium : severity::low;
        invisible_.add(s, run >= 8 ? 0.85 : 0.7, offset, run_end,
                       run >= 8 ? "long run of invisible characters (possible binary payload)"
                                : "zero-width or other invisible format character");
        k = j;
        continue;
      }
      if (type == U_PRIVATE_USE_CHAR || u_hasBinaryProperty(c, UCHAR_NONCHARACTER_CODE_POINT)) {
        private_.add(kind_ == text_kind::identifier ? severity::medium : severity::low, 0.6, offset, end,
                     type == U_PRIVATE_USE_CHAR ? "private-use character" : "noncharacter code point");
        ++k;
        continue;
      }
      line_start = false;
      ++k;
    }
    (void)bidi_depth;
    // Embeddings and isolates are legitimate inside right-to-left text when balanced.
    if (!pending_bidi_.empty()) {
      int depth = 0;
      bool balanced = true;
      for (auto& b : pending_bidi_) {
        bool opens = b.cp != 0x202C && b.cp != 0x2069;
        depth += opens ? 1 : -1;
        if (depth < 0) balanced = false;
      }
      balanced = balanced && depth == 0;
      if (!has_rtl_ || !balanced || kind_ == text_kind::identifier)
        for (auto& b : pending_bidi_)
          bidi_.add(severity::medium, 0.75, b.offset, b.offset + b.length,
                    has_rtl_ ? "unbalanced bidi embedding or isolate" : "bidi embedding or isolate in left-to-right text");
    }
    check_words(cps);
  }

  // Look-alike letters inside words (prose) and look-alike identifiers.
  void check_words(const std::vector<cp_at>& cps) {
    if (kind_ == text_kind::identifier) {
      if (text::fails_restriction(raw_)) {
        confusable_.add(severity::high, 0.85, 0, raw_.size(), "identifier mixes scripts (UTS #39 restriction level)");
      } else {
        std::string skel = text::skeleton(raw_);
        if (text::is_ascii(skel) && skel != raw_) {
          bool letters_only_latinish = true;
          for (auto& c : cps)
            if (c.cp != invalid_code_point && c.cp >= 0x80 && !u_isalnum(static_cast<UChar32>(c.cp)))
              letters_only_latinish = false;
          if (letters_only_latinish)
            confusable_.add(severity::high, 0.85, 0, raw_.size(), "identifier looks like the ASCII name '" + skel + "'");
        }
      }
      return;
    }
    const bool mostly_latin = letters_ > 0 && latin_letters_ * 10 >= letters_ * 6;
    std::size_t k = 0;
    while (k < cps.size()) {
      auto is_word_cp = [](char32_t c) {
        if (c < 0x80) return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
        return c != invalid_code_point && (u_isalnum(static_cast<UChar32>(c)) ||
                                           u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK);
      };
      if (!is_word_cp(cps[k].cp)) { ++k; continue; }
      std::size_t j = k;
      bool non_ascii = false, latin = false;
      while (j < cps.size() && is_word_cp(cps[j].cp)) {
        if (cps[j].cp >= 0x80) non_ascii = true;
        else if ((cps[j].cp | 0x20) >= 'a' && (cps[j].cp | 0x20) <= 'z') latin = true;
        ++j;
      }
      if (non_ascii && j - k >= 3) {
        std::size_t b = cps[k].offset, e = j < cps.size() ? cps[j].offset : raw_.size();
        std::string_view word = raw_.substr(b, e - b);
        if (latin && text::fails_restriction(word)) {
          words_.add(severity::medium, 0.75, b, e, "word mixes Latin with look-alike letters of another script");
        } else if (!latin && mostly_latin) {
          std::string skel = text::skeleton(word);
          bool ascii_letters = !skel.empty() && std::all_of(skel.begin(), skel.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
          });
          if (ascii_letters)
            words_.add(severity::medium, 0.7, b, e, "non-Latin word that spells the Latin word '" + skel + "'");
        }
      }
      k = j;
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
  bool has_rtl_ = false;
  std::size_t letters_ = 0, latin_letters_ = 0, legit_invisible_ = 0;
  std::string tag_payload_, vs_payload_;
  std::vector<cp_at> pending_bidi_;
  aggregate tags_{"unicode.tag-characters"}, vs_{"unicode.variation-selector-payload"},
      bidi_{"unicode.bidi-control"}, invisible_{"unicode.invisible-format"},
      escapes_{"unicode.terminal-escape"}, controls_{"unicode.control-character"},
      private_{"unicode.private-use"}, whitespace_{"unicode.deceptive-whitespace"},
      confusable_{"unicode.confusable-identifier"}, words_{"unicode.mixed-script-word"},
      invalid_{"unicode.invalid-utf8"};
};

}  // namespace

hidden_scan scan_hidden(std::string_view raw, text_kind kind) {
  scanner s(raw, kind);
  return s.run();
}

}  // namespace warden::analysis
