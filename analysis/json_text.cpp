#include "analysis/json_text.hpp"

#include <nlohmann/json.hpp>

namespace warden::analysis {
namespace {

using nlohmann::json;

// A JSON string carried an escape when its decoded form has a character that raw JSON text
// cannot hold (a control character) or a quote or backslash.
bool was_escaped(const std::string& s) {
  for (const char c : s)
    if (c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '\\') return true;
  return false;
}

void collect(const json& value, std::string& out, int depth) {
  if (depth > 64) return;  // the parser's own nesting bound is higher; nothing planted lives deeper
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (was_escaped(s)) {
      if (!out.empty()) out += '\n';
      out += s;
    }
  } else if (value.is_object() || value.is_array()) {
    for (const auto& item : value) collect(item, out, depth + 1);
  }
}

}  // namespace

std::string escaped_json_strings(std::string_view text, std::size_t limit) {
  if (text.size() > limit) return {};
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return {};
  // Only a text with an escape in it can hide a line from the line-reading rules.
  if (text.find('\\') == std::string_view::npos) return {};
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return {};
  std::string out;
  collect(doc, out, 0);
  return out;
}

}  // namespace warden::analysis
