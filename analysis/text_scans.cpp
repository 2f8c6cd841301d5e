#include "analysis/text_scans.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>

#include "analysis/injection.hpp"
#include "analysis/text.hpp"
#include "base/byte_scan.hpp"

namespace warden::analysis {

using base::and_not, base::ascii_letter16, base::ascii_word16, base::between16, base::block16, base::equal16, base::load16,
    base::mask16;
using injection_internal::ascii_alpha, injection_internal::ascii_digit, injection_internal::ascii_alnum;

namespace {

// ---- encoded payloads --------------------------------------------------------------------------

constexpr std::array<signed char, 256> b64_table = [] {
  std::array<signed char, 256> t{};
  for (auto& v : t) v = -1;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'A');
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'a' + 26);
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0' + 52);
  t['+'] = t['-'] = 62;
  t['/'] = t['_'] = 63;
  return t;
}();

inline int b64_value(unsigned char c) { return b64_table[c]; }

// ---- obfuscation cues (alternative views) ------------------------------------------------------

// Byte classes for the cue counters: 1 letter, 2 letter or digit, 4 separator of spaced-out
// letters, 8 digit used as a letter in leetspeak, 16 other digit.
constexpr std::array<std::uint8_t, 256> cue_class = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    if (ascii_alpha(ch)) t[static_cast<std::size_t>(c)] |= 1 | 2;
    if (ascii_digit(ch)) t[static_cast<std::size_t>(c)] |= 2 | ((ch == '0' || ch == '1' || ch == '3' || ch == '4' || ch == '5' || ch == '7') ? 8 : 16);
  }
  t[' '] |= 4;
  t['.'] |= 4;
  t['-'] |= 4;
  return t;
}();

}  // namespace

namespace detail {

// Positions i where a lone letter, one separator and another lone letter start ("s e n d"):
// letter at i and i + 2, separator at i + 1, no letter or digit at i - 1 or i + 3, and the pair
// part of a chain of three or more lone letters. A pair alone is ordinary prose ("à l'été" is
// "a l'ete" once normalised, in nearly every French paragraph) and built a joined view, a second
// full pattern pass, for most chunks of such text.
std::size_t count_spaced_letters(std::string_view view) {
  const auto* v = reinterpret_cast<const unsigned char*>(view.data());
  const std::size_t n = view.size();
  if (n < 3) return 0;
  // pair(i): a lone-letter pair starts at i (bytes outside the text count as class 0).
  auto class_at = [&](std::size_t i) -> unsigned { return i < n ? cue_class[v[i]] : 0; };
  auto pair = [&](std::size_t i) -> bool {
    const unsigned before = i == 0 ? 0 : cue_class[v[i - 1]];
    return class_at(i) & (class_at(i + 1) >> 2) & class_at(i + 2) & ~(before >> 1) & ~(class_at(i + 3) >> 1) & 1u;
  };
  // The pairs of 64 positions from `base` as bits. Prose has a pair in few blocks, but testing a
  // separator's neighbours one by one is a per-byte cost that shows in every result scan.
  auto pairs_at = [&](std::size_t base) -> std::uint64_t {
    std::uint64_t bits = 0;
    if (base >= 1 && base + 64 + 3 <= n) {
      const auto load = [&](std::size_t at) { return load16(view.data() + at); };
      for (std::size_t k = 0; k < 64; k += 16) {
        const std::size_t at = base + k;
        const block16 next = load(at + 1);
        const block16 separators = equal16(next, ' ') | equal16(next, '.') | equal16(next, '-');
        // A one-letter word before a separator first: rare in prose ("a", "I").
        const block16 single = and_not(ascii_letter16(load(at)) & separators, ascii_word16(load(at - 1)));
        if (mask16(single) == 0) continue;
        const block16 pairs = and_not(single & ascii_letter16(load(at + 2)), ascii_word16(load(at + 3)));
        bits |= static_cast<std::uint64_t>(mask16(pairs)) << k;
      }
      return bits;
    }
    // Short texts and the ends of long ones: only where a separator follows (most bytes fail that).
    for (std::size_t k = 0; k < 64 && base + k + 2 < n; ++k)
      if ((cue_class[v[base + k + 1]] & 4) && pair(base + k)) bits |= std::uint64_t{1} << k;
    return bits;
  };
  // A pair counts when it is part of a chain of three or more lone letters: a pair two before or
  // two after it.
  std::size_t count = 0;
  std::uint64_t previous = 0, current = pairs_at(0);
  for (std::size_t base = 0; base < n; base += 64) {
    const std::uint64_t next = base + 64 < n ? pairs_at(base + 64) : 0;
    if (current) {
      const std::uint64_t chained = current & ((current >> 2) | (next << 62) | (current << 2) | (previous >> 62));
      count += static_cast<std::size_t>(std::popcount(chained));
    }
    previous = current;
    current = next;
  }
  return count;
}

// Words (runs of letters, digits and '_', starting at a letter or digit) of three bytes or more
// that mix letters with 0 1 3 4 5 7 and hold no other digit. Only words with a digit can count, and
// prose has few: the scan jumps from digit to digit (eight bytes at a time) and reads their words.
std::size_t count_leet_words(std::string_view view) {
  const auto* v = reinterpret_cast<const unsigned char*>(view.data());
  const std::size_t n = view.size();
  auto word_byte = [&](std::size_t k) { return (cue_class[v[k]] & 2) || v[k] == '_'; };
  std::size_t count = 0, i = 0;
  while (i < n) {
    if (i + 16 <= n) {  // sixteen bytes a step: the next digit, if any
      const unsigned digits = mask16(between16(load16(view.data() + i), '0', '9'));
      if (!digits) {
        i += 16;
        continue;
      }
      i += static_cast<std::size_t>(std::countr_zero(digits));
    } else if (i + 8 <= n) {  // eight at a time where sixteen cannot be read
      // Digits among the ASCII bytes (non-ASCII bytes are masked out first: their low seven bits
      // could look like digits).
      const std::uint64_t w = text::load8(view.data() + i);
      const std::uint64_t digits = text::bytes_between(w & ~text::high_bits, '0', '9') & ~w & text::high_bits;
      if (!digits) {
        i += 8;
        continue;
      }
      i += static_cast<std::size_t>(__builtin_ctzll(digits)) / 8;
    }
    if (!(cue_class[v[i]] & (8 | 16))) {
      ++i;
      continue;
    }
    // A digit: find its run of word bytes; the word starts at the run's first letter or digit.
    std::size_t start = i, end = i;
    while (start > 0 && word_byte(start - 1)) --start;
    while (start < i && v[start] == '_') ++start;
    while (end < n && word_byte(end)) ++end;
    bool letter = false, leet = false, other_digit = false;
    for (std::size_t k = start; k < end; ++k) {
      const auto c = cue_class[v[k]];
      letter |= (c & 1) != 0;
      leet |= (c & 8) != 0;
      other_digit |= (c & 16) != 0;
    }
    if (letter && leet && !other_digit && end - start >= 3) ++count;
    i = end;
  }
  return count;
}

}  // namespace detail

}  // namespace warden::analysis

namespace warden::analysis::injection_internal {

namespace {

using detail::count_leet_words, detail::count_spaced_letters;

using detail::count_leet_words, detail::count_spaced_letters;

// Lenient on purpose (not analysis/digest.hpp's strict decoder): a payload hidden in untrusted
// text may lack padding, use the URL-safe letters or be cut short, and is decoded all the same.
std::string base64_decode(std::string_view s) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : s) {
    if (c == '=') break;
    int v = b64_value(c);
    if (v < 0) return {};
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

bool mostly_printable_text(std::string_view s) {
  if (s.size() < 12 || !text::is_valid_utf8(s)) return false;
  std::size_t good = 0, letters = 0, spaces = 0;
  for (unsigned char c : s) {
    if ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t' || c >= 0x80) ++good;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ++letters;
    if (c == ' ' || c == '/' || c == '.' || c == '_') ++spaces;
  }
  return good * 100 >= s.size() * 95 && letters * 3 >= s.size() && spaces > 0;
}

}  // namespace

namespace {

// The next maximal run of base64 bytes of at least 32 bytes starting at or after `from` (which is
// not inside a run): [begin, end), or begin == npos. A run of 32 or more covers two positions 16
// apart on any grid whose steps are at most 16, so the scan samples one byte in 16 and only looks
// closer where a sample and the byte 16 further are both base64.
std::pair<std::size_t, std::size_t> next_long_b64_run(std::string_view raw, std::size_t from) {
  const auto n = raw.size();
  auto b64 = [&](std::size_t k) { return b64_value(static_cast<unsigned char>(raw[k])) >= 0; };
  std::size_t p = from;
  while (p + 16 < n) {
    if (!b64(p) || !b64(p + 16)) {
      p += 16;
      continue;
    }
    std::size_t end = p + 1;
    while (end < n && b64(end)) ++end;
    if (end <= p + 16) {
      p = end;
      continue;
    }  // the run holding p stops before p + 16
    std::size_t begin = p;
    while (begin > from && b64(begin - 1)) --begin;
    if (end - begin >= 32) return {begin, end};
    p = end;
  }
  return {std::string_view::npos, n};
}
}  // namespace

std::vector<blob> find_encoded_blobs(std::string_view raw) {
  std::vector<blob> found;
  const auto n = raw.size();
  std::size_t i = 0;
  while (i < n && found.size() < 8) {
    auto [run_begin, run_end] = next_long_b64_run(raw, i);
    if (run_begin == std::string_view::npos) break;
    i = run_begin;
    const std::size_t j = run_end;
    bool upper = false, lower = false, digit = false;
    for (std::size_t k = i; k < j; ++k) {
      unsigned char d = static_cast<unsigned char>(raw[k]);
      upper |= d >= 'A' && d <= 'Z';
      lower |= d >= 'a' && d <= 'z';
      digit |= d >= '0' && d <= '9';
    }
    std::size_t k = j;
    while (k < n && raw[k] == '=' && k - j < 2) ++k;
    const std::size_t len = j - i;
    if (len >= 32) {
      std::string_view run = raw.substr(i, len);
      bool hex = std::all_of(run.begin(), run.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
      std::string decoded;
      const char* encoding = "base64";
      if (hex && len % 2 == 0) {
        encoding = "hex";
        for (std::size_t p = 0; p + 1 < len; p += 2)
          decoded.push_back(static_cast<char>(text::hex_digit(run[p]) * 16 + text::hex_digit(run[p + 1])));
      } else if (upper && lower) {
        decoded = base64_decode(run);
      }
      (void)digit;
      if (mostly_printable_text(decoded)) found.push_back({i, k, std::move(decoded), encoding});
    }
    i = k > i ? k : i + 1;
  }
  return found;
}

namespace {

bool is_private_ipv4(const std::array<int, 4>& q) {
  return q[0] == 10 || q[0] == 127 || (q[0] == 192 && q[1] == 168) || (q[0] == 172 && q[1] >= 16 && q[1] <= 31) ||
         (q[0] == 169 && q[1] == 254) || q[0] == 0;
}
}  // namespace

std::vector<url_hit> find_suspicious_urls(std::string_view raw) {
  std::vector<url_hit> hits;
  std::size_t pos = 0;
  while ((pos = raw.find("://", pos)) != std::string_view::npos && hits.size() < 8) {
    std::size_t begin = pos;
    while (begin > 0 && std::isalpha(static_cast<unsigned char>(raw[begin - 1]))) --begin;
    std::string scheme(raw.substr(begin, pos - begin));
    for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::size_t host_begin = pos + 3, end = host_begin;
    while (end < raw.size() && !std::isspace(static_cast<unsigned char>(raw[end])) && raw[end] != '"' &&
           raw[end] != '\'' && raw[end] != '<' && raw[end] != '>' && raw[end] != ')' && raw[end] != '`')
      ++end;
    pos = end;
    if (scheme != "http" && scheme != "https" && scheme != "ws" && scheme != "wss" && scheme != "ftp" && scheme != "smb" &&
        scheme != "sftp" && scheme != "ssh" && scheme != "tcp" && scheme != "udp")
      continue;
    std::string_view rest = raw.substr(host_begin, end - host_begin);
    std::size_t host_end = rest.find_first_of("/?#");
    std::string host(rest.substr(0, host_end));
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (!host.empty() && host[0] == '[') {
      if (host.rfind("[::1]", 0) != 0) hits.push_back({begin, end, severity::medium, 0.6, "raw IPv6 address endpoint"});
      continue;
    }
    if (auto colon = host.find(':'); colon != std::string::npos) host.resize(colon);
    for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!host.empty() && host.back() == '.') host.pop_back();
    std::array<int, 4> quad{};
    int parsed = std::sscanf(host.c_str(), "%d.%d.%d.%d", &quad[0], &quad[1], &quad[2], &quad[3]);
    bool is_ip = parsed == 4 && std::all_of(host.begin(), host.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
    std::string path_lower(rest.substr(std::min(rest.size(), host_end == std::string_view::npos ? rest.size() : host_end)));
    for (auto& c : path_lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (is_ip) {
      if (!is_private_ipv4(quad)) hits.push_back({begin, end, severity::medium, 0.65, "endpoint is a raw public IP address"});
      continue;
    }
    // Services whose purpose is catching requests, tunnelling to a laptop, or anonymous pastes.
    auto host_has = [&](std::string_view token) {
      std::size_t p = 0;
      while ((p = host.find(token, p)) != std::string::npos) {
        bool left = p == 0 || host[p - 1] == '.' || host[p - 1] == '-';
        std::size_t e = p + token.size();
        bool right = e == host.size() || host[e] == '.' || host[e] == '-' || std::isdigit(static_cast<unsigned char>(host[e]));
        if (left && right) return true;
        ++p;
      }
      return false;
    };
    auto host_is = [&](std::string_view suffix) {
      return host == suffix || (host.size() > suffix.size() && host.ends_with(suffix) && host[host.size() - suffix.size() - 1] == '.');
    };
    bool catcher = false;
    for (std::string_view token : {"ngrok", "ngrok-free", "webhook", "webhooks", "requestbin", "pipedream", "pastebin",
                                   "hastebin", "ghostbin", "burpcollaborator", "oastify", "oast", "interactsh",
                                   "trycloudflare", "serveo", "localtunnel", "beeceptor", "hookbin", "mockbin",
                                   "requestcatcher", "canarytokens", "dnslog", "exfil", "collector", "duckdns"})
      if (host_has(token)) catcher = true;
    for (std::string_view suffix : {"loca.lt", "transfer.sh", "file.io", "0x0.st", "paste.ee", "rentry.co", "termbin.com",
                                    "webhook.site", "ptpb.pw"})
      if (host_is(suffix)) catcher = true;
    if ((host_is("discord.com") || host_is("discordapp.com")) && path_lower.find("/api/webhooks") != std::string::npos) catcher = true;
    if (host_is("api.telegram.org") && path_lower.find("/bot") != std::string::npos) catcher = true;
    if (catcher) {
      hits.push_back({begin, end, severity::medium, 0.7, "endpoint on a request-catcher, tunnel or paste service"});
      continue;
    }
    for (std::string_view shortener : {"bit.ly", "tinyurl.com", "is.gd", "cutt.ly", "rebrand.ly", "t.ly", "goo.gl"})
      if (host_is(shortener)) hits.push_back({begin, end, severity::low, 0.5, "shortened URL hides its destination"});
    if (host.find("xn--") != std::string::npos)
      hits.push_back({begin, end, severity::low, 0.5, "internationalised (punycode) host name"});
  }
  return hits;
}

std::set<std::string> identifier_tokens(std::string_view s) {
  std::set<std::string> tokens;
  std::size_t i = 0;
  while (i < s.size() && tokens.size() < 512) {
    auto is_id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; };
    if (!is_id(s[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && is_id(s[j])) ++j;
    std::string token(s.substr(i, j - i));
    while (!token.empty() && (token.back() == '.' || token.back() == '-')) token.pop_back();
    if (token.size() >= 3) tokens.insert(std::move(token));
    i = j;
  }
  return tokens;
}

}  // namespace warden::analysis::injection_internal
