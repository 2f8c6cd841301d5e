#pragma once
// The report and gate options shared by `scan` (a server or manifests) and `scan --config`:
// --format, -o/--output, --fail-on, --min-grade, --color, --no-color; their checks, the output
// and the gate.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "analysis/engine.hpp"
#include "analysis/finding.hpp"
#include "base/result.hpp"

namespace warden::app {

struct report_options {
  std::string format = "text";
  std::string output;  // empty or "-": stdout
  std::string fail_on;
  std::string min_grade;
  bool color = false, no_color = false;
};

void add_report_options(CLI::App& cli, report_options& options);

// After parsing: the --fail-on severity (none when not given), or why --fail-on or --min-grade is
// wrong ("--fail-on must be one of ...").
result<std::optional<analysis::severity>> check_report_options(const report_options& options);

// Text output is coloured with --color, and on a terminal unless --no-color.
bool use_color(const report_options& options);

// Writes `content` to the file (stdout when the path is empty or "-"); false when it cannot.
bool write_output(const std::string& path, const std::string& content);

// A threat finding at or above `fail_on`, or a trust grade worse than options.min_grade.
bool fails_gate(const analysis::analysis_report& report, std::optional<analysis::severity> fail_on, const report_options& options);

}  // namespace warden::app
