#pragma once
// Just enough JSON for the benchmark peers: find a member of the top-level object of one line
// without building a document, so that the peers cost next to nothing per message.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warden::bench {

// Skips one JSON string starting at s[i] == '"'; returns the index after its closing quote.
inline std::size_t skip_string(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '"') return i + 1;
  }
  return s.size();
}

// Skips one JSON value starting at s[i] (after whitespace); returns the index after it.
inline std::size_t skip_value(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size()) return i;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return i;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
  return i;
}

// Raw text of the member `key` of the object `s` (top level only), e.g. `"abc"` or `42`.
inline std::optional<std::string_view> member(std::string_view s, std::string_view key) {
  std::size_t i = s.find('{');
  if (i == std::string_view::npos) return std::nullopt;
  ++i;
  while (i < s.size()) {
    while (i < s.size() && s[i] != '"' && s[i] != '}') ++i;
    if (i >= s.size() || s[i] == '}') return std::nullopt;
    const std::size_t name_end = skip_string(s, i);
    const std::string_view name = s.substr(i + 1, name_end - i - 2);
    i = name_end;
    while (i < s.size() && s[i] != ':') ++i;
    ++i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t value_end = skip_value(s, i);
    if (name == key) return s.substr(i, value_end - i);
    i = value_end;
    while (i < s.size() && s[i] != ',' && s[i] != '}') ++i;
    if (i < s.size() && s[i] == '}') return std::nullopt;
    ++i;
  }
  return std::nullopt;
}

// The contents of a JSON string token, escapes left as they are.
inline std::string_view string_body(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') return token.substr(1, token.size() - 2);
  return token;
}

inline std::optional<std::int64_t> to_int(std::string_view token) {
  if (token.empty()) return std::nullopt;
  std::int64_t value = 0;
  bool negative = false;
  std::size_t i = 0;
  if (token[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i >= token.size()) return std::nullopt;
  for (; i < token.size(); ++i) {
    if (token[i] < '0' || token[i] > '9') return std::nullopt;
    value = value * 10 + (token[i] - '0');
  }
  return negative ? -value : value;
}

}  // namespace warden::bench
