// Runtime result scanning on arbitrary bytes (tool results are attacker text): never crashes,
// every finding carries the location it was given.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analysis/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& f : warden::analysis::scan_text(text, "result"))
    if (f.location.empty()) std::abort();
  return 0;
}
