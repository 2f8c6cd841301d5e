// Results judged from their text (the policy path's fast way) on arbitrary bytes: never crashes,
// and whenever the text path decides, it decides exactly as judging the document does (and reads
// isError as a lookup of its own would).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "policy/policy.hpp"
#include "protocol/jsonrpc.hpp"
#include "policy/policy_engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::proxy;
  using namespace warden::protocol;
  static const policy_engine engine(warden::policy::default_policy(), warden::policy::mode::enforce);
  if (size == 0) return 0;
  // The first byte picks the method; the rest is the result's JSON text.
  static constexpr std::string_view methods[] = {"tools/call", "resources/read", "prompts/get"};
  const std::string_view method = methods[data[0] % 3];
  const std::string bytes = R"({"jsonrpc":"2.0","id":1,"result":)" +
                            std::string(reinterpret_cast<const char*>(data + 1), size - 1) + "}";
  message m = parse_message(bytes, parse_limits{64, false}).value;
  if (m.has_document || m.kind != message_kind::response || m.result_text.size == 0) return 0;
  json_text::lookup is_error;
  const auto quick = engine.judge_result_text(method, m.result_text.in(bytes), &is_error);
  if (!quick) return 0;
  // isError, read in the same pass as the content, is what a lookup of its own finds.
  const json_text::lookup alone = json_text::member(m.result_text.in(bytes), "isError");
  if (is_error.value != alone.value || is_error.unsure != alone.unsure) std::abort();
  load_document(m, bytes);
  const result_judgement whole = engine.judge_result(method, m.doc["result"]);
  if (quick->what != whole.what || quick->rules != whole.rules || quick->reason != whole.reason ||
      quick->changed != whole.changed || quick->replacement != whole.replacement)
    std::abort();
  return 0;
}
