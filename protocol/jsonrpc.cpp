#include "protocol/jsonrpc.hpp"

#include "base/byte_scan.hpp"
#include "base/json_escape.hpp"
#include "base/utf8.hpp"

#include <algorithm>
#include <cstdint>

namespace warden::protocol {

using nlohmann::json;

std::size_t json_nesting_depth(std::string_view bytes, std::size_t stop_above) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    switch (bytes[i]) {
      case '"': i = base::json_string_end(bytes, i); break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > stop_above) return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

std::string log_excerpt(std::string_view bytes, std::size_t max_bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  const std::size_t end = std::min(bytes.size(), max_bytes);
  for (std::size_t i = 0; i < end;) {
    const auto b = static_cast<std::uint8_t>(bytes[i]);
    const std::size_t n = base::utf8_sequence_length(bytes, i);
    // C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
    const bool c1 = n == 2 && b == 0xC2 && static_cast<std::uint8_t>(bytes[i + 1]) < 0xA0;
    if (n == 0 || b < 0x20 || b == 0x7F || c1) {
      const std::size_t escaped = n == 0 ? 1 : n;
      for (std::size_t k = 0; k < escaped; ++k) {
        const auto e = static_cast<std::uint8_t>(bytes[i + k]);
        out += "\\x";
        out += hex[e >> 4];
        out += hex[e & 0xF];
      }
      i += escaped;
      continue;
    }
    if (i + n > end) break;  // never cut a character in half
    out.append(bytes.substr(i, n));
    i += n;
  }
  if (bytes.size() > max_bytes) out += "...";
  return out;
}

const std::string& message::key() const {
  if (!key_known_) {
    key_ = id_key(id);
    key_known_ = true;
  }
  return key_;
}

std::string id_key(const json& id) {
  // Same text as id.dump() (keys are parsed back with json::parse), without the serializer's
  // set-up: ids are keys of every relayed request and response.
  if (id.is_number_unsigned()) return std::to_string(id.get<std::uint64_t>());
  if (id.is_number_integer()) return std::to_string(id.get<std::int64_t>());
  if (id.is_string()) {
    const auto& text = id.get_ref<const std::string&>();
    if (base::json_plain_prefix(text) == text.size()) {  // written as it is
      std::string key;
      key.reserve(text.size() + 2);
      key += '"';
      key += text;
      key += '"';
      return key;
    }
  }
  return id.dump();
}

std::string error_response(const json& id, int code, std::string_view text) {
  json response = {{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", {{"code", code}, {"message", std::string(text)}}}};
  return response.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

bool is_valid_id(const json& id) { return id.is_string() || id.is_number(); }

// Classifies one parsed JSON value; false with `failure` filled when it is not a JSON-RPC message.
bool classify(json doc, message& out, parse_failure& failure) {
  if (!doc.is_object()) {
    failure = {error_codes::invalid_request, "a JSON-RPC message must be an object", nullptr};
    return false;
  }
  auto method = doc.find("method");
  auto id = doc.find("id");
  if (method != doc.end()) {
    if (!method->is_string()) {
      failure = {error_codes::invalid_request, "'method' must be a string",
                 id != doc.end() && is_valid_id(*id) ? *id : json()};
      return false;
    }
    out.method = method->get<std::string>();
    if (id != doc.end()) {
      if (!is_valid_id(*id)) {
        failure = {error_codes::invalid_request, "request 'id' must be a string or a number", nullptr};
        return false;
      }
      out.kind = message_kind::request;
      out.id = *id;
    } else {
      out.kind = message_kind::notification;
    }
    out.doc = std::move(doc);
    return true;
  }
  if (doc.contains("result") || doc.contains("error")) {
    out.kind = message_kind::response;
    if (id != doc.end()) out.id = *id;  // null ids are legal on error responses
    out.doc = std::move(doc);
    return true;
  }
  failure = {error_codes::invalid_request, "neither a request, a notification nor a response",
             id != doc.end() && is_valid_id(*id) ? *id : json()};
  return false;
}

}  // namespace

namespace {

// The fast path of parse_message: one pass that validates the JSON text (grammar, UTF-8 inside
// strings, nesting) and notes where the top-level members are, without building a document.
// It only ever says "valid" for text that nlohmann accepts too; anything it is unsure about
// (batches, escapes in keys, huge numbers, a BOM, errors) goes to the full path, so the answers
// (including error texts) stay exactly those of the full parse.
class envelope_scanner {
 public:
  struct member {
    std::string_view value;
    bool present = false;
  };
  member method, id, result, error, params;

  envelope_scanner(std::string_view text, std::size_t max_depth) : s_(text), max_depth_(max_depth) {}

  bool scan() {
    skip_ws();
    if (at_end() || s_[pos_] != '{') return false;  // batches and non-objects: full path
    std::string stack;                              // open containers; '{' or '['
    std::size_t value_start = 0;
    std::string_view top_key;  // of the top-level member being read
    enum class next { value,
                      key,
                      after_value } step = next::value;
    for (;;) {
      switch (step) {
        case next::value: {
          if (at_end()) return false;
          const char c = s_[pos_];
          if (c == '{' || c == '[') {
            if (stack.size() + 1 > max_depth_) return false;
            stack.push_back(c);
            ++pos_;
            skip_ws();
            if (at_end()) return false;
            if (s_[pos_] == (c == '{' ? '}' : ']')) {
              stack.pop_back();
              ++pos_;
              step = next::after_value;
            } else {
              step = c == '{' ? next::key : next::value;
            }
            continue;
          }
          if (c == '"') {
            if (!string()) return false;
          } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (!number()) return false;
          } else if (!literal("true") && !literal("false") && !literal("null")) {
            return false;
          }
          step = next::after_value;
          continue;
        }
        case next::key: {
          if (at_end() || s_[pos_] != '"') return false;
          const std::size_t start = pos_;
          if (!string()) return false;
          const bool top_level = stack.size() == 1;
          if (top_level) top_key = s_.substr(start + 1, pos_ - start - 2);
          skip_ws();
          if (at_end() || s_[pos_] != ':') return false;
          ++pos_;
          skip_ws();
          if (top_level) value_start = pos_;
          step = next::value;
          continue;
        }
        case next::after_value: {
          if (stack.empty()) {
            skip_ws();
            return at_end();
          }
          if (stack.size() == 1 && !note(top_key, s_.substr(value_start, pos_ - value_start))) return false;
          skip_ws();
          if (at_end()) return false;
          const char c = s_[pos_++];
          if (c == ',') {
            skip_ws();
            step = stack.back() == '{' ? next::key : next::value;
          } else if (c == (stack.back() == '{' ? '}' : ']')) {
            stack.pop_back();
          } else {
            return false;
          }
          continue;
        }
      }
    }
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }

  // A top-level member; the last of equal keys wins, as in the document.
  bool note(std::string_view name, std::string_view value) {
    if (name.find('\\') != std::string_view::npos) return false;  // "\u006dethod" is "method": full path
    member* slot = name == "method" ? &method : name == "id"   ? &id
                                            : name == "result" ? &result
                                            : name == "error"  ? &error
                                            : name == "params" ? &params
                                                               : nullptr;
    if (slot) *slot = member{value, true};
    return true;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool digits() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  bool number() {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (at_end()) return false;
    if (s_[pos_] == '0') ++pos_;
    else if (!digits()) return false;
    if (!at_end() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (!at_end() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (!at_end() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      const std::size_t exponent = pos_;
      if (!digits()) return false;
      if (pos_ - exponent > 2) return false;  // may overflow a double: let nlohmann judge
    }
    return pos_ - start <= 64;  // likewise for very long mantissas
  }

  // \uXXXX at pos_ (pointing at 'u'); returns the code unit or -1.
  long unicode_escape() {
    if (pos_ + 4 >= s_.size()) return -1;
    long value = 0;
    for (std::size_t k = 1; k <= 4; ++k) {
      const int h = base::hex_digit(s_[pos_ + k]);
      if (h < 0) return -1;
      value = value * 16 + h;
    }
    pos_ += 5;
    return value;
  }

  bool string() {
    ++pos_;  // the opening quote
    const auto* data = reinterpret_cast<const unsigned char*>(s_.data());
    for (;;) {
      // Plain ASCII runs are the bulk of every message: skipped eight bytes at a time.
      pos_ += base::json_plain_prefix(s_.substr(pos_));
      if (at_end()) return false;
      const unsigned char c = data[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        const std::size_t n = base::utf8_sequence_length(s_, pos_);
        if (n == 0) return false;
        pos_ += n;
        continue;
      }
      // An escape.
      if (++pos_ >= s_.size()) return false;
      const char e = s_[pos_];
      if (e == 'u') {
        const long unit = unicode_escape();
        if (unit < 0) return false;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a lone low surrogate
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') return false;
          ++pos_;
          const long low = unicode_escape();
          if (low < 0xDC00 || low > 0xDFFF) return false;
        }
        continue;
      }
      if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') return false;
      ++pos_;
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t max_depth_;
};

// A string or integer token as nlohmann would parse it; others through nlohmann itself.
json token_value(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"' && token.find('\\') == std::string_view::npos)
    return json(std::string(token.substr(1, token.size() - 2)));
  const bool negative = !token.empty() && token.front() == '-';
  const std::string_view digits = token.substr(negative ? 1 : 0);
  if (!digits.empty() && digits.size() <= 18 &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::int64_t value = 0;
    for (char c : digits) value = value * 10 + (c - '0');
    if (negative) return json(static_cast<std::int64_t>(-value));
    return json(static_cast<std::uint64_t>(value));
  }
  return json::parse(token);
}

std::string token_string(std::string_view token) {
  std::string storage;
  return std::string(json_text::string_text(token, storage));
}

bool is_string_token(std::string_view token) { return !token.empty() && token.front() == '"'; }
bool is_number_token(std::string_view token) {
  return !token.empty() && (token.front() == '-' || (token.front() >= '0' && token.front() <= '9'));
}

// Classifies like classify() below from the scanner's members; false when the full path must
// decide (which then also reports any failure).
bool classify_envelope(const envelope_scanner& scan, message& out) {
  if (scan.method.present) {
    if (!is_string_token(scan.method.value)) return false;
    if (scan.id.present) {
      if (!is_string_token(scan.id.value) && !is_number_token(scan.id.value)) return false;
      out.kind = message_kind::request;
      out.id = token_value(scan.id.value);
    } else {
      out.kind = message_kind::notification;
    }
    out.method = token_string(scan.method.value);
    return true;
  }
  if (scan.result.present || scan.error.present) {
    out.kind = message_kind::response;
    if (scan.id.present) {
      const std::string_view id = scan.id.value;
      if (is_string_token(id) || is_number_token(id)) out.id = token_value(id);
      else if (id != "null") return false;  // odd ids (objects...) keep the full path
    }
    return true;
  }
  return false;
}

}  // namespace

parse_outcome parse_message(std::string_view bytes, const parse_limits& limits) {
  parse_outcome outcome;
  if (!limits.document) {
    envelope_scanner scan(bytes, limits.max_depth);
    if (scan.scan() && classify_envelope(scan, outcome.value)) {
      outcome.value.has_document = false;
      const auto span_of = [&](const envelope_scanner::member& m) {
        return m.present ? text_span{static_cast<std::size_t>(m.value.data() - bytes.data()), m.value.size()} : text_span{};
      };
      outcome.value.params_text = span_of(scan.params);
      outcome.value.result_text = span_of(scan.result);
      outcome.value.error_text = span_of(scan.error);
      outcome.ok = true;
      return outcome;
    }
    outcome.value = message();
  }
  if (json_nesting_depth(bytes, limits.max_depth) > limits.max_depth) {
    outcome.failure = {error_codes::parse_error,
                       "JSON nesting deeper than " + std::to_string(limits.max_depth) + " levels",
                       nullptr};
    return outcome;
  }
  std::string repaired;
  const bool valid_utf8 = base::is_valid_utf8(bytes);
  if (!valid_utf8) {
    repaired = base::replace_invalid_utf8(bytes);
    bytes = repaired;
  }
  json doc;
  try {
    doc = json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] ": the sender needs only the rest.
    std::string_view reason = e.what();
    if (const auto bracket = reason.find("] "); bracket != std::string_view::npos) reason.remove_prefix(bracket + 2);
    outcome.failure = {error_codes::parse_error, "invalid JSON: " + std::string(reason), nullptr};
    return outcome;
  }
  outcome.value.had_invalid_utf8 = !valid_utf8;
  if (doc.is_array()) {
    if (doc.empty()) {
      outcome.failure = {error_codes::invalid_request, "empty batch", nullptr};
      return outcome;
    }
    outcome.value.kind = message_kind::batch;
    for (const auto& element : doc) {
      message item;
      parse_failure item_failure;
      if (!classify(element, item, item_failure)) {
        outcome.failure = item_failure;
        outcome.failure.reason = "batch member: " + item_failure.reason;
        return outcome;
      }
      outcome.value.items.push_back(std::move(item));
    }
    outcome.value.doc = std::move(doc);
    outcome.ok = true;
    return outcome;
  }
  outcome.ok = classify(std::move(doc), outcome.value, outcome.failure);
  if (outcome.ok) outcome.value.had_invalid_utf8 = !valid_utf8;
  return outcome;
}

}  // namespace warden::protocol
