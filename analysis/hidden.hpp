#pragma once
// Hidden-text detectors over raw (un-normalised) text: tag characters, variation-selector payloads,
// bidi controls, invisible format characters, control characters and terminal escapes, private
// use, deceptive whitespace, look-alike words and identifiers, invalid UTF-8. Pure and thread-safe.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.hpp"

namespace warden::analysis {

// What kind of text is being looked at; thresholds differ (a tool result may legitimately be long
// and indented, a tool name must be a plain identifier).
enum class text_kind : std::uint8_t { identifier,
                                      prose,
                                      result };

struct hidden_hit {
  std::string_view rule_id;
  severity level = severity::low;
  double confidence = 0.5;
  std::size_t begin = 0, end = 0;  // byte range in the raw text
  std::string decoded;             // decoded payload, when there is one
  std::string message;
};

struct hidden_scan {
  std::vector<hidden_hit> hits;
  // Text the model reads but a person does not see (decoded tag characters and variation-selector
  // payloads). Callers run the injection detectors over it too.
  std::string revealed;
};

hidden_scan scan_hidden(std::string_view raw, text_kind kind);

}  // namespace warden::analysis
