// mcp-warden discover | wrap | unwrap: the MCP servers a user already has, in their clients' configs.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/clients.hpp"
#include "app/command_line.hpp"
#include "app/commands.hpp"
#include "clients/client_wrap.hpp"

namespace warden::app {

namespace fs = std::filesystem;

void add_discovery_options(CLI::App& cli, std::string& home, std::string& project) {
  cli.add_option("--home", home, "Home directory to discover configs in (default $HOME)");
  cli.add_option("--project", project, "Project directory for project configs (default: the current directory)");
}

clients::discovery_options discovery_from(const std::string& home, const std::string& project) {
  clients::discovery_options options;
  if (!home.empty()) {
    // An explicit home is a sandbox (tests, other users): the caller's environment does not leak in.
    options.home = home;
  } else {
    if (const char* env_home = std::getenv("HOME")) options.home = env_home;
    for (const char* name : {"APPDATA", "XDG_CONFIG_HOME", "CODEX_HOME"})
      if (const char* value = std::getenv(name); value && *value) options.env[name] = value;
  }
  std::error_code ec;
  options.project = project.empty() ? fs::current_path(ec) : fs::path(project);
  return options;
}

std::vector<clients::config_location> existing_locations(const clients::discovery_options& options) {
  std::vector<clients::config_location> out;
  for (auto& location : clients::candidate_locations(options)) {
    std::error_code ec;
    if (fs::is_regular_file(location.path, ec)) out.push_back(std::move(location));
  }
  return out;
}

result<clients::config_location> location_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot be read"};
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return clients::classify_path(path, head);
}

namespace {

std::string scope_label(const clients::client_config& config) {
  const std::string client(clients::display_name(config.location.client));
  return config.location.scope == "file" ? client : client + " (" + config.location.scope + ")";
}

std::string entry_label(const std::string& name, const std::string& project) {
  return project.empty() ? name : name + " [project " + project + "]";
}

// The absolute path of this executable, so wrapped entries work from any client's working directory.
std::string own_executable() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("mcp-warden") : self.string();
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

// Writes through a symlink to its target (dotfile managers link configs), atomically, with the
// permissions of `like` (configs hold tokens: a backup must be no more readable than its original).
result<bool> replace_file(const fs::path& path, const std::string& content, const fs::path& like) {
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    target = fs::canonical(path, ec);
    if (ec) return error{path.string() + ": cannot resolve the link: " + ec.message()};
  }
  const fs::path temporary = target.string() + ".mcp-warden.tmp";
  {
    // Private until its permissions are set: the content may hold tokens.
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return error{temporary.string() + ": cannot be written: " + std::strerror(errno)};
    std::size_t done = 0;
    while (done < content.size()) {
      const auto n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    const bool ok = done == content.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) {
      fs::remove(temporary, ec);
      return error{temporary.string() + ": cannot be written"};
    }
  }
  const auto status = fs::status(like, ec);
  if (!ec && status.permissions() != fs::perms::unknown) fs::permissions(temporary, status.permissions() & fs::perms::mask, ec);
  fs::rename(temporary, target, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return error{target.string() + ": cannot be replaced: " + ec.message()};
  }
  return true;
}

fs::path backup_path(const fs::path& path) { return path.string() + ".mcp-warden.bak"; }

struct target_set {
  std::vector<clients::config_location> locations;
  int failures = 0;
};

target_set resolve_targets(const std::vector<std::string>& files, bool all, const clients::discovery_options& discovery,
                           const char* command) {
  target_set out;
  if (all) out.locations = existing_locations(discovery);
  for (const auto& file : files) {
    auto location = location_of_file(file);
    if (!location) {
      std::fprintf(stderr, "mcp-warden %s: %s\n", command, location.error_message().c_str());
      ++out.failures;
      continue;
    }
    out.locations.push_back(std::move(*location));
  }
  return out;
}

void print_outcomes(const clients::rewrite& change) {
  for (const auto& outcome : change.outcomes) {
    std::printf("  %-28s %s%s%s\n", entry_label(outcome.name, outcome.project).c_str(),
                std::string(clients::to_string(outcome.action)).c_str(), outcome.note.empty() ? "" : ": ",
                outcome.note.c_str());
  }
}

enum class rewrite_kind { wrap,
                          unwrap };

int run_rewrite(rewrite_kind kind, const std::vector<std::string>& args) {
  const bool wrapping = kind == rewrite_kind::wrap;
  CLI::App cli{wrapping ? "Put mcp-warden in front of every server of MCP client configs."
                        : "Take mcp-warden out of MCP client configs, restoring the original entries.",
               wrapping ? "wrap" : "unwrap"};
  std::vector<std::string> files;
  bool all = false, dry_run = false, front_http = false;
  std::string home, project, policy, audit_dir, warden;
  std::vector<std::string> proxy_args;
  cli.add_option("CONFIG", files, "Client config files (see `mcp-warden discover`)");
  cli.add_flag("--all", all, "Every config `discover` finds");
  cli.add_flag("--dry-run", dry_run, "Print a unified diff instead of writing");
  add_discovery_options(cli, home, project);
  if (wrapping) {
    cli.add_option("--policy", policy, "Policy file for every wrapped server");
    cli.add_option("--audit-log", audit_dir, "Directory for per-server audit logs (CLIENT-NAME.jsonl)");
    cli.add_option("--proxy-arg", proxy_args, "Extra option for mcp-warden in each entry (repeatable)")->allow_extra_args(false);
    cli.add_flag("--front-http", front_http, "Route remote (HTTP/SSE) entries through mcp-warden --upstream");
    cli.add_option("--warden", warden, "Path of mcp-warden to put in entries (default: this executable)");
  }
  if (auto done = parse_or_exit(cli, args, "mcp-warden " + cli.get_name() + ": ")) return *done;
  if (files.empty() && !all) {
    std::fprintf(stderr, "mcp-warden %s: name CONFIG files or use --all\n", cli.get_name().c_str());
    return 2;
  }

  clients::wrap_options options;
  options.warden_path = warden.empty() ? own_executable() : warden;
  if (!policy.empty()) options.warden_args = {"--policy", absolute_path(policy)};
  options.warden_args.insert(options.warden_args.end(), proxy_args.begin(), proxy_args.end());
  if (!audit_dir.empty()) options.audit_log_dir = absolute_path(audit_dir);
  options.front_http = front_http;

  auto targets = resolve_targets(files, all, discovery_from(home, project), cli.get_name().c_str());
  int failures = targets.failures;
  if (targets.locations.empty() && failures == 0) std::printf("no MCP client configs found\n");
  for (const auto& location : targets.locations) {
    auto loaded = clients::load_client_config(location);
    if (!loaded) {
      std::fprintf(stderr, "mcp-warden %s: %s\n", cli.get_name().c_str(), loaded.error_message().c_str());
      ++failures;
      continue;
    }
    std::optional<clients::client_config> backup;
    if (auto from_backup = clients::load_client_config({location.client, location.scope, backup_path(location.path),
                                                        location.layout});
        from_backup)
      backup = std::move(*from_backup);
    auto change = wrapping ? clients::wrap_config(*loaded, options)
                           : clients::unwrap_config(*loaded, backup ? &*backup : nullptr);
    std::printf("%s %s\n", scope_label(*loaded).c_str(), location.path.string().c_str());
    for (const auto& note : loaded->notes) std::printf("  note: %s\n", note.c_str());
    if (!change) {
      std::fprintf(stderr, "mcp-warden %s: %s: %s\n", cli.get_name().c_str(), location.path.string().c_str(),
                   change.error_message().c_str());
      ++failures;
      continue;
    }
    print_outcomes(*change);
    if (!change->changed) continue;
    if (dry_run) {
      std::fputs(clients::unified_diff(loaded->text, change->text, location.path.string(),
                                       location.path.string() + " (" + cli.get_name() + "ped)")
                     .c_str(),
                 stdout);
      continue;
    }
    std::error_code ec;
    if (wrapping && !fs::exists(backup_path(location.path), ec)) {
      // The first wrap keeps the untouched original; later wraps never overwrite it.
      if (auto saved = replace_file(backup_path(location.path), loaded->text, location.path); !saved) {
        std::fprintf(stderr, "mcp-warden wrap: %s (nothing changed)\n", saved.error_message().c_str());
        ++failures;
        continue;
      }
      std::printf("  backup: %s\n", backup_path(location.path).string().c_str());
    }
    if (wrapping && !options.audit_log_dir.empty()) fs::create_directories(options.audit_log_dir, ec);
    if (auto written = replace_file(location.path, change->text, location.path); !written) {
      std::fprintf(stderr, "mcp-warden %s: %s\n", cli.get_name().c_str(), written.error_message().c_str());
      ++failures;
    }
  }
  return failures ? 1 : 0;
}

}  // namespace

int run_discover_command(const std::vector<std::string>& args) {
  CLI::App cli{"List the MCP client configs found on this machine and their servers.", "discover"};
  std::string home, project;
  bool json = false;
  add_discovery_options(cli, home, project);
  cli.add_flag("--json", json, "Machine-readable output");
  if (auto done = parse_or_exit(cli, args, "mcp-warden " + cli.get_name() + ": ")) return *done;

  const auto discovery = discovery_from(home, project);
  nlohmann::json listing = nlohmann::json::array();
  int failures = 0;
  const auto locations = existing_locations(discovery);
  if (locations.empty() && !json) std::printf("no MCP client configs found under %s\n", discovery.home.string().c_str());
  for (const auto& location : locations) {
    auto loaded = clients::load_client_config(location);
    nlohmann::json item = {{"client", clients::to_string(location.client)},
                           {"scope", location.scope},
                           {"path", location.path.string()}};
    if (!json) std::printf("%s %s\n", std::string(clients::display_name(location.client)).c_str(), location.path.string().c_str());
    if (!loaded) {
      ++failures;
      item["error"] = loaded.error_message();
      if (!json) std::printf("  error: %s\n", loaded.error_message().c_str());
      listing.push_back(item);
      continue;
    }
    item["notes"] = loaded->notes;
    item["servers"] = nlohmann::json::array();
    for (const auto& note : loaded->notes)
      if (!json) std::printf("  note: %s\n", note.c_str());
    if (loaded->servers.empty() && loaded->notes.empty() && !json) std::printf("  (no servers)\n");
    for (const auto& entry : loaded->servers) {
      std::string state = entry.wrapped ? "wrapped" : entry.note.empty() ? ""
                                                                         : "cannot wrap";
      if (entry.disabled) state += state.empty() ? "disabled" : ", disabled";
      item["servers"].push_back({{"name", entry.name},
                                 {"project", entry.project},
                                 {"transport", clients::to_string(entry.transport)},
                                 {"argv", entry.argv},
                                 {"url", entry.url},
                                 {"wrapped", entry.wrapped},
                                 {"inner_argv", entry.inner_argv},
                                 {"disabled", entry.disabled},
                                 {"note", entry.note}});
      if (!json) {
        std::printf("  %-28s %s%s%s\n", entry_label(entry.name, entry.project).c_str(), clients::describe_entry(entry).c_str(),
                    state.empty() ? "" : "  [", state.empty() ? "" : (state + "]").c_str());
        if (!entry.note.empty()) std::printf("  %-28s note: %s\n", "", entry.note.c_str());
      }
    }
    listing.push_back(item);
  }
  if (json) std::printf("%s\n", listing.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return failures ? 1 : 0;
}

int run_wrap_command(const std::vector<std::string>& args) { return run_rewrite(rewrite_kind::wrap, args); }
int run_unwrap_command(const std::vector<std::string>& args) { return run_rewrite(rewrite_kind::unwrap, args); }

}  // namespace warden::app
