#pragma once
// Classes of code points and byte sequences that hide text from a human reader, in one place for
// the hidden-text scan: spaces, emoji, joining scripts, right-to-left letters, variation selectors,
// tag characters, bidi controls, invisible format characters, and terminal escape sequences.
// The cheap range tests are inline (the scan asks them of every non-ASCII character); the ones
// that ask ICU are in char_classes.cpp. Pure and thread-safe.
#include <cstddef>
#include <string>
#include <string_view>

#include "base/invisible.hpp"

namespace warden::analysis::chars {

// The ICU-free table (base/invisible.hpp), shared with the runtime sanitiser.
using base::is_bidi_control, base::is_tag, base::is_variation_selector;
inline bool is_space_like(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000 ||
         cp == 0x1680;
}

bool is_emoji_like(char32_t cp);
// Scripts whose orthography uses ZWJ/ZWNJ (Arabic, Persian, Indic, ...): anything that is a letter
// or mark outside Latin/Greek/Cyrillic/Common.
bool is_joining_script_char(char32_t cp);
bool is_rtl(char32_t cp);
// Default-ignorable or format characters that are neither variation selectors nor tags (those have
// checks of their own).
bool is_invisible_format(char32_t cp);

// Bytes as text when they are mostly printable UTF-8, else "hex:..." (for decoded payloads).
std::string printable_or_hex(const std::string& bytes);
// ESC at raw[i]: returns the length of the sequence and whether it hides or rewrites text.
std::size_t parse_escape(std::string_view raw, std::size_t i, bool& hiding);

}  // namespace warden::analysis::chars
