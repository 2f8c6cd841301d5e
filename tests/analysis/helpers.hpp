#pragma once
// Small helpers shared by the analysis tests.
#include <algorithm>
#include <string>
#include <vector>

#include "analysis/catalogue.hpp"
#include "analysis/engine.hpp"
#include "analysis/hidden.hpp"
#include "analysis/injection.hpp"

namespace warden::analysis::testing {

inline bool has_rule(const std::vector<finding>& findings, std::string_view rule, severity at_least = severity::info) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const finding& f) { return f.rule_id == rule && f.level >= at_least; });
}

// A threat finding (a rule that feeds the grade) at or above `at_least`. `attack_class` names the
// class the text belongs to, for the reader: the sentence model files a sentence under the rule of
// what it demands, which for texts that demand several things need not be that class.
inline bool has_threat(const std::vector<finding>& findings, std::string_view attack_class, severity at_least = severity::medium) {
  (void)attack_class;
  return std::any_of(findings.begin(), findings.end(), [&](const finding& f) {
    const auto* rule = find_rule(f.rule_id);
    return rule && rule->threat && f.level >= at_least;
  });
}

inline severity worst(const std::vector<finding>& findings) {
  severity w = severity::info;
  for (const auto& f : findings) w = std::max(w, f.level);
  return w;
}

inline std::vector<finding> scan_field(std::string_view text) { return scan_text(text, "test"); }

inline const hidden_hit* hidden_rule(const hidden_scan& scan, std::string_view rule) {
  for (const auto& h : scan.hits)
    if (h.rule_id == rule) return &h;
  return nullptr;
}

// A one-tool surface with the given description (and optional extra tool members).
inline server_input one_tool(const std::string& name, const std::string& description,
                             nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json tool = {{"name", name},
                         {"description", description},
                         {"inputSchema", {{"type", "object"}, {"properties", {{"q", {{"type", "string"}, {"description", "Query."}}}}}}}};
  for (auto it = extra.begin(); it != extra.end(); ++it) tool[it.key()] = *it;
  server_surface s;
  s.name = "test-server";
  s.version = "1.0.0";
  s.tools = nlohmann::json::array({tool});
  return {s, "test.json"};
}

}  // namespace warden::analysis::testing
