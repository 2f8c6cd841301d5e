// Canonical JSON (pins and the audit chain are digested over it) and the one timestamp format.
#include "base/canonical_json.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <limits>

#include "base/timestamp.hpp"

using namespace warden;
using base::canonical_json;
using nlohmann::json;

TEST_CASE("canonical JSON") {
  CHECK(canonical_json(json::parse(R"({"b":1, "a":[true, null]})")) == R"({"a":[true,null],"b":1})");
}

TEST_CASE("UTC timestamps: milliseconds, second boundaries, before 1970") {
  using std::chrono::milliseconds;
  auto at = [](long long ms) { return base::utc_timestamp(std::chrono::system_clock::time_point(milliseconds(ms))); };
  CHECK(at(0) == "1970-01-01T00:00:00.000Z");
  CHECK(at(1700000000123) == "2023-11-14T22:13:20.123Z");
  CHECK(at(1700000000999) == "2023-11-14T22:13:20.999Z");  // same second: the cached part
  CHECK(at(1700000001000) == "2023-11-14T22:13:21.000Z");  // the next one
  CHECK(at(1700000000007) == "2023-11-14T22:13:20.007Z");  // back again
  CHECK(at(-1) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("canonical JSON is byte for byte nlohmann's dump with U+FFFD replacement, on any value") {
  // The audit chain and the pins hash this text: the fast writer must never differ from
  // dump(-1, ' ', false, replace), whatever the strings hold (quotes, controls, DEL, UTF-8, invalid
  // bytes) and whatever the numbers are (negative, unsigned beyond int64, floats).
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char* pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\x7f", "\xC3\xA9", "\xE2\x80\x8B",
                          "\xF0\x9F\x98\x80", "\xFF", "\xC3", "\xED\xA0\x80", "key", "~/.ssh/id_rsa"};
  auto random_string = [&] {
    std::string text;
    for (auto n = next() % 6; n > 0; --n) text += pieces[next() % std::size(pieces)];
    return text;
  };
  std::function<json(int)> random_value = [&](int depth) -> json {
    switch (next() % (depth > 3 ? 6 : 8)) {
      case 0: return nullptr;
      case 1: return next() % 2 == 0;
      case 2: return static_cast<std::int64_t>(next());
      case 3: return next();
      case 4: return static_cast<double>(static_cast<std::int64_t>(next() % 2000000) - 1000000) / 7.0;
      case 5: return random_string();
      case 6: {
        json array = json::array();
        for (auto n = next() % 4; n > 0; --n) array.push_back(random_value(depth + 1));
        return array;
      }
      default: {
        json object = json::object();
        for (auto n = next() % 4; n > 0; --n) object[random_string()] = random_value(depth + 1);
        return object;
      }
    }
  };
  for (int i = 0; i < 20000; ++i) {
    const json value = random_value(0);
    const std::string expected = value.dump(-1, ' ', false, json::error_handler_t::replace);
    REQUIRE(canonical_json(value) == expected);
  }
  CHECK(canonical_json(json(1e300)) == "1e+300");
  CHECK(canonical_json(json(std::numeric_limits<std::uint64_t>::max())) == "18446744073709551615");
  CHECK(canonical_json(json(std::numeric_limits<std::int64_t>::min())) == "-9223372036854775808");
}
