#pragma once
// Command-line options of an HTTP listener, shared by serve's own (--listen, --tls-cert, ...) and
// the metrics endpoint of serve and the stdio proxy (--metrics-listen, --metrics-tls-cert, ...).
#include <CLI/CLI.hpp>
#include <string>

#include "base/result.hpp"
#include "transports/http_listen.hpp"

namespace warden::app {

struct listen_settings {
  std::string address;     // HOST:PORT as given; empty: no listener (metrics only)
  std::string token_file;  // the bearer token, read by resolve_listen
};

// Adds PREFIXlisten, PREFIXallow-host, PREFIXauth-token-file, PREFIXtls-cert and PREFIXtls-key
// (PREFIX "--" or "--metrics-"; options.option_prefix is set to it).
void add_listen_options(CLI::App& cli, listen_settings& settings, transports::http_listen_options& options,
                        const std::string& prefix, const std::string& listen_help);
// Splits HOST:PORT, reads the token file, checks the TLS pair; errors name the options.
result<bool> resolve_listen(const listen_settings& settings, transports::http_listen_options& options);

}  // namespace warden::app
