// mcp-warden [options] [--] COMMAND [ARGS...]: wrap a stdio MCP server.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <spdlog/spdlog.h>
#include <utility>

#include "analysis/surface.hpp"
#include "app/command_line.hpp"
#include "app/commands.hpp"
#include "app/logging.hpp"
#include "app/memory_return.hpp"
#include "app/metrics_setup.hpp"
#include "app/upstream_options.hpp"
#include "app/policy_setup.hpp"
#include "app/server_options.hpp"
#include "app/version.hpp"
#include "protocol/jsonrpc.hpp"
#include "proxy/session.hpp"
#include "transports/child_process.hpp"
#include "transports/http_upstream.hpp"

namespace warden::app {

namespace {

namespace asio = boost::asio;

struct proxy_settings {
  proxy::session_options session;
  transports::child_spec server;
  std::string save_surface_path;
  server_process_settings process;  // --env, --server-log, --log-file, ...
  upstream_settings upstream;       // --upstream URL instead of COMMAND
  policy_settings policy;
  metrics_settings metrics;
};

// Our options end at "--" or at the first word that is not one of them (COMMAND): from there on
// everything is the server's argv, untouched.
result<proxy_settings> parse_proxy_args(const std::vector<std::string>& args) {
  proxy_settings settings;
  CLI::App cli{
      "mcp-warden: a live auditing proxy for MCP servers.\n"
      "Usage: mcp-warden [options] [--] COMMAND [ARGS...]   (or --upstream URL instead of COMMAND)\n"
      "Options end at '--' or at COMMAND, the first word that is not one of them."};
  cli.set_version_flag("--version", version);
  std::size_t request_timeout_ms = 0;
  bool scrub_env = false;
  auto& s = settings.session;
  add_server_process_options(cli, settings.process, s, false);
  cli.add_option("--drop-env", settings.server.drop_env, "Remove a variable from the server's environment (repeatable)");
  cli.add_flag("--scrub-env", scrub_env,
               "Drop inherited variables that inject code (LD_PRELOAD, NODE_OPTIONS, PYTHONSTARTUP, ...)");
  cli.add_option("--save-surface", settings.save_surface_path, "Write the confirmed surface (manifest JSON) to FILE");
  cli.add_option("--max-depth", s.max_depth, "Deepest JSON nesting accepted")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--max-pending", s.max_pending, "Client requests awaiting answers before new ones are refused")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--request-timeout-ms", request_timeout_ms,
                 "Answer a client request with an error (and cancel it) after N ms without a reply; 0: never")
      ->capture_default_str();
  add_upstream_options(cli, settings.upstream);
  add_policy_options(cli, settings.policy);
  add_metrics_options(cli, settings.metrics);

  if (auto parsed = parse_command_into(cli, args, settings.server.argv, version); !parsed) return error{parsed.error_message()};
  if (settings.server.argv.empty() && !settings.upstream.enabled())
    return error{"no server command: use mcp-warden [options] [--] COMMAND [ARGS...] or --upstream URL"};
  if (!settings.server.argv.empty() && settings.upstream.enabled())
    return error{"give either --upstream URL or COMMAND, not both"};
  if (auto resolved = resolve_metrics_options(settings.metrics); !resolved) return error{resolved.error_message()};
  if (auto applied = apply_server_process_options(settings.process, settings.server, s); !applied) return error{applied.error_message()};
  if (scrub_env)
    for (const char* name : transports::code_injection_variables) settings.server.drop_env.emplace_back(name);
  s.request_timeout = std::chrono::milliseconds(request_timeout_ms);
  return settings;
}

// Atomic replace, so a reader never sees half a manifest.
void save_surface(const std::string& path, const analysis::server_surface& surface) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << analysis::to_manifest(surface).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out) {
      spdlog::error("cannot write the surface to '{}'", temporary);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) spdlog::error("cannot write the surface to '{}': {}", path, ec.message());
}

// Our stdout carries MCP messages only: move it to a private descriptor and point fd 1 at
// stderr, so that nothing printed by accident can corrupt the stream.
int claim_stdout() {
  const int channel = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return channel;
}

// The reactor makes our stdin/stdout non-blocking, and those file descriptions are shared with
// the process that started us: put the flags back on the way out.
class restore_fd_flags {
 public:
  explicit restore_fd_flags(int fd) : fd_(fd), flags_(::fcntl(fd, F_GETFL)) {}
  ~restore_fd_flags() {
    if (flags_ >= 0) ::fcntl(fd_, F_SETFL, flags_);
  }
  restore_fd_flags(const restore_fd_flags&) = delete;
  restore_fd_flags& operator=(const restore_fd_flags&) = delete;

 private:
  int fd_;
  int flags_;
};

int open_server_log(const std::string& path) {
  if (path.empty()) return -1;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) spdlog::error("cannot open server log '{}': {}", path, std::strerror(errno));
  return fd;
}

// The server could not be started: the reason goes to stderr at once as one line, and every
// request of the client (its initialize; Claude Code first probes with server/discover) gets it
// as a JSON-RPC error, so that the client shows why instead of "connection closed". When the
// client closes our stdin we exit 127. Notifications and responses are ignored.
int answer_start_failure(const std::string& reason, const proxy_settings& settings) {
  const std::string line = "cannot start the server: " + reason;
  std::fprintf(stderr, "mcp-warden: %s\n", line.c_str());
  if (!settings.process.log_file.empty()) spdlog::error("{}", line);
  constexpr int exit_not_started = 127;
  const std::size_t limit = settings.session.max_message_bytes;
  protocol::parse_limits limits;
  limits.max_depth = settings.session.max_depth;
  std::string pending;
  bool oversize = false;  // skipping the rest of a line longer than the limit
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return exit_not_started;
    std::string_view data(chunk, static_cast<std::size_t>(n));
    while (!data.empty()) {
      const auto newline = data.find('\n');
      const std::string_view piece = data.substr(0, newline);
      if (!oversize) pending.append(piece);
      if (pending.size() > limit) {
        oversize = true;
        pending.clear();
      }
      if (newline == std::string_view::npos) break;
      data.remove_prefix(newline + 1);
      const bool skipped = std::exchange(oversize, false);
      std::string text = std::exchange(pending, {});
      if (skipped) continue;
      const auto parsed = protocol::parse_message(text, limits);
      if (!parsed.ok) continue;
      std::string answer;
      const auto refuse = [&](const protocol::message& request) {
        return protocol::error_response(request.id, protocol::error_codes::server_unavailable, "mcp-warden " + line);
      };
      if (parsed.value.kind == protocol::message_kind::request) {
        answer = refuse(parsed.value);
      } else if (parsed.value.kind == protocol::message_kind::batch) {
        for (const auto& item : parsed.value.items)
          if (item.kind == protocol::message_kind::request) answer += (answer.empty() ? "[" : ",") + refuse(item);
        if (!answer.empty()) answer += "]";
      }
      if (answer.empty()) continue;
      answer += '\n';
      for (std::size_t written = 0; written < answer.size();) {
        const ssize_t w = ::write(STDOUT_FILENO, answer.data() + written, answer.size() - written);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return exit_not_started;  // the client is gone
        written += static_cast<std::size_t>(w);
      }
    }
  }
}

int run_proxy(proxy_settings settings) {
  std::signal(SIGPIPE, SIG_IGN);
  const restore_fd_flags stdin_flags(STDIN_FILENO);
  const restore_fd_flags stdout_flags(STDOUT_FILENO);
  std::optional<process_metrics> metrics;  // outlives the io_context (see process_metrics)
  if (settings.metrics.enabled()) settings.policy.metrics = &metrics.emplace().metrics;
  asio::io_context context;

  // Policy, pins and audit log load before the server starts: a bad file is a usage error.
  std::unique_ptr<policy_runtime> policy;
  if (settings.policy.enabled()) {
    // A remote server is known by its URL, a local one by its argv (lockfile pins, audit records).
    auto started = policy_runtime::start(settings.policy, settings.upstream.enabled()
                                                              ? std::vector<std::string>{settings.upstream.url}
                                                              : settings.server.argv);
    if (!started) {
      spdlog::error("{}", started.error_message());
      return 2;
    }
    policy = std::move(*started);
  }
  // Bound before the server starts, so that a port in use is a usage error; ready once the
  // server has answered initialize.
  const proxy::session* relay_view = nullptr;
  std::unique_ptr<proxy::metrics_endpoint> endpoint;
  if (metrics) {
    auto started = start_metrics_endpoint(context.get_executor(), settings.metrics, *metrics,
                                          [&relay_view] { return relay_view && relay_view->initialized(); });
    if (!started) {
      spdlog::error("{}", started.error_message());
      return 2;
    }
    endpoint = std::move(*started);
    announce_metrics_endpoint(*endpoint);
  }

  std::unique_ptr<transports::server_link> server;
  if (settings.upstream.enabled()) {
    auto options = resolve_upstream(settings.upstream, settings.session.max_message_bytes, settings.session.max_depth);
    auto link = options ? transports::connect_http_upstream(context.get_executor(), *options)
                        : result<std::unique_ptr<transports::server_link>>(error{options.error_message()});
    if (!link) {
      spdlog::error("{}", link.error_message());
      return 2;
    }
    server = std::move(*link);
    spdlog::info("mcp-warden {} relaying to {}", version, server->describe());
  } else {
    const int server_log = open_server_log(settings.process.server_log_path);
    settings.server.stderr_fd = server_log;
    auto child = transports::spawn_child(context.get_executor(), settings.server);
    if (server_log >= 0) ::close(server_log);
    if (!child) return answer_start_failure(child.error_message(), settings);
    spdlog::info("mcp-warden {} started server pid {}: {}", version, (*child)->pid(),
                 transports::describe_argv(settings.server.argv));
    server = std::move(*child);
  }

  const int client_out = claim_stdout();
  const int client_in = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  proxy::session relay(context.get_executor(), settings.session,
                       transports::make_fd_reader(context.get_executor(), client_in, settings.session.max_message_bytes),
                       transports::make_fd_writer(context.get_executor(), client_out), std::move(server));
  relay_view = &relay;
  const std::string identity = settings.upstream.enabled() ? settings.upstream.url : transports::describe_argv(settings.server.argv);
  if (policy) relay.add_inspector(policy->take_inspector());
  if (!settings.save_surface_path.empty() || policy) {
    relay.on_surface_changed([&](const analysis::server_surface& surface) {
      if (policy) policy->surface_changed(surface, relay.surface_complete());
      if (settings.save_surface_path.empty()) return;
      analysis::server_surface copy = surface;
      copy.identity = identity;
      copy.live = true;
      save_surface(settings.save_surface_path, copy);
    });
  }

  start_memory_return(context.get_executor());
  if (metrics) {
    metrics->metrics.sessions_opened.inc();
    metrics->metrics.sessions_active.add(1);
  }
  proxy::session_outcome outcome;
  asio::co_spawn(context, relay.run(), [&](std::exception_ptr failure, proxy::session_outcome done) {
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        spdlog::critical("session failed: {}", e.what());
        done = {70, e.what()};
      }
    }
    outcome = done;
    if (endpoint) endpoint->stop();
    context.stop();
  });
  context.run();
  if (metrics) metrics->metrics.sessions_active.sub(1);
  if (policy) policy->session_ended(outcome, relay.counters());
  const auto& counters = relay.counters();
  spdlog::info("session ended ({}); relayed {} client and {} server messages, refused {}, dropped {}",
               outcome.reason, counters.client_messages, counters.server_messages, counters.client_rejected,
               counters.server_dropped);
  return outcome.exit_code;
}

}  // namespace

int run_proxy_command(const std::vector<std::string>& args) {
  return start_then_run(parse_proxy_args(args), "mcp-warden", run_proxy);
}

}  // namespace warden::app
