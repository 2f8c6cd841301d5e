// The HTTP front's request checks on arbitrary header values: URL parsing and resolution, media
// types, Host/Origin against DNS rebinding, protocol versions, header encoding. No crash, and a
// request whose Host is not loopback is never accepted under the default policy.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "transports/http_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::transports;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Split the input into a few header values at NUL bytes.
  std::string_view parts[4];
  std::size_t n = 0, start = 0;
  for (std::size_t i = 0; i <= input.size() && n < 4; ++i)
    if (i == input.size() || input[i] == '\0') parts[n++] = input.substr(start, i - start), start = i + 1;

  if (auto url = parse_http_url(parts[0]); url) (void)resolve_url(*url, parts[1]);
  (void)accepts(parts[1], "text/event-stream");
  (void)is_media_type(parts[2], "application/json");
  (void)is_well_formed_protocol_version(parts[3]);
  (void)encode_mcp_header_value(parts[3]);

  const origin_policy loopback;
  const std::string verdict = check_host_and_origin(loopback, parts[0],
                                                    n > 1 ? std::optional<std::string_view>(parts[1]) : std::nullopt);
  if (verdict.empty() && !is_loopback_host(host_of_authority(parts[0]))) std::abort();
  return 0;
}
