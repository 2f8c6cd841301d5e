#include "policy/glob.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>
#include <fstream>

using namespace warden::policy;

TEST_CASE("glob: * stays inside one path segment, ** crosses segments; classes, negation and escapes") {
  // Pattern, text, and whether the one matches the other.
  struct row {
    std::string_view pattern, text;
    bool matches;
  };
  const row rows[] = {
      {"read_*", "read_file", true},
      {"read_*", "write_file", false},
      {"/srv/*", "/srv/a", true},
      {"/srv/*", "/srv/a/b", false},
      {"/srv/**", "/srv/a/b/c", true},
      {"**/.ssh/**", "/home/u/.ssh/id_rsa", true},
      {"*", "", true},
      {"?", "", false},
      {"file?.txt", "file1.txt", true},
      {"v[0-9]", "v7", true},
      {"v[!0-9]", "v7", false},
      {"a\\*b", "a*b", true},
      {"a\\*b", "axb", false},
  };
  for (const row& r : rows) {
    CAPTURE(r.pattern);
    CAPTURE(r.text);
    CHECK(glob_match(r.pattern, r.text) == r.matches);
  }
  CHECK(glob_error("[abc") == "unterminated '[' in glob");
  CHECK(glob_error("abc\\") == "trailing '\\' in glob");
  CHECK(glob_error("a*[b]") == "");
}

namespace {
// The glob rules read again, by plain recursion (exponential, fine for short strings): an oracle
// for the matcher, which compares literal ends in place and runs its token rows on the stack.
bool oracle(std::string_view p, std::string_view t) {
  if (p.empty()) return t.empty();
  if (p[0] == '*') {
    std::size_t stars = 0;
    while (stars < p.size() && p[stars] == '*') ++stars;
    for (std::size_t n = 0; n <= t.size(); ++n) {
      if (oracle(p.substr(stars), t.substr(n))) return true;
      if (n < t.size() && stars == 1 && t[n] == '/') return false;  // one star stays in its segment
    }
    return false;
  }
  if (p[0] == '\\') return p.size() > 1 && !t.empty() && t[0] == p[1] && oracle(p.substr(2), t.substr(1));
  if (p[0] == '[') {
    std::size_t j = 1;
    const bool negated = j < p.size() && (p[j] == '!' || p[j] == '^');
    if (negated) ++j;
    const std::size_t body = j;
    if (j < p.size() && p[j] == ']') ++j;
    while (j < p.size() && p[j] != ']') ++j;
    if (j >= p.size() || t.empty()) return false;
    const std::string_view set = p.substr(body, j - body);
    bool hit = false;
    for (std::size_t k = 0; k < set.size(); ++k) {
      if (k + 2 < set.size() && set[k + 1] == '-') {
        hit = hit || (t[0] >= set[k] && t[0] <= set[k + 2]);
        k += 2;
      } else {
        hit = hit || t[0] == set[k];
      }
    }
    return hit != negated && oracle(p.substr(j + 1), t.substr(1));
  }
  if (t.empty()) return false;
  if (p[0] == '?') return t[0] != '/' && oracle(p.substr(1), t.substr(1));
  return p[0] == t[0] && oracle(p.substr(1), t.substr(1));
}
}  // namespace

TEST_CASE("glob: the matcher agrees with a plain reading of the rules on random patterns and texts") {
  std::uint64_t state = 0x2545F4914F6CDD1Dull;
  const auto next = [&](std::size_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<std::size_t>(state % n);
  };
  const std::string_view pattern_bytes = "ab/**?[]!-\\.", text_bytes = "ab/.*-]";
  int matched = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string pattern, text;
    for (std::size_t n = next(9); n > 0; --n) pattern += pattern_bytes[next(pattern_bytes.size())];
    for (std::size_t n = next(11); n > 0; --n) text += text_bytes[next(text_bytes.size())];
    if (round % 1000 == 0) text = std::string(600, 'a') + text;  // rows too long for the stack
    const bool expected = glob_error(pattern).empty() && oracle(pattern, text);
    matched += expected;
    if (glob_match(pattern, text) != expected) {
      CAPTURE(pattern);
      CAPTURE(text);
      CHECK(glob_match(pattern, text) == expected);
    }
  }
  CHECK(matched > 5000);  // the draw exercises matches, not only misses
}

TEST_CASE("glob: pathological patterns stay fast") {
  const std::string text(5000, 'a');
  CHECK_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*b", text));
}

TEST_CASE("path normalisation resolves dot segments before any check") {
  CHECK(normalize_path("/srv/data/../../etc/passwd", "/home/u").value() == "/etc/passwd");
  CHECK(normalize_path("/../../etc", "/h").value() == "/etc");
  CHECK(normalize_path("//srv///a/./b/", "/h").value() == "/srv/a/b");
  CHECK(normalize_path("~/.ssh/id_rsa", "/home/u").value() == "/home/u/.ssh/id_rsa");
  CHECK(normalize_path("a/../../b", "/h").value() == "../b");
  CHECK(normalize_path("file:///srv/a%2F..%2F..%2Fetc", "/h").value() == "/etc");
  CHECK(normalize_path("C:\\srv\\..\\x", "/h").value() == "C:/x");
  CHECK_FALSE(normalize_path(std::string_view("/srv/a\0b", 8), "/h"));
  CHECK_FALSE(normalize_path("file://evil.example/etc", "/h"));
}

TEST_CASE("URL hosts are lower-cased and userinfo tricks do not fool the check") {
  // A URL and its host; none for what is not an http(s) URL.
  const std::pair<std::string_view, std::optional<std::string>> rows[] = {
      {"https://API.Example.com:8443/x?y", "api.example.com"},
      {"https://good.example@evil.example/", "evil.example"},
      {"https://evil.example\\@good.example/", "evil.example"},
      {"http://[::1]:80/", "[::1]"},
      {"https://example.com./", "example.com"},
      {"not a url", std::nullopt},
      {"mailto:a@b", std::nullopt},
  };
  for (const auto& [url, host] : rows) {
    CAPTURE(url);
    CHECK(url_host(url) == host);
  }
}

TEST_CASE("resolve_symlinks: links are followed, a dangling one at the end of the path too") {
  char pattern[] = "/tmp/warden-links-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  const std::string base = std::filesystem::canonical(pattern).string();
  namespace fs = std::filesystem;
  fs::create_directories(base + "/secret/deep");
  fs::create_directories(base + "/open");
  std::ofstream(base + "/secret/key.pem") << "k";
  fs::create_directory_symlink(base + "/secret", base + "/open/dir-link");  // absolute target
  fs::create_symlink("../secret/key.pem", base + "/open/file-link");        // relative target
  fs::create_symlink(base + "/secret/new.txt", base + "/open/dangling");    // target does not exist yet
  fs::create_symlink("chained", base + "/open/hop");                        // dangling -> dangling -> ...
  fs::create_symlink("../secret/deep/made.txt", base + "/open/chained");
  fs::create_symlink("loop-b", base + "/open/loop-a");
  fs::create_symlink("loop-a", base + "/open/loop-b");
  fs::create_symlink(base + "/missing/dir/x", base + "/open/far");           // target's directory missing
  fs::create_directory_symlink(base + "/secret/later", base + "/open/mid");  // a directory not made yet
  fs::create_directory_symlink(base + "/secret/deep", base + "/open/inner");
  fs::create_symlink("inner/../planted", base + "/open/dotted");  // ".." after a linked directory

  CHECK(resolve_symlinks(base + "/open/dir-link/key.pem") == base + "/secret/key.pem");
  CHECK(resolve_symlinks(base + "/open/file-link") == base + "/secret/key.pem");
  CHECK(resolve_symlinks(base + "/open/dir-link/new.pem") == base + "/secret/new.pem");  // directory resolved
  CHECK(resolve_symlinks(base + "/open/dangling") == base + "/secret/new.txt");
  CHECK(resolve_symlinks(base + "/open/hop") == base + "/secret/deep/made.txt");
  CHECK(resolve_symlinks(base + "/open/far") == base + "/missing/dir/x");
  CHECK(resolve_symlinks(base + "/open/mid/sub/file") == base + "/secret/later/sub/file");
  CHECK(resolve_symlinks(base + "/open/dotted") == base + "/secret/planted");  // as the kernel reads it
  CHECK(resolve_symlinks(base + "/open/no/../x") == base + "/open/x");
  CHECK(resolve_symlinks(base + "/open/plain.txt") == base + "/open/plain.txt");
  CHECK(resolve_symlinks(base + "/open/no/such/file") == base + "/open/no/such/file");
  const std::string looped = resolve_symlinks(base + "/open/loop-a");  // ends, whatever it says
  CHECK(looped.rfind(base + "/open/loop-", 0) == 0);
  CHECK(resolve_symlinks("relative/path") == "relative/path");
  CHECK(resolve_symlinks("/") == "/");
  fs::remove_all(base);
}
