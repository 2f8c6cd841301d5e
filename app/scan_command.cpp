// mcp-warden scan | rules | explain: the surface analysis engine from the command line.
//
//   scan [--format text|json|sarif|markdown|html] [-o FILE] [--fail-on SEVERITY] [--min-grade G]
//        [--timeout S] [--save-surface FILE] [--color|--no-color] (--manifest FILE ... | [--] COMMAND [ARGS...])
//
// Exit codes: 0 clean or below the gate, 1 gate failed, 2 usage or input error, 3 the server could
// not be started or enumerated.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/catalogue.hpp"
#include "analysis/engine.hpp"
#include "analysis/report.hpp"
#include "analysis/text.hpp"
#include "app/command_line.hpp"
#include "app/commands.hpp"
#include "app/upstream_options.hpp"
#include "app/html_report.hpp"
#include "proxy/enumerate.hpp"

namespace warden::app {
namespace {

using namespace warden::analysis;
using nlohmann::json;

constexpr int exit_clean = 0, exit_gate = 1, exit_usage = 2, exit_enumerate = 3;

int usage_error(const std::string& message) {
  std::cerr << "mcp-warden: " << message << "\n";
  return exit_usage;
}

struct scan_options {
  std::string format = "text";
  std::string output;
  std::string fail_on;
  std::string min_grade;
  double timeout_seconds = 30;
  std::vector<std::string> manifests;
  std::string save_surface;  // live scans: the enumerated surface as a manifest, for later --manifest scans
  bool color = false, no_color = false;
  std::vector<std::string> command;
};

result<server_input> load_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open file"};
  std::stringstream buffer;
  buffer << in.rdbuf();
  json document = json::parse(buffer.str(), nullptr, false);
  if (document.is_discarded()) {
    // Re-parse with exceptions only to get the position of the first error.
    try {
      json reparsed = json::parse(buffer.str());
      static_cast<void>(reparsed);
    } catch (const json::parse_error& e) {
      return error{path + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what()};
    }
    return error{path + ": invalid JSON"};
  }
  // A saved initialize+list result may wrap the manifest in "result".
  if (document.is_object() && document.contains("result") && document["result"].is_object() && !document.contains("tools"))
    document = document["result"];
  auto surface = from_manifest(document);
  if (!surface) return error{path + ": " + surface.error_message()};
  return server_input{std::move(surface.value()), path};
}

int grade_rank(char grade) {
  switch (grade) {
    case 'A': return 0;
    case 'B': return 1;
    case 'C': return 2;
    case 'D': return 3;
    default: return 4;
  }
}

bool write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out << content;
  return static_cast<bool>(out);
}

}  // namespace

int run_scan_command(const std::vector<std::string>& args) {
  scan_options opt;
  CLI::App app{"Analyse an MCP server's surface: tool poisoning, hidden Unicode, toxic flows, shadowing.", "mcp-warden scan"};
  app.add_option("--format", opt.format, "Report format")->check(CLI::IsMember({"text", "json", "sarif", "markdown", "html"}));
  app.add_option("-o,--output", opt.output, "Write the report to FILE instead of stdout");
  app.add_option("--fail-on", opt.fail_on, "Exit 1 when a threat finding has at least this severity (low|medium|high|critical)");
  app.add_option("--min-grade", opt.min_grade, "Exit 1 when the trust grade is worse than G (A|B|C|D|F)");
  app.add_option("--timeout", opt.timeout_seconds, "Seconds allowed for live enumeration")->check(CLI::PositiveNumber);
  app.add_option("--manifest", opt.manifests, "Saved surface (tools/list result or manifest); repeat for a multi-server scan");
  app.add_option("--save-surface", opt.save_surface, "Live scans: also write the enumerated surface (manifest JSON) to FILE");
  app.add_flag("--color", opt.color, "Colour text output even when not writing to a terminal");
  app.add_flag("--no-color", opt.no_color, "Never colour text output");
  upstream_settings upstream;
  add_upstream_options(app, upstream);
  app.footer("Live scan: mcp-warden scan [options] [--] COMMAND [ARGS...]  |  --upstream URL\n"
             "  (options end at '--' or at COMMAND, the first word that is not one of them)\n"
             "Client configs: mcp-warden scan [options] --config FILE | --all-configs (docs/clients.md)\n"
             "Exit codes: 0 clean or below the gate, 1 gate failed, 2 usage or input error, 3 server could not be enumerated.");
  try {
    opt.command = parse_options_then_command(app, args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return exit_clean;
  } catch (const CLI::ParseError& e) {
    return usage_error("scan: " + std::string(e.what()) + " (see mcp-warden scan --help)");
  }
  std::optional<severity> fail_on;
  if (!opt.fail_on.empty()) {
    fail_on = parse_severity(opt.fail_on);
    if (!fail_on) return usage_error("scan: --fail-on must be one of info, low, medium, high, critical (got '" + opt.fail_on + "')");
  }
  if (!opt.min_grade.empty() && (opt.min_grade.size() != 1 || std::string("ABCDFabcdf").find(opt.min_grade[0]) == std::string::npos))
    return usage_error("scan: --min-grade must be one of A, B, C, D, F (got '" + opt.min_grade + "')");
  if (opt.manifests.empty() && opt.command.empty() && !upstream.enabled())
    return usage_error("scan: nothing to scan; give --manifest FILE, --upstream URL or [--] COMMAND [ARGS...]");
  if (upstream.enabled() && !opt.command.empty())
    return usage_error("scan: give either --upstream URL or COMMAND, not both");

  std::vector<server_input> inputs;
  for (const auto& path : opt.manifests) {
    auto loaded = load_manifest(path);
    if (!loaded) return usage_error("scan: " + loaded.error_message());
    inputs.push_back(std::move(loaded.value()));
  }
  if (!opt.command.empty() || upstream.enabled()) {
    proxy::enumerate_options enumerate;
    enumerate.argv = opt.command;
    enumerate.timeout = std::chrono::milliseconds(static_cast<long long>(opt.timeout_seconds * 1000));
    if (upstream.enabled()) {
      auto resolved = resolve_upstream(upstream, 64u << 20);
      if (!resolved) return usage_error("scan: " + resolved.error_message());
      enumerate.upstream = std::move(*resolved);
      opt.command = {upstream.url};  // the server's identity in the report
    }
    auto surface = proxy::enumerate_server(enumerate);
    if (!surface) {
      std::cerr << "mcp-warden: scan: could not enumerate the server: " << surface.error_message() << "\n";
      return exit_enumerate;
    }
    surface->live = true;
    std::string display;
    for (const auto& a : opt.command) display += (display.empty() ? "" : " ") + a;
    if (surface->identity.empty()) surface->identity = display;
    if (!opt.save_surface.empty() &&
        !write_output(opt.save_surface, to_manifest(*surface).dump(2, ' ', false, json::error_handler_t::replace) + "\n"))
      return usage_error("scan: cannot write " + opt.save_surface);
    inputs.push_back({std::move(surface.value()), display});
  }

  const analysis_report report = analyse(inputs);
  std::string rendered;
  if (opt.format == "json") {
    rendered = dump_json(to_json(report)) + "\n";
  } else if (opt.format == "sarif") {
    rendered = dump_json(to_sarif(report)) + "\n";
  } else if (opt.format == "html") {
    rendered = to_html(report, {});  // self-contained page: app/html_report.cpp (issue 4)
  } else if (opt.format == "markdown") {
    rendered = to_markdown(report);
  } else {
    bool to_terminal = (opt.output.empty() || opt.output == "-") && ::isatty(STDOUT_FILENO);
    rendered = to_text(report, !opt.no_color && (opt.color || to_terminal));
  }
  if (!write_output(opt.output, rendered)) return usage_error("scan: cannot write " + opt.output);
  if (!opt.output.empty() && opt.output != "-")
    std::cerr << "mcp-warden: wrote " << opt.format << " report to " << opt.output << " (grade " << report.trust.grade << ", "
              << report.findings.size() << " findings)\n";

  bool failed = false;
  if (fail_on)
    for (const auto& f : report.findings)
      if (const auto* rule = find_rule(f.rule_id); rule && rule->threat && f.level >= *fail_on) failed = true;
  if (!opt.min_grade.empty() && grade_rank(report.trust.grade) > grade_rank(static_cast<char>(std::toupper(opt.min_grade[0]))))
    failed = true;
  return failed ? exit_gate : exit_clean;
}

int run_rules_command(const std::vector<std::string>& args) {
  std::string format = "text";
  CLI::App app{"List every analysis rule.", "mcp-warden rules"};
  app.add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json", "markdown"}));
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return exit_clean;
  } catch (const CLI::ParseError& e) {
    return usage_error("rules: " + std::string(e.what()));
  }
  if (format == "json") {
    json rules = json::array();
    for (const auto& r : all_rules())
      rules.push_back({{"id", r.id}, {"severity", to_string(r.default_level)}, {"family", to_string(r.family)}, {"threat", r.threat},
                       {"title", r.title}, {"summary", r.summary}, {"explanation", r.explanation},
                       {"remediation", r.remediation}, {"example", r.example}});
    std::cout << dump_json(rules) << "\n";
    return exit_clean;
  }
  if (format == "markdown") {
    std::cout << "# mcp-warden rules\n\nGenerated by `mcp-warden rules --format markdown`. Severity is the usual one; a\n"
                 "finding can be raised or lowered by context (see docs/scoring.md). Rules marked *threat* feed the\n"
                 "trust grade; the others describe capability or hygiene.\n\n| Rule | Severity | Family | Summary |\n|---|---|---|---|\n";
    for (const auto& r : all_rules())
      std::cout << "| [`" << r.id << "`](#" << r.id.substr(0, r.id.find('.')) << r.id.substr(r.id.find('.') + 1) << ") | " << to_string(r.default_level)
                << " | " << to_string(r.family) << (r.threat ? " (threat)" : "") << " | " << r.summary << " |\n";
    for (const auto& r : all_rules())
      std::cout << "\n## " << r.id << "\n\n**" << r.title << "** — " << to_string(r.default_level) << ", " << to_string(r.family)
                << (r.threat ? ", threat" : "") << "\n\n" << r.explanation << "\n\n*Remediation:* " << r.remediation
                << "\n\n*Example:* `" << r.example << "`\n";
    return exit_clean;
  }
  std::size_t width = 0;
  for (const auto& r : all_rules()) width = std::max(width, r.id.size());
  for (const auto& r : all_rules()) {
    std::string id(r.id);
    id.resize(width + 2, ' ');
    std::string level(to_string(r.default_level));
    level.resize(10, ' ');
    std::string family(to_string(r.family));
    family.resize(16, ' ');
    std::cout << id << level << family << r.summary << "\n";
  }
  return exit_clean;
}

int run_explain_command(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
      std::cout << "usage: mcp-warden explain RULE_ID\n";
      return exit_clean;
    }
    return usage_error("explain: usage: mcp-warden explain RULE_ID (see mcp-warden rules)");
  }
  const rule_info* rule = find_rule(args[0]);
  if (!rule) {
    // Suggest the closest id: typos in rule ids are common in CI configs.
    std::string_view best;
    std::size_t best_distance = 1000;
    for (const auto& r : all_rules()) {
      auto d = text::edit_distance(args[0], r.id, 6);
      if (d < best_distance) { best_distance = d; best = r.id; }
    }
    std::string message = "explain: unknown rule '" + text::make_visible(args[0], 80) + "'";
    if (best_distance <= 6) message += "; did you mean '" + std::string(best) + "'?";
    return usage_error(message);
  }
  std::cout << rule->id << " — " << rule->title << "\n"
            << "severity: " << to_string(rule->default_level) << "   family: " << to_string(rule->family)
            << (rule->threat ? "   (counts towards the trust grade)" : "   (does not affect the trust grade)") << "\n\n"
            << rule->summary << "\n\nWhy it matters\n  " << rule->explanation << "\n\nHow to fix\n  " << rule->remediation
            << "\n\nExample\n  " << rule->example << "\n";
  return exit_clean;
}

}  // namespace warden::app
