#include "analysis/char_classes.hpp"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <algorithm>
#include <cstdio>

#include "analysis/text.hpp"

namespace warden::analysis::chars {

using text::invalid_code_point;

bool is_emoji_like(char32_t cp) {
  auto c = static_cast<UChar32>(cp);
  return u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC) || u_hasBinaryProperty(c, UCHAR_EMOJI_MODIFIER) ||
         u_hasBinaryProperty(c, UCHAR_REGIONAL_INDICATOR) || cp == 0xFE0F || cp == 0x20E3;
}

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

bool is_invisible_format(char32_t cp) {
  if (cp == invalid_code_point || cp < 0x80 || is_variation_selector(cp) || is_tag(cp)) return false;
  const auto c = static_cast<UChar32>(cp);
  return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_charType(c) == U_FORMAT_CHAR;
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

}  // namespace warden::analysis::chars
