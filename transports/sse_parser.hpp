#pragma once
// Server-Sent Events (text/event-stream) as the WHATWG HTML standard defines them: a pure,
// incremental parser (any chunking, CRLF / LF / CR line ends, a leading BOM, comments,
// multi-line data, ids, retry) with a bound on the bytes held per event, and the writer side.
// No I/O; not thread-safe: one parser per stream.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warden::transports {

struct sse_event {
  std::string type = "message";  // the "event" field; "message" when absent
  std::string data;              // "data" lines joined with "\n" (empty when oversized)
  std::string id;                // the last event id in force when the event was dispatched
  std::size_t size = 0;          // bytes of data the event carried
  bool oversized = false;        // data went past the limit and was not kept
  std::string head;              // oversized only: first and last bytes of the data
  std::string tail;
};

class sse_parser {
 public:
  // `max_event_bytes` bounds the data kept per event and the length of any other line.
  explicit sse_parser(std::size_t max_event_bytes) : max_bytes_(max_event_bytes) {}

  // Feeds bytes; calls `on_event` for each dispatched event, in order.
  void feed(std::string_view chunk, const std::function<void(sse_event&&)>& on_event);
  // End of stream: a pending, unterminated event is discarded, as the standard says.
  void finish();

  // The id to send as Last-Event-ID when reconnecting (updated even by events with no data,
  // such as a priming event); empty when none was seen.
  const std::string& last_event_id() const noexcept { return last_id_; }
  // The reconnection delay the server last asked for, if it did.
  std::optional<std::uint64_t> retry_ms() const noexcept { return retry_; }
  // Lines the parser ignored because they were too long (non-data fields).
  std::size_t dropped_lines() const noexcept { return dropped_lines_; }
  std::size_t buffered() const noexcept { return line_.size() + data_.size(); }

 private:
  void end_line(const std::function<void(sse_event&&)>& on_event);
  void process_field(std::string_view name, std::string_view value);
  void dispatch(const std::function<void(sse_event&&)>& on_event);
  void start_overflow();
  void overflow_line(std::string_view chunk);
  void add_data(std::string_view value);
  void spill_data();
  void clear_event();
  void keep_excerpts(std::string_view more);

  std::size_t max_bytes_;
  std::string line_;
  bool after_cr_ = false;       // the previous chunk ended in CR: a leading LF belongs to it
  bool at_start_ = true;        // a BOM is only skipped at the very start of the stream
  std::string bom_prefix_;      // BOM bytes seen so far at the start (split across chunks)
  bool line_overflow_ = false;  // the current line went past the limit
  bool overflow_is_data_ = false;
  // The event being built.
  std::string type_;
  std::string data_;
  bool has_data_ = false;
  std::size_t data_size_ = 0;
  bool oversized_ = false;
  std::string head_;
  std::string tail_;
  std::string last_id_;
  std::optional<std::uint64_t> retry_;
  std::size_t dropped_lines_ = 0;
};

// One event on the wire. `data` may contain newlines (each line becomes a data field); `id`
// and `type` are omitted when empty; `retry_ms` adds a retry field.
std::string format_sse_event(std::string_view data, std::string_view id = {}, std::string_view type = {},
                             std::optional<std::uint64_t> retry_ms = std::nullopt);

}  // namespace warden::transports
