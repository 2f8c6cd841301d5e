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

#include "base/byte_scan.hpp"
#include "base/utf8.hpp"

namespace warden::analysis::text {

// The UTF-8 primitives and byte scans of base/ under the detectors' one text:: vocabulary.
using base::every_byte, base::high_bits, base::load8, base::bytes_between, base::next_non_ascii, base::ascii_letters_in,
    base::ascii_lower, base::json_special_bytes, base::json_plain_prefix;
using base::invalid_code_point, base::decode_utf8, base::decode_utf8_long, base::append_utf8, base::lower_ascii,
    base::hex_digit, base::is_ascii, base::is_valid_utf8, base::utf8_sequence_length, base::replace_invalid_utf8;

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
  friend class normal_writer;
  // The map back to the original: one segment where the plain continuation breaks (a character
  // that changed its length, a skipped one), not one entry per byte. Byte v of a segment comes from
  // raw + (v - view) when it is `linear`, from raw itself otherwise (every byte of a multi-byte
  // character maps to the character's first byte).
  struct segment {
    std::uint32_t view, raw;
    bool linear;
  };
  std::string owned_;
  std::vector<segment> segments_;  // ascending by view; the first starts at view 0
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

// Where identifier `name` stands in `text` as a whole word (no letter, digit or '_' touching it
// on either side), from byte `from`; npos when it does not.
std::size_t find_identifier(std::string_view text, std::string_view name, std::size_t from = 0);

// Levenshtein distance on bytes, stopping early above `limit` (returns limit + 1 then).
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit);

}  // namespace warden::analysis::text
