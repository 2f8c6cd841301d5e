#include "base/digest.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>

using namespace warden::base;

TEST_CASE("sha256: raw and hex") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256("abc").size() == 32);
  CHECK(sha256("abc").substr(0, 2) == "\xba\x78");
}

TEST_CASE("base64: RFC 4648 encoding; the decoder takes exactly what the encoder writes") {
  const std::pair<std::string, std::string_view> rows[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"pre-registered-client:pre-registered-secret", "cHJlLXJlZ2lzdGVyZWQtY2xpZW50OnByZS1yZWdpc3RlcmVkLXNlY3JldA=="},
      {std::string("\xfb\xff", 2), "+/8="},
      {std::string("\0\xff\x10", 3), "AP8Q"},
  };
  for (const auto& [bytes, text] : rows) {
    CAPTURE(text);
    CHECK(base64(bytes) == text);
    CHECK(base64_decode(text) == bytes);
  }
  SUBCASE("anything else is refused") {
    for (const char* text : {"Zg", "Zg=", "Zg===", "Zh==", " Zg==", "Zg==\n", "Z g=", "Zm9v!A==", "===="}) {
      CAPTURE(text);
      CHECK_FALSE(base64_decode(text).has_value());
    }
  }
}

TEST_CASE("base64url: URL-safe alphabet, no padding") {
  CHECK(base64url(std::string("\xfb\xff", 2)) == "-_8");
  CHECK(base64url("f") == "Zg");
  CHECK(base64url("") == "");
}
