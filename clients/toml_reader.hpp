#pragma once
// TOML (Codex's ~/.codex/config.toml) read with toml++ into the located tree of clients/jsonc.hpp:
// tables are objects with their members in source order, arrays, strings decoded, other scalars
// (numbers, booleans, dates) as their source text; every value and key keeps its byte span, so
// that client_wrap can splice edits into the original text. toml++ is used to read only: writing
// a document back with it would drop the user's comments and layout. Pure, never throws; errors
// read "LINE:COL: what" (columns in bytes).
#include <cstddef>
#include <string_view>

#include "base/result.hpp"
#include "clients/jsonc.hpp"

namespace warden::clients {

result<located_value> parse_toml(std::string_view text, std::size_t max_bytes = 16u << 20);

}  // namespace warden::clients
