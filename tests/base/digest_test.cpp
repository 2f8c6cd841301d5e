#include "base/digest.hpp"

#include <doctest/doctest.h>

using namespace warden::base;

TEST_CASE("sha256: raw and hex") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256("abc").size() == 32);
  CHECK(sha256("abc").substr(0, 2) == "\xba\x78");
}

TEST_CASE("base64: RFC 4648 encoding; the decoder takes exactly what the encoder writes") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64("pre-registered-client:pre-registered-secret") == "cHJlLXJlZ2lzdGVyZWQtY2xpZW50OnByZS1yZWdpc3RlcmVkLXNlY3JldA==");
  CHECK(base64(std::string("\xfb\xff", 2)) == "+/8=");
  for (const std::string& bytes : {std::string(), std::string("f"), std::string("fo"), std::string("foo"), std::string("\0\xff\x10", 3)})
    CHECK(base64_decode(base64(bytes)) == bytes);
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
