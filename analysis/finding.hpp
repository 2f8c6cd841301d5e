#pragma once
// Findings: what a detector saw, where, and how sure it is. Plain data, cheap to copy.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warden::analysis {

enum class severity : std::uint8_t { info,
                                     low,
                                     medium,
                                     high,
                                     critical };

std::string_view to_string(severity level) noexcept;
// Accepts info|low|medium|high|critical (case-insensitive); nullopt otherwise.
std::optional<severity> parse_severity(std::string_view text) noexcept;

// Families of rules. Only the "threat" families feed the trust grade (see docs/scoring.md).
enum class category : std::uint8_t { hidden_unicode,
                                     poisoning,
                                     shadowing,
                                     capability,
                                     toxic_flow,
                                     hygiene };

std::string_view to_string(category family) noexcept;

struct finding {
  std::string rule_id;
  severity level = severity::info;
  double confidence = 0.0;  // 0..1: how sure the detector is that this is what the rule names
  std::string server;       // server display name (multi-server scans); may be empty
  std::string item;         // tool / prompt / resource name the text belongs to; may be empty
  std::string location;     // path inside the server's manifest, e.g. tools[3].description
  std::string evidence;     // excerpt of the original text, invisible characters made visible
  std::string decoded;      // hidden payload decoded (tag characters, variation selectors, base64)
  std::string message;      // what exactly was seen, one sentence
};

}  // namespace warden::analysis
