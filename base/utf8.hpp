#pragma once
// UTF-8 and ASCII primitives that every layer uses: strict decoding and encoding, the one UTF-8
// validator, U+FFFD repair, ASCII case and hex digits, and the word-at-a-time (SWAR) and SSE2
// scans for ASCII stretches and plain JSON string bytes. No ICU here: normalisation, skeletons and
// report rendering are analysis/text.hpp's. Pure and thread-safe; nothing throws.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Eight bytes at a time (SWAR), for the ASCII stretches of a text. A block "without high bits" holds
// no byte above 0x7F, so the per-byte additions below cannot carry into the next byte.
inline constexpr std::uint64_t every_byte = 0x0101010101010101ull, high_bits = 0x8080808080808080ull;

inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  __builtin_memcpy(&w, p, 8);
  return w;
}

// High bit of each byte of a block without high bits that lies in [lo, hi].
inline std::uint64_t bytes_between(std::uint64_t w, unsigned char lo, unsigned char hi) noexcept {
  return (w + (0x80 - lo) * every_byte) & ~(w + (0x80 - hi - 1) * every_byte) & high_bits;
}

// The offset of the first non-ASCII byte at or after `from`, or s.size().
inline std::size_t next_non_ascii(std::string_view s, std::size_t from) noexcept {
  std::size_t i = from;
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16)
    if (const auto high = static_cast<unsigned>(_mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i)))))
      return i + static_cast<std::size_t>(std::countr_zero(high));
#endif
  for (; i + 8 <= s.size(); i += 8)
    if (const std::uint64_t high = load8(s.data() + i) & high_bits) {
      if constexpr (std::endian::native == std::endian::little) return i + static_cast<std::size_t>(std::countr_zero(high)) / 8;
      break;
    }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

#if defined(__SSE2__)
// 0xFF in each of sixteen bytes whose (unsigned) value lies in [lo, hi], 0 elsewhere.
inline __m128i lanes_between(__m128i x, unsigned char lo, unsigned char hi) noexcept {
  const __m128i offset = _mm_sub_epi8(x, _mm_set1_epi8(static_cast<char>(lo)));
  return _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(static_cast<char>(hi - lo))), offset);
}
// The same for ASCII letters (with the case bit set a letter lies in 'a'..'z'; bytes from 0x80 up
// stay above it), and for ASCII letters and digits.
inline __m128i ascii_letter_bytes(__m128i x) noexcept { return lanes_between(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z'); }
inline __m128i ascii_word_bytes(__m128i x) noexcept { return _mm_or_si128(ascii_letter_bytes(x), lanes_between(x, '0', '9')); }
#endif

// ASCII letters in a block without high bits.
inline unsigned ascii_letters_in(std::uint64_t w) noexcept {
  // One bit per byte at most: moved to bit 0 of each byte and summed by a multiply (the portable
  // x86-64 build has no popcount instruction).
  return static_cast<unsigned>(((bytes_between(w | (0x20 * every_byte), 'a', 'z') >> 7) * every_byte) >> 56);
}

// A block without high bits, lower-cased.
inline std::uint64_t ascii_lower(std::uint64_t w) noexcept { return w | (bytes_between(w, 'A', 'Z') >> 2); }

// The high bit of each byte of eight that is not "plain" inside a JSON string: a quote, a
// backslash, a control character or a non-ASCII byte (the word tricks for "has a byte less than /
// equal to"). The lowest set bit is exact; bits above it may be false alarms (borrows), so read
// only whether there is one, or which byte comes first.
inline std::uint64_t json_special_bytes(std::uint64_t w) noexcept {
  const auto has_zero = [](std::uint64_t v) { return (v - every_byte) & ~v & high_bits; };
  const std::uint64_t below_space = (w - 0x20 * every_byte) & ~w & high_bits;
  return (w & high_bits) | below_space | has_zero(w ^ ('"' * every_byte)) | has_zero(w ^ ('\\' * every_byte));
}

// Length of the leading run of plain bytes (ASCII 0x20..0x7F except '"' and '\\'): what a JSON
// string holds, and a JSON writer writes, byte for byte with no UTF-8 decoding or escape.
inline std::size_t json_plain_prefix(std::string_view s) noexcept {
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step (every x86-64 has SSE2): a signed "less than 0x20" catches both the
  // control characters and the bytes from 0x80 up. Audit records are mostly such strings.
  const __m128i below = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i special = _mm_or_si128(_mm_cmplt_epi8(block, below),
                                         _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special)); mask != 0)
      return i + static_cast<std::size_t>(std::countr_zero(mask));
  }
#endif
  for (; i + 8 <= s.size(); i += 8) {
    const std::uint64_t special = json_special_bytes(load8(s.data() + i));
    if (special == 0) continue;
    // The first special byte of the block, without a byte loop (most strings end inside a block).
    if constexpr (std::endian::native == std::endian::little) return i + static_cast<std::size_t>(std::countr_zero(special)) / 8;
    break;
  }
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
  }
  return i;
}

}  // namespace warden::base
