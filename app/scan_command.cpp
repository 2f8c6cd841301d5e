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
#include "app/report_options.hpp"
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
  report_options report;  // --format, --output, the gate, colour
  double timeout_seconds = 30;
  std::vector<std::string> manifests;
  std::string save_surface;  // live scans: the enumerated surface as a manifest, for later --manifest scans
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

}  // namespace

int run_scan_command(const std::vector<std::string>& args) {
  scan_options opt;
  CLI::App app{"Analyse an MCP server's surface: tool poisoning, hidden Unicode, toxic flows, shadowing.", "mcp-warden scan"};
  add_report_options(app, opt.report);
  app.add_option("--timeout", opt.timeout_seconds, "Seconds allowed for live enumeration")->check(CLI::PositiveNumber);
  app.add_option("--manifest", opt.manifests, "Saved surface (tools/list result or manifest); repeat for a multi-server scan");
  app.add_option("--save-surface", opt.save_surface, "Live scans: also write the enumerated surface (manifest JSON) to FILE");
  upstream_settings upstream;
  add_upstream_options(app, upstream);
  app.footer(
      "Live scan: mcp-warden scan [options] [--] COMMAND [ARGS...]  |  --upstream URL\n"
      "  (options end at '--' or at COMMAND, the first word that is not one of them)\n"
      "Client configs: mcp-warden scan [options] --config FILE | --all-configs (docs/clients.md)\n"
      "Exit codes: 0 clean or below the gate, 1 gate failed, 2 usage or input error, 3 server could not be enumerated.");
  if (auto done = parse_or_exit(app, args, "mcp-warden: scan: ", " (see mcp-warden scan --help)", &opt.command)) return *done;
  const auto fail_on = check_report_options(opt.report);
  if (!fail_on) return usage_error("scan: " + fail_on.error_message());
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
  const std::string& format = opt.report.format;
  const std::string& output = opt.report.output;
  std::string rendered;
  if (format == "json") {
    rendered = dump_json(to_json(report)) + "\n";
  } else if (format == "sarif") {
    rendered = dump_json(to_sarif(report)) + "\n";
  } else if (format == "html") {
    rendered = to_html(report, {});  // self-contained page: app/html_report.cpp (issue 4)
  } else if (format == "markdown") {
    rendered = to_markdown(report);
  } else {
    rendered = to_text(report, use_color(opt.report));
  }
  if (!write_output(output, rendered)) return usage_error("scan: cannot write " + output);
  if (!output.empty() && output != "-")
    std::cerr << "mcp-warden: wrote " << format << " report to " << output << " (grade " << report.trust.grade << ", "
              << report.findings.size() << " findings)\n";
  return fails_gate(report, *fail_on, opt.report) ? exit_gate : exit_clean;
}

int run_rules_command(const std::vector<std::string>& args) {
  std::string format = "text";
  CLI::App app{"List every analysis rule.", "mcp-warden rules"};
  app.add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json", "markdown"}));
  if (auto done = parse_or_exit(app, args, "mcp-warden: rules: ")) return *done;
  if (format == "json") {
    json rules = json::array();
    for (const auto& r : all_rules())
      rules.push_back({{"id", r.id}, {"severity", to_string(r.default_level)}, {"family", to_string(r.family)}, {"threat", r.threat}, {"title", r.title}, {"summary", r.summary}, {"explanation", r.explanation}, {"remediation", r.remediation}, {"example", r.example}});
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
                << (r.threat ? ", threat" : "") << "\n\n"
                << r.explanation << "\n\n*Remediation:* " << r.remediation
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
      if (d < best_distance) {
        best_distance = d;
        best = r.id;
      }
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
