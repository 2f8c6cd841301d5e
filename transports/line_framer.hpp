#pragma once
// Splits a byte stream into newline-delimited messages (the MCP stdio framing). Pure and
// allocation-light; no I/O. Not thread-safe: one framer per stream.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace warden::transports {

// One event per framed line. `oversized` lines are not kept: `bytes` is empty and `size` says how
// long the line was (or had grown when the stream ended).
struct frame {
  std::string bytes;     // the line without its "\n" / "\r\n"
  std::size_t size = 0;  // length of the line in the stream
  bool oversized = false;
  // For oversized lines only: the first and last bytes, enough to recover a JSON-RPC id so the
  // request it answers can still get an error instead of hanging.
  std::string head;
  std::string tail;
};

inline constexpr std::size_t oversized_excerpt_bytes = 256;

class line_framer {
 public:
  explicit line_framer(std::size_t max_message_bytes) : max_bytes_(max_message_bytes) {}

  // Feeds bytes; calls `on_frame` for each complete line, in order. Empty and whitespace-only
  // lines are skipped (tolerated between messages by every peer we know).
  void feed(std::string_view data, const std::function<void(frame&&)>& on_frame);

  // At end of stream: a non-empty unterminated tail is delivered as a last frame.
  void finish(const std::function<void(frame&&)>& on_frame);

  // Bytes held for an incomplete line (bounded by max_message_bytes).
  std::size_t buffered() const noexcept { return partial_.size(); }

 private:
  void end_line(const std::function<void(frame&&)>& on_frame);
  void start_discarding(std::string_view chunk);
  void keep_tail(std::string_view chunk);

  std::size_t max_bytes_;
  std::string partial_;
  std::size_t discarded_ = 0;  // bytes of the over-size line skipped so far
  std::string head_;           // excerpts of the over-size line (see frame::head)
  std::string tail_;
  bool discarding_ = false;
};

}  // namespace warden::transports
