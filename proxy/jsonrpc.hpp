#pragma once
// JSON-RPC 2.0 envelopes as MCP uses them: classification of one framed message, ids as map keys,
// and the error responses mcp-warden writes itself. Pure: no I/O.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warden::proxy {

enum class message_kind { request, notification, response, batch };

struct parse_limits {
  std::size_t max_depth = 512;  // nesting of arrays/objects; deeper input is refused before parsing
  // false: a single, valid message is only validated and classified (kind, method, id) and `doc`
  // stays null until load_document(); building the whole document is most of a relay's cost.
  // Batches and invalid input are always parsed fully. Outcomes are the same either way.
  bool document = true;
};

struct message {
  message_kind kind = message_kind::notification;
  nlohmann::json doc;                 // the parsed message (for a batch: the whole array)
  bool has_document = true;           // false: parsed with document = false, `doc` not built yet
  std::string method;                 // requests and notifications
  nlohmann::json id;                  // requests and responses; null otherwise
  std::vector<message> items;         // batch members, in order
  bool had_invalid_utf8 = false;      // parsed from a copy with U+FFFD replacements
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

// Deepest nesting of arrays/objects in `bytes`, stopping early once `stop_above` is exceeded.
std::size_t json_nesting_depth(std::string_view bytes, std::size_t stop_above);

// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view bytes);
// Copy of `bytes` with every ill-formed sequence replaced by U+FFFD, as Node's decoder does.
std::string replace_invalid_utf8(std::string_view bytes);

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

}  // namespace warden::proxy
