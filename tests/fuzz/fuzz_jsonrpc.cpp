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
  // The envelope path plus the session's document builder must give nlohmann's document: same
  // text (dump tells 1 from 1.0 and -0.0 from 0.0) and same integer signedness throughout.
  parse_limits envelope = limits;
  envelope.document = false;
  parse_outcome fast = parse_message(input, envelope);
  if (fast.ok != out.ok) std::abort();
  load_document(fast.value, input);
  if (fast.value.doc.dump() != m.doc.dump()) std::abort();
  auto unsigned_count = [](const nlohmann::json& j, auto& self) -> std::size_t {
    std::size_t n = j.is_number_unsigned() ? 1 : 0;
    if (j.is_structured())
      for (const auto& child : j) n += self(child, self);
    return n;
  };
  if (unsigned_count(fast.value.doc, unsigned_count) != unsigned_count(m.doc, unsigned_count)) std::abort();
  return 0;
}
