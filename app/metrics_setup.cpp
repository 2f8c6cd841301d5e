#include "app/metrics_setup.hpp"

#include <cstdio>
#include <spdlog/spdlog.h>

#include "app/version.hpp"

namespace warden::app {

void add_metrics_options(CLI::App& cli, metrics_settings& settings) {
  add_listen_options(cli, settings.listen, settings.options, "--metrics-",
                     "Serve /metrics (Prometheus), /healthz and /readyz on HOST:PORT (port 0: any free port)");
}

result<bool> resolve_metrics_options(metrics_settings& settings) {
  if (!settings.enabled()) {
    if (!settings.options.tls_cert.empty() || !settings.listen.token_file.empty() || !settings.options.origins.allowed_hosts.empty())
      return error{"the --metrics-* options need --metrics-listen"};
    return true;
  }
  // Scrapers and probes only: small requests, few connections.
  settings.options.max_body_bytes = 4096;
  settings.options.max_connections = 16;
  return resolve_listen(settings.listen, settings.options);
}

process_metrics::process_metrics() : metrics(registry, version) {}

result<std::unique_ptr<proxy::metrics_endpoint>> start_metrics_endpoint(boost::asio::any_io_executor executor,
                                                                        const metrics_settings& settings,
                                                                        const process_metrics& state,
                                                                        std::function<bool()> ready) {
  auto endpoint = std::make_unique<proxy::metrics_endpoint>(executor, settings.options, state.registry, std::move(ready));
  if (auto listening = endpoint->listen(); !listening) return error{listening.error_message()};
  if (!transports::is_loopback_host(settings.options.listen_host) && settings.options.auth_token.empty())
    spdlog::warn(
        "metrics on {}, which is not a loopback address, without --metrics-auth-token-file: anyone who can "
        "reach it can read them",
        settings.options.listen_host);
  endpoint->start();
  return endpoint;
}

void announce_metrics_endpoint(const proxy::metrics_endpoint& endpoint) {
  std::fprintf(stderr, "mcp-warden %s metrics listening on %s\n", version, endpoint.url().c_str());
}

}  // namespace warden::app
