#include "analysis/hidden_orders.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "analysis/text.hpp"
#include "base/invisible.hpp"

namespace warden::analysis {
namespace {

// The text as the model reads it, with what a person cannot see removed: the zero-width fillers
// and direction controls of the one invisible table (base/invisible.hpp; tag characters are the
// hidden-text scan's, and emoji flags need them) plus the joiners, direction marks and soft
// hyphen, which honest text needs but which draw nothing between the letters of a word either.
struct visible_text {
  std::string text;
  std::size_t between_letters = 0;  // invisibles removed from inside a word
  bool reordered = false;           // a direction isolate or override was present
};

visible_text without_invisibles(std::string_view raw) {
  visible_text out;
  out.text.reserve(raw.size());
  char prev = ' ';
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t at = i;
    const char32_t cp = text::decode_utf8(raw, i);  // advances by at least one byte
    out.reordered = out.reordered || base::is_bidi_control(cp);
    if (base::is_zero_width_filler(cp) || base::is_bidi_control(cp) || (cp >= 0x200C && cp <= 0x200F) || cp == 0x00AD) {
      const char next = i < raw.size() ? raw[i] : ' ';
      if (prev != ' ' && next != ' ') ++out.between_letters;
    } else {
      out.text.append(raw.substr(at, i - at));
      prev = raw[i - 1];
    }
  }
  return out;
}

// Each non-ASCII character whose UTS #39 skeleton is one ASCII letter becomes that letter ("а" of
// Cyrillic -> "a"); ASCII is kept as it is (a whole-text skeleton would turn "m" into "rn").
std::string ascii_look_alikes(std::string_view text_in) {
  std::string out;
  out.reserve(text_in.size());
  for (std::size_t i = 0; i < text_in.size();) {
    const std::size_t at = i;
    if (static_cast<unsigned char>(text_in[i]) < 0x80) {
      out.push_back(text_in[i++]);
      continue;
    }
    text::decode_utf8(text_in, i);  // advances by at least one byte
    const std::string_view one = text_in.substr(at, i - at);
    const std::string prototype = text::skeleton(one);
    const bool letter = prototype.size() == 1 && std::isalpha(static_cast<unsigned char>(prototype[0]));
    out.append(letter ? std::string_view(prototype) : one);
  }
  return out;
}

// A run of whitespace long enough to push the rest off a screen: table padding stays far shorter.
bool pushes_out_of_view(std::string_view raw, const hidden_hit& hit) {
  const auto run = raw.substr(hit.begin, hit.end > hit.begin ? hit.end - hit.begin : 0);
  const auto spaces = std::count(run.begin(), run.end(), ' ') + std::count(run.begin(), run.end(), '\t');
  const auto lines = std::count(run.begin(), run.end(), '\n');
  return spaces >= 100 || lines >= 12;
}

}  // namespace

std::optional<std::string> order_behind_device(std::string_view raw, const hidden_scan& hidden, const field_context& context) {
  bool strong = false;
  for (const auto& h : hidden.hits) {
    if (h.rule_id == "unicode.mixed-script-word" || h.rule_id == "unicode.terminal-escape") strong = true;
    if (h.rule_id == "unicode.deceptive-whitespace" && pushes_out_of_view(raw, h)) strong = true;
  }
  // Invisible characters and direction controls are three-byte sequences starting 0xE2.
  if (!strong && raw.find('\xE2') == std::string_view::npos) return std::nullopt;
  const visible_text visible = without_invisibles(raw);
  // Isolates and overrides reorder what a reader sees; marks (U+200E/F) are how honest
  // right-to-left text is written and count only as invisibles.
  strong = strong || visible.between_letters >= 8 || visible.reordered;
  if (!strong) return std::nullopt;
  // Read it as the model does: look-alike letters mapped to the ASCII letters they imitate.
  const std::string read = text::lower_ascii(ascii_look_alikes(visible.text));
  auto found = inspect_injection(read, context);
  for (const auto& h : found.hits)
    if (h.rule_id.starts_with("poison.")) return text::excerpt(read, h.begin, h.end);
  // No rule fired: an order to do something is enough here.
  static const re2::RE2 order(
      R"((?:^|[.!?:\n]\s*)((?:also\s+|always\s+|then\s+|now\s+|first\s+|please\s+)?(?:add|append|include|send|forward|read|pass|put|attach|copy|call|run|execute|use|set|enter|write|upload|post|cc|bcc|ignore|list|open|fetch|share|email|mail|export)\b[^.!?\n]{0,160})|\b((?:you|assistant|agent|callers?)\s+(?:must|should|shall|need to|have to|also)\b[^.!?\n]{0,160}))");
  re2::StringPiece input(read), first, second;
  if (re2::RE2::PartialMatch(input, order, &first, &second)) return std::string(first.empty() ? second : first).substr(0, 200);
  return std::nullopt;
}

}  // namespace warden::analysis
