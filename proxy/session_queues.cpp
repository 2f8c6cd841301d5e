// The write side of a session: each direction's bounded queue, the writer draining it, and the
// hand-over between a reader and its writer.
#include "proxy/session_impl.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace warden::proxy {

namespace {

// A reader hands a burst (messages read together) to the writer every this many messages instead
// of once at its end, so that the peer starts on the first messages while the rest are framed
// (see writer_turn_due). Too small a step spends the relay on turns; too large one lets the
// processes take turns again. The value is the best of those tried with bench/run.sh's pipelined
// passthrough case (docs/benchmarks.md).
constexpr unsigned burst_hand_over = 8;

// With inspectors each message costs the relay several times more, so fewer turns pay off
// (chosen the same way, with a policy in enforce mode).
constexpr unsigned inspected_hand_over = 16;

}  // namespace

asio::awaitable<void> session::impl::drain_queue(message_queue& queue, transports::message_writer& out,
                                                 bool& failed, bool& done) {
  std::vector<std::string> batch;
  std::vector<std::shared_ptr<const message>> classified;  // batch[i]'s, for writers that take them
  bool end = false;
  queue.writer = &out;
  const auto take = [&](std::string&& bytes, std::shared_ptr<const message>&& with) {
    batch.push_back(std::move(bytes));
    if (queue.takes_classified) classified.push_back(std::move(with));
  };
  while (!end) {
    error_code ec;
    queue.writer_idle = !failed;
    auto [first, first_classified] = co_await queue.channel.async_receive(asio::redirect_error(asio::use_awaitable, ec));
    queue.writer_idle = false;
    if (ec) break;  // close_queue(): no more
    take(std::move(first), std::move(first_classified));
    // Whatever is queued behind it goes out in the same write: one system call for many messages.
    while (batch.size() < options_.queue_depth && !end &&
           queue.channel.try_receive([&](error_code e, std::string more, std::shared_ptr<const message> more_classified) {
             if (e) end = true;
             else take(std::move(more), std::move(more_classified));
           })) {
    }
    std::size_t size = 0;
    for (const auto& bytes : batch) size += bytes.size();
    // When the peer is gone, keep draining so producers never block on it.
    if (!failed && !queue.takes_classified) ec = co_await out.async_write_messages(batch);
    for (std::size_t i = 0; !failed && queue.takes_classified && i < batch.size() && !ec; ++i)
      ec = co_await out.async_write_classified(batch[i], std::move(classified[i]));
    // Free the messages now, not when the next one comes: after a burst of large results the
    // queue would otherwise keep up to queue_depth of them alive while the session idles.
    batch.clear();
    classified.clear();
    release(queue, size);
    if (ec) {
      failed = true;
      spdlog::warn("writing to the {} failed: {}", &out == client_out_.get() ? "client" : "server",
                   ec.message());
      notify();
    }
  }
  out.close();
  done = true;
  notify();
}

asio::awaitable<void> session::impl::send(message_queue& queue, std::string bytes, std::shared_ptr<const message> classified) {
  // Back-pressure by bytes as well as by count; one message larger than the budget still passes
  // once the queue is empty, so nothing within --max-message-bytes can wedge a direction.
  while (queue.queued_bytes > 0 && queue.queued_bytes + bytes.size() > options_.queue_bytes) {
    if (finished_) co_return;
    queue.space_freed.expires_at(clock_type::time_point::max());
    error_code ignored;
    co_await queue.space_freed.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (finished_ || try_enqueue(queue, bytes, classified)) co_return;
  queue.queued_bytes += bytes.size();
  error_code ignored;
  co_await queue.channel.async_send(error_code{}, std::move(bytes), std::move(classified),
                                    asio::redirect_error(asio::use_awaitable, ignored));
}

// Room in the queue and the channel (the usual case): queued at once, with no coroutine and no
// trip through the scheduler. False leaves `bytes` and `classified` to send(), which the caller
// co_awaits; after a partial direct write `bytes` holds what is left (possibly only the newline,
// as ""). The direct write is for writers that take bytes alone.
bool session::impl::try_enqueue(message_queue& queue, std::string& bytes, std::shared_ptr<const message>& classified) {
  if (finished_ || (queue.queued_bytes > 0 && queue.queued_bytes + bytes.size() > options_.queue_bytes)) return false;
  // One message with nothing ahead of it and none behind it in the reader (one call at a time):
  // written here, saving the writer's wake-up and a pass of the event loop. Messages that arrive
  // together still go through the writer, which sends them in one system call.
  if (queue.writer_idle && queue.queued_bytes == 0 && !queue.more_coming) {
    const std::size_t written = queue.writer->try_write_now(bytes);
    if (written > bytes.size()) return true;
    bytes.erase(0, written);  // the rest goes next, through the writer
  }
  const std::size_t size = bytes.size();
  queue.queued_bytes += size;
  if (queue.channel.try_send(error_code{}, std::move(bytes), std::move(classified))) return true;  // moved only on success
  queue.queued_bytes -= size;
  return false;
}

// Whether the reader feeding `queue` should step aside for its writer now. Without it a burst is
// written only after its last message is framed, so the peer waits for the whole burst before it
// starts on the first, and on two cores the three processes take turns instead of overlapping
// (throughput then falls to one over the sum of all three processes' CPU per message).
bool session::impl::writer_turn_due(message_queue& queue) {
  if (!queue.more_coming) {
    queue.burst = 0;
    return false;
  }
  if (++queue.burst < (inspectors_.empty() ? burst_hand_over : inspected_hand_over)) return false;
  queue.burst = 0;
  return true;
}

// The writer finishes what is queued before this, then closes its stream.
asio::awaitable<void> session::impl::close_queue(message_queue& queue) {
  if (finished_ || queue.channel.try_send(asio::error::eof, std::string(), nullptr)) co_return;
  error_code ignored;
  co_await queue.channel.async_send(asio::error::eof, std::string(), nullptr, asio::redirect_error(asio::use_awaitable, ignored));
}

void session::impl::release(message_queue& queue, std::size_t size) {
  queue.queued_bytes -= std::min(queue.queued_bytes, size);
  queue.space_freed.cancel();
}

void session::impl::post(message_queue& queue, std::string bytes) {
  // Our own messages must never wait behind back-pressure in the reader that produced them.
  spawn(send(queue, std::move(bytes)));
}

}  // namespace warden::proxy
