#pragma once
// --metrics-listen and its TLS / token / Host options (proxy and serve), the process's metrics,
// and the endpoint that serves them (docs/fleet.md, "Metrics and health").
#include <CLI/CLI.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>

#include "base/result.hpp"
#include "app/listen_options.hpp"
#include "metrics/warden_metrics.hpp"
#include "proxy/metrics_endpoint.hpp"

namespace warden::app {

struct metrics_settings {
  listen_settings listen;
  transports::http_listen_options options;
  bool enabled() const { return !listen.address.empty(); }
};

void add_metrics_options(CLI::App& cli, metrics_settings& settings);
// Checks the values once parsed (nothing to do without --metrics-listen).
result<bool> resolve_metrics_options(metrics_settings& settings);

// The registry and mcp-warden's metrics. Made before the io_context: audit writers and sessions
// that report into them may end only as it is destroyed.
struct process_metrics {
  process_metrics();
  metrics::registry registry;
  metrics::warden_metrics metrics;
};

// Binds the endpoint and starts serving (once the io_context runs). Errors are for the user (exit 2).
result<std::unique_ptr<proxy::metrics_endpoint>> start_metrics_endpoint(boost::asio::any_io_executor executor,
                                                                        const metrics_settings& settings,
                                                                        const process_metrics& state,
                                                                        std::function<bool()> ready);
// Prints the endpoint's URL on stderr, whatever the log level: with port 0 the only way to learn it.
void announce_metrics_endpoint(const proxy::metrics_endpoint& endpoint);

}  // namespace warden::app
