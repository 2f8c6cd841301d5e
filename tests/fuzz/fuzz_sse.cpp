// The SSE parser (upstream streams are attacker bytes) on arbitrary input split at arbitrary
// points: events within the size bound, buffered memory bounded, no crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "transports/sse_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t limit = 1 + data[0] % 128;
  const std::size_t step = 1 + data[1] % 31;
  const std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);
  warden::transports::sse_parser parser(limit);
  auto check = [&](warden::transports::sse_event&& e) {
    if (!e.oversized && e.data.size() > limit) std::abort();
    if (e.oversized && !e.data.empty()) std::abort();
  };
  for (std::size_t at = 0; at < input.size(); at += step) {
    parser.feed(input.substr(at, step), check);
    // A line may hold its field name on top of the data bound (sse_parser.cpp field_overhead).
    if (parser.buffered() > 2 * limit + 64) std::abort();
  }
  parser.finish();
  return 0;
}
