// UTF-8 decoding, validation and repair, and the plain-JSON-bytes scan (base/utf8.hpp).
#include "base/utf8.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace warden;

TEST_CASE("decode_utf8 rejects malformed sequences one byte at a time") {
  SUBCASE("overlong encoding") {
    std::string s = "\xC0\xAF";
    std::size_t pos = 0;
    CHECK(base::decode_utf8(s, pos) == base::invalid_code_point);
    CHECK(pos == 1);
  }
  SUBCASE("surrogate") {
    std::string s = "\xED\xA0\x80";
    std::size_t pos = 0;
    CHECK(base::decode_utf8(s, pos) == base::invalid_code_point);
  }
  SUBCASE("truncated") {
    std::string s = "\xE2\x82";
    std::size_t pos = 0;
    CHECK(base::decode_utf8(s, pos) == base::invalid_code_point);
    CHECK(pos == 1);
  }
  SUBCASE("valid four-byte") {
    std::string s = "\xF0\x9F\x98\x80";
    std::size_t pos = 0;
    CHECK(base::decode_utf8(s, pos) == 0x1F600);
    CHECK(pos == 4);
  }
  CHECK_FALSE(base::is_valid_utf8("ok \xFF"));
  CHECK(base::is_valid_utf8("caf\xC3\xA9"));
}

TEST_CASE("is_valid_utf8 takes only well-formed UTF-8") {
  SUBCASE("overlongs, surrogates and code points above U+10FFFF are ill-formed") {
    CHECK_FALSE(base::is_valid_utf8("\xC0\xAF"));
    CHECK_FALSE(base::is_valid_utf8("\xED\xA0\x80"));
    CHECK_FALSE(base::is_valid_utf8("\xF4\x90\x80\x80"));
    CHECK(base::is_valid_utf8("h\xC3\xA9llo \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB"));
  }
  SUBCASE("an ill-formed byte after a long ASCII run") {
    CHECK_FALSE(base::is_valid_utf8(std::string(100, 'a') + "\xE2\x82"));
    CHECK(base::is_valid_utf8(std::string(100, 'a')));
  }
}

TEST_CASE("replace_invalid_utf8 puts one U+FFFD per maximal subpart, as Node decodes") {
  SUBCASE("a truncated sequence is one replacement character") {
    CHECK(base::replace_invalid_utf8("a\xE2\x82") == "a\xEF\xBF\xBD");
    CHECK(base::replace_invalid_utf8("\xE2\x82z") == "\xEF\xBF\xBDz");
  }
  SUBCASE("an overlong lead byte and a surrogate are one replacement per byte") {
    CHECK(base::replace_invalid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");
    CHECK(base::replace_invalid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  }
  SUBCASE("well-formed text is copied as is") {
    CHECK(base::replace_invalid_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xF0\x9F\x98\x80");
  }
  CHECK(base::utf8_sequence_length("\xF0\x9F\x98\x80", 0) == 4);
  CHECK(base::utf8_sequence_length("\xF0\x9F\x98", 0) == 0);
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
        REQUIRE(base::json_plain_prefix(s) == expected);
      }
  CHECK(base::json_plain_prefix("") == 0);
  CHECK(base::json_plain_prefix("hello, world: ~/.ssh/id_rsa \x7f ok") == 32);
  CHECK(base::json_plain_prefix("abcdefgh\"ijk") == 8);
  CHECK(base::json_plain_prefix("abcdefghij\xC3\xA9") == 10);
  CHECK(base::json_plain_prefix(std::string_view("abc\0def", 7)) == 3);
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
    REQUIRE(base::json_plain_prefix(s) == expected);
  }
}
