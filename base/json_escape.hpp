#pragma once
// JSON's two-character escapes (RFC 8259, section 7) in one table, for the readers that decode
// them (protocol/json_text.cpp, clients/jsonc.cpp, policy/policy.cpp) and the writer that makes
// them (clients/jsonc.cpp's quote_json), and the end of a string token for the byte scans that step
// over strings. \u escapes are each reader's own. Pure, constexpr.
#include <array>
#include <cstddef>
#include <string_view>

namespace warden::base {

struct json_short_escape {
  char letter;  // what follows the backslash
  char value;   // the character it stands for
};

inline constexpr json_short_escape json_short_escapes[] = {
    {'"', '"'},
    {'\\', '\\'},
    {'/', '/'},
    {'b', '\b'},
    {'f', '\f'},
    {'n', '\n'},
    {'r', '\r'},
    {'t', '\t'},
};

namespace detail {
// Indexed by byte: decoding maps a letter to its value, encoding a value to its letter ('\0': none).
constexpr std::array<char, 256> json_escape_table(bool decode) {
  std::array<char, 256> table{};
  for (const auto& e : json_short_escapes) table[static_cast<unsigned char>(decode ? e.letter : e.value)] = decode ? e.value : e.letter;
  return table;
}
inline constexpr auto json_unescapes = json_escape_table(true);
inline constexpr auto json_escapes = json_escape_table(false);
}  // namespace detail

// The character `\letter` stands for ('n' -> newline), or '\0' when `letter` makes no short
// escape ('u' included).
constexpr char unescape_json(char letter) noexcept { return detail::json_unescapes[static_cast<unsigned char>(letter)]; }

// The letter that escapes `c` in a JSON string (newline -> 'n', '"' -> '"'), or '\0' when `c` needs
// none of the short escapes; '/' is left as it is.
constexpr char json_escape_letter(char c) noexcept { return c == '/' ? '\0' : detail::json_escapes[static_cast<unsigned char>(c)]; }

// Where the string token whose opening quote is at `open` ends: the index of its closing quote
// (backslash escapes stepped over), or text.size() when it is not closed.
constexpr std::size_t json_string_end(std::string_view text, std::size_t open) noexcept {
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\') ++i;
    else if (text[i] == '"') return i;
  }
  return text.size();
}

}  // namespace warden::base
