// JSON-RPC classification on arbitrary bytes: never crashes; every accepted message is one of the
// four kinds with the fields its kind implies; every refusal carries a JSON-RPC error code; what
// json_text reads from an accepted message's text is what its document holds, strings in its order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/text.hpp"
#include "protocol/jsonrpc.hpp"

namespace {

using nlohmann::json;
using namespace warden::protocol;

// What json_text reads of a value must be what the document holds: every member the lookup is
// sure of, every element, every string's characters.
void check_value(std::string_view text, const json& doc, int depth) {
  if (json::parse(text) != doc) std::abort();
  if (depth > 8) return;
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      const json_text::lookup found = json_text::member(text, key);
      if (found.unsure) continue;
      if (found.value.empty()) std::abort();
      check_value(found.value, value, depth + 1);
    }
  } else if (doc.is_array()) {
    std::size_t i = 0;
    json_text::for_each_element(text, [&](std::string_view element) {
      if (i >= doc.size()) std::abort();
      check_value(element, doc[i++], depth + 1);
    });
    if (i != doc.size()) std::abort();
  } else if (doc.is_string()) {
    std::string storage;
    if (json_text::string_text(text, storage) != doc.get_ref<const std::string&>()) std::abort();
  }
}

// The strings for_each_string_token reads, when it is sure, are the document's, in its order.
void check_string_order(std::string_view text, const json& doc) {
  std::vector<std::string> from_doc, from_text;
  const auto walk = [&](const json& v, auto& self) -> void {
    if (v.is_string()) from_doc.push_back(v.get<std::string>());
    else if (v.is_structured())
      for (const auto& child : v) self(child, self);
  };
  walk(doc, walk);
  std::string storage;
  const bool sure = json_text::for_each_string_token(
      text, [&](std::string_view token) { from_text.emplace_back(json_text::string_text(token, storage)); });
  if (sure && from_text != from_doc) std::abort();
}

void check_text_reads(const message& m, std::string_view bytes, const json& doc) {
  const std::pair<const text_span*, const char*> members[] = {
      {&m.params_text, "params"}, {&m.result_text, "result"}, {&m.error_text, "error"}};
  for (const auto& [span, name] : members) {
    const auto it = doc.find(name);
    if ((span->size == 0) != (it == doc.end())) std::abort();
    if (span->size) {
      check_value(span->in(bytes), *it, 0);
      check_string_order(span->in(bytes), *it);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::protocol;
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
  if (!warden::analysis::text::is_valid_utf8(warden::analysis::text::replace_invalid_utf8(input))) std::abort();
  // The envelope path plus the session's document builder must give nlohmann's document: same
  // text (dump tells 1 from 1.0 and -0.0 from 0.0) and same integer signedness throughout.
  parse_limits envelope = limits;
  envelope.document = false;
  parse_outcome fast = parse_message(input, envelope);
  if (fast.ok != out.ok) std::abort();
  if (!fast.value.has_document) check_text_reads(fast.value, input, m.doc);
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
