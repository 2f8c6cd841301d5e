// JSON-RPC classification on arbitrary bytes: never crashes; every accepted message is one of the
// four kinds with the fields its kind implies; every refusal carries a JSON-RPC error code.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proxy/jsonrpc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::proxy;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  parse_limits limits;
  limits.max_depth = 64;
  const parse_outcome out = parse_message(input, limits);
  if (!out.ok) {
    if (out.failure.code != error_codes::parse_error && out.failure.code != error_codes::invalid_request)
      std::abort();
    (void)error_response(out.failure.id, out.failure.code, out.failure.reason);
    return 0;
  }
  const message& m = out.value;
  switch (m.kind) {
    case message_kind::request:
      if (m.method.empty() && !m.doc.contains("method")) std::abort();
      if (!(m.id.is_string() || m.id.is_number())) std::abort();
      (void)id_key(m.id);
      break;
    case message_kind::notification:
      if (!m.id.is_null()) std::abort();
      break;
    case message_kind::response:
      if (!m.doc.contains("result") && !m.doc.contains("error")) std::abort();
      break;
    case message_kind::batch:
      if (m.items.empty()) std::abort();
      break;
  }
  // Repairing must always yield valid UTF-8.
  if (!is_valid_utf8(replace_invalid_utf8(input))) std::abort();
  return 0;
}
