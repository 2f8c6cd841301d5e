// JSONC reader keeping byte spans (see jsonc.hpp). Recursive descent with an explicit depth limit.
#include "clients/jsonc.hpp"

#include <cstdint>
#include <cstdio>

#include "base/json_escape.hpp"
#include "base/utf8.hpp"

namespace warden::clients {

const located_value* located_value::find(std::string_view key) const noexcept {
  if (type != kind::object) return nullptr;
  for (std::size_t i = keys.size(); i-- > 0;)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

std::string line_col(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

std::string quote_json(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (const char letter = base::json_escape_letter(c)) {
      out += '\\';
      out += letter;
    } else if (u < 0x20 || u == 0x7F) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

namespace {

class jsonc_parser {
 public:
  jsonc_parser(std::string_view text, const jsonc_limits& limits) : text_(text), limits_(limits) {}

  result<located_value> parse() {
    if (text_.size() > limits_.max_bytes)
      return error{"1:1: file is larger than " + std::to_string(limits_.max_bytes) + " bytes"};
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    located_value root;
    if (!skip_space() || !parse_value(root, 0)) return failure();
    if (!skip_space()) return failure();
    if (pos_ != text_.size()) {
      fail(pos_, "unexpected text after the document");
      return failure();
    }
    return root;
  }

 private:
  error failure() const { return error{line_col(text_, error_at_) + ": " + error_}; }

  bool fail(std::size_t at, std::string what) {
    if (error_.empty()) {
      error_at_ = at;
      error_ = std::move(what);
    }
    return false;
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  // Whitespace and both comment styles.
  bool skip_space() {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (!at_end() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const std::size_t start = pos_;
        const auto close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return fail(start, "unterminated /* comment");
        pos_ = close + 2;
      } else {
        break;
      }
    }
    return true;
  }

  bool parse_value(located_value& out, std::size_t depth) {
    if (depth > limits_.max_depth) return fail(pos_, "nesting deeper than " + std::to_string(limits_.max_depth));
    if (at_end()) return fail(pos_, "unexpected end of file, expected a value");
    out.begin = pos_;
    const char c = peek();
    if (c == '{') return parse_object(out, depth);
    if (c == '[') return parse_array(out, depth);
    if (c == '"') {
      out.type = located_value::kind::string;
      if (!parse_string(out.text)) return false;
      out.end = pos_;
      return true;
    }
    for (const auto& [word, type] : {std::pair{std::string_view("true"), located_value::kind::boolean},
                                     std::pair{std::string_view("false"), located_value::kind::boolean},
                                     std::pair{std::string_view("null"), located_value::kind::null}}) {
      if (text_.substr(pos_, word.size()) == word) {
        out.type = type;
        out.text = std::string(word);
        pos_ += word.size();
        out.end = pos_;
        return true;
      }
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(out);
    return fail(pos_, std::string("unexpected character '") + printable(c) + "', expected a value");
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", u);
      return buffer;
    }
    return std::string(1, c);
  }

  bool parse_number(located_value& out) {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      return fail(pos_, "malformed number");
    }
    if (peek() == '.') {
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) return fail(pos_, "malformed number");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) return fail(pos_, "malformed number");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    out.type = located_value::kind::number;
    out.text = std::string(text_.substr(start, pos_ - start));
    out.end = pos_;
    return true;
  }

  bool hex4(std::uint32_t& value) {
    if (pos_ + 4 > text_.size()) return fail(pos_, "truncated \\u escape");
    value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = base::hex_digit(text_[pos_++]);
      if (digit < 0) return fail(pos_ - 1, "bad hex digit in \\u escape");
      value = (value << 4) | static_cast<std::uint32_t>(digit);
    }
    return true;
  }

  // At the opening quote; leaves pos_ after the closing one.
  bool parse_string(std::string& out) {
    const std::size_t start = pos_++;
    while (true) {
      if (at_end()) return fail(start, "unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return fail(pos_, "control character in string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) return fail(start, "unterminated string");
      const char e = text_[pos_++];
      if (const char plain = base::unescape_json(e)) {
        out += plain;
        continue;
      }
      if (e != 'u') return fail(pos_ - 1, std::string("unknown escape '\\") + printable(e) + "'");
      std::uint32_t cp = 0;
      if (!hex4(cp)) return false;
      if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
        const std::size_t save = pos_;
        pos_ += 2;
        std::uint32_t low = 0;
        if (!hex4(low)) return false;
        if (low >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else {
          pos_ = save;  // a lone high surrogate followed by another escape
          cp = 0xFFFD;
        }
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD;  // lone surrogate: what a JS engine would show
      }
      base::append_utf8(out, static_cast<char32_t>(cp));
    }
  }

  // The members or elements of `out` after its opening bracket, each read by `item`, up to `close`
  // (`what`: "object", "array"); a comma may trail the last one.
  template <typename Item>
  bool parse_items(located_value& out, char close, const char* what, Item item) {
    ++pos_;  // { or [
    while (true) {
      if (!skip_space()) return false;
      if (peek() == close) {
        ++pos_;
        out.end = pos_;
        return true;
      }
      if (!item() || !after_item(out, close, what)) return false;
    }
  }

  // After a member or an element: a ',' goes on to the next, the closing bracket is left for the
  // top of the loop, anything else is an error.
  bool after_item(const located_value& out, char close, const char* what) {
    if (!skip_space()) return false;
    if (peek() == ',') {
      ++pos_;
      return true;
    }
    if (peek() == close) return true;
    if (at_end()) return fail(out.begin, std::string("unterminated ") + what);
    return fail(pos_, std::string("expected ',' or '") + close + "' in " + what);
  }

  bool parse_object(located_value& out, std::size_t depth) {
    out.type = located_value::kind::object;
    return parse_items(out, '}', "object", [&] {
      if (peek() != '"') {
        if (at_end()) return fail(out.begin, "unterminated object");
        return fail(pos_, std::string("expected a member name in double quotes, got '") + printable(peek()) + "'");
      }
      out.key_begins.push_back(pos_);
      std::string key;
      if (!parse_string(key)) return false;
      if (!skip_space()) return false;
      if (peek() != ':') return fail(pos_, "expected ':' after member name \"" + key + "\"");
      ++pos_;
      if (!skip_space()) return false;
      located_value value;
      if (!parse_value(value, depth + 1)) return false;
      out.keys.push_back(std::move(key));
      out.items.push_back(std::move(value));
      return true;
    });
  }

  bool parse_array(located_value& out, std::size_t depth) {
    out.type = located_value::kind::array;
    return parse_items(out, ']', "array", [&] {
      if (at_end()) return fail(out.begin, "unterminated array");
      located_value value;
      if (!parse_value(value, depth + 1)) return false;
      out.items.push_back(std::move(value));
      return true;
    });
  }

  std::string_view text_;
  jsonc_limits limits_;
  std::size_t pos_ = 0;
  std::size_t error_at_ = 0;
  std::string error_;
};

}  // namespace

result<located_value> parse_jsonc(std::string_view text, const jsonc_limits& limits) {
  return jsonc_parser(text, limits).parse();
}

}  // namespace warden::clients
