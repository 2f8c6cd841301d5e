// The TOML subset reader (see toml_subset.hpp).
#include "config/toml_subset.hpp"

#include <cstdint>

#include "analysis/text.hpp"

namespace warden::config {

namespace {

constexpr std::size_t max_depth = 128;

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool is_scalar_char(char c) {
  return is_bare_key_char(c) || c == '+' || c == '.' || c == ':';
}

class toml_parser {
 public:
  explicit toml_parser(std::string_view text) : text_(text) {}

  result<toml_document> parse() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    toml_document document;
    document.tables.emplace_back();
    while (true) {
      skip_blank();
      if (at_end()) break;
      const char c = peek();
      if (c == '\n' || c == '\r') {
        if (!newline()) return failure();
        continue;
      }
      if (c == '#') {
        skip_comment();
        continue;
      }
      if (c == '[') {
        toml_table table;
        table.header_begin = pos_;
        ++pos_;
        if (peek() == '[') {
          table.array_item = true;
          ++pos_;
        }
        skip_blank();
        if (!parse_key(table.path)) return failure();
        skip_blank();
        if (peek() != ']') return fail_here("expected ']' to close the table header");
        ++pos_;
        if (table.array_item) {
          if (peek() != ']') return fail_here("expected ']]' to close the array-of-tables header");
          ++pos_;
        }
        if (!end_of_line()) return failure();
        document.tables.push_back(std::move(table));
        continue;
      }
      toml_key_value entry;
      entry.key_begin = pos_;
      if (!parse_key(entry.key)) return failure();
      skip_blank();
      if (peek() != '=') return fail_here("expected '=' after the key");
      ++pos_;
      skip_blank();
      if (!parse_value(entry.value, 0)) return failure();
      if (!end_of_line()) return failure();
      document.tables.back().entries.push_back(std::move(entry));
    }
    return document;
  }

 private:
  error failure() const { return error{line_col(text_, error_at_) + ": " + error_}; }
  error fail_here(std::string what) {
    fail(pos_, std::move(what));
    return failure();
  }
  bool fail(std::size_t at, std::string what) {
    if (error_.empty()) {
      error_at_ = at;
      error_ = std::move(what);
    }
    return false;
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void skip_blank() {
    while (peek() == ' ' || peek() == '\t') ++pos_;
  }
  void skip_comment() {
    while (!at_end() && peek() != '\n') ++pos_;
  }
  bool newline() {
    if (peek() == '\r') {
      if (peek(1) != '\n') return fail(pos_, "bare carriage return");
      ++pos_;
    }
    ++pos_;
    return true;
  }
  // Whitespace, an optional comment, then a newline or the end of the file.
  bool end_of_line() {
    skip_blank();
    if (peek() == '#') skip_comment();
    if (at_end()) return true;
    if (peek() == '\n' || peek() == '\r') return newline();
    return fail(pos_, "unexpected text after the value");
  }
  // Inside arrays: whitespace, newlines and comments.
  bool skip_space_and_comments() {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t') {
        ++pos_;
      } else if (c == '\n' || c == '\r') {
        if (!newline()) return false;
      } else if (c == '#') {
        skip_comment();
      } else {
        break;
      }
    }
    return true;
  }

  bool parse_key(std::vector<std::string>& key) {
    while (true) {
      std::string part;
      if (peek() == '"') {
        if (peek(1) == '"' && peek(2) == '"') return fail(pos_, "multi-line strings cannot be keys");
        if (!parse_basic_string(part)) return false;
      } else if (peek() == '\'') {
        if (!parse_literal_string(part)) return false;
      } else if (is_bare_key_char(peek())) {
        while (is_bare_key_char(peek())) part += text_[pos_++];
      } else {
        return fail(pos_, "expected a key");
      }
      key.push_back(std::move(part));
      skip_blank();
      if (peek() != '.') return true;
      ++pos_;
      skip_blank();
    }
  }

  bool hex(std::size_t digits, std::uint32_t& value) {
    value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
      const int digit = analysis::text::hex_digit(peek());
      if (digit < 0) return fail(pos_, "bad hex digit in escape");
      value = (value << 4) | static_cast<std::uint32_t>(digit);
      ++pos_;
    }
    return true;
  }

  bool escape(std::string& out, bool multi_line) {
    const std::size_t start = pos_++;  // the backslash
    const char e = peek();
    if (multi_line && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
      // Line-ending backslash: trims the newline and the whitespace that follows.
      std::size_t look = pos_;
      while (look < text_.size() && (text_[look] == ' ' || text_[look] == '\t')) ++look;
      if (look >= text_.size() || (text_[look] != '\n' && text_[look] != '\r')) return fail(start, "bad escape");
      pos_ = look;
      while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
      return true;
    }
    ++pos_;
    switch (e) {
      case 'b': out += '\b'; return true;
      case 't': out += '\t'; return true;
      case 'n': out += '\n'; return true;
      case 'f': out += '\f'; return true;
      case 'r': out += '\r'; return true;
      case 'e': out += '\x1b'; return true;
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case 'x':
      case 'u':
      case 'U': {
        std::uint32_t cp = 0;
        if (!hex(e == 'x' ? 2 : e == 'u' ? 4 : 8, cp)) return false;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail(start, "escape is not a Unicode scalar value");
        analysis::text::append_utf8(out, static_cast<char32_t>(cp));
        return true;
      }
      default: return fail(start, "unknown escape");
    }
  }

  bool parse_basic_string(std::string& out) {
    const std::size_t start = pos_;
    if (peek(1) == '"' && peek(2) == '"') {
      pos_ += 3;
      if (peek() == '\n') ++pos_;
      else if (peek() == '\r' && peek(1) == '\n') pos_ += 2;
      while (true) {
        if (at_end()) return fail(start, "unterminated multi-line string");
        if (peek() == '"' && peek(1) == '"' && peek(2) == '"') {
          // Up to two quotes right before the closing delimiter belong to the content.
          std::size_t extra = 0;
          while (extra < 2 && peek(3 + extra) == '"') ++extra;
          out.append(extra, '"');
          pos_ += 3 + extra;
          return true;
        }
        if (peek() == '\\') {
          if (!escape(out, true)) return false;
          continue;
        }
        out += text_[pos_++];
      }
    }
    ++pos_;
    while (true) {
      if (at_end() || peek() == '\n') return fail(start, "unterminated string");
      if (peek() == '"') {
        ++pos_;
        return true;
      }
      if (peek() == '\\') {
        if (!escape(out, false)) return false;
        continue;
      }
      out += text_[pos_++];
    }
  }

  bool parse_literal_string(std::string& out) {
    const std::size_t start = pos_;
    if (peek(1) == '\'' && peek(2) == '\'') {
      pos_ += 3;
      if (peek() == '\n') ++pos_;
      else if (peek() == '\r' && peek(1) == '\n') pos_ += 2;
      const auto close = text_.find("'''", pos_);
      if (close == std::string_view::npos) return fail(start, "unterminated multi-line literal string");
      std::size_t extra = 0;
      while (extra < 2 && close + 3 + extra < text_.size() && text_[close + 3 + extra] == '\'') ++extra;
      out.assign(text_.substr(pos_, close - pos_ + extra));
      pos_ = close + 3 + extra;
      return true;
    }
    ++pos_;
    const auto close = text_.find_first_of("'\n", pos_);
    if (close == std::string_view::npos || text_[close] != '\'') return fail(start, "unterminated literal string");
    out.assign(text_.substr(pos_, close - pos_));
    pos_ = close + 1;
    return true;
  }

  bool parse_value(located_value& out, std::size_t depth) {
    if (depth > max_depth) return fail(pos_, "nesting deeper than " + std::to_string(max_depth));
    out.begin = pos_;
    const char c = peek();
    if (c == '"' || c == '\'') {
      out.type = located_value::kind::string;
      if (!(c == '"' ? parse_basic_string(out.text) : parse_literal_string(out.text))) return false;
    } else if (c == '[') {
      out.type = located_value::kind::array;
      ++pos_;
      while (true) {
        if (!skip_space_and_comments()) return false;
        if (peek() == ']') {
          ++pos_;
          break;
        }
        if (at_end()) return fail(out.begin, "unterminated array");
        located_value item;
        if (!parse_value(item, depth + 1)) return false;
        out.items.push_back(std::move(item));
        if (!skip_space_and_comments()) return false;
        if (peek() == ',') {
          ++pos_;
        } else if (peek() != ']') {
          return fail(pos_, "expected ',' or ']' in array");
        }
      }
    } else if (c == '{') {
      out.type = located_value::kind::object;
      ++pos_;
      skip_blank();
      if (peek() == '}') {
        ++pos_;
      } else {
        while (true) {
          skip_blank();
          const std::size_t key_begin = pos_;
          std::vector<std::string> key;
          if (!parse_key(key)) return false;
          skip_blank();
          if (peek() != '=') return fail(pos_, "expected '=' in inline table");
          ++pos_;
          skip_blank();
          located_value item;
          if (!parse_value(item, depth + 1)) return false;
          // A dotted key inside an inline table is kept with its parts joined: display only.
          std::string joined;
          for (const auto& part : key) joined += (joined.empty() ? "" : ".") + part;
          out.keys.push_back(std::move(joined));
          out.key_begins.push_back(key_begin);
          out.items.push_back(std::move(item));
          skip_blank();
          if (peek() == ',') {
            ++pos_;
            continue;
          }
          if (peek() == '}') {
            ++pos_;
            break;
          }
          return fail(pos_, "expected ',' or '}' in inline table");
        }
      }
    } else if (text_.substr(pos_, 4) == "true" && !is_scalar_char(peek(4))) {
      out.type = located_value::kind::boolean;
      out.text = "true";
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "false" && !is_scalar_char(peek(5))) {
      out.type = located_value::kind::boolean;
      out.text = "false";
      pos_ += 5;
    } else if (is_scalar_char(c)) {
      // Numbers, dates and times: kept as raw text; a date and a time may be joined by a space.
      while (is_scalar_char(peek())) ++pos_;
      if (peek() == ' ' && peek(1) >= '0' && peek(1) <= '9' && pos_ - out.begin == 10 && text_[out.begin + 4] == '-') {
        ++pos_;
        while (is_scalar_char(peek())) ++pos_;
      }
      out.type = located_value::kind::number;
      out.text = std::string(text_.substr(out.begin, pos_ - out.begin));
    } else {
      return fail(pos_, "expected a value");
    }
    out.end = pos_;
    return true;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t error_at_ = 0;
  std::string error_;
};

}  // namespace

result<toml_document> parse_toml_subset(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) return error{"1:1: file is larger than " + std::to_string(max_bytes) + " bytes"};
  return toml_parser(text).parse();
}

}  // namespace warden::config
