#pragma once
// The one table of characters that hide text from a reader without ICU: the scan's hidden-text
// checks (analysis/char_classes.hpp re-exports these) and the runtime sanitiser of results
// (proxy/runtime_text.cpp) read it. Constexpr range tests; pure.

namespace warden::base {

inline constexpr bool is_variation_selector(char32_t cp) {
  return (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}
inline constexpr bool is_tag(char32_t cp) { return cp >= 0xE0000 && cp <= 0xE007F; }
// Bidi embeddings, overrides and isolates (not the marks U+200E/U+200F, which only hint).
inline constexpr bool is_bidi_control(char32_t cp) { return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069); }
// Invisible characters no text a model reads needs: zero-width space, word joiner and invisible
// operators, the Mongolian vowel separator, the BOM / zero-width no-break space, the Hangul
// fillers, the interlinear annotation controls. Not ZWJ/ZWNJ: emoji sequences and joining
// scripts need them.
inline constexpr bool is_zero_width_filler(char32_t cp) {
  return cp == 0x200B || (cp >= 0x2060 && cp <= 0x2064) || cp == 0x180E || cp == 0xFEFF || cp == 0x115F || cp == 0x1160 ||
         cp == 0x3164 || cp == 0xFFA0 || (cp >= 0xFFF9 && cp <= 0xFFFB);
}
// What the runtime sanitiser always removes (variation selectors it judges by their neighbours).
inline constexpr bool is_invisible(char32_t cp) { return is_tag(cp) || is_bidi_control(cp) || is_zero_width_filler(cp); }

}  // namespace warden::base
