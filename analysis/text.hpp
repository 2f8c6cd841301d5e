#pragma once
// Text primitives for the detectors: strict UTF-8 decoding, normalisation for matching (NFKC,
// case fold, default-ignorables removed, look-alike letters folded to ASCII) with a map back to the
// original bytes, and rendering of untrusted text so that it is safe and visible in reports.
// All functions are pure and thread-safe; none throws on any input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warden::analysis::text {

inline constexpr char32_t invalid_code_point = 0xFFFFFFFFu;

// Decodes one code point at `pos` and advances it. Invalid, overlong, surrogate or truncated
// sequences return invalid_code_point and advance by one byte.
char32_t decode_utf8(std::string_view text, std::size_t& pos) noexcept;
void append_utf8(std::string& out, char32_t code_point);
bool is_ascii(std::string_view text) noexcept;
bool is_valid_utf8(std::string_view text) noexcept;

// Text prepared for pattern matching. When the input is ASCII the view aliases the input (no copy;
// patterns are matched case-insensitively) and offsets are the identity.
class normalized {
 public:
  std::string_view view() const noexcept { return view_; }
  // Byte offset in the original text of byte `i` of view(); i == view().size() maps to the end.
  std::size_t original_offset(std::size_t i) const noexcept;
  bool identity() const noexcept { return identity_; }

 private:
  friend normalized normalize(std::string_view raw);
  std::string owned_;
  std::vector<std::uint32_t> origin_;  // one entry per byte of owned_, plus the end
  std::string_view view_;
  std::size_t raw_size_ = 0;
  bool identity_ = true;
};

// The returned object may alias `raw`: keep raw alive while using it.
normalized normalize(std::string_view raw);

// UTS #39 confusable skeleton of a whole string (for identifier comparison). Falls back to the
// lower-cased input when ICU cannot process it.
std::string skeleton(std::string_view raw);

// Renders untrusted text for a report: invisible and control characters become <U+XXXX> or \xNN,
// long whitespace runs are summarised, the result is cut to about max_bytes at a code point edge.
std::string make_visible(std::string_view raw, std::size_t max_bytes = 240);

// An excerpt of raw around [begin, end) with some context, rendered with make_visible.
std::string excerpt(std::string_view raw, std::size_t begin, std::size_t end, std::size_t context = 50,
                    std::size_t max_bytes = 240);

// True when the identifier fails UTS #39 "highly restrictive" (mixes scripts in a way no
// single-language identifier does) or contains invisible characters.
bool fails_restriction(std::string_view utf8);

// Levenshtein distance on bytes, stopping early above `limit` (returns limit + 1 then).
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit);

}  // namespace warden::analysis::text
