#include "app/listen_options.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace warden::app {

namespace {

result<std::string> read_token_file(const std::string& option, const std::string& path) {
  std::ifstream in(path);
  if (!in) return error{"cannot read " + option + " '" + path + "'"};
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty() || token.size() > 4096 || token.find_first_of(" \t\r\n") != std::string::npos)
    return error{option + " '" + path + "' must hold one token (no spaces, at most 4096 bytes)"};
  return token;
}

}  // namespace

void add_listen_options(CLI::App& cli, listen_settings& settings, transports::http_listen_options& options,
                        const std::string& prefix, const std::string& listen_help) {
  options.option_prefix = prefix;
  auto* listen = cli.add_option(prefix + "listen", settings.address, listen_help);
  if (!settings.address.empty()) listen->capture_default_str();
  cli.add_option(prefix + "allow-host", options.origins.allowed_hosts, "Also accept this Host name (repeatable; '*' for any)");
  cli.add_option(prefix + "auth-token-file", settings.token_file, "Require 'Authorization: Bearer <token>' with the token in FILE");
  cli.add_option(prefix + "tls-cert", options.tls_cert, "Serve HTTPS with this certificate chain (PEM)");
  cli.add_option(prefix + "tls-key", options.tls_key, "Private key (PEM) of " + prefix + "tls-cert");
}

result<bool> resolve_listen(const listen_settings& settings, transports::http_listen_options& options) {
  const std::string& prefix = options.option_prefix;
  const std::string& listen = settings.address;
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) return error{prefix + "listen expects HOST:PORT, got '" + listen + "'"};
  options.listen_host = listen.substr(0, colon);
  if (options.listen_host.size() > 2 && options.listen_host.front() == '[' && options.listen_host.back() == ']')
    options.listen_host = options.listen_host.substr(1, options.listen_host.size() - 2);
  try {
    const unsigned long port = std::stoul(listen.substr(colon + 1));
    if (port > 65535) throw std::out_of_range("port");
    options.port = static_cast<std::uint16_t>(port);
  } catch (const std::exception&) {
    return error{prefix + "listen: bad port in '" + listen + "'"};
  }
  if (!options.tls_key.empty() && options.tls_cert.empty()) return error{prefix + "tls-key needs " + prefix + "tls-cert"};
  if (!settings.token_file.empty()) {
    auto token = read_token_file(prefix + "auth-token-file", settings.token_file);
    if (!token) return error{token.error_message()};
    options.auth_token = *token;
  }
  for (auto& host : options.origins.allowed_hosts) std::transform(host.begin(), host.end(), host.begin(), ::tolower);
  return true;
}

}  // namespace warden::app
