#include "analysis/report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/catalogue.hpp"
#include "base/digest.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {

using nlohmann::json;

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {

// SARIF's problem.severity: error, warning or recommendation.
const char* problem_severity(severity level) {
  if (level >= severity::high) return "error";
  return level == severity::medium ? "warning" : "recommendation";
}

std::string visible(std::string_view s, std::size_t max = 200) { return text::make_visible(s, max); }

double rounded(double v) { return std::round(v * 100.0) / 100.0; }

const rule_info& rule_or_placeholder(std::string_view id) {
  static const rule_info unknown{"unknown", category::hygiene, severity::info, false, "Unknown rule", "", "", "", ""};
  const rule_info* r = find_rule(id);
  return r ? *r : unknown;
}

// The first 16 bytes of the SHA-256, as SARIF's partial fingerprints use it.
std::string short_hash(std::string_view data) { return base::sha256_hex(data).substr(0, 32); }

json finding_json(const finding& f) {
  const auto& rule = rule_or_placeholder(f.rule_id);
  json j = {{"ruleId", f.rule_id},
            {"title", rule.title},
            {"category", to_string(rule.family)},
            {"severity", to_string(f.level)},
            {"confidence", rounded(f.confidence)},
            {"threat", rule.threat},
            {"location", f.location},
            {"evidence", f.evidence},
            {"message", f.message},
            {"remediation", rule.remediation}};
  if (!f.server.empty()) j["server"] = f.server;
  if (!f.item.empty()) j["item"] = visible(f.item, 120);
  if (!f.decoded.empty()) j["decoded"] = visible(f.decoded, 400);
  return j;
}

std::map<std::string, std::size_t> severity_counts(const analysis_report& report) {
  std::map<std::string, std::size_t> counts;
  for (severity s : {severity::critical, severity::high, severity::medium, severity::low, severity::info}) counts[std::string(to_string(s))] = 0;
  for (const auto& f : report.findings) ++counts[std::string(to_string(f.level))];
  return counts;
}

std::string item_label(const finding& f) {
  std::string label;
  if (!f.server.empty()) label += f.server;
  if (!f.item.empty()) label += (label.empty() ? "" : "/") + visible(f.item, 80);
  return label;
}

}  // namespace

json to_json(const analysis_report& report) {
  json servers = json::array();
  for (const auto& s : report.servers)
    servers.push_back({{"name", s.name},
                       {"version", s.version},
                       {"identity", s.identity},
                       {"source", s.source},
                       {"live", s.live},
                       {"surfaceDigest", "sha256:" + s.digest},
                       {"tools", s.tools},
                       {"prompts", s.prompts},
                       {"resources", s.resources},
                       {"resourceTemplates", s.resource_templates},
                       {"score", {{"score", s.trust.score}, {"grade", std::string(1, s.trust.grade)}}}});
  json findings = json::array();
  for (const auto& f : report.findings) findings.push_back(finding_json(f));
  json flows = json::array();
  for (const auto& f : report.flows)
    flows.push_back({{"ruleId", f.rule_id},
                     {"severity", to_string(f.level)},
                     {"crossServer", f.cross_server},
                     {"summary", f.summary},
                     {"roles", {{"untrustedInput", f.untrusted}, {"privateData", f.private_data}, {"externalSink", f.sinks}, {"destructive", f.destructive}}}});
  json capabilities = json::array();
  std::map<std::string, std::size_t> role_counts;
  for (role r : all_roles) role_counts[std::string(to_string(r))] = 0;
  for (const auto& c : report.capabilities) {
    json roles = json::array();
    for (role r : all_roles)
      if (c.has(r)) {
        roles.push_back(to_string(r));
        ++role_counts[std::string(to_string(r))];
      }
    json entry = {{"tool", visible(c.tool, 120)}, {"roles", roles}, {"reasons", c.reasons}};
    if (report.servers.size() > 1) entry["server"] = c.server;
    capabilities.push_back(std::move(entry));
  }
  const bool manifest = std::any_of(report.servers.begin(), report.servers.end(), [](const server_summary& s) { return !s.live; });
  json target = {{"kind", report.live ? "live" : "manifest"}, {"servers", servers}};
  return json{{"tool", {{"name", tool_name}, {"version", tool_version}}},
              {"target", target},
              {"score", {{"score", report.trust.score}, {"grade", std::string(1, report.trust.grade)}, {"flagged", is_flagged(report.trust)}}},
              {"capability", {{"level", to_string(report.capability)}, {"roles", role_counts}}},
              {"coverage", {{"level", report.live ? "confirmed" : "declared"}, {"inputs", {{"liveTransport", report.live}, {"manifest", manifest}}}, {"surfaces", {{"servers", report.stats.servers}, {"tools", report.stats.tools}, {"prompts", report.stats.prompts}, {"resources", report.stats.resources}, {"resourceTemplates", report.stats.resource_templates}}}}},
              {"findings", findings},
              {"toxicFlows", flows},
              {"capabilities", capabilities},
              {"surfaceDigest", "sha256:" + report.surface_digest},
              {"stats", {{"servers", report.stats.servers}, {"tools", report.stats.tools}, {"prompts", report.stats.prompts}, {"resources", report.stats.resources}, {"resourceTemplates", report.stats.resource_templates}, {"stringsScanned", report.stats.strings_scanned}, {"bytesScanned", report.stats.bytes_scanned}, {"findings", severity_counts(report)}}}};
}

json to_sarif(const analysis_report& report) {
  auto sarif_level = [](severity s) {
    switch (s) {
      case severity::critical:
      case severity::high: return "error";
      case severity::medium: return "warning";
      default: return "note";
    }
  };
  auto security_severity = [](severity s) {
    switch (s) {
      case severity::critical: return "9.5";
      case severity::high: return "8.0";
      case severity::medium: return "5.5";
      case severity::low: return "3.0";
      default: return "1.0";
    }
  };
  json rules = json::array();
  std::map<std::string, std::size_t> index;
  for (const auto& r : all_rules()) {
    index[std::string(r.id)] = rules.size();
    std::string markdown = "**" + std::string(r.title) + "**\n\n" + std::string(r.explanation) + "\n\n**Remediation:** " +
                           std::string(r.remediation) + "\n\n**Example:** `" + std::string(r.example) + "`";
    rules.push_back({{"id", r.id},
                     {"name", r.title},
                     {"shortDescription", {{"text", r.summary}}},
                     {"fullDescription", {{"text", r.explanation}}},
                     {"help", {{"text", std::string(r.explanation) + " Remediation: " + std::string(r.remediation)}, {"markdown", markdown}}},
                     {"defaultConfiguration", {{"level", sarif_level(r.default_level)}}},
                     {"properties", {{"tags", json::array({"security", "mcp", to_string(r.family)})}, {"security-severity", security_severity(r.default_level)}, {"precision", r.threat ? "high" : "medium"}, {"problem.severity", problem_severity(r.default_level)}}}});
  }
  std::map<std::string, const server_summary*> by_name;
  for (const auto& s : report.servers) by_name[s.name] = &s;
  auto artifact_uri = [&](const finding& f) -> std::string {
    const server_summary* s = nullptr;
    if (auto it = by_name.find(f.server); it != by_name.end()) s = it->second;
    else if (report.servers.size() == 1) s = &report.servers.front();
    if (s && !s->live && !s->source.empty() && s->source.find("://") == std::string::npos) return s->source;
    std::string host = s ? s->name : (f.server.empty() ? "server" : f.server);
    std::string safe;
    for (char c : host) safe.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '-');
    if (safe.empty()) safe = "server";
    return "mcp://" + safe + "/surface.json";
  };
  json results = json::array();
  for (const auto& f : report.findings) {
    const auto& rule = rule_or_placeholder(f.rule_id);
    std::string message = std::string(rule.title) + ": " + f.message;
    if (!item_label(f).empty()) message += " [" + item_label(f) + "]";
    if (!f.evidence.empty()) message += " Evidence: " + f.evidence;
    if (!f.decoded.empty()) message += " Decoded: " + visible(f.decoded, 300);
    std::string fqn = (f.server.empty() ? std::string() : f.server + ":") + f.location;
    json result = {{"ruleId", f.rule_id},
                   {"level", sarif_level(f.level)},
                   {"message", {{"text", message}}},
                   {"locations", json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", artifact_uri(f)}}}, {"region", {{"startLine", 1}, {"startColumn", 1}}}}},
                                               {"logicalLocations", json::array({{{"fullyQualifiedName", fqn}, {"kind", "member"}}})}}})},
                   {"partialFingerprints", {{"mcpWardenFinding/v1", short_hash(f.rule_id + "|" + f.server + "|" + f.location + "|" + f.evidence)}}},
                   {"properties", {{"severity", to_string(f.level)}, {"confidence", rounded(f.confidence)}, {"category", to_string(rule.family)}}}};
    if (auto it = index.find(f.rule_id); it != index.end()) result["ruleIndex"] = it->second;
    results.push_back(std::move(result));
  }
  json run = {{"tool", {{"driver", {{"name", tool_name}, {"version", tool_version}, {"semanticVersion", tool_version}, {"informationUri", "https://modelcontextprotocol.io/"}, {"rules", rules}}}}},
              {"automationDetails", {{"id", "mcp-warden/scan/"}}},
              {"results", results},
              {"properties", {{"trustScore", report.trust.score}, {"trustGrade", std::string(1, report.trust.grade)}, {"capabilityLevel", to_string(report.capability)}, {"surfaceDigest", "sha256:" + report.surface_digest}}}};
  return json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

namespace {

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' || c == ']') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string md_code(std::string_view s) {
  // Inline code cannot escape backticks: swap them for a look-alike quote.
  std::string out;
  for (char c : s) {
    if (c == '`') out += "'";
    else if (c == '|') out += "\\|";
    else out.push_back(c);
  }
  return "`" + out + "`";
}

}  // namespace

std::string to_markdown(const analysis_report& report) {
  std::string md;
  const char* badge = is_flagged(report.trust) ? ":x:" : ":white_check_mark:";
  md += "## " + std::string(badge) + " mcp-warden: grade **" + std::string(1, report.trust.grade) + "** (" +
        std::to_string(report.trust.score) + "/100), capability **" + std::string(to_string(report.capability)) + "**\n\n";
  md += std::to_string(report.stats.servers) + " server(s), " + std::to_string(report.stats.tools) + " tools, " +
        std::to_string(report.stats.prompts) + " prompts, " + std::to_string(report.stats.resources + report.stats.resource_templates) +
        " resources; coverage: " + (report.live ? "confirmed (live)" : "declared (manifest)") + "; surface `sha256:" +
        report.surface_digest.substr(0, 16) + "…`\n\n";
  if (report.servers.size() > 1) {
    md += "| Server | Grade | Tools |\n|---|---|---|\n";
    for (const auto& s : report.servers)
      md += "| " + md_escape(s.name) + " | " + std::string(1, s.trust.grade) + " (" + std::to_string(s.trust.score) + ") | " +
            std::to_string(s.tools) + " |\n";
    md += "\n";
  }
  std::vector<const finding*> threats, other;
  for (const auto& f : report.findings) (rule_or_placeholder(f.rule_id).threat ? threats : other).push_back(&f);
  if (threats.empty()) {
    md += "No threat findings.\n\n";
  } else {
    md += "### Threat findings\n\n| Severity | Rule | Where | Evidence |\n|---|---|---|---|\n";
    for (const auto* f : threats) {
      std::string where = md_code(f->location);
      if (!item_label(*f).empty()) where = md_escape(item_label(*f)) + " " + where;
      std::string evidence = md_code(visible(f->evidence, 160));
      if (!f->decoded.empty()) evidence += "<br>decoded: " + md_code(visible(f->decoded, 160));
      md += "| " + std::string(to_string(f->level)) + " | `" + f->rule_id + "`<br>" + md_escape(f->message) + " | " + where +
            " | " + evidence + " |\n";
    }
    md += "\n";
  }
  if (!report.flows.empty()) {
    md += "### Toxic flows\n\n";
    for (const auto& f : report.flows)
      md += "- **" + std::string(to_string(f.level)) + "** `" + f.rule_id + "`" + (f.cross_server ? " (across servers)" : "") + ": " +
            md_escape(f.summary) + "\n";
    md += "\n";
  }
  if (!report.capabilities.empty()) {
    md += "<details><summary>Capabilities (" + std::to_string(report.capabilities.size()) + " tools)</summary>\n\n| Tool | Roles |\n|---|---|\n";
    for (const auto& c : report.capabilities) {
      std::string roles;
      for (role r : all_roles)
        if (c.has(r)) roles += (roles.empty() ? "" : ", ") + std::string(to_string(r));
      md += "| " + md_escape((report.servers.size() > 1 ? c.server + "/" : "") + visible(c.tool, 80)) + " | " + (roles.empty() ? "-" : roles) + " |\n";
    }
    md += "\n</details>\n\n";
  }
  std::size_t hygiene = 0;
  for (const auto* f : other) hygiene += f->rule_id.rfind("hygiene.", 0) == 0;
  if (hygiene) md += "_" + std::to_string(hygiene) + " hygiene finding(s) not shown; see the JSON or SARIF report._\n";
  return md;
}

std::string to_text(const analysis_report& report, bool color) {
  auto paint = [&](const char* code, std::string_view s) {
    return color ? std::string("\x1b[") + code + "m" + std::string(s) + "\x1b[0m" : std::string(s);
  };
  auto severity_color = [](severity s) {
    switch (s) {
      case severity::critical: return "1;97;41";
      case severity::high: return "1;31";
      case severity::medium: return "33";
      case severity::low: return "36";
      default: return "2";
    }
  };
  std::string out;
  out += paint("1", "mcp-warden scan") + ": " + std::to_string(report.stats.servers) + " server(s), " +
         std::to_string(report.stats.tools) + " tools, " + std::to_string(report.stats.prompts) + " prompts, " +
         std::to_string(report.stats.resources + report.stats.resource_templates) + " resources (" +
         (report.live ? "live" : "manifest") + ")\n";
  const char* grade_color = report.trust.grade == 'A' ? "1;32" : report.trust.grade == 'B' ? "32"
                                                             : report.trust.grade == 'C'   ? "1;33"
                                                                                           : "1;31";
  out += "  trust grade " + paint(grade_color, std::string(1, report.trust.grade) + " (" + std::to_string(report.trust.score) + "/100)") +
         "   capability " + paint("1", to_string(report.capability)) + "   surface sha256:" + report.surface_digest.substr(0, 16) + "\n";
  if (report.servers.size() > 1)
    for (const auto& s : report.servers)
      out += "    " + s.name + ": grade " + std::string(1, s.trust.grade) + " (" + std::to_string(s.trust.score) + "), " +
             std::to_string(s.tools) + " tools\n";
  out += "\n";
  std::size_t shown = 0, hygiene = 0;
  for (const auto& f : report.findings) {
    const auto& rule = rule_or_placeholder(f.rule_id);
    if (rule.family == category::hygiene) {
      ++hygiene;
      continue;
    }
    ++shown;
    std::string tag = std::string(to_string(f.level));
    for (auto& c : tag) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += paint(severity_color(f.level), " " + tag + " ") + " " + paint("1", f.rule_id) + "  " + std::string(rule.title) + "\n";
    std::string where = f.location;
    if (!item_label(f).empty()) where = item_label(f) + "  " + where;
    out += "    where:    " + where + "\n";
    out += "    what:     " + f.message + " (confidence " + std::to_string(static_cast<int>(std::lround(f.confidence * 100))) + "%)\n";
    if (!f.evidence.empty()) out += "    evidence: " + paint("2", f.evidence) + "\n";
    if (!f.decoded.empty()) out += "    decoded:  " + paint("35", visible(f.decoded, 300)) + "\n";
    out += "    fix:      " + std::string(rule.remediation) + "\n\n";
  }
  if (shown == 0) out += paint("32", "  no threat findings") + "\n\n";
  if (!report.capabilities.empty()) {
    out += paint("1", "capabilities") + "\n";
    for (const auto& c : report.capabilities) {
      std::string roles;
      for (role r : all_roles)
        if (c.has(r)) roles += (roles.empty() ? "" : ", ") + std::string(to_string(r));
      if (roles.empty()) continue;
      out += "    " + (report.servers.size() > 1 ? c.server + "/" : std::string()) + visible(c.tool, 80) + ": " + roles + "\n";
    }
    out += "\n";
  }
  if (hygiene) out += paint("2", "  " + std::to_string(hygiene) + " hygiene finding(s); use --format json to list them") + "\n";
  return out;
}

}  // namespace warden::analysis
