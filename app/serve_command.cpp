// mcp-warden serve --listen HOST:PORT [options] ([--] COMMAND... | --upstream URL): an HTTP front
// (Streamable HTTP on /mcp, legacy SSE on /sse + /message) with one proxied session per client.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "app/command_line.hpp"
#include "app/commands.hpp"
#include "app/listen_options.hpp"
#include "app/logging.hpp"
#include "app/memory_return.hpp"
#include "app/metrics_setup.hpp"
#include "app/upstream_options.hpp"
#include "app/version.hpp"
#include "proxy/http_front.hpp"
#include "app/policy_setup.hpp"
#include "app/server_options.hpp"
#include "policy/policy.hpp"
#include "transports/child_process.hpp"
#include "transports/http_upstream.hpp"

namespace warden::app {

namespace {

namespace asio = boost::asio;

struct serve_settings {
  proxy::http_front_options front;
  proxy::session_options session;
  transports::child_spec server;
  upstream_settings upstream;
  policy_settings policy;  // applied to every session, as for the stdio proxy
  metrics_settings metrics;
  server_process_settings process;  // --env, --server-log, --log-file, ...
};

// Options end at "--" or at COMMAND, as for the stdio proxy (app/command_line.hpp).
result<serve_settings> parse_serve_args(const std::vector<std::string>& args) {
  serve_settings settings;
  CLI::App cli{
      "mcp-warden serve: an HTTP front for an MCP server, one proxied session per client.\n"
      "Usage: mcp-warden serve [--listen 127.0.0.1:8080] [options] ([--] COMMAND [ARGS...] | --upstream URL)\n"
      "Options end at '--' or at COMMAND, the first word that is not one of them."};
  auto& f = settings.front;
  auto& s = settings.session;
  listen_settings listen{"127.0.0.1:8080", {}};
  std::size_t idle_ms = 600000, header_timeout_ms = 10000;
  add_listen_options(cli, listen, f.listen, "--", "Address and port to listen on (port 0: any free port)");
  cli.add_option("--path", f.mcp_path, "Streamable HTTP endpoint")->capture_default_str();
  cli.add_option("--allow-origin", f.listen.origins.allowed_origins, "Also accept this Origin (repeatable; '*' for any)");
  cli.add_option("--max-sessions", f.max_sessions, "Concurrent sessions")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--max-connections", f.listen.max_connections, "Concurrent connections")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--max-header-bytes", f.listen.max_header_bytes, "Largest request header block")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--max-body-bytes", f.listen.max_body_bytes, "Largest request body")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--idle-timeout-ms", idle_ms, "End a session after N ms without requests or open streams")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--header-timeout-ms", header_timeout_ms, "A request must arrive completely within N ms")->capture_default_str()->check(CLI::PositiveNumber);
  add_server_process_options(cli, settings.process, s, true);
  add_upstream_options(cli, settings.upstream);
  add_policy_options(cli, settings.policy);
  add_metrics_options(cli, settings.metrics);

  if (auto parsed = parse_command_into(cli, args, settings.server.argv); !parsed) return error{parsed.error_message()};
  if (settings.server.argv.empty() == !settings.upstream.enabled())
    return error{"give the server as [--] COMMAND [ARGS...] or as --upstream URL (one of them)"};
  if (auto resolved = resolve_listen(listen, f.listen); !resolved) return error{resolved.error_message()};
  if (auto resolved = resolve_metrics_options(settings.metrics); !resolved) return error{resolved.error_message()};
  for (auto& origin : f.listen.origins.allowed_origins) std::transform(origin.begin(), origin.end(), origin.begin(), ::tolower);
  if (auto applied = apply_server_process_options(settings.process, settings.server, s); !applied) return error{applied.error_message()};
  f.idle_timeout = std::chrono::milliseconds(idle_ms);
  f.listen.header_timeout = std::chrono::milliseconds(header_timeout_ms);
  f.listen.max_body_bytes = std::min(f.listen.max_body_bytes, s.max_message_bytes);
  return settings;
}

// Every session gets a server of its own: a new child process or a new upstream connection.
result<proxy::server_factory> make_server_factory(asio::io_context& context, const serve_settings& settings) {
  if (settings.upstream.enabled()) {
    auto options = resolve_upstream(settings.upstream, settings.session.max_message_bytes, settings.session.max_depth);
    if (!options) return error{options.error_message()};
    // Check the URL and TLS files once now, so that mistakes show at start-up.
    if (auto probe = transports::connect_http_upstream(context.get_executor(), *options); !probe)
      return error{probe.error_message()};
    return proxy::server_factory([&context, opts = *options]() { return transports::connect_http_upstream(context.get_executor(), opts); });
  }
  transports::child_spec spec = settings.server;
  std::string log_path = settings.process.server_log_path;
  return proxy::server_factory([&context, spec, log_path]() mutable -> result<std::unique_ptr<transports::server_link>> {
    int log_fd = -1;
    if (!log_path.empty()) log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    spec.stderr_fd = log_fd;
    auto child = transports::spawn_child(context.get_executor(), spec);
    if (log_fd >= 0) ::close(log_fd);
    if (!child) return error{child.error_message()};
    spdlog::info("started server pid {}: {}", (*child)->pid(), transports::describe_argv(spec.argv));
    return std::unique_ptr<transports::server_link>(std::move(*child));
  });
}

// Every HTTP session gets its own policy runtime (inspector, pins, audit records with its own
// session id; the audit file is shared, its writer locks it per batch). The policy file is checked
// once up front, so that a bad file stops serve instead of every session; the signing key is read
// once and shared, and so is the syslog shipper.
result<proxy::session_hook> make_policy_hook(const serve_settings& settings) {
  if (!settings.policy.enabled()) return proxy::session_hook{};
  if (!settings.policy.policy_path.empty())
    if (auto loaded = policy::load_policy(settings.policy.policy_path); !loaded) return error{loaded.error_message()};
  const std::vector<std::string> identity =
      settings.upstream.enabled() ? std::vector<std::string>{settings.upstream.url} : settings.server.argv;
  policy_settings policy = settings.policy;
  // Read once: a key that goes missing later does not stop new sessions from signing.
  auto signer = audit_signer(policy);
  if (!signer) return error{signer.error_message()};
  policy.audit_signer = std::move(*signer);
  // One shipper for the file all sessions share; it stops once the last session's log closed.
  auto shipper = audit_shipper(policy);
  if (!shipper) return error{shipper.error_message()};
  policy.audit_shipper = std::move(*shipper);
  return proxy::session_hook([policy, identity](proxy::session& session, const std::string& session_id) {
    auto started = policy_runtime::start(policy, identity);
    if (!started) {
      spdlog::error("session {}: policy not applied: {}", session_id, started.error_message());
      return;
    }
    std::shared_ptr<policy_runtime> runtime = std::move(*started);
    session.add_inspector(runtime->take_inspector());
    // The callback owns the runtime: it lives exactly as long as the session.
    session.on_surface_changed([runtime, &session](const analysis::server_surface& surface) {
      runtime->surface_changed(surface, session.surface_complete());
    });
  });
}

int run_serve(serve_settings settings) {
  std::signal(SIGPIPE, SIG_IGN);
  std::optional<process_metrics> metrics;  // outlives the io_context (see process_metrics)
  if (settings.metrics.enabled()) {
    metrics.emplace();
    settings.policy.metrics = settings.front.metrics = &metrics->metrics;
  }
  asio::io_context context;
  auto factory = make_server_factory(context, settings);
  if (!factory) {
    spdlog::error("{}", factory.error_message());
    return 2;
  }
  auto hook = make_policy_hook(settings);
  if (!hook) {
    spdlog::error("{}", hook.error_message());
    return 2;
  }
  proxy::http_front front(context.get_executor(), settings.front, settings.session, std::move(*factory),
                          std::move(*hook));
  if (auto listening = front.listen(); !listening) {
    spdlog::error("{}", listening.error_message());
    return 2;
  }
  if (!transports::is_loopback_host(settings.front.listen.listen_host))
    spdlog::warn("listening on {}, which is not a loopback address: anyone who can reach it can use the server{}",
                 settings.front.listen.listen_host, settings.front.listen.auth_token.empty() ? " (no --auth-token-file given)" : "");
  std::unique_ptr<proxy::metrics_endpoint> endpoint;
  if (metrics) {
    auto started = start_metrics_endpoint(context.get_executor(), settings.metrics, *metrics, [&front] { return front.accepting(); });
    if (!started) {
      spdlog::error("{}", started.error_message());
      return 2;
    }
    endpoint = std::move(*started);
  }
  // Always shown (whatever the log level): with port 0 this is the only way to learn the address.
  std::fprintf(stderr, "mcp-warden %s serve listening on %s (legacy SSE on %s)\n", version, front.url().c_str(),
               settings.front.sse_path.c_str());
  if (endpoint) announce_metrics_endpoint(*endpoint);  // after serve's line, which scripts wait for

  asio::signal_set signals(context, SIGINT, SIGTERM, SIGHUP);
  signals.async_wait([&](const boost::system::error_code& ec, int number) {
    if (ec) return;
    spdlog::info("received signal {}; stopping", number);
    front.stop();
    if (endpoint) endpoint->stop();
  });
  start_memory_return(context.get_executor());
  int status = 0;
  asio::co_spawn(context, front.run(), [&](std::exception_ptr failure) {
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        spdlog::critical("serve failed: {}", e.what());
        status = 70;
      }
    }
    signals.cancel();
    context.stop();
  });
  context.run();
  spdlog::info("serve stopped");
  return status;
}

}  // namespace

int run_serve_command(const std::vector<std::string>& args) {
  return start_then_run(parse_serve_args(args), "mcp-warden serve", run_serve);
}

}  // namespace warden::app
