#pragma once
// The rule catalogue: every rule the engine can report, with the text `rules` and `explain` print
// and the SARIF rule metadata. Static, immutable data; safe from any thread.
#include <span>
#include <string_view>

#include "analysis/finding.hpp"

namespace warden::analysis {

struct rule_info {
  std::string_view id;  // stable; never reused for a different meaning
  category family;
  severity default_level;  // the usual severity; detectors may raise or lower per finding
  bool threat;             // counts towards the trust grade
  std::string_view title;
  std::string_view summary;      // one line
  std::string_view explanation;  // why it matters
  std::string_view remediation;  // how to fix
  std::string_view example;      // a made-up text that triggers it
};

std::span<const rule_info> all_rules() noexcept;
const rule_info* find_rule(std::string_view id) noexcept;

}  // namespace warden::analysis
