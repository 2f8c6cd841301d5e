#pragma once
// Renders an analysis_report: JSON (the stable machine format), SARIF 2.1.0 (GitHub code
// scanning), Markdown (PR comments) and text for terminals. Pure string building; every piece of
// untrusted text has already been made visible (no raw control or bidi characters reach output).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analysis/engine.hpp"

namespace warden::analysis {

inline constexpr std::string_view tool_name = "mcp-warden";
inline constexpr std::string_view tool_version = "0.1.0";

nlohmann::json to_json(const analysis_report& report);
nlohmann::json to_sarif(const analysis_report& report);
std::string to_markdown(const analysis_report& report);
std::string to_text(const analysis_report& report, bool color);

// Dumps JSON with invalid UTF-8 replaced (never throws).
std::string dump_json(const nlohmann::json& value, int indent = 2);

}  // namespace warden::analysis
