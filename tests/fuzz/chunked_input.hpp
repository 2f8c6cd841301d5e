#pragma once
// What the stream fuzz targets read from libFuzzer's bytes: a size limit and a chunk size from the
// first two bytes, then the input, which feed_in_chunks hands over `step` bytes at a time.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warden::fuzz {

struct chunked_input {
  std::size_t limit, step;
  std::string_view bytes;

  // Calls feed(chunk) for each `step` bytes of the input in order.
  template <typename Feed>
  void feed_in_chunks(Feed feed) const {
    for (std::size_t at = 0; at < bytes.size(); at += step) feed(bytes.substr(at, step));
  }
};

// Limit in 1..max_limit, step in 1..max_step; none for fewer than two bytes.
inline std::optional<chunked_input> read_chunked_input(const std::uint8_t* data, std::size_t size, std::size_t max_limit,
                                                       std::size_t max_step) {
  if (size < 2) return std::nullopt;
  return chunked_input{1 + data[0] % max_limit, 1 + data[1] % max_step,
                       std::string_view(reinterpret_cast<const char*>(data + 2), size - 2)};
}

}  // namespace warden::fuzz
