#pragma once
// A located document tree for JSON with comments (JSONC) and for TOML (clients/toml_reader.hpp): every
// value keeps the byte span it came from, so that edits can be spliced into the original text
// without re-serialising it (comments, order and formatting survive).
// Pure functions, never throw on input; errors carry line:col.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace warden::clients {

struct located_value {
  enum class kind { object,
                    array,
                    string,
                    number,
                    boolean,
                    null };
  kind type = kind::null;
  std::size_t begin = 0;                // first byte of the value in the source
  std::size_t end = 0;                  // one past its last byte
  std::string text;                     // strings: decoded value; scalars: their raw text
  std::vector<std::string> keys;        // objects: member names, in source order (duplicates kept)
  std::vector<std::size_t> key_begins;  // objects: where each member's key token starts
  std::vector<located_value> items;     // objects: member values (parallel to keys); arrays: elements

  bool is_object() const noexcept { return type == kind::object; }
  bool is_array() const noexcept { return type == kind::array; }
  bool is_string() const noexcept { return type == kind::string; }
  // The member named `key` (the last one when repeated, as JSON.parse does); nullptr if absent
  // or when this is not an object.
  const located_value* find(std::string_view key) const noexcept;
};

struct jsonc_limits {
  std::size_t max_bytes = 16u << 20;  // config files are small; refuse absurd ones
  std::size_t max_depth = 256;
};

// Parses JSON plus `//` and `/* */` comments, trailing commas in objects and arrays, and a leading
// UTF-8 byte-order mark. Errors read "LINE:COL: what" (1-based, columns in bytes).
result<located_value> parse_jsonc(std::string_view text, const jsonc_limits& limits = {});

// "LINE:COL" of a byte offset (1-based; columns count bytes).
std::string line_col(std::string_view text, std::size_t offset);

// A JSON string literal for `value` (quotes included): escapes `"`, `\` and control characters,
// keeps other UTF-8 as is. Valid as a TOML basic string too.
std::string quote_json(std::string_view value);

}  // namespace warden::clients
