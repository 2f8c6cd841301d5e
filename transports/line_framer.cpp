#include "transports/line_framer.hpp"

#include <algorithm>

namespace warden::transports {

namespace {

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

void line_framer::start_discarding(std::string_view chunk) {
  discarding_ = true;
  discarded_ = partial_.size() + chunk.size();
  head_ = partial_.substr(0, oversized_excerpt_bytes);
  if (head_.size() < oversized_excerpt_bytes)
    head_.append(chunk.substr(0, oversized_excerpt_bytes - head_.size()));
  tail_.clear();
  keep_tail(partial_);
  keep_tail(chunk);
  partial_.clear();
  partial_.shrink_to_fit();  // an over-size line must not keep its memory
}

void line_framer::keep_tail(std::string_view chunk) {
  if (chunk.size() >= oversized_excerpt_bytes) {
    tail_.assign(chunk.substr(chunk.size() - oversized_excerpt_bytes));
    return;
  }
  tail_.append(chunk);
  if (tail_.size() > oversized_excerpt_bytes) tail_.erase(0, tail_.size() - oversized_excerpt_bytes);
}

void line_framer::feed(std::string_view data, const std::function<void(frame&&)>& on_frame) {
  while (!data.empty()) {
    const auto newline = data.find('\n');
    const std::string_view chunk = data.substr(0, newline);
    if (discarding_) {
      discarded_ += chunk.size();
      if (head_.size() < oversized_excerpt_bytes)
        head_.append(chunk.substr(0, oversized_excerpt_bytes - head_.size()));
      keep_tail(chunk);
    } else if (partial_.size() + chunk.size() > max_bytes_ + 1) {
      // One byte of slack keeps the '\r' of a CRLF line that is exactly at the limit.
      start_discarding(chunk);
    } else {
      partial_.append(chunk);
    }
    if (newline == std::string_view::npos) return;
    data.remove_prefix(newline + 1);
    end_line(on_frame);
  }
}

void line_framer::end_line(const std::function<void(frame&&)>& on_frame) {
  if (!discarding_ && !partial_.empty() && partial_.back() == '\r') partial_.pop_back();
  if (!discarding_ && partial_.size() > max_bytes_) start_discarding({});
  if (discarding_) {
    frame skipped;
    skipped.size = discarded_;
    skipped.oversized = true;
    if (!tail_.empty() && tail_.back() == '\r') tail_.pop_back();
    skipped.head = std::move(head_);
    skipped.tail = std::move(tail_);
    head_.clear();
    tail_.clear();
    discarding_ = false;
    discarded_ = 0;
    on_frame(std::move(skipped));
    return;
  }
  if (!is_blank(partial_)) {
    frame line;
    line.size = partial_.size();
    line.bytes = std::move(partial_);
    partial_ = std::string();
    on_frame(std::move(line));
  }
  partial_.clear();
}

void line_framer::finish(const std::function<void(frame&&)>& on_frame) {
  if (discarding_ || !partial_.empty()) end_line(on_frame);
}

}  // namespace warden::transports
