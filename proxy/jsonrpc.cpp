#include "proxy/jsonrpc.hpp"

#include <cstdint>

namespace warden::proxy {

using nlohmann::json;

std::size_t json_nesting_depth(std::string_view bytes, std::size_t stop_above) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
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

namespace {

// Length of the well-formed UTF-8 sequence at `i`, or 0 when it is ill-formed (Unicode 15, 3.9).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  const std::size_t left = s.size() - i;
  const auto cont = [&](std::size_t k) { return (byte(i + k) & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return left >= 2 && cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 3 || !cont(1) || !cont(2)) return 0;
    const std::uint8_t b1 = byte(i + 1);
    if (b0 == 0xE0 && b1 < 0xA0) return 0;   // overlong
    if (b0 == 0xED && b1 > 0x9F) return 0;   // surrogates
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    const std::uint8_t b1 = byte(i + 1);
    if (b0 == 0xF0 && b1 < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && b1 > 0x8F) return 0;   // above U+10FFFF
    return 4;
  }
  return 0;
}

// How many bytes an ill-formed sequence starting at `i` spans: the maximal subpart, so that one
// U+FFFD replaces it, matching the WHATWG decoder that Node uses.
std::size_t ill_formed_span(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<std::uint8_t>(s[i]);
  std::size_t expected = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 1;
  if (b0 < 0xC2 || b0 > 0xF4) return 1;
  std::size_t n = 1;
  for (; n < expected && i + n < s.size(); ++n) {
    const auto b = static_cast<std::uint8_t>(s[i + n]);
    std::uint8_t lo = 0x80, hi = 0xBF;
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

bool is_valid_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    if (static_cast<std::uint8_t>(bytes[i]) < 0x80) { ++i; continue; }
    const std::size_t n = utf8_sequence_length(bytes, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string replace_invalid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + 16);
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t n = utf8_sequence_length(bytes, i);
    if (n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += ill_formed_span(bytes, i);
    }
  }
  return out;
}

std::string id_key(const json& id) { return id.dump(); }

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

parse_outcome parse_message(std::string_view bytes, const parse_limits& limits) {
  parse_outcome outcome;
  if (json_nesting_depth(bytes, limits.max_depth) > limits.max_depth) {
    outcome.failure = {error_codes::parse_error,
                       "JSON nesting deeper than " + std::to_string(limits.max_depth) + " levels",
                       nullptr};
    return outcome;
  }
  std::string repaired;
  const bool valid_utf8 = is_valid_utf8(bytes);
  if (!valid_utf8) {
    repaired = replace_invalid_utf8(bytes);
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

}  // namespace warden::proxy
