#pragma once
// JSON-RPC 2.0 envelopes as MCP uses them, below the transports and the proxy: framing one message
// (validated and classified once: kind, method, id and its canonical key), reading values of its
// text without a document, and the error responses mcp-warden writes itself. Pure: no Asio, no I/O.
#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warden::protocol {

enum class message_kind { request,
                          notification,
                          response,
                          batch };

struct parse_limits {
  std::size_t max_depth = 512;  // nesting of arrays/objects; deeper input is refused before parsing
  // false: a single, valid message is only validated and classified (kind, method, id) and `doc`
  // stays null until load_document(); building the whole document is most of a relay's cost.
  // Batches and invalid input are always parsed fully. Outcomes are the same either way.
  bool document = true;
};

// Where a value lies in the bytes a message was parsed from; size 0: absent.
struct text_span {
  std::size_t offset = 0, size = 0;
  std::string_view in(std::string_view bytes) const { return size ? bytes.substr(offset, size) : std::string_view(); }
};

struct message {
  message_kind kind = message_kind::notification;
  nlohmann::json doc;             // the parsed message (for a batch: the whole array)
  bool has_document = true;       // false: parsed with document = false, `doc` not built yet
  std::string method;             // requests and notifications
  nlohmann::json id;              // requests and responses; null otherwise
  std::vector<message> items;     // batch members, in order
  bool had_invalid_utf8 = false;  // parsed from a copy with U+FFFD replacements
  // Without a document: the top-level members an inspector may read from the text instead.
  text_span params_text, result_text, error_text;

  // id_key(id), worked out on first use: the relay looks a message's id up in several maps.
  // (Set `id` before asking: the key is not worked out again.)
  const std::string& key() const;

 private:
  mutable std::string key_;
  mutable bool key_known_ = false;
};

// Why a line is not a message: JSON-RPC error code (-32700 parse error, -32600 invalid request),
// a human-readable reason, and the id when one could still be read.
struct parse_failure {
  int code = -32700;
  std::string reason;
  nlohmann::json id;  // null when unknown
};

struct parse_outcome {
  bool ok = false;
  message value;
  parse_failure failure;
};

parse_outcome parse_message(std::string_view bytes, const parse_limits& limits);

// Builds `msg.doc` from the bytes it was parsed from, when it was parsed with document = false.
void load_document(message& msg, std::string_view bytes);

// A value of a classified message at `path` (members of nested objects from the top, e.g.
// {"params", "_meta", "progressToken"}): from its document, or without one from `bytes` (the text
// it was classified from) without building one. Null when absent.
nlohmann::json value_at(const message& msg, std::string_view bytes, std::initializer_list<std::string_view> path);
// The same for a string value: nullopt when absent or not a string.
std::optional<std::string> string_at(const message& msg, std::string_view bytes, std::initializer_list<std::string_view> path);
// The document of valid JSON text (a message parse_message accepted, or a value inside one).
nlohmann::json parse_document(std::string_view text);

// Reading values of valid JSON text without building them: the members and elements a caller
// needs are found by skipping the rest, and strings are decoded only when they hold escapes. For
// text parse_message validated (its envelope path); on anything else the answers are unspecified
// but reads stay inside the text.
namespace json_text {
// End (one past) of the value that starts at `at`.
std::size_t value_end(std::string_view text, std::size_t at);
inline bool is_object(std::string_view value) { return !value.empty() && value.front() == '{'; }
inline bool is_array(std::string_view value) { return !value.empty() && value.front() == '['; }
inline bool is_string(std::string_view value) { return !value.empty() && value.front() == '"'; }

// Calls fn(key, value) for each member of an object, in text order; `key` is the raw text between
// the quotes (escapes not decoded). False when `object` is not an object.
template <class Fn>
bool for_each_member(std::string_view object, Fn&& fn);
// Calls fn(value) for each element of an array. False when `array` is not an array.
template <class Fn>
bool for_each_element(std::string_view array, Fn&& fn);

// The value of the object's member `key` — the last one, as in the document. `value` is empty
// when there is none (or `object` is not an object); `unsure` when some key holds an escape, so
// the document might name the member differently.
struct lookup {
  std::string_view value;
  bool unsure = false;
};
lookup member(std::string_view object, std::string_view key);
// Several members in one pass: out[i] is member(object, keys[i]).
template <std::size_t N>
std::array<lookup, N> members(std::string_view object, const std::array<std::string_view, N>& keys);

// A string value's characters: a view of the text when it has no escape, else decoded into
// `storage` (which the result then views).
std::string_view string_text(std::string_view token, std::string& storage);

// Calls fn(token) for every string value under `value` (the quoted token: string_text decodes
// it), in the order the document keeps them: an object's members by key, of a repeated key only
// the last. Stops and returns false at a key that holds an escape, whose place in that order the
// text cannot tell.
template <class Fn>
bool for_each_string_token(std::string_view value, Fn&& fn);

namespace detail {
inline std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}
}  // namespace detail

template <class Fn>
bool for_each_member(std::string_view object, Fn&& fn) {
  if (!is_object(object)) return false;
  std::size_t i = detail::skip_space(object, 1);
  while (i < object.size() && object[i] == '"') {
    const std::size_t key_end = value_end(object, i);
    const std::string_view key = object.substr(i + 1, key_end - i - 2);
    i = detail::skip_space(object, key_end);
    if (i >= object.size() || object[i] != ':') return false;
    i = detail::skip_space(object, i + 1);
    const std::size_t end = value_end(object, i);
    fn(key, object.substr(i, end - i));
    i = detail::skip_space(object, end);
    if (i >= object.size() || object[i] != ',') break;
    i = detail::skip_space(object, i + 1);
  }
  return true;
}

template <class Fn>
bool for_each_element(std::string_view array, Fn&& fn) {
  if (!is_array(array)) return false;
  std::size_t i = detail::skip_space(array, 1);
  while (i < array.size() && array[i] != ']') {
    const std::size_t end = value_end(array, i);
    fn(array.substr(i, end - i));
    i = detail::skip_space(array, end);
    if (i >= array.size() || array[i] != ',') break;
    i = detail::skip_space(array, i + 1);
  }
  return true;
}
template <std::size_t N>
std::array<lookup, N> members(std::string_view object, const std::array<std::string_view, N>& keys) {
  std::array<lookup, N> out{};
  bool unsure = false;
  for_each_member(object, [&](std::string_view name, std::string_view value) {
    bool named = false;
    for (std::size_t i = 0; i < N; ++i)
      if (name == keys[i]) {
        out[i].value = value;
        named = true;
      }
    if (!named && name.find('\\') != std::string_view::npos) unsure = true;
  });
  for (auto& found : out) found.unsure = unsure;
  return out;
}

template <class Fn>
bool for_each_string_token(std::string_view value, Fn&& fn) {
  if (is_string(value)) {
    fn(value);
    return true;
  }
  bool sure = true;
  if (is_array(value)) {
    for_each_element(value, [&](std::string_view element) { sure = sure && for_each_string_token(element, fn); });
    return sure;
  }
  std::vector<std::pair<std::string_view, std::string_view>> members;
  for_each_member(value, [&](std::string_view key, std::string_view member) {
    if (key.find('\\') != std::string_view::npos) sure = false;
    members.emplace_back(key, member);
  });
  if (!sure) return false;
  // Raw keys without escapes compare as the decoded keys do. Stable: a repeated key's last value
  // ends its run.
  std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < members.size() && sure; ++i)
    if (i + 1 == members.size() || members[i + 1].first != members[i].first) sure = for_each_string_token(members[i].second, fn);
  return sure;
}
}  // namespace json_text

// Deepest nesting of arrays/objects in `bytes`, stopping early once `stop_above` is exceeded.
std::size_t json_nesting_depth(std::string_view bytes, std::size_t stop_above);

// At most `max_bytes` of untrusted bytes made safe for a log line or a terminal: control
// characters (C0, DEL, C1 — so no escape sequences) and ill-formed UTF-8 become \xNN; the cut is
// marked with "...".
std::string log_excerpt(std::string_view bytes, std::size_t max_bytes = 200);

// A map key that distinguishes 1 from "1" and is stable for equal ids.
std::string id_key(const nlohmann::json& id);

// One serialised JSON-RPC error response (no trailing newline).
std::string error_response(const nlohmann::json& id, int code, std::string_view message);

// JSON-RPC error codes mcp-warden emits.
namespace error_codes {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int server_unavailable = -32000;  // the server exited or closed its output
inline constexpr int limit_exceeded = -32001;      // a proxy limit refused the message
inline constexpr int request_timeout = -32002;     // the server did not answer in time
}  // namespace error_codes

}  // namespace warden::protocol
