// The SSE parser (upstream streams are attacker bytes) on arbitrary input split at arbitrary
// points: events within the size bound, buffered memory bounded, no crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/chunked_input.hpp"
#include "transports/sse_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = warden::fuzz::read_chunked_input(data, size, 128, 31);
  if (!in) return 0;
  const std::size_t limit = in->limit;
  warden::transports::sse_parser parser(limit);
  auto check = [&](warden::transports::sse_event&& e) {
    if (!e.oversized && e.data.size() > limit) std::abort();
    if (e.oversized && !e.data.empty()) std::abort();
  };
  in->feed_in_chunks([&](std::string_view chunk) {
    parser.feed(chunk, check);
    // A line may hold its field name on top of the data bound (sse_parser.cpp field_overhead).
    if (parser.buffered() > 2 * limit + 64) std::abort();
  });
  parser.finish();
  return 0;
}
