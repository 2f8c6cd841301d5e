#pragma once
// The canonical JSON that pins and the audit chain are digested over (SHA-256 and base64 are
// base/digest.hpp's). Pure and thread-safe.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/digest.hpp"

namespace warden::base {

// Canonical text of a JSON value: object keys sorted, no insignificant whitespace, UTF-8 kept
// (invalid sequences replaced by U+FFFD), numbers as nlohmann prints them. Equal values give equal
// text whatever the key order or spacing of the original. Byte for byte what
// dump(-1, ' ', false, error_handler_t::replace) writes, written faster.
std::string canonical_json(const nlohmann::json& value);

// The same, appended to `out`; and one string as canonical JSON text (quoted and escaped), for
// writers that put a document together from parts (the audit log's records).
void append_canonical_json(std::string& out, const nlohmann::json& value);
void append_json_string(std::string& out, std::string_view text);

}  // namespace warden::base
