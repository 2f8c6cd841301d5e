// The multi-literal prefilter must report exactly the literals (prefixes) that occur, wherever they
// sit: long texts are walked in interleaved lanes, so occurrences across lane cuts matter most.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/literals.hpp"

using warden::analysis::literal_matcher;

namespace {

// Reference: literal i is present when its first `prefix` bytes occur (ASCII case-insensitively).
std::vector<int> naive(const std::vector<std::string>& literals, const std::string& text, std::size_t prefix) {
  auto lower = [](std::string s) {
    for (auto& c : s)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return s;
  };
  std::string t = lower(text);
  std::vector<int> out;
  for (std::size_t i = 0; i < literals.size(); ++i)
    if (t.find(lower(literals[i].substr(0, prefix))) != std::string::npos) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace

TEST_CASE("literal matcher: occurrences at the start, the end and across every lane cut of a long text") {
  const std::vector<std::string> literals{"ignore", "previous", "ab", "xyz", "qq"};
  literal_matcher matcher(literals);
  for (std::size_t n : {1024u, 2048u, 2049u, 2051u, 4096u, 4099u, 16384u}) {
    const std::size_t part = n / 8;
    std::vector<std::size_t> spots{0, n - 6};
    for (std::size_t cut : {part, 2 * part, 3 * part, 4 * part, 7 * part})
      for (std::size_t back = 0; back <= 6; ++back) spots.push_back(cut - back);
    for (std::size_t at : spots) {
      std::string text(n, '.');
      text.replace(at, 6, "IGNORE");
      auto found = matcher.find_all(text);
      INFO("n=" << n << " at=" << at);
      CHECK(found == std::vector<int>{0});
    }
  }
}

TEST_CASE("literal matcher: random texts agree with a naive search") {
  std::mt19937 rng(7);
  const std::string alphabet = "abcqxyzAB .";
  std::vector<std::string> literals{"ab", "abc", "bca", "qxyz", "zzzzzz", "yab", "c.a", "Ba", "xq"};
  literal_matcher matcher(literals);
  for (int round = 0; round < 300; ++round) {
    std::size_t n = round < 150 ? rng() % 64 : 1024 + rng() % 6000;
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    // Sparse texts: most literals absent, so a missed occurrence shows.
    if (round % 2)
      for (auto& c : text)
        if (rng() % 8) c = '.';
    INFO("round " << round);
    CHECK(matcher.find_all(text) == naive(literals, text, 5));
  }
}
