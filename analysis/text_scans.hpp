// Scans of untrusted text for what hides in it: encoded payloads (base64, hex), spaced-out and
// leetspeak spellings, suspicious URLs, identifier tokens. Internal to analysis/injection*.cpp.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.hpp"

namespace warden::analysis::injection_internal {

constexpr bool ascii_alpha(char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }
constexpr bool ascii_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
constexpr bool ascii_alnum(char c) { return ascii_alpha(c) || ascii_digit(c); }

// An encoded run of the raw text, [begin, end), and what it decodes to.
struct blob {
  std::size_t begin, end;
  std::string decoded;
  const char* encoding;
};

// Base64 and hex runs that decode to printable text (at most 8).
std::vector<blob> find_encoded_blobs(std::string_view raw);

struct url_hit {
  std::size_t begin, end;
  severity level;
  double confidence;
  std::string why;
};

// URLs to raw IP addresses, request catchers, tunnels, paste services, shorteners or punycode
// hosts (at most 8).
std::vector<url_hit> find_suspicious_urls(std::string_view raw);

// Identifier-like tokens of the normalised text (snake_case, dotted, or quoted names).
std::set<std::string> identifier_tokens(std::string_view s);

}  // namespace warden::analysis::injection_internal
