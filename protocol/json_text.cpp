// Reading JSON text fast: the document builder behind parse_document() and load_document(),
// and the json_text readers that find members and strings without building a document. The
// answers are always nlohmann's: whatever the fast paths are unsure of goes to nlohmann.
#include "protocol/jsonrpc.hpp"

#include "base/byte_scan.hpp"
#include "base/json_escape.hpp"
#include "base/utf8.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace warden::protocol {

using nlohmann::json;

namespace {

// Builds the document of a line the envelope scanner accepted (valid JSON and UTF-8, bounded
// depth). Strings without escapes are copied in one piece — nlohmann's lexer appends them byte by
// byte, a large share of the policy path for large results. Anything this builder is not sure
// to read exactly as nlohmann does (lone surrogates, integers out of range, non-finite numbers,
// very deep nesting, any grammar error) makes build() return false, and the caller parses with
// nlohmann instead, so the document — and any error — is always nlohmann's.
class document_builder {
 public:
  explicit document_builder(std::string_view text) : s_(text) {}

  bool build(json& out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return at_ == s_.size();
  }

  // The text is one string token: its characters, unescaped.
  bool build_string(std::string& out) {
    if (s_.empty() || s_.front() != '"' || !string(out)) return false;
    return at_ == s_.size();
  }

 private:
  static constexpr int max_depth = 256;  // deeper documents go to nlohmann's iterative parser

  bool value(json& out, int depth) {
    if (depth > max_depth || at_ >= s_.size()) return false;
    switch (s_[at_]) {
      case '{': return object(out, depth);
      case '[': return array(out, depth);
      case '"': {
        std::string text;
        if (!string(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't': return word("true", out, json(true));
      case 'f': return word("false", out, json(false));
      case 'n': return word("null", out, json(nullptr));
      default: return number(out);
    }
  }

  // The members or elements after an opening bracket: each read by `item`, separated by commas,
  // up to `close`.
  template <typename Item>
  bool items(char close, Item item) {
    ++at_;
    skip_space();
    if (take(close)) return true;
    while (true) {
      skip_space();
      if (!item()) return false;
      skip_space();
      if (take(',')) continue;
      return take(close);
    }
  }

  bool object(json& out, int depth) {
    out = json::object();
    return items('}', [&] {
      if (at_ >= s_.size() || s_[at_] != '"') return false;
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (!take(':')) return false;
      skip_space();
      json member;
      if (!value(member, depth + 1)) return false;
      out[std::move(key)] = std::move(member);  // a repeated key: the last one wins, as in nlohmann
      return true;
    });
  }

  bool array(json& out, int depth) {
    out = json::array();
    return items(']', [&] {
      json element;
      if (!value(element, depth + 1)) return false;
      out.push_back(std::move(element));
      return true;
    });
  }

  bool string(std::string& out) {
    ++at_;  // the opening quote
    while (true) {
      const char* base = s_.data() + at_;
      const std::size_t left = s_.size() - at_;
      const auto* quote = static_cast<const char*>(std::memchr(base, '"', left));
      if (!quote) return false;
      const auto* escape = static_cast<const char*>(std::memchr(base, '\\', static_cast<std::size_t>(quote - base)));
      const char* stop = escape ? escape : quote;
      for (const char* c = base; c < stop; ++c)
        if (static_cast<unsigned char>(*c) < 0x20) return false;  // control characters must be escaped
      out.append(base, static_cast<std::size_t>(stop - base));
      at_ += static_cast<std::size_t>(stop - base) + 1;
      if (!escape) return true;
      if (!unescape(out)) return false;
    }
  }

  // After a backslash: appends the escaped character.
  bool unescape(std::string& out) {
    if (at_ >= s_.size()) return false;
    const char c = s_[at_++];
    if (const char plain = base::unescape_json(c)) {
      out += plain;
      return true;
    }
    if (c != 'u') return false;
    std::uint32_t code = 0;
    if (!hex4(code)) return false;
    if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate first
    if (code >= 0xD800 && code <= 0xDBFF) {
      std::uint32_t low = 0;
      if (at_ + 2 > s_.size() || s_[at_] != '\\' || s_[at_ + 1] != 'u') return false;
      at_ += 2;
      if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    base::append_utf8(out, static_cast<char32_t>(code));
    return true;
  }

  bool hex4(std::uint32_t& code) {
    if (at_ + 4 > s_.size()) return false;
    for (int i = 0; i < 4; ++i) {
      const int digit = base::hex_digit(s_[at_++]);
      if (digit < 0) return false;
      code = (code << 4) | static_cast<std::uint32_t>(digit);
    }
    return true;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, typed as nlohmann types it: unsigned for a
  // non-negative integer, signed for a negative one, double otherwise.
  bool number(json& out) {
    const std::size_t begin = at_;
    bool integer = true;
    take('-');
    if (take('0')) {
    } else if (!digits()) {
      return false;
    }
    if (take('.')) {
      integer = false;
      if (!digits()) return false;
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      integer = false;
      if (!take('+')) take('-');
      if (!digits()) return false;
    }
    const char* first = s_.data() + begin;
    const char* last = s_.data() + at_;
    if (integer && *first == '-') {
      std::int64_t v = 0;
      auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last) return false;  // out of range: nlohmann reads a double
      out = v;
      return true;
    }
    if (integer) {
      std::uint64_t v = 0;
      auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last) return false;
      out = v;
      return true;
    }
    double v = 0;
    auto [end, error] = std::from_chars(first, last, v);
    if (error != std::errc() || end != last || !std::isfinite(v)) return false;  // nlohmann: overflow error
    out = v;
    return true;
  }

  bool digits() {
    const std::size_t begin = at_;
    while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
    return at_ > begin;
  }

  bool word(std::string_view text, json& out, json value) {
    if (s_.substr(at_, text.size()) != text) return false;
    at_ += text.size();
    out = std::move(value);
    return true;
  }

  bool take(char c) {
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void skip_space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }

  std::string_view s_;
  std::size_t at_ = 0;
};

}  // namespace

json parse_document(std::string_view text) {
  json doc;
  if (!document_builder(text).build(doc)) doc = json::parse(text.begin(), text.end());
  return doc;
}

namespace {

// The value at `path` under `doc`; null when absent.
const json* find_at(const json& doc, std::initializer_list<std::string_view> path) {
  const json* at = &doc;
  for (std::string_view key : path) {
    if (!at->is_object()) return nullptr;
    const auto found = at->find(key);
    if (found == at->end()) return nullptr;
    at = &*found;
  }
  return at;
}

// The text of the value at `path` in `text` (a message's); empty when absent, nullopt when an
// escaped key leaves the text's answer in doubt (the document decides).
std::optional<std::string_view> text_at(std::string_view text, std::initializer_list<std::string_view> path) {
  for (std::string_view key : path) {
    const json_text::lookup found = json_text::member(text, key);
    if (found.unsure) return std::nullopt;
    if (found.value.empty()) return std::string_view();
    text = found.value;
  }
  return text;
}

}  // namespace

json value_at(const message& msg, std::string_view bytes, std::initializer_list<std::string_view> path) {
  if (!msg.has_document)
    if (const auto text = text_at(bytes, path)) return text->empty() ? json() : parse_document(*text);
  const json doc = msg.has_document ? json() : parse_document(bytes);
  const json* at = find_at(msg.has_document ? msg.doc : doc, path);
  return at ? *at : json();
}

std::optional<std::string> string_at(const message& msg, std::string_view bytes, std::initializer_list<std::string_view> path) {
  if (!msg.has_document) {
    if (const auto text = text_at(bytes, path)) {
      if (!json_text::is_string(*text)) return std::nullopt;
      std::string storage;
      return std::string(json_text::string_text(*text, storage));
    }
  }
  const json doc = msg.has_document ? json() : parse_document(bytes);
  const json* at = find_at(msg.has_document ? msg.doc : doc, path);
  if (!at || !at->is_string()) return std::nullopt;
  return at->get<std::string>();
}

void load_document(message& msg, std::string_view bytes) {
  if (msg.has_document) return;
  msg.doc = parse_document(bytes);
  msg.has_document = true;
}

namespace json_text {

namespace {

// One past the closing quote of the string token at `at` (the end of `s` when it has none).
std::size_t string_end(std::string_view s, std::size_t at) {
  // Only '"' and '\\' matter here: sixteen bytes a step (base/byte_scan.hpp), whatever the text (keys, values,
  // non-ASCII prose); an escape's next byte is skipped whole, so \" does not end the string.
  std::size_t i = at + 1;
  while (i + 16 <= s.size()) {
    const base::block16 block = base::load16(s.data() + i);
    const unsigned special = base::mask16(base::equal16(block, '"') | base::equal16(block, '\\'));
    if (special == 0) {
      i += 16;
      continue;
    }
    i += static_cast<std::size_t>(std::countr_zero(special));
    if (s[i] == '"') return i + 1;
    i += 2;
  }
  while (i < s.size()) {
    if (s[i] == '"') return i + 1;
    i += s[i] == '\\' ? 2 : 1;
  }
  return s.size();
}

}  // namespace

std::size_t value_end(std::string_view s, std::size_t at) {
  if (at >= s.size()) return s.size();
  const char first = s[at];
  if (first == '"') return string_end(s, at);
  if (first == '{' || first == '[') {
    std::size_t depth = 0;
    for (std::size_t i = at; i < s.size();) {
      const char c = s[i];
      if (c == '"') {
        i = string_end(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return s.size();
  }
  std::size_t i = at + 1;  // a number or a literal
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
         s[i] != '\n' && s[i] != '\r')
    ++i;
  return i;
}

lookup member(std::string_view object, std::string_view key) { return members<1>(object, {key})[0]; }

std::string_view string_text(std::string_view token, std::string& storage) {
  if (token.size() < 2) return {};
  if (token.find('\\') == std::string_view::npos) return token.substr(1, token.size() - 2);
  storage.clear();
  if (!document_builder(token).build_string(storage)) storage = json::parse(token).get<std::string>();
  return storage;
}

}  // namespace json_text

}  // namespace warden::protocol
