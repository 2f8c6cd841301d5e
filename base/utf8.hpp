#pragma once
// UTF-8 and ASCII primitives that every layer uses: strict decoding and encoding, the one UTF-8
// validator, U+FFFD repair, ASCII case and hex digits (the byte scans are base/byte_scan.hpp's).
// No ICU here: normalisation, skeletons and report rendering are analysis/text.hpp's. Pure and
// thread-safe; nothing throws.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warden::base {

inline constexpr char32_t invalid_code_point = 0xFFFFFFFFu;

// Decodes one code point at `pos` and advances it. Invalid, overlong, surrogate or truncated
// sequences return invalid_code_point and advance by one byte. ASCII and two-byte sequences
// (accented Latin, Greek, Cyrillic, ...) are decoded inline: the scanners call this for every
// non-ASCII character; the rest goes to decode_utf8_long.
char32_t decode_utf8_long(std::string_view text, std::size_t& pos) noexcept;
inline char32_t decode_utf8(std::string_view text, std::size_t& pos) noexcept {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF && pos + 1 < text.size()) {
    const auto b1 = static_cast<unsigned char>(text[pos + 1]);
    if ((b1 & 0xC0) == 0x80) {
      pos += 2;
      return (char32_t(b0 & 0x1F) << 6) | char32_t(b1 & 0x3F);
    }
  }
  return decode_utf8_long(text, pos);
}
void append_utf8(std::string& out, char32_t code_point);
// The value of an ASCII hex digit, or -1 (for the \u escapes of the JSON, JSONC and TOML readers).
// ASCII-only lower case: identifiers and names, not prose (prose goes through the normaliser).
inline std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

inline int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
bool is_ascii(std::string_view text) noexcept;
// The one UTF-8 validator of the code base (Unicode 15, 3.9: no overlongs, no surrogates,
// nothing above U+10FFFF); plain ASCII is checked sixteen bytes at a time first.
bool is_valid_utf8(std::string_view text) noexcept;
// Length of the well-formed sequence at `pos`, or 0 when the bytes there are ill-formed.
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) noexcept {
  std::size_t next = pos;
  return decode_utf8(text, next) == invalid_code_point ? 0 : next - pos;
}
// Copy of `text` with every ill-formed sequence replaced by one U+FFFD per maximal subpart, as
// the WHATWG decoder (Node's) does.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace warden::base
