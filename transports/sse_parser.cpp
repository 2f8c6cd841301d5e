#include "transports/sse_parser.hpp"

#include <algorithm>

namespace warden::transports {

namespace {

constexpr std::size_t excerpt_bytes = 256;
constexpr std::string_view bom = "\xEF\xBB\xBF";
// Room for a field name and ": " on top of the value bound.
constexpr std::size_t field_overhead = 16;

void keep_head(std::string& head, std::string_view more) {
  if (head.size() < excerpt_bytes) head.append(more.substr(0, excerpt_bytes - head.size()));
}

void keep_tail(std::string& tail, std::string_view more) {
  if (more.size() >= excerpt_bytes) {
    tail.assign(more.substr(more.size() - excerpt_bytes));
    return;
  }
  tail.append(more);
  if (tail.size() > excerpt_bytes) tail.erase(0, tail.size() - excerpt_bytes);
}

}  // namespace

void sse_parser::feed(std::string_view chunk, const std::function<void(sse_event&&)>& on_event) {
  if (at_start_) {
    // Strip one UTF-8 BOM at the very start, even when it arrives split across chunks.
    while (!chunk.empty() && bom_prefix_.size() < bom.size() && chunk.front() == bom[bom_prefix_.size()]) {
      bom_prefix_.push_back(chunk.front());
      chunk.remove_prefix(1);
    }
    if (bom_prefix_.size() == bom.size()) {
      at_start_ = false;
    } else if (!chunk.empty()) {
      at_start_ = false;
      // A partial match was not a BOM after all: those bytes are content.
      std::string replay = std::move(bom_prefix_);
      bom_prefix_.clear();
      if (!replay.empty()) feed(replay, on_event);
    } else {
      return;  // still undecided
    }
  }
  while (!chunk.empty()) {
    if (after_cr_) {
      after_cr_ = false;
      if (chunk.front() == '\n') {
        chunk.remove_prefix(1);
        continue;
      }
    }
    const auto end = chunk.find_first_of("\r\n");
    const std::string_view piece = chunk.substr(0, end);
    if (line_overflow_) {
      overflow_line(piece);
    } else if (line_.size() + piece.size() > max_bytes_ + field_overhead) {
      const std::size_t fits = max_bytes_ + field_overhead - line_.size();
      line_.append(piece.substr(0, fits));
      start_overflow();
      overflow_line(piece.substr(fits));
    } else {
      line_.append(piece);
    }
    if (end == std::string_view::npos) return;
    after_cr_ = chunk[end] == '\r';
    chunk.remove_prefix(end + 1);
    end_line(on_event);
  }
}

// Decides what the over-long line is from what is held, then stops holding it: data counts
// towards an oversized event (excerpts kept), any other field is dropped.
void sse_parser::start_overflow() {
  line_overflow_ = true;
  overflow_is_data_ = line_.rfind("data:", 0) == 0;
  if (overflow_is_data_) {
    std::string_view value = std::string_view(line_).substr(5);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (!oversized_) spill_data();
    add_data(value);
  }
  line_.clear();
  line_.shrink_to_fit();
}

void sse_parser::overflow_line(std::string_view piece) {
  if (!overflow_is_data_ || piece.empty()) return;
  data_size_ += piece.size();
  keep_excerpts(piece);
}

// The event's data is too big to hold: from here on only its first and last bytes are kept.
void sse_parser::spill_data() {
  oversized_ = true;
  keep_excerpts(data_);
  data_.clear();
  data_.shrink_to_fit();
}

void sse_parser::keep_excerpts(std::string_view more) {
  keep_head(head_, more);
  keep_tail(tail_, more);
}

void sse_parser::end_line(const std::function<void(sse_event&&)>& on_event) {
  if (line_overflow_) {
    if (!overflow_is_data_) ++dropped_lines_;
    line_overflow_ = false;
    overflow_is_data_ = false;
    return;
  }
  if (line_.empty()) {
    dispatch(on_event);
    return;
  }
  const std::string_view line = line_;
  if (line.front() == ':') {  // comment (keep-alive)
    line_.clear();
    return;
  }
  const auto colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  process_field(name, value);
  line_.clear();
}

void sse_parser::add_data(std::string_view value) {
  const std::size_t joined = (has_data_ ? 1 : 0) + value.size();
  if (!oversized_ && data_.size() + joined > max_bytes_) spill_data();
  if (oversized_) {
    if (has_data_) keep_excerpts("\n");
    keep_excerpts(value);
  } else {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
  }
  data_size_ += joined;
  has_data_ = true;
}

void sse_parser::process_field(std::string_view name, std::string_view value) {
  if (name == "data") {
    add_data(value);
  } else if (name == "event") {
    type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (name == "retry") {
    if (!value.empty() && value.size() <= 12 &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      retry_ = std::stoull(std::string(value));
  }
  // Other field names are ignored, as the standard says.
}

void sse_parser::dispatch(const std::function<void(sse_event&&)>& on_event) {
  if (has_data_) {
    sse_event event;
    if (!type_.empty()) event.type = std::move(type_);
    event.data = std::move(data_);
    event.id = last_id_;
    event.size = data_size_;
    event.oversized = oversized_;
    event.head = std::move(head_);
    event.tail = std::move(tail_);
    on_event(std::move(event));
  }
  clear_event();
}

void sse_parser::clear_event() {
  type_.clear();
  data_.clear();
  head_.clear();
  tail_.clear();
  has_data_ = false;
  data_size_ = 0;
  oversized_ = false;
}

void sse_parser::finish() {
  line_.clear();
  line_overflow_ = false;
  overflow_is_data_ = false;
  clear_event();
}

std::string format_sse_event(std::string_view data, std::string_view id, std::string_view type,
                             std::optional<std::uint64_t> retry_ms) {
  std::string out;
  out.reserve(data.size() + id.size() + type.size() + 32);
  if (!type.empty()) out.append("event: ").append(type).append("\n");
  if (!id.empty()) out.append("id: ").append(id).append("\n");
  if (retry_ms) out.append("retry: ").append(std::to_string(*retry_ms)).append("\n");
  // Every line of the payload is a data field; "\r\n" and "\r" count as line ends too.
  std::size_t start = 0;
  for (;;) {
    const auto end = data.find_first_of("\r\n", start);
    out.append("data: ").append(data.substr(start, end - start)).append("\n");
    if (end == std::string_view::npos) break;
    start = end + 1;
    if (data[end] == '\r' && start < data.size() && data[start] == '\n') ++start;
  }
  out.append("\n");
  return out;
}

}  // namespace warden::transports
