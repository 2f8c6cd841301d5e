// mcp-warden scan --config FILE... | --all-configs (see scan_configs.hpp).
#include "app/scan_configs.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "analysis/catalogue.hpp"
#include "analysis/engine.hpp"
#include "analysis/report.hpp"
#include "app/clients.hpp"
#include "app/command_line.hpp"
#include "app/html_report.hpp"
#include "app/logging.hpp"
#include "app/report_options.hpp"
#include "proxy/enumerate.hpp"

namespace warden::app {

namespace fs = std::filesystem;

namespace {

constexpr int exit_clean = 0, exit_gate = 1, exit_usage = 2, exit_enumerate = 3;

// One server to enumerate: a stdio command, or a remote URL reached through our own --upstream.
struct scan_target {
  std::string name;  // unique display name in the report
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::string source;       // "Claude Desktop /path/to/file: NAME"
  std::string skip_reason;  // set: reported, not enumerated
};

struct scan_outcome {
  std::optional<analysis::server_surface> surface;
  std::string failure;
};

// Placeholders clients expand in entries: ${workspaceFolder}, ${userHome}, ${env:NAME}, ${NAME},
// ${NAME:-default}. ${input:...} cannot be answered here: it is left and noted.
std::string expand(const std::string& text, const clients::discovery_options& where, std::string& note) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find("${", i);
    if (open == std::string::npos) break;
    const auto close = text.find('}', open + 2);
    if (close == std::string::npos) break;
    out.append(text, i, open - i);
    std::string name = text.substr(open + 2, close - open - 2);
    std::string fallback;
    if (const auto dash = name.find(":-"); dash != std::string::npos) {
      fallback = name.substr(dash + 2);
      name.resize(dash);
    }
    if (name == "workspaceFolder" || name == "workspaceRoot") {
      out += where.project.string();
    } else if (name == "userHome") {
      out += where.home.string();
    } else if (name.rfind("input:", 0) == 0) {
      out.append(text, open, close + 1 - open);
      note = "needs the client's input '" + name.substr(6) + "'";
    } else {
      if (name.rfind("env:", 0) == 0) name = name.substr(4);
      const char* value = std::getenv(name.c_str());
      out += value ? std::string(value) : fallback;
    }
    i = close + 1;
  }
  out.append(text, i, std::string::npos);
  return out;
}

std::string own_executable() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("mcp-warden") : self.string();
}

// Remote servers are enumerated through this binary's --upstream (the HTTP transport); an older
// build without it gets a clear reason instead of a confusing failure.
bool supports_upstream() {
  const std::string command = "'" + own_executable() + "' --help 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return false;
  std::string help;
  char buffer[4096];
  while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) help.append(buffer, n);
  ::pclose(pipe);
  return help.find("--upstream") != std::string::npos;
}

// Resolves a command the way execvp does: as a path when it has a '/', else through $PATH.
bool find_executable(const std::string& command) {
  if (command.empty()) return false;
  if (command.find('/') != std::string::npos) return ::access(command.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

std::vector<scan_target> collect_targets(const std::vector<clients::client_config>& configs,
                                         const clients::discovery_options& where, bool include_disabled) {
  std::vector<scan_target> targets;
  std::map<std::string, std::size_t> seen;  // argv+env -> target index: one server named twice is scanned once
  std::map<std::string, int> name_uses;
  bool upstream_checked = false, upstream = false;
  for (const auto& config : configs) {
    for (const auto& entry : config.servers) {
      scan_target target;
      target.source = std::string(clients::display_name(config.location.client)) + " " + config.location.path.string() +
                      ": " + entry.name + (entry.project.empty() ? "" : " [project " + entry.project + "]");
      std::string note;
      if (!entry.note.empty()) {
        target.skip_reason = entry.note;
      } else if (entry.disabled && !include_disabled) {
        target.skip_reason = "disabled in the config (--include-disabled scans it)";
      } else if (entry.transport == clients::server_transport::stdio) {
        const auto& argv = entry.wrapped ? entry.inner_argv : entry.argv;
        for (const auto& word : argv) target.argv.push_back(expand(word, where, note));
        for (const auto& [key, value] : entry.env) target.env[key] = expand(value, where, note);
        if (!entry.cwd.empty()) {
          // enumerate_server has no working directory: a POSIX shell changes into it, then execs
          // the argv unchanged (passed as arguments, never interpolated).
          std::vector<std::string> with_cwd{"/bin/sh", "-c", "cd -- \"$0\" && exec \"$@\"", expand(entry.cwd, where, note)};
          with_cwd.insert(with_cwd.end(), target.argv.begin(), target.argv.end());
          target.argv = std::move(with_cwd);
        }
      } else if (!entry.url.empty()) {
        if (!upstream_checked) {
          upstream = supports_upstream();
          upstream_checked = true;
        }
        if (!upstream) {
          target.skip_reason = "remote server (" + entry.url + "): this mcp-warden build has no --upstream HTTP transport";
        } else {
          target.argv = {own_executable(), "--log-level", "warn", "--upstream", expand(entry.url, where, note)};
          for (const auto& [key, value] : entry.headers) {
            target.argv.push_back("--header");
            target.argv.push_back(key + ": " + expand(value, where, note));
          }
        }
      } else {
        target.skip_reason = "neither a command nor a URL";
      }
      if (target.skip_reason.empty() && !note.empty()) target.skip_reason = note;
      if (target.skip_reason.empty() && !target.argv.empty() && !find_executable(target.argv.front()))
        target.skip_reason = "cannot start: '" + target.argv.front() + "' is not an executable file or on PATH";

      std::string key;
      for (const auto& word : target.argv) key += word + '\0';
      for (const auto& [k, v] : target.env) key += k + '=' + v + '\0';
      if (target.skip_reason.empty()) {
        if (const auto it = seen.find(key); it != seen.end()) {
          targets[it->second].source += "; " + target.source;
          continue;
        }
      }
      target.name = entry.name;
      if (const int uses = name_uses[entry.name]++; uses > 0)
        target.name += " (" + std::string(clients::to_string(config.location.client)) + (uses > 1 ? " " + std::to_string(uses) : "") + ")";
      if (target.skip_reason.empty()) seen[key] = targets.size();
      targets.push_back(std::move(target));
    }
  }
  return targets;
}

// The last few lines a failed server wrote to stderr: usually the reason it failed.
std::string stderr_tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string text = bytes.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  std::string out;
  for (const char c : text) out += (c == '\n') ? std::string(" | ") : std::string(1, c);
  return out;
}

// Enumeration errors carry the protocol detail; a reader wants the cause.
std::string plain_failure(const std::string& message, const std::string& seconds) {
  const std::string marker = "the MCP server exited with status ";
  const auto at = message.find(marker);
  if (at == std::string::npos) return message;
  const std::size_t digits = at + marker.size();
  std::size_t end = digits;
  while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
  const std::string status = message.substr(digits, end - digits);
  if (status == "124" || status == "137") return "timed out after " + seconds + " s without answering initialize";
  return "exited with status " + status + " before answering initialize";
}

std::vector<scan_outcome> enumerate_all(const std::vector<scan_target>& targets, std::size_t jobs,
                                        std::chrono::milliseconds timeout, bool progress) {
  std::vector<scan_outcome> outcomes(targets.size());
  std::vector<std::size_t> work;
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i].skip_reason.empty()) work.push_back(i);
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex print_mutex;
  const auto worker = [&] {
    for (;;) {
      const std::size_t slot = next.fetch_add(1);
      if (slot >= work.size()) return;
      const std::size_t index = work[slot];
      const auto& target = targets[index];
      char log_template[] = "/tmp/mcp-warden-scan-XXXXXX";
      const int log_fd = ::mkstemp(log_template);
      if (log_fd >= 0) ::close(log_fd);
      proxy::enumerate_options options;
      options.argv = target.argv;
      // enumerate_server's deadline covers the listing, not a server that never answers
      // initialize: coreutils' timeout bounds the whole server process.
      const std::string seconds = std::to_string((timeout.count() + 999) / 1000);
      std::error_code ec;
      if (fs::exists("/usr/bin/timeout", ec))
        options.argv.insert(options.argv.begin(), {"/usr/bin/timeout", "-k", "2", seconds});
      options.extra_env = target.env;
      options.timeout = timeout + std::chrono::seconds(3);
      options.server_log_path = log_fd >= 0 ? log_template : "";
      auto surface = proxy::enumerate_server(options);
      scan_outcome& outcome = outcomes[index];
      if (surface) {
        outcome.surface = std::move(*surface);
      } else {
        outcome.failure = plain_failure(surface.error_message(), seconds);
        if (const auto tail = stderr_tail(log_template); log_fd >= 0 && !tail.empty())
          outcome.failure += "; server stderr: " + tail;
      }
      if (log_fd >= 0) ::unlink(log_template);
      if (progress) {
        const std::lock_guard lock(print_mutex);
        ++done;
        std::fprintf(stderr, "\r\x1b[K[%zu/%zu] %s: %s", done, work.size(), target.name.c_str(),
                     surface ? (std::to_string(outcome.surface->tools.size()) + " tools").c_str() : "failed");
        std::fflush(stderr);
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < std::min(jobs, work.size()); ++i) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  if (progress && !work.empty()) std::fputs("\r\x1b[K", stderr);
  return outcomes;
}

struct config_scan_options {
  std::vector<std::string> config_files;
  bool all_configs = false, include_disabled = false;
  std::string home, project;
  report_options report;  // --format, --output, the gate, colour
  double timeout_seconds = 30;
  std::size_t jobs = 4;
};

void add_config_scan_options(CLI::App& cli, config_scan_options& o) {
  cli.add_option("--config", o.config_files, "Client config file (repeatable)");
  cli.add_flag("--all-configs", o.all_configs, "Every config `mcp-warden discover` finds");
  add_discovery_options(cli, o.home, o.project);
  add_report_options(cli, o.report);
  cli.add_option("--timeout", o.timeout_seconds, "Seconds allowed per server")->check(CLI::PositiveNumber);
  cli.add_option("--jobs", o.jobs, "Servers enumerated at once")->check(CLI::Range(1, 64));
  cli.add_flag("--include-disabled", o.include_disabled, "Also scan entries the config disables");
}

}  // namespace

// A config scan names --config or --all-configs among its options and no COMMAND: in
// `scan node server.js --config x` the --config is the server's.
bool is_config_scan(const std::vector<std::string>& args) {
  CLI::App cli;
  config_scan_options unused;
  add_config_scan_options(cli, unused);
  auto split = clients::split_command_line(args, option_lookup_of(cli));
  if (!split || split->separator || !split->command.empty()) return false;
  return std::any_of(split->given.begin(), split->given.end(),
                     [](const std::string& name) { return name == "--config" || name == "--all-configs"; });
}

int run_config_scan_command(const std::vector<std::string>& args) {
  CLI::App cli{"Scan every MCP server named in client configs, live, then analyse them together.", "mcp-warden scan"};
  config_scan_options options;
  add_config_scan_options(cli, options);
  auto& [config_files, all_configs, include_disabled, home, project, reporting, timeout_seconds, jobs] = options;
  const std::string& format = reporting.format;
  const std::string& output = reporting.output;
  if (auto done = parse_or_exit(cli, args, "mcp-warden: scan: ", " (see mcp-warden scan --help)")) return *done;
  const auto gate = check_report_options(reporting);
  if (!gate) {
    std::fprintf(stderr, "mcp-warden: scan: %s\n", gate.error_message().c_str());
    return exit_usage;
  }

  // The sessions' own diagnostics would drown the report: errors only, on stderr.
  (void)configure_logging("error", "");

  // Load the configs.
  const auto where = discovery_from(home, project);
  std::vector<clients::config_location> locations = all_configs ? existing_locations(where) : std::vector<clients::config_location>{};
  for (const auto& file : config_files) {
    auto location = location_of_file(file);
    if (!location) {
      std::fprintf(stderr, "mcp-warden: scan: %s\n", location.error_message().c_str());
      return exit_usage;
    }
    locations.push_back(std::move(*location));
  }
  std::vector<clients::client_config> configs;
  html_report_context context;
  for (const auto& location : locations) {
    auto loaded = clients::load_client_config(location);
    if (!loaded) {
      std::fprintf(stderr, "mcp-warden: scan: %s\n", loaded.error_message().c_str());
      return exit_usage;
    }
    context.configs.push_back(std::string(clients::display_name(location.client)) + " " + location.path.string());
    configs.push_back(std::move(*loaded));
  }
  if (configs.empty()) {
    std::fprintf(stderr, "mcp-warden: scan: no MCP client configs found\n");
    return exit_usage;
  }

  // Enumerate every server, then analyse them together.
  const auto targets = collect_targets(configs, where, include_disabled);
  const bool progress = ::isatty(STDERR_FILENO) != 0;
  const auto outcomes = enumerate_all(targets, jobs, std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000)), progress);
  std::vector<analysis::server_input> inputs;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (outcomes[i].surface) {
      analysis::server_surface surface = *outcomes[i].surface;
      surface.name = targets[i].name;  // the name the user gave it in the config
      surface.identity.clear();        // the argv as configured, not our timeout wrapper
      for (const auto& word : targets[i].argv) surface.identity += (surface.identity.empty() ? "" : " ") + word;
      inputs.push_back({std::move(surface), targets[i].source});
    } else {
      context.unscanned.push_back({targets[i].name, targets[i].source,
                                   targets[i].skip_reason.empty() ? outcomes[i].failure : targets[i].skip_reason});
    }
  }
  const analysis::analysis_report report = analysis::analyse(inputs);

  std::string rendered;
  if (format == "html") {
    rendered = to_html(report, context);
  } else if (format == "json" || format == "sarif") {
    nlohmann::json document = format == "json" ? analysis::to_json(report) : analysis::to_sarif(report);
    nlohmann::json unscanned = nlohmann::json::array();
    for (const auto& u : context.unscanned) unscanned.push_back({{"name", u.name}, {"source", u.source}, {"reason", u.reason}});
    if (format == "json") {
      document["configs"] = context.configs;
      document["unscanned"] = unscanned;
    } else if (document.contains("runs") && document["runs"].is_array() && !document["runs"].empty()) {
      // SARIF's place for "could not run part of the analysis".
      nlohmann::json notes = nlohmann::json::array();
      for (const auto& u : context.unscanned)
        notes.push_back({{"level", "error"}, {"message", {{"text", "not scanned: " + u.name + " (" + u.source + "): " + u.reason}}}});
      document["runs"][0]["invocations"] = nlohmann::json::array(
          {{{"executionSuccessful", context.unscanned.empty()}, {"toolExecutionNotifications", notes}}});
    }
    rendered = analysis::dump_json(document) + "\n";
  } else {
    const bool markdown = format == "markdown";
    rendered = markdown ? analysis::to_markdown(report) : analysis::to_text(report, use_color(reporting));
    if (!context.unscanned.empty()) {
      rendered += markdown ? "\n## Servers not scanned\n\n" : "\nServers not scanned\n";
      for (const auto& u : context.unscanned)
        rendered += (markdown ? "- **" + u.name + "**" : "  " + u.name) + " (" + u.source + "): " + u.reason + "\n";
    }
  }
  if (!write_output(output, rendered)) {
    std::fprintf(stderr, "mcp-warden: scan: cannot write %s\n", output.c_str());
    return exit_usage;
  }
  if (!output.empty() && output != "-")
    std::fprintf(stderr, "mcp-warden: wrote %s report to %s (%zu servers scanned, %zu not scanned, grade %c)\n", format.c_str(),
                 output.c_str(), inputs.size(), context.unscanned.size(), report.trust.grade);

  if (inputs.empty()) return exit_enumerate;
  return fails_gate(report, *gate, reporting) ? exit_gate : exit_clean;
}

}  // namespace warden::app
