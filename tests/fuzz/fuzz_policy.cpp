// The policy parser on arbitrary text: a result or an error with a position, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "policy/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = warden::policy::parse_policy(text, "fuzz.json");
  if (!parsed && parsed.error_message().empty()) std::abort();  // every refusal explains itself
  return 0;
}
