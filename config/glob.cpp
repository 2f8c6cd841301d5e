#include "config/glob.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "analysis/text.hpp"

namespace warden::config {

namespace {

// One step of a compiled pattern.
struct token {
  enum class kind { literal, any_one, star, globstar, set } what = kind::literal;
  char ch = 0;
  std::string set;  // for sets: the raw class body (ranges expanded at match time)
  bool negated = false;
};

// Parses `pattern`; on error returns false and fills `problem`.
bool compile(std::string_view pattern, std::vector<token>& out, std::string* problem) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    token t;
    if (c == '\\') {
      if (i + 1 >= pattern.size()) {
        if (problem) *problem = "trailing '\\' in glob";
        return false;
      }
      t.ch = pattern[++i];
    } else if (c == '*') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '*') {
        while (i + 1 < pattern.size() && pattern[i + 1] == '*') ++i;
        t.what = token::kind::globstar;
      } else {
        t.what = token::kind::star;
      }
    } else if (c == '?') {
      t.what = token::kind::any_one;
    } else if (c == '[') {
      std::size_t j = i + 1;
      t.what = token::kind::set;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) {
        t.negated = true;
        ++j;
      }
      const std::size_t body = j;
      if (j < pattern.size() && pattern[j] == ']') ++j;  // a leading ']' is literal
      while (j < pattern.size() && pattern[j] != ']') ++j;
      if (j >= pattern.size()) {
        if (problem) *problem = "unterminated '[' in glob";
        return false;
      }
      t.set = std::string(pattern.substr(body, j - body));
      i = j;
    } else {
      t.ch = c;
    }
    out.push_back(std::move(t));
  }
  return true;
}

bool in_set(const token& t, char c) {
  bool hit = false;
  const std::string& s = t.set;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (k + 2 < s.size() && s[k + 1] == '-') {
      if (c >= s[k] && c <= s[k + 2]) hit = true;
      k += 2;
    } else if (s[k] == c) {
      hit = true;
    }
  }
  return hit != t.negated;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  try {
    std::vector<token> tokens;
    if (!compile(pattern, tokens, nullptr)) return false;
    // reachable[j]: tokens[0..i) can match text[0..j). One row per token: O(tokens * text).
    std::vector<char> reachable(text.size() + 1, 0), next(text.size() + 1, 0);
    reachable[0] = 1;
    for (const token& t : tokens) {
      std::fill(next.begin(), next.end(), 0);
      switch (t.what) {
        case token::kind::star:
        case token::kind::globstar: {
          bool carry = false;
          for (std::size_t j = 0; j <= text.size(); ++j) {
            if (reachable[j]) carry = true;
            if (carry) next[j] = 1;
            if (j < text.size() && t.what == token::kind::star && text[j] == '/') carry = false;
          }
          break;
        }
        default:
          for (std::size_t j = 0; j < text.size(); ++j) {
            if (!reachable[j]) continue;
            const char c = text[j];
            const bool ok = t.what == token::kind::literal ? c == t.ch
                            : t.what == token::kind::any_one ? c != '/'
                                                             : in_set(t, c);
            if (ok) next[j + 1] = 1;
          }
      }
      reachable.swap(next);
    }
    return reachable[text.size()] != 0;
  } catch (...) {
    return false;  // allocation failure: a glob that cannot be evaluated does not match
  }
}

std::string glob_error(std::string_view pattern) {
  std::vector<token> tokens;
  std::string problem;
  compile(pattern, tokens, &problem);
  return problem;
}


std::optional<std::string> normalize_path(std::string_view raw, std::string_view home) {
  std::string path;
  if (raw.substr(0, 7) == "file://") {
    raw.remove_prefix(7);
    if (!raw.empty() && raw.front() != '/') {  // file://host/path: drop the host part
      const auto slash = raw.find('/');
      if (slash == std::string_view::npos) return std::nullopt;
      const std::string_view host = raw.substr(0, slash);
      if (host != "localhost") return std::nullopt;
      raw.remove_prefix(slash);
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%') {
        if (i + 2 >= raw.size()) return std::nullopt;
        const int hi = analysis::text::hex_digit(raw[i + 1]), lo = analysis::text::hex_digit(raw[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        path.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
      } else {
        path.push_back(raw[i]);
      }
    }
  } else {
    path.assign(raw);
  }
  if (path.find('\0') != std::string::npos) return std::nullopt;
  std::replace(path.begin(), path.end(), '\\', '/');
  if (path == "~" || path.rfind("~/", 0) == 0) path = std::string(home) + path.substr(1);

  const bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  std::string_view rest = path;
  while (!rest.empty()) {
    const auto slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (!absolute) parts.push_back(part);
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  if (out.empty()) out = ".";
  return out;
}

std::string resolve_symlinks(const std::string& normalized) {
  if (normalized.empty() || normalized.front() != '/') return normalized;
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(normalized, ec);
  if (ec || resolved.empty()) return normalized;
  return resolved.string();
}

std::optional<std::string> url_host(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::nullopt;
  for (std::size_t i = 0; i < scheme_end; ++i) {
    const char c = url[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.')) return std::nullopt;
  }
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#\\"));  // browsers read "\\" as "/"
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  std::string_view host;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, close + 1);
  } else {
    host = rest.substr(0, rest.find(':'));
  }
  if (host.empty()) return std::nullopt;
  std::string lowered(host);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!lowered.empty() && lowered.back() == '.') lowered.pop_back();  // "example.com." is example.com
  if (lowered.empty()) return std::nullopt;
  return lowered;
}

}  // namespace warden::config
