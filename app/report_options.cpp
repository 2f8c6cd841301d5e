#include "app/report_options.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <fstream>

#include "analysis/catalogue.hpp"

namespace warden::app {

namespace {

int grade_rank(char grade) {
  const std::string order = "ABCDF";
  const auto at = order.find(static_cast<char>(std::toupper(static_cast<unsigned char>(grade))));
  return at == std::string::npos ? 4 : static_cast<int>(at);
}

}  // namespace

void add_report_options(CLI::App& cli, report_options& o) {
  cli.add_option("--format", o.format, "Report format")->check(CLI::IsMember({"text", "json", "sarif", "markdown", "html"}));
  cli.add_option("-o,--output", o.output, "Write the report to FILE instead of stdout");
  cli.add_option("--fail-on", o.fail_on, "Exit 1 when a threat finding has at least this severity (low|medium|high|critical)");
  cli.add_option("--min-grade", o.min_grade, "Exit 1 when the trust grade is worse than G (A|B|C|D|F)");
  cli.add_flag("--color", o.color, "Colour text output even when not writing to a terminal");
  cli.add_flag("--no-color", o.no_color, "Never colour text output");
}

result<std::optional<analysis::severity>> check_report_options(const report_options& o) {
  std::optional<analysis::severity> fail_on;
  if (!o.fail_on.empty() && !(fail_on = analysis::parse_severity(o.fail_on)))
    return error{"--fail-on must be one of info, low, medium, high, critical (got '" + o.fail_on + "')"};
  if (!o.min_grade.empty() && (o.min_grade.size() != 1 || std::string("ABCDFabcdf").find(o.min_grade[0]) == std::string::npos))
    return error{"--min-grade must be one of A, B, C, D, F (got '" + o.min_grade + "')"};
  return fail_on;
}

bool use_color(const report_options& o) {
  const bool to_terminal = (o.output.empty() || o.output == "-") && ::isatty(STDOUT_FILENO);
  return !o.no_color && (o.color || to_terminal);
}

bool write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return static_cast<bool>(out);
}

bool fails_gate(const analysis::analysis_report& report, std::optional<analysis::severity> fail_on, const report_options& o) {
  if (fail_on)
    for (const auto& f : report.findings)
      if (const auto* rule = analysis::find_rule(f.rule_id); rule && rule->threat && f.level >= *fail_on) return true;
  return !o.min_grade.empty() && grade_rank(report.trust.grade) > grade_rank(o.min_grade[0]);
}

}  // namespace warden::app
