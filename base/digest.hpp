#pragma once
// SHA-256 and base64 (OpenSSL) for every layer: pin and surface digests in analysis/, the audit chain and
// signatures in proxy/, PKCE and client credentials in transports/. They live in the lowest
// library so that there is one implementation; base/canonical_json.hpp adds canonical JSON.
// Pure and thread-safe; nothing throws.
#include <optional>
#include <string>
#include <string_view>

namespace warden::base {

// The 32 raw bytes of the SHA-256 of `bytes`, and the same as 64 lower-case hex digits.
std::string sha256(std::string_view bytes);
std::string sha256_hex(std::string_view bytes);

// Standard base64 (RFC 4648 section 4, padded). The decoder is strict: it takes exactly what
// base64() writes (no whitespace, padding required, unused bits zero), so one value has one text.
std::string base64(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);
// The URL- and file-name-safe alphabet (RFC 4648 section 5) without padding, as PKCE and OAuth
// state values use it.
std::string base64url(std::string_view bytes);

}  // namespace warden::base
