// The client-config readers (JSONC and TOML, every layout) on arbitrary text: a
// result or a positioned error, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "clients/client_configs.hpp"
#include "clients/jsonc.hpp"
#include "clients/toml_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::clients;
  if (size < 1) return 0;
  static constexpr config_layout layouts[] = {config_layout::mcp_servers, config_layout::claude_code_user,
                                              config_layout::vscode_settings, config_layout::vscode_mcp};
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  config_location location;
  location.path = data[0] & 0x80 ? "config.toml" : "config.json";
  location.client = data[0] & 0x80 ? client_kind::codex : client_kind::claude_desktop;
  location.layout = layouts[data[0] % std::size(layouts)];
  auto parsed = parse_client_config(location, text);
  if (!parsed && parsed.error_message().empty()) std::abort();
  (void)parse_jsonc(text);
  (void)parse_toml(text);
  return 0;
}
