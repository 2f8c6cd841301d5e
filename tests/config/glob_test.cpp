#include "config/glob.hpp"

#include <doctest/doctest.h>

using namespace warden::config;

TEST_CASE("glob: * stays inside one path segment, ** crosses segments") {
  CHECK(glob_match("read_*", "read_file"));
  CHECK_FALSE(glob_match("read_*", "write_file"));
  CHECK(glob_match("/srv/*", "/srv/a"));
  CHECK_FALSE(glob_match("/srv/*", "/srv/a/b"));
  CHECK(glob_match("/srv/**", "/srv/a/b/c"));
  CHECK(glob_match("**/.ssh/**", "/home/u/.ssh/id_rsa"));
  CHECK(glob_match("*", ""));
  CHECK_FALSE(glob_match("?", ""));
  CHECK(glob_match("file?.txt", "file1.txt"));
}

TEST_CASE("glob: classes, negation and escapes") {
  CHECK(glob_match("v[0-9]", "v7"));
  CHECK_FALSE(glob_match("v[!0-9]", "v7"));
  CHECK(glob_match("a\\*b", "a*b"));
  CHECK_FALSE(glob_match("a\\*b", "axb"));
  CHECK(glob_error("[abc") == "unterminated '[' in glob");
  CHECK(glob_error("abc\\") == "trailing '\\' in glob");
  CHECK(glob_error("a*[b]") == "");
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
  CHECK(url_host("https://API.Example.com:8443/x?y").value() == "api.example.com");
  CHECK(url_host("https://good.example@evil.example/").value() == "evil.example");
  CHECK(url_host("https://evil.example\\@good.example/").value() == "evil.example");
  CHECK(url_host("http://[::1]:80/").value() == "[::1]");
  CHECK(url_host("https://example.com./").value() == "example.com");
  CHECK_FALSE(url_host("not a url"));
  CHECK_FALSE(url_host("mailto:a@b"));
}
