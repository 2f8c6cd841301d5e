// The self-contained HTML report (see html_report.hpp).
#include "app/html_report.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/catalogue.hpp"
#include "app/version.hpp"

namespace warden::app {

namespace {

using namespace warden::analysis;

// Code points a reader must see rather than have rendered: controls, bidi controls, zero-width
// characters, tag characters, variation selectors.
bool must_show(std::uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF ||
         (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

// Decodes one UTF-8 sequence at text[i]; invalid bytes decode to U+FFFD one at a time.
std::uint32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2
                                     : (lead >> 4) == 0xE   ? 3
                                     : (lead >> 3) == 0x1E  ? 4
                                                            : 0;
  if (length == 0 || i + length > text.size()) {
    ++i;
    return 0xFFFD;
  }
  std::uint32_t cp = length == 1 ? lead : length == 2 ? (lead & 0x1Fu)
                                      : length == 3   ? (lead & 0x0Fu)
                                                      : (lead & 0x07u);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  const std::uint32_t minimum = length == 2 ? 0x80 : length == 3 ? 0x800
                                                 : length == 4   ? 0x10000
                                                                 : 0;
  if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return 0xFFFD;
  }
  i += length;
  return cp;
}

std::string escape_impl(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size() + 16);
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::uint32_t cp = next_code_point(text, i);
    switch (cp) {
      case '&': out += "&amp;"; continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '"': out += "&quot;"; continue;
      case '\'': out += "&#39;"; continue;
      default: break;
    }
    if ((cp == '\n' && keep_newlines) || cp == '\t') {
      out += static_cast<char>(cp);
    } else if (must_show(cp)) {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "&lt;U+%04X&gt;", static_cast<unsigned>(cp));
      out += buffer;
    } else if (cp == 0xFFFD && !(i - start == 3 && text.substr(start, 3) == "\xEF\xBF\xBD")) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  return out;
}

std::string esc(std::string_view text) { return escape_impl(text, true); }

// Long single-line labels in the SVG: cut by code points, then escaped.
std::string svg_label(std::string_view text, std::size_t max_chars) {
  std::size_t i = 0, count = 0;
  while (i < text.size() && count < max_chars) {
    next_code_point(text, i);
    ++count;
  }
  if (i < text.size()) return escape_impl(text.substr(0, i), false) + "\xE2\x80\xA6";
  return escape_impl(text, false);
}

std::string grade_class(char grade) { return std::string("g") + static_cast<char>(std::tolower(static_cast<unsigned char>(grade))); }

std::string severity_badge(severity level) {
  const std::string name(to_string(level));
  return "<span class=\"sev sev-" + name + "\">" + name + "</span>";
}

const char* style_sheet = R"css(
:root{--ink:#1d2330;--muted:#5b6475;--line:#d9dee8;--bg:#f6f7fb;--card:#fff;--red:#c62828;--orange:#e8710a;--yellow:#b58900;--green:#2e7d32;--blue:#1565c0}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
header{background:#1d2330;color:#fff;padding:20px 32px;display:flex;align-items:center;gap:24px}
header h1{margin:0;font-size:22px;font-weight:600}
header .meta{color:#c5cbd8;font-size:13px}
main{padding:20px 32px;max-width:1400px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:0 0 18px}
h2{font-size:17px;margin:0 0 12px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
code,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px;word-break:break-word}
.grade{display:inline-block;min-width:2.2em;text-align:center;font-weight:700;border-radius:6px;padding:2px 8px;color:#fff}
.grade.big{font-size:34px;padding:6px 18px;border-radius:10px}
.ga{background:var(--green)}.gb{background:#689f38}.gc{background:var(--yellow)}.gd{background:var(--orange)}.gf{background:var(--red)}
.sev{display:inline-block;border-radius:4px;padding:1px 7px;font-size:12px;font-weight:600;color:#fff}
.sev-critical{background:#8e0000}.sev-high{background:var(--red)}.sev-medium{background:var(--orange)}.sev-low{background:var(--yellow)}.sev-info{background:#78909c}
.cap{font-weight:600}.cap-critical{color:#8e0000}.cap-high{color:var(--red)}.cap-moderate{color:var(--orange)}.cap-minimal{color:var(--green)}
.summary{display:flex;gap:28px;flex-wrap:wrap;align-items:center}
.summary .stat{font-size:13px;color:var(--muted)}.summary .stat b{display:block;font-size:20px;color:var(--ink)}
.payload{margin:6px 0 0;padding:8px 10px;background:#fff4e5;border-left:4px solid var(--orange);white-space:pre-wrap}
.payload b{color:#8a4b00}
.evidence{white-space:pre-wrap;color:#37474f}
.flow{border-left:4px solid var(--orange);padding:6px 10px;margin:6px 0;background:#fffaf3}
.flow.cross{border-color:var(--red);background:#fff5f5}
.tag{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:10px;padding:0 7px;margin-left:6px;color:var(--muted)}
.failed td{color:var(--red)}
.empty{color:var(--muted)}
svg text{font-family:system-ui,"DejaVu Sans",sans-serif}
footer{padding:0 32px 28px;color:var(--muted);font-size:12px}
)css";

// Columns of the capability graph, in the order data moves through a toxic flow.
struct role_column {
  role which;
  const char* title;
  const char* color;
};
constexpr role_column columns[] = {
    {role::untrusted_input, "Untrusted input", "#6a1b9a"},
    {role::private_data, "Private data", "#1565c0"},
    {role::external_sink, "External sink", "#c62828"},
    {role::code_execution, "Code execution", "#e8710a"},
    {role::destructive, "Destructive", "#8e0000"},
    {role::filesystem_write, "File writes", "#00796b"},
};

std::string capability_graph(const analysis_report& report) {
  constexpr int column_width = 212, gap = 18, node_height = 24, node_gap = 6, top = 48, max_nodes = 14;
  const bool multi = report.servers.size() > 1;
  const auto label_of = [&](const tool_capability& c) { return multi ? c.server + "/" + c.tool : c.tool; };
  std::vector<std::vector<std::string>> names(std::size(columns));
  std::size_t without_role = 0;
  for (const auto& cap : report.capabilities) {
    if (cap.roles == 0) ++without_role;
    for (std::size_t c = 0; c < std::size(columns); ++c)
      if (cap.has(columns[c].which)) names[c].push_back(label_of(cap));
  }
  std::size_t tallest = 1;
  for (const auto& list : names) tallest = std::max(tallest, std::min<std::size_t>(list.size(), max_nodes + 1));
  const int width = static_cast<int>(std::size(columns)) * (column_width + gap) + gap;
  const int height = top + static_cast<int>(tallest) * (node_height + node_gap) + 40;

  // Node centres, for drawing flows.
  std::map<std::pair<std::size_t, std::string>, std::pair<int, int>> anchor;
  std::string nodes;
  for (std::size_t c = 0; c < std::size(columns); ++c) {
    const int x = gap + static_cast<int>(c) * (column_width + gap);
    nodes += "<rect x=\"" + std::to_string(x) + "\" y=\"8\" width=\"" + std::to_string(column_width) +
             "\" height=\"28\" rx=\"6\" fill=\"" + columns[c].color + "\"/>";
    nodes += "<text x=\"" + std::to_string(x + column_width / 2) + "\" y=\"27\" text-anchor=\"middle\" fill=\"#fff\" font-size=\"13\" font-weight=\"600\">" +
             std::string(columns[c].title) + " (" + std::to_string(names[c].size()) + ")</text>";
    for (std::size_t k = 0; k < names[c].size() && k <= static_cast<std::size_t>(max_nodes); ++k) {
      const int y = top + static_cast<int>(k) * (node_height + node_gap);
      const bool more = k == static_cast<std::size_t>(max_nodes);
      const std::string label = more ? "+" + std::to_string(names[c].size() - k) + " more" : names[c][k];
      nodes += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(column_width) +
               "\" height=\"" + std::to_string(node_height) + "\" rx=\"5\" fill=\"#fff\" stroke=\"" + columns[c].color + "\"/>";
      nodes += "<text x=\"" + std::to_string(x + 8) + "\" y=\"" + std::to_string(y + 16) + "\" font-size=\"12\" fill=\"#1d2330\">" +
               (more ? esc(label) : svg_label(label, 30)) + "</text>";
      if (!more) anchor[{c, label}] = {x, y + node_height / 2};
    }
  }
  // Flows: untrusted -> private -> sink (or -> destructive/code), one curve per hop.
  std::string edges;
  std::size_t drawn = 0;
  const auto curve = [&](std::size_t from_column, const std::string& from, std::size_t to_column, const std::string& to,
                         const char* color) {
    const auto a = anchor.find({from_column, from});
    const auto b = anchor.find({to_column, to});
    if (a == anchor.end() || b == anchor.end() || drawn > 200) return;
    ++drawn;
    const int x1 = a->second.first + column_width, y1 = a->second.second;
    const int x2 = b->second.first, y2 = b->second.second;
    const int bend = std::max(40, (x2 - x1) / 2);
    edges += "<path d=\"M" + std::to_string(x1) + "," + std::to_string(y1) + " C" + std::to_string(x1 + bend) + "," +
             std::to_string(y1) + " " + std::to_string(x2 - bend) + "," + std::to_string(y2) + " " + std::to_string(x2) + "," +
             std::to_string(y2) + "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.6\" stroke-opacity=\"0.75\" marker-end=\"url(#arrow)\"/>";
  };
  for (const auto& flow : report.flows) {
    const char* color = flow.cross_server ? "#c62828" : "#e8710a";
    const auto column_of = [](role r) {
      for (std::size_t c = 0; c < std::size(columns); ++c)
        if (columns[c].which == r) return c;
      return std::size_t{0};
    };
    const std::size_t u = column_of(role::untrusted_input), p = column_of(role::private_data), s = column_of(role::external_sink);
    if (!flow.private_data.empty()) {
      for (const auto& from : flow.untrusted)
        for (const auto& to : flow.private_data) curve(u, from, p, to, color);
      for (const auto& from : flow.private_data)
        for (const auto& to : flow.sinks) curve(p, from, s, to, color);
    } else {
      for (const auto& from : flow.untrusted)
        for (const auto& to : flow.sinks) curve(u, from, s, to, color);
    }
    for (const auto& from : flow.untrusted)
      for (const auto& to : flow.destructive) {
        for (const role r : {role::code_execution, role::destructive})
          if (anchor.count({column_of(r), to})) curve(u, from, column_of(r), to, color);
      }
  }
  // Scales to the page width; the viewBox keeps the proportions.
  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"capability and toxic-flow graph\" "
      "style=\"width:100%;height:auto;max-width:" +
      std::to_string(width) + "px\" viewBox=\"0 0 " + std::to_string(width) + " " +
      std::to_string(height) + "\">";
  svg +=
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
      "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#5b6475\"/></marker></defs>";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fbfcfe\"/>" + nodes + edges;
  svg += "<text x=\"" + std::to_string(gap) + "\" y=\"" + std::to_string(height - 12) + "\" font-size=\"12\" fill=\"#5b6475\">" +
         std::to_string(without_role) + " tool(s) with no risky role are not drawn. Lines: toxic flows (red: across servers, orange: within one server).</text>";
  svg += "</svg>";
  return svg;
}

}  // namespace

std::string html_escape(std::string_view text) { return escape_impl(text, true); }

std::string to_html(const analysis_report& report, const html_report_context& context) {
  std::string h;
  h.reserve(64 * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  // Nothing may load or run: the page is a document, whatever the servers wrote.
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  h += "<title>" + esc(context.title) + "</title><style>" + style_sheet + "</style></head><body>\n";
  h += "<header><span class=\"grade big " + grade_class(report.trust.grade) + "\" id=\"overall-grade\">" +
       std::string(1, report.trust.grade) + "</span><div><h1>" + esc(context.title) + "</h1><div class=\"meta\">" +
       std::to_string(report.servers.size()) + " server(s) analysed" +
       (context.unscanned.empty() ? "" : ", " + std::to_string(context.unscanned.size()) + " not scanned") + " &middot; " +
       (report.live ? "live surfaces" : "saved surfaces") + " &middot; mcp-warden " + esc(version) + "</div></div></header>\n<main>\n";

  // Summary.
  const std::string capability(to_string(report.capability));
  std::map<severity, std::size_t> by_level;
  for (const auto& f : report.findings) ++by_level[f.level];
  h += "<section id=\"summary\"><h2>Summary</h2><div class=\"summary\">";
  h += "<div class=\"stat\">trust score<b>" + std::to_string(report.trust.score) + "/100</b></div>";
  h += "<div class=\"stat\">capability<b class=\"cap cap-" + capability + "\">" + capability + "</b></div>";
  h += "<div class=\"stat\">tools<b>" + std::to_string(report.stats.tools) + "</b></div>";
  h += "<div class=\"stat\">findings<b>" + std::to_string(report.findings.size()) + "</b></div>";
  for (const severity level : {severity::critical, severity::high, severity::medium, severity::low})
    if (by_level[level]) h += "<div class=\"stat\">" + severity_badge(level) + "<b>" + std::to_string(by_level[level]) + "</b></div>";
  h += "<div class=\"stat\">toxic flows<b>" + std::to_string(report.flows.size()) + "</b></div></div>";
  if (!context.configs.empty()) {
    h += "<p class=\"empty\">Configs: ";
    for (std::size_t i = 0; i < context.configs.size(); ++i) h += (i ? ", " : "") + std::string("<code>") + esc(context.configs[i]) + "</code>";
    h += "</p>";
  }
  h += "</section>\n";

  // Servers.
  std::map<std::string, std::uint8_t> server_roles;
  for (const auto& cap : report.capabilities) server_roles[cap.server] |= cap.roles;
  h += "<section id=\"servers\"><h2>Servers</h2><table><thead><tr><th>Grade</th><th>Server</th><th>Roles</th><th>Tools</th>"
       "<th>Prompts</th><th>Resources</th><th>Started as</th></tr></thead><tbody>";
  for (const auto& s : report.servers) {
    std::string roles;
    for (const role r : all_roles)
      if (server_roles[s.name] & static_cast<std::uint8_t>(r)) roles += std::string(roles.empty() ? "" : ", ") + std::string(to_string(r));
    h += "<tr class=\"server\"><td><span class=\"grade " + grade_class(s.trust.grade) + "\">" + std::string(1, s.trust.grade) +
         "</span> <span class=\"empty\">" + std::to_string(s.trust.score) + "</span></td><td><b>" + esc(s.name) + "</b>" +
         (s.version.empty() ? "" : " <span class=\"tag\">" + esc(s.version) + "</span>") + "<div class=\"empty\">" + esc(s.source) +
         "</div></td><td>" + (roles.empty() ? "<span class=\"empty\">none</span>" : esc(roles)) + "</td><td>" + std::to_string(s.tools) +
         "</td><td>" + std::to_string(s.prompts) + "</td><td>" + std::to_string(s.resources + s.resource_templates) +
         "</td><td><code>" + esc(s.identity) + "</code></td></tr>";
  }
  for (const auto& u : context.unscanned)
    h += "<tr class=\"failed\"><td><span class=\"grade gf\">?</span></td><td><b>" + esc(u.name) + "</b><div class=\"empty\">" +
         esc(u.source) + "</div></td><td colspan=\"5\">not scanned: " + esc(u.reason) + "</td></tr>";
  h += "</tbody></table></section>\n";

  // Graph and flows.
  h += "<section id=\"graph\"><h2>Capabilities and toxic flows</h2>" + capability_graph(report);
  if (report.flows.empty()) h += "<p class=\"empty\">No toxic flow: no combination of untrusted input, private data and an outlet.</p>";
  for (const auto& flow : report.flows)
    h += std::string("<div class=\"flow") + (flow.cross_server ? " cross" : "") + "\">" + severity_badge(flow.level) + " <code>" +
         esc(flow.rule_id) + "</code>" + (flow.cross_server ? "<span class=\"tag\">across servers</span>" : "") + "<div>" +
         esc(flow.summary) + "</div></div>";
  h += "</section>\n";

  // Findings.
  h += "<section id=\"findings\"><h2>Findings</h2>";
  if (report.findings.empty()) h += "<p class=\"empty\">No findings.</p>";
  else h += "<table><thead><tr><th>Severity</th><th>Rule</th><th>Where</th><th>What</th></tr></thead><tbody>";
  for (const auto& f : report.findings) {
    const rule_info* rule = find_rule(f.rule_id);
    h += "<tr class=\"finding\"><td>" + severity_badge(f.level) + "</td><td><code>" + esc(f.rule_id) + "</code>" +
         (rule ? "<div class=\"empty\">" + esc(rule->title) + "</div>" : "") + "</td><td>" +
         (f.server.empty() ? "" : "<b>" + esc(f.server) + "</b> ") + esc(f.item) + "<div class=\"mono empty\">" + esc(f.location) +
         "</div></td><td>" + esc(f.message);
    if (!f.evidence.empty()) h += "<div class=\"mono evidence\">" + esc(f.evidence) + "</div>";
    if (!f.decoded.empty())
      h += "<div class=\"mono payload decoded\"><b>Decoded hidden payload:</b> " + esc(f.decoded) + "</div>";
    h += "</td></tr>";
  }
  if (!report.findings.empty()) h += "</tbody></table>";
  h += "</section>\n";

  if (!context.unscanned.empty()) {
    h += "<section id=\"unscanned\"><h2>Servers not scanned</h2><table><tbody>";
    for (const auto& u : context.unscanned)
      h += "<tr class=\"failed\"><td><b>" + esc(u.name) + "</b></td><td>" + esc(u.source) + "</td><td>" + esc(u.reason) + "</td></tr>";
    h += "</tbody></table></section>\n";
  }
  h += "</main><footer>Surface digest <code>" + esc(report.surface_digest) +
       "</code>. Grades and rules: docs/scoring.md, <code>mcp-warden rules</code>.</footer>\n</body></html>\n";
  return h;
}

}  // namespace warden::app
