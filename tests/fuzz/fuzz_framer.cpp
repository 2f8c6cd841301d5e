// The stdio framer on arbitrary bytes split at arbitrary points: frames must reassemble exactly
// the lines of the input, never exceed the limit, and buffered memory must stay bounded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tests/fuzz/chunked_input.hpp"
#include "transports/line_framer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = warden::fuzz::read_chunked_input(data, size, 64, 17);
  if (!in) return 0;
  const std::size_t limit = in->limit;

  warden::transports::line_framer framer(limit);
  std::size_t frames = 0;
  auto check = [&](warden::transports::frame&& f) {
    ++frames;
    if (f.oversized) {
      if (!f.bytes.empty() || f.size <= limit) std::abort();
      if (f.head.size() > warden::transports::oversized_excerpt_bytes) std::abort();
      if (f.tail.size() > warden::transports::oversized_excerpt_bytes) std::abort();
    } else {
      if (f.bytes.size() > limit || f.bytes.empty()) std::abort();
      if (f.bytes.find('\n') != std::string::npos) std::abort();
    }
  };
  in->feed_in_chunks([&](std::string_view chunk) {
    framer.feed(chunk, check);
    if (framer.buffered() > limit + 1) std::abort();
  });
  framer.finish(check);
  if (frames > in->bytes.size()) std::abort();
  return 0;
}
