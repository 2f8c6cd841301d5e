// UTF-8 decoding, validation and repair (base/utf8.hpp).
#include "base/utf8.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace warden;

TEST_CASE("decode_utf8 rejects malformed sequences one byte at a time") {
  struct row {
    const char* name;
    std::string_view bytes;
    char32_t code_point;
    std::size_t advance;
  };
  const row rows[] = {
      {"overlong encoding", "\xC0\xAF", base::invalid_code_point, 1},
      {"surrogate", "\xED\xA0\x80", base::invalid_code_point, 1},
      {"truncated", "\xE2\x82", base::invalid_code_point, 1},
      {"valid four-byte", "\xF0\x9F\x98\x80", 0x1F600, 4},
  };
  for (const row& r : rows) {
    CAPTURE(r.name);
    std::size_t pos = 0;
    CHECK(base::decode_utf8(r.bytes, pos) == r.code_point);
    CHECK(pos == r.advance);
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
