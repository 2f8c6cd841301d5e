#include "base/canonical_json.hpp"

#include "base/byte_scan.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace warden::base {

namespace {

std::string nlohmann_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A string as nlohmann writes it. Nearly all strings are printable ASCII without a quote or a
// backslash: those are copied in one piece (nlohmann's serializer decodes every byte through its
// UTF-8 state machine); anything else is left to nlohmann, so escapes and U+FFFD replacement
// stay exactly its own.
void append_string(std::string& out, std::string_view text) {
  if (base::json_plain_prefix(text) != text.size()) {
    out += nlohmann_text(nlohmann::json(std::string(text)));
    return;
  }
  // One append of the quotes and the text (this runs for every string of every audit record).
  const std::size_t at = out.size();
  out.append(text.size() + 2, '"');
  std::memcpy(out.data() + at + 1, text.data(), text.size());
}

template <typename Integer>
void append_integer(std::string& out, Integer number) {
  char buffer[24];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
  out.append(buffer, end);
}

void append_canonical(std::string& out, const nlohmann::json& value) {
  using type = nlohmann::json::value_t;
  switch (value.type()) {
    case type::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const nlohmann::json::object_t&>()) {  // std::map: sorted
        if (!first) out += ',';
        first = false;
        append_string(out, key);
        out += ':';
        append_canonical(out, member);
      }
      out += '}';
      return;
    }
    case type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value.get_ref<const nlohmann::json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        append_canonical(out, element);
      }
      out += ']';
      return;
    }
    case type::string: append_string(out, value.get_ref<const std::string&>()); return;
    case type::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case type::null: out += "null"; return;
    case type::number_integer: append_integer(out, value.get<std::int64_t>()); return;
    case type::number_unsigned: append_integer(out, value.get<std::uint64_t>()); return;
    default: out += nlohmann_text(value); return;  // floats (nlohmann's own shortest form), binary, discarded
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& value) {
  std::string out;
  out.reserve(256);
  append_canonical(out, value);
  return out;
}

void append_canonical_json(std::string& out, const nlohmann::json& value) { append_canonical(out, value); }

void append_json_string(std::string& out, std::string_view text) { append_string(out, text); }

}  // namespace warden::base
