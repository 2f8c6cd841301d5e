#include "clients/toml_reader.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "base/utf8.hpp"

namespace warden::clients {

namespace {

// toml++ reports positions as line and column, the column counted in code points: turned back
// into byte offsets here.
class offsets {
 public:
  explicit offsets(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::size_t of(const toml::source_position& at) const {
    if (at.line == 0 || at.line > line_starts_.size()) return text_.size();
    std::size_t pos = line_starts_[at.line - 1];
    for (toml::source_index column = 1; column < at.column && pos < text_.size(); ++column)
      pos += std::max<std::size_t>(1, base::utf8_sequence_length(text_, pos));
    return std::min(pos, text_.size());
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> line_starts_;
};

located_value convert(const toml::node& node, const offsets& at, std::string_view text) {
  located_value out;
  out.begin = at.of(node.source().begin);
  out.end = std::max(out.begin, at.of(node.source().end));
  if (const auto* table = node.as_table()) {
    out.type = located_value::kind::object;
    std::vector<std::pair<std::size_t, located_value>> members;  // key position, value
    std::vector<std::string> names;
    for (const auto& [key, value] : *table) {
      members.emplace_back(at.of(key.source().begin), convert(value, at, text));
      names.emplace_back(key.str());
    }
    // toml++ keeps a table's members sorted by name: put them back in source order.
    std::vector<std::size_t> order(members.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return members[a].first < members[b].first; });
    for (const std::size_t i : order) {
      out.keys.push_back(std::move(names[i]));
      out.key_begins.push_back(members[i].first);
      out.end = std::max(out.end, members[i].second.end);  // a header table ends with its last member
      out.items.push_back(std::move(members[i].second));
    }
  } else if (const auto* array = node.as_array()) {
    out.type = located_value::kind::array;
    for (const auto& item : *array) out.items.push_back(convert(item, at, text));
  } else if (const auto* string = node.as_string()) {
    out.type = located_value::kind::string;
    out.text = string->get();
  } else {
    // Numbers, and dates and times too, are kind::number with their source text, as JSON's are.
    out.type = node.is_boolean() ? located_value::kind::boolean : located_value::kind::number;
    out.text = std::string(text.substr(out.begin, out.end - out.begin));
  }
  return out;
}

}  // namespace

result<located_value> parse_toml(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) return error{"1:1: larger than a config file can be"};
  const offsets at(text);
  try {
    const toml::table root = toml::parse(text);
    located_value out = convert(root, at, text);
    out.begin = 0;
    out.end = text.size();
    return out;
  } catch (const toml::parse_error& e) {
    const std::size_t offset = at.of(e.source().begin);
    return error{line_col(text, offset) + ": " + std::string(e.description())};
  } catch (const std::exception& e) {
    return error{"1:1: " + std::string(e.what())};
  }
}

}  // namespace warden::clients
