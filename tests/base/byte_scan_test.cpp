// The sixteen-byte primitives of base/byte_scan.hpp against a byte-by-byte answer: the same test
// runs on SSE2 and, in the portable build (-DWARDEN_PORTABLE=ON), on the scalar fallback.
#include "base/byte_scan.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace warden::base;

namespace {
// Bit k set where `test` holds for byte k of the sixteen at p.
template <typename Test>
unsigned expected_mask(const char* p, Test test) {
  unsigned bits = 0;
  for (unsigned k = 0; k < 16; ++k)
    if (test(static_cast<unsigned char>(p[k]))) bits |= 1u << k;
  return bits;
}
}  // namespace

TEST_CASE("block16 lane tests agree with a byte-by-byte reading") {
  std::mt19937 random(20261205);
  const unsigned char edges[] = {0x00, 0x1F, 0x20, 0x21, '"', '0', '9', 'A', 'Z', '\\', 'a', 'z', 0x7E, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xC5, 0xFF};
  byte_set marks;
  for (char c : {':', '=', '+', '/'}) marks.bytes[marks.size++] = c;
  for (int round = 0; round < 20000; ++round) {
    std::string s(16, 'a');
    for (auto& c : s) c = static_cast<char>(round % 2 ? edges[random() % sizeof edges] : random() % 256);
    const char* p = s.data();
    const block16 b = load16(p);
    const auto lo = static_cast<unsigned char>(random() % 256), hi = static_cast<unsigned char>(lo + random() % (256 - lo));
    REQUIRE(mask16(between16(b, lo, hi)) == expected_mask(p, [&](unsigned char c) { return c >= lo && c <= hi; }));
    REQUIRE(non_ascii16(b) == expected_mask(p, [](unsigned char c) { return c >= 0x80; }));
    REQUIRE(mask16(equal16(b, ' ')) == expected_mask(p, [](unsigned char c) { return c == ' '; }));
    REQUIRE(mask16(any_of16(b, marks)) == expected_mask(p, [](unsigned char c) { return c == ':' || c == '=' || c == '+' || c == '/'; }));
    REQUIRE(mask16(ascii_letter16(b)) == expected_mask(p, [](unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }));
    REQUIRE(mask16(ascii_word16(b)) ==
            expected_mask(p, [](unsigned char c) { return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9'); }));
    REQUIRE(mask16(and_not(between16(b, 0x20, 0x7E), equal16(b, ' '))) == expected_mask(p, [](unsigned char c) { return c > 0x20 && c <= 0x7E; }));
    std::size_t total = 0;
    for (unsigned char c : s) total += c;
    REQUIRE(sum16(b) == total);
    std::string lowered(16, '\0');
    store16(lowered.data(), b | (between16(b, 'A', 'Z') & splat16(0x20)));
    for (std::size_t k = 0; k < 16; ++k) {
      const auto c = static_cast<unsigned char>(s[k]);
      REQUIRE(static_cast<unsigned char>(lowered[k]) == (c >= 'A' && c <= 'Z' ? c + 32 : c));
    }
  }
}

TEST_CASE("counting lanes: subtracting a mask adds one per lane where it holds") {
  const std::string s = "Hello, World! 123 \xC3\xA9t\xC3\xA9";
  block16 letters = zero16();
  for (int k = 0; k < 3; ++k) letters = sub16(letters, ascii_letter16(load16(s.data())));
  CHECK(sum16(letters) == 3 * 10);  // "HelloWorld" in the first sixteen bytes
}

TEST_CASE("next_non_ascii finds the first byte from 0x80 at every offset") {
  for (std::size_t length = 0; length <= 40; ++length)
    for (std::size_t at = 0; at <= length; ++at)
      for (std::size_t from = 0; from <= at; ++from) {
        std::string s(length, 'x');
        if (at < length) s[at] = '\xC3';
        REQUIRE(next_non_ascii(s, from) == at);
      }
}

TEST_CASE("json_plain_prefix stops at the first byte a JSON string cannot hold as it is") {
  // Every byte value at every offset of texts up to 40 bytes long, on a plain background: the
  // word-at-a-time search must stop exactly where a byte-by-byte one does.
  const auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; };
  for (std::size_t length = 1; length <= 40; ++length)
    for (std::size_t at = 0; at < length; ++at)
      for (unsigned value = 0; value < 256; ++value) {
        std::string s(length, 'a');
        s[at] = static_cast<char>(value);
        const std::size_t expected = plain(static_cast<unsigned char>(value)) ? length : at;
        REQUIRE(json_plain_prefix(s) == expected);
      }
  CHECK(json_plain_prefix("") == 0);
  CHECK(json_plain_prefix("hello, world: ~/.ssh/id_rsa \x7f ok") == 32);
  CHECK(json_plain_prefix("abcdefgh\"ijk") == 8);
  CHECK(json_plain_prefix("abcdefghij\xC3\xA9") == 10);
  CHECK(json_plain_prefix(std::string_view("abc\0def", 7)) == 3);
}

TEST_CASE("json_plain_prefix finds the first of several special bytes whatever their neighbours") {
  // The word tricks can raise false alarms next to a true one (borrows): random texts of bytes
  // around every boundary, many special bytes per block, against the byte-by-byte answer.
  const unsigned char edges[] = {0x00, 0x01, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D,
                                 0x7E, 0x7F, 0x80, 0x81, 0xA0, 0xC3, 0xFF, 'a', 'a', 'a', 'a'};
  const auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; };
  std::mt19937 random(20261201);
  for (int round = 0; round < 200000; ++round) {
    std::string s(1 + random() % 40, 'a');
    for (auto& c : s) c = static_cast<char>(edges[random() % sizeof edges]);
    std::size_t expected = 0;
    while (expected < s.size() && plain(static_cast<unsigned char>(s[expected]))) ++expected;
    REQUIRE(json_plain_prefix(s) == expected);
  }
}
