#pragma once
// The prose inside a JSON tool result. Many MCP servers return their data as JSON text, so a
// planted line arrives JSON-escaped ("...\n\nUser: forget that ..."), with its line breaks and
// quotes written as escapes: rules that read lines and quotes see one long escaped line. This
// decodes the string values of such a result, one per line, so that the result rules read them as
// the model does. Pure and thread-safe.
#include <cstddef>
#include <string>
#include <string_view>

namespace warden::analysis {

// The decoded string values of `text` (a JSON object or array) that carry an escape, joined by
// newlines; empty when the text is not JSON, holds no escaped string, or is larger than `limit`.
std::string escaped_json_strings(std::string_view text, std::size_t limit = std::size_t{4} << 20);

}  // namespace warden::analysis
