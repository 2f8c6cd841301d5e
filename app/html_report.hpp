#pragma once
// The HTML report: one self-contained page (inline CSS and SVG, no scripts, no external assets)
// with the grade and capability of each server, every finding with its decoded hidden payload,
// and a picture of which tools fill which capability role and the toxic flows between them.
// Every piece of server-supplied text is HTML-escaped. Pure string building.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/engine.hpp"

namespace warden::app {

// A server that was named in a config but could not be analysed, and why.
struct unscanned_server {
  std::string name;
  std::string source;
  std::string reason;
};

struct html_report_context {
  std::string title = "mcp-warden scan report";
  std::vector<std::string> configs;         // the client configs scanned, for the header
  std::vector<unscanned_server> unscanned;  // shown in their own section
};

std::string to_html(const analysis::analysis_report& report, const html_report_context& context);

// Escapes &, <, >, " and ' and makes invisible or control characters visible as <U+XXXX>, so that
// nothing a server wrote can become markup or hide in the page.
std::string html_escape(std::string_view text);

}  // namespace warden::app
