#pragma once
// Digests for pins and the audit chain: SHA-256 (OpenSSL) and the canonical JSON it is taken over;
// base64 for the binary values around them (signatures, OAuth credentials). Pure and thread-safe.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warden::config {

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

// Standard base64 (RFC 4648 section 4, padded). The decoder is strict: it takes exactly what
// base64() writes (no whitespace, padding required, unused bits zero), so one value has one text.
std::string base64(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

// Canonical text of a JSON value: object keys sorted, no insignificant whitespace, UTF-8 kept
// (invalid sequences replaced by U+FFFD), numbers as nlohmann prints them. Equal values give equal
// text whatever the key order or spacing of the original. Byte for byte what
// dump(-1, ' ', false, error_handler_t::replace) writes, written faster.
std::string canonical_json(const nlohmann::json& value);

// The same, appended to `out`; and one string as canonical JSON text (quoted and escaped), for
// writers that put a document together from parts (the audit log's records).
void append_canonical_json(std::string& out, const nlohmann::json& value);
void append_json_string(std::string& out, std::string_view text);

}  // namespace warden::config
