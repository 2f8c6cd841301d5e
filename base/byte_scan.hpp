#pragma once
// Byte scans in one place: sixteen bytes at a time (`block16`: SSE2 on x86-64, or a scalar
// fallback with the same results when SSE2 is missing or WARDEN_PORTABLE is defined, which the
// CMake option -DWARDEN_PORTABLE=ON does), and eight at a time in a 64-bit word (SWAR). The
// scanners elsewhere use these and write no intrinsics of their own. Pure; nothing throws.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__) && !defined(WARDEN_PORTABLE)
#define WARDEN_BYTE_SCAN_SSE2 1
#include <emmintrin.h>
#else
#define WARDEN_BYTE_SCAN_SSE2 0
#endif

namespace warden::base {

// ---- Sixteen bytes: a block of byte lanes. A lane "mask" is 0xFF where a test holds, 0 elsewhere;
// mask16() gathers the lanes' high bits into bit k for lane k.

#if WARDEN_BYTE_SCAN_SSE2
struct block16 {
  __m128i v;
};
inline block16 load16(const char* p) noexcept { return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))}; }
inline void store16(char* p, block16 x) noexcept { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x.v); }
inline block16 splat16(unsigned char c) noexcept { return {_mm_set1_epi8(static_cast<char>(c))}; }
inline block16 operator|(block16 a, block16 b) noexcept { return {_mm_or_si128(a.v, b.v)}; }
inline block16 operator&(block16 a, block16 b) noexcept { return {_mm_and_si128(a.v, b.v)}; }
// a & ~b
inline block16 and_not(block16 a, block16 b) noexcept { return {_mm_andnot_si128(b.v, a.v)}; }
inline block16 equal16(block16 x, unsigned char c) noexcept { return {_mm_cmpeq_epi8(x.v, _mm_set1_epi8(static_cast<char>(c)))}; }
// Lanes whose unsigned value lies in [lo, hi].
inline block16 between16(block16 x, unsigned char lo, unsigned char hi) noexcept {
  const __m128i offset = _mm_sub_epi8(x.v, _mm_set1_epi8(static_cast<char>(lo)));
  return {_mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(static_cast<char>(hi - lo))), offset)};
}
// Lane-wise a - b, wrapping (counters: subtracting a mask adds one where it holds).
inline block16 sub16(block16 a, block16 b) noexcept { return {_mm_sub_epi8(a.v, b.v)}; }
inline unsigned mask16(block16 x) noexcept { return static_cast<unsigned>(_mm_movemask_epi8(x.v)); }
// The sum of the sixteen lanes as unsigned bytes.
inline std::size_t sum16(block16 x) noexcept {
  const __m128i sums = _mm_sad_epu8(x.v, _mm_setzero_si128());
  return static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) + static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
}
#else
struct block16 {
  std::array<unsigned char, 16> v;
};
namespace detail {
template <typename F>
inline block16 each16(F f) noexcept {
  block16 out;
  for (std::size_t k = 0; k < 16; ++k) out.v[k] = f(k);
  return out;
}
inline unsigned char lane_if(bool b) noexcept { return b ? 0xFF : 0; }
}  // namespace detail
inline block16 load16(const char* p) noexcept {
  block16 out;
  std::memcpy(out.v.data(), p, 16);
  return out;
}
inline void store16(char* p, block16 x) noexcept { std::memcpy(p, x.v.data(), 16); }
inline block16 splat16(unsigned char c) noexcept {
  return detail::each16([&](std::size_t) { return c; });
}
inline block16 operator|(block16 a, block16 b) noexcept {
  return detail::each16([&](std::size_t k) { return static_cast<unsigned char>(a.v[k] | b.v[k]); });
}
inline block16 operator&(block16 a, block16 b) noexcept {
  return detail::each16([&](std::size_t k) { return static_cast<unsigned char>(a.v[k] & b.v[k]); });
}
inline block16 and_not(block16 a, block16 b) noexcept {
  return detail::each16([&](std::size_t k) { return static_cast<unsigned char>(a.v[k] & ~b.v[k]); });
}
inline block16 equal16(block16 x, unsigned char c) noexcept {
  return detail::each16([&](std::size_t k) { return detail::lane_if(x.v[k] == c); });
}
inline block16 between16(block16 x, unsigned char lo, unsigned char hi) noexcept {
  return detail::each16([&](std::size_t k) { return detail::lane_if(x.v[k] >= lo && x.v[k] <= hi); });
}
inline block16 sub16(block16 a, block16 b) noexcept {
  return detail::each16([&](std::size_t k) { return static_cast<unsigned char>(a.v[k] - b.v[k]); });
}
inline unsigned mask16(block16 x) noexcept {
  unsigned bits = 0;
  for (std::size_t k = 0; k < 16; ++k) bits |= static_cast<unsigned>(x.v[k] >> 7) << k;
  return bits;
}
inline std::size_t sum16(block16 x) noexcept {
  std::size_t total = 0;
  for (unsigned char lane : x.v) total += lane;
  return total;
}
#endif

inline block16 zero16() noexcept { return splat16(0); }
// Bit k set: byte k is not ASCII.
inline unsigned non_ascii16(block16 x) noexcept { return mask16(x); }
// ASCII letters (with the case bit set a letter lies in 'a'..'z'; bytes from 0x80 up stay above
// it), and ASCII letters and digits.
inline block16 ascii_letter16(block16 x) noexcept { return between16(x | splat16(0x20), 'a', 'z'); }
inline block16 ascii_word16(block16 x) noexcept { return ascii_letter16(x) | between16(x, '0', '9'); }

// A few bytes to look for (up to 32), and the lanes that hold one of them.
struct byte_set {
  std::array<char, 32> bytes{};
  std::size_t size = 0;
};
inline block16 any_of16(block16 x, const byte_set& set) noexcept {
  block16 any = zero16();
  for (std::size_t k = 0; k < set.size; ++k) any = any | equal16(x, static_cast<unsigned char>(set.bytes[k]));
  return any;
}

// ---- Eight bytes in a 64-bit word (SWAR), for the ASCII stretches of a text. A word "without high
// bits" holds no byte above 0x7F, so the per-byte additions below cannot carry into the next byte.
inline constexpr std::uint64_t every_byte = 0x0101010101010101ull, high_bits = 0x8080808080808080ull;

inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// High bit of each byte of a word without high bits that lies in [lo, hi].
inline std::uint64_t bytes_between(std::uint64_t w, unsigned char lo, unsigned char hi) noexcept {
  return (w + (0x80 - lo) * every_byte) & ~(w + (0x80 - hi - 1) * every_byte) & high_bits;
}

// ASCII letters in a word without high bits.
inline unsigned ascii_letters_in(std::uint64_t w) noexcept {
  // One bit per byte at most: moved to bit 0 of each byte and summed by a multiply (the portable
  // x86-64 build has no popcount instruction).
  return static_cast<unsigned>(((bytes_between(w | (0x20 * every_byte), 'a', 'z') >> 7) * every_byte) >> 56);
}

// A word without high bits, lower-cased.
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

// ---- Scans built on both.

// The offset of the first non-ASCII byte at or after `from`, or s.size().
inline std::size_t next_non_ascii(std::string_view s, std::size_t from) noexcept {
  std::size_t i = from;
  for (; i + 16 <= s.size(); i += 16)
    if (const unsigned high = non_ascii16(load16(s.data() + i))) return i + static_cast<std::size_t>(std::countr_zero(high));
  for (; i + 8 <= s.size(); i += 8)
    if (const std::uint64_t high = load8(s.data() + i) & high_bits) {
      if constexpr (std::endian::native == std::endian::little) return i + static_cast<std::size_t>(std::countr_zero(high)) / 8;
      break;
    }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

// Length of the leading run of plain bytes (ASCII 0x20..0x7F except '"' and '\\'): what a JSON
// string holds, and a JSON writer writes, byte for byte with no UTF-8 decoding or escape.
inline std::size_t json_plain_prefix(std::string_view s) noexcept {
  std::size_t i = 0;
  // Sixteen bytes a step: audit records are mostly such strings.
  for (; i + 16 <= s.size(); i += 16) {
    const block16 block = load16(s.data() + i);
    const block16 plain = and_not(between16(block, 0x20, 0x7F), equal16(block, '"') | equal16(block, '\\'));
    if (const unsigned special = ~mask16(plain) & 0xFFFFu; special != 0)
      return i + static_cast<std::size_t>(std::countr_zero(special));
  }
  for (; i + 8 <= s.size(); i += 8) {
    const std::uint64_t special = json_special_bytes(load8(s.data() + i));
    if (special == 0) continue;
    // The first special byte of the word, without a byte loop (most strings end inside a word).
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
