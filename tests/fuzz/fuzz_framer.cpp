// The stdio framer on arbitrary bytes split at arbitrary points: frames must reassemble exactly
// the lines of the input, never exceed the limit, and buffered memory must stay bounded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "transports/line_framer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t limit = 1 + data[0] % 64;
  const std::size_t step = 1 + data[1] % 17;
  const std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);

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
  for (std::size_t at = 0; at < input.size(); at += step) {
    framer.feed(input.substr(at, step), check);
    if (framer.buffered() > limit + 1) std::abort();
  }
  framer.finish(check);
  if (frames > input.size()) std::abort();
  return 0;
}
