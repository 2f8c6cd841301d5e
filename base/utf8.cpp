#include "base/utf8.hpp"

#include "base/byte_scan.hpp"

namespace warden::base {

char32_t decode_utf8_long(std::string_view s, std::size_t& pos) noexcept {
  const auto n = s.size();
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  auto cont = [&](std::size_t k) -> int {
    if (pos + k >= n) return -1;
    auto b = static_cast<unsigned char>(s[pos + k]);
    return (b & 0xC0) == 0x80 ? (b & 0x3F) : -1;
  };
  char32_t cp = 0;
  std::size_t len = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    int c1 = cont(1);
    if (c1 < 0) {
      ++pos;
      return invalid_code_point;
    }
    cp = (char32_t(b0 & 0x1F) << 6) | char32_t(c1);
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    int c1 = cont(1), c2 = cont(2);
    if (c1 < 0 || c2 < 0) {
      ++pos;
      return invalid_code_point;
    }
    cp = (char32_t(b0 & 0x0F) << 12) | (char32_t(c1) << 6) | char32_t(c2);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) {
      ++pos;
      return invalid_code_point;
    }
    len = 3;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    int c1 = cont(1), c2 = cont(2), c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) {
      ++pos;
      return invalid_code_point;
    }
    cp = (char32_t(b0 & 0x07) << 18) | (char32_t(c1) << 12) | (char32_t(c2) << 6) | char32_t(c3);
    if (cp < 0x10000 || cp > 0x10FFFF) {
      ++pos;
      return invalid_code_point;
    }
    len = 4;
  } else {
    ++pos;
    return invalid_code_point;
  }
  pos += len;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp <= 0x10FFFF) {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_ascii(std::string_view s) noexcept {
  // The common case is long plain-ASCII text: 64 bytes a step (any high bit in four blocks),
  // then eight at a time.
  std::size_t i = 0;
  const auto n = s.size();
  for (; i + 64 <= n; i += 64) {
    const char* p = s.data() + i;
    if (non_ascii16(load16(p) | load16(p + 16) | load16(p + 32) | load16(p + 48))) return false;
  }
  for (; i + 8 <= n; i += 8)
    if (load8(s.data() + i) & high_bits) return false;
  for (; i < n; ++i)
    if (static_cast<unsigned char>(s[i]) & 0x80) return false;
  return true;
}

bool is_valid_utf8(std::string_view s) noexcept {
  if (is_ascii(s)) return true;
  for (std::size_t i = 0; i < s.size();)
    if (decode_utf8(s, i) == invalid_code_point) return false;
  return true;
}

namespace {

// How many bytes an ill-formed sequence starting at `i` spans: its maximal subpart (the longest
// prefix of a well-formed sequence), so that one U+FFFD replaces it.
std::size_t ill_formed_span(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0xC2 || b0 > 0xF4) return 1;
  const std::size_t expected = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3
                                                           : 2;
  std::size_t n = 1;
  for (; n < expected && i + n < s.size(); ++n) {
    const auto b = static_cast<unsigned char>(s[i + n]);
    unsigned char lo = 0x80, hi = 0xBF;
    if (n == 1) {
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    }
    if (b < lo || b > hi) break;
  }
  return n;
}

}  // namespace

std::string replace_invalid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t n = utf8_sequence_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += ill_formed_span(s, i);
    }
  }
  return out;
}

}  // namespace warden::base
