#include "policy/glob.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "base/utf8.hpp"

namespace warden::policy {

namespace {

// One step of a pattern, read where it lies (matching allocates nothing for ordinary texts).
struct token {
  enum class kind { literal,
                    any_one,
                    star,
                    globstar,
                    set } what = kind::literal;
  char ch = 0;
  std::string_view set;  // for sets: the raw class body (ranges expanded at match time)
  bool negated = false;
};

// Reads the token at pattern[i] and moves i past it; on an error returns false and fills `problem`.
bool next_token(std::string_view pattern, std::size_t& i, token& t, std::string* problem) {
  t = token{};
  const char c = pattern[i];
  if (c == '\\') {
    if (i + 1 >= pattern.size()) {
      if (problem) *problem = "trailing '\\' in glob";
      return false;
    }
    t.ch = pattern[i + 1];
    i += 2;
    return true;
  }
  if (c == '*') {
    t.what = token::kind::star;
    for (++i; i < pattern.size() && pattern[i] == '*'; ++i) t.what = token::kind::globstar;
    return true;
  }
  if (c == '?') {
    t.what = token::kind::any_one;
    ++i;
    return true;
  }
  if (c == '[') {
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
    t.set = pattern.substr(body, j - body);
    i = j + 1;
    return true;
  }
  t.ch = c;
  ++i;
  return true;
}

bool in_set(const token& t, char c) {
  bool hit = false;
  const std::string_view s = t.set;
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

// A byte that may start or end something other than a plain literal.
bool special(char c) { return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\'; }

// reachable[j]: the tokens read so far can match text[0..j). One row per token: O(tokens * text).
bool match_tokens(std::string_view pattern, std::string_view text, char* reachable, char* next) {
  std::fill(reachable, reachable + text.size() + 1, 0);
  reachable[0] = 1;
  token t;
  for (std::size_t i = 0; i < pattern.size();) {
    if (!next_token(pattern, i, t, nullptr)) return false;  // a malformed glob matches nothing
    std::fill(next, next + text.size() + 1, 0);
    bool any = false;
    switch (t.what) {
      case token::kind::star:
      case token::kind::globstar: {
        bool carry = false;
        for (std::size_t j = 0; j <= text.size(); ++j) {
          if (reachable[j]) carry = true;
          if (carry) next[j] = 1, any = true;
          if (j < text.size() && t.what == token::kind::star && text[j] == '/') carry = false;
        }
        break;
      }
      default:
        for (std::size_t j = 0; j < text.size(); ++j) {
          if (!reachable[j]) continue;
          const char c = text[j];
          const bool ok = t.what == token::kind::literal   ? c == t.ch
                          : t.what == token::kind::any_one ? c != '/'
                                                           : in_set(t, c);
          if (ok) next[j + 1] = 1, any = true;
        }
    }
    if (!any) return false;  // nothing can match any more
    std::swap(reachable, next);
  }
  return reachable[text.size()] != 0;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  // Plain literals at either end of the pattern (most tool names, path prefixes such as
  // "/srv/data/") are compared in place; the middle is matched against the middle of the text.
  std::size_t head = 0;
  while (head < pattern.size() && !special(pattern[head])) ++head;
  if (head == pattern.size()) return pattern == text;
  std::size_t tail = 0;
  while (tail < pattern.size() - head && !special(pattern[pattern.size() - 1 - tail])) ++tail;
  if (tail > 0 && pattern[pattern.size() - 1 - tail] == '\\') --tail;  // that byte is escaped
  if (text.size() < head + tail || text.substr(0, head) != pattern.substr(0, head) ||
      text.substr(text.size() - tail) != pattern.substr(pattern.size() - tail))
    return false;
  pattern = pattern.substr(head, pattern.size() - head - tail);
  text = text.substr(head, text.size() - head - tail);
  if (pattern == "*") return text.find('/') == std::string_view::npos;
  if (pattern.find_first_not_of('*') == std::string_view::npos) return true;  // "**": anything
  try {
    // One row per token over the text: on the stack for texts of ordinary length.
    constexpr std::size_t on_stack = 512;
    if (text.size() < on_stack) {
      char rows[2][on_stack];
      return match_tokens(pattern, text, rows[0], rows[1]);
    }
    std::vector<char> rows(2 * (text.size() + 1));
    return match_tokens(pattern, text, rows.data(), rows.data() + text.size() + 1);
  } catch (...) {
    return false;  // allocation failure: a glob that cannot be evaluated does not match
  }
}

std::string glob_error(std::string_view pattern) {
  std::string problem;
  token t;
  for (std::size_t i = 0; i < pattern.size();)
    if (!next_token(pattern, i, t, &problem)) break;
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
        const int hi = base::hex_digit(raw[i + 1]), lo = base::hex_digit(raw[i + 2]);
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

namespace {

// realpath(3) of an absolute path, or nullopt (errno says why).
std::optional<std::string> real_path(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return std::nullopt;
  std::string out(real);
  std::free(real);
  return out;
}

// The target of the symlink at `path`, or nullopt when it is not one.
std::optional<std::string> link_target(const std::string& path) {
  std::error_code ec;
  std::string target = std::filesystem::read_symlink(path, ec).string();
  if (ec) return std::nullopt;
  return target;
}

// Dot segments and repeated '/' of an absolute path removed, without a trailing '/'.
std::string lexically_clean(const std::string& path) {
  std::string out = std::filesystem::path(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

std::string resolve_symlinks(const std::string& normalized) {
  if (normalized.empty() || normalized.front() != '/') return normalized;
  // An existing path resolves in one realpath(3). One that does not exist yet (a file about to
  // be written) resolves its longest existing directory; when the first missing component is a
  // dangling symlink, the link's target takes its place: writing through the link creates that
  // target. As many hops as the kernel follows before ELOOP.
  std::string path = normalized;
  for (int hops = 0; hops < 40; ++hops) {
    if (auto real = real_path(path)) return *real;
    if (errno != ENOENT) break;
    std::optional<std::string> directory;
    std::size_t slash = path.size();
    while (!directory && slash > 0) {
      slash = path.rfind('/', slash - 1);
      directory = real_path(slash == 0 ? std::string("/") : path.substr(0, slash));
      if (!directory && errno != ENOENT) break;
    }
    if (!directory) break;
    const std::string base = *directory == "/" ? "" : *directory;
    const std::string rest = path.substr(slash + 1);  // not empty: path itself does not exist
    const auto first_end = rest.find('/');
    const std::string missing = base + "/" + rest.substr(0, first_end);
    const auto target = link_target(missing);
    // A missing directory: nothing below it is a link yet, and a ".." after it would fail in the
    // kernel (read lexically here, which can only keep the path inside where it was written).
    if (!target) return lexically_clean(base + "/" + rest);
    // The target as written: its ".." is left to realpath, which resolves it after the links
    // before it, as the kernel does (read lexically, "sub/../x" behind a linked sub would land
    // elsewhere).
    const std::string after = first_end == std::string::npos ? "" : rest.substr(first_end);
    path = (!target->empty() && target->front() == '/' ? *target : base + "/" + *target) + after;
  }
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ec);
  if (ec || resolved.empty()) return lexically_clean(path);
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

}  // namespace warden::policy
