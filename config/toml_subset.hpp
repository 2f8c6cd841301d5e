#pragma once
// A reader for the part of TOML that MCP client configs use (Codex's ~/.codex/config.toml):
// tables and arrays of tables, dotted/bare/quoted keys, basic and literal strings (single and
// multi-line), arrays (multi-line, comments, trailing commas), inline tables, and scalars (numbers,
// booleans, dates kept as raw text). Values keep their byte spans (located_value) so edits can be
// spliced into the original text. Debian 12 ships only the unmaintained cpptoml, which does not
// keep positions, hence this reader. Pure, never throws; errors read "LINE:COL: what".
#include <string>
#include <string_view>
#include <vector>

#include "analysis/result.hpp"
#include "config/jsonc.hpp"

namespace warden::config {

struct toml_key_value {
  std::vector<std::string> key;  // dotted key, relative to its table
  std::size_t key_begin = 0;     // first byte of the key
  located_value value;
};

struct toml_table {
  std::vector<std::string> path;  // header path; empty for the root table (before any header)
  bool array_item = false;        // [[path]]
  std::size_t header_begin = 0;   // the '[' of the header (0 for the root table)
  std::vector<toml_key_value> entries;
};

struct toml_document {
  std::vector<toml_table> tables;  // in source order; tables[0] is the root table
};

result<toml_document> parse_toml_subset(std::string_view text, std::size_t max_bytes = 16u << 20);

}  // namespace warden::config
