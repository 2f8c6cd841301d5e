#pragma once
// Message streams: the transport interface the proxy works against. A reader yields framed
// messages; a writer sends one message at a time (the caller keeps at most one write in flight).
// Both are used from one strand (the session's io_context thread); neither is thread-safe.
// A message is classified once (protocol/jsonrpc.hpp): a reader that had to classify what it read
// hands that on with it, and a writer that acts on what a message is takes the sender's.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "transports/line_framer.hpp"

namespace warden::protocol {
struct message;
struct parse_outcome;
}  // namespace warden::protocol

namespace warden::transports {

using boost::system::error_code;

struct read_outcome {
  error_code ec;  // set (eof, operation_aborted, ...) when no frame is returned
  frame message;
  // The reader's own classification of `message` (parse_message with the limits it was given),
  // when it needed one to do its work: the HTTP upstream reads the ids of answers, the HTTP front
  // the kind of each POST. Null: not classified yet.
  std::shared_ptr<protocol::parse_outcome> classified;
};

class message_reader {
 public:
  virtual ~message_reader() = default;
  // Next complete message; oversized messages come back with frame::oversized set.
  virtual boost::asio::awaitable<read_outcome> async_read_message() = 0;
  // A message already read and framed, taken without a coroutine (one read() often brings many);
  // false when the next one needs async_read_message().
  virtual bool try_take_buffered(frame& out) {
    (void)out;
    return false;
  }
  // True when try_take_buffered() would return a message.
  virtual bool has_buffered() const { return false; }
  virtual void cancel() = 0;
};

class message_writer {
 public:
  virtual ~message_writer() = default;
  // Writes `bytes` followed by the framing ("\n"); `bytes` must not contain a newline.
  virtual boost::asio::awaitable<error_code> async_write_message(std::string_view bytes) = 0;
  // Writers that act on what a message is (the HTTP upstream sets headers and awaits answers by
  // its method and ids; the HTTP front routes by id) say so, and are handed the classification
  // the sender made with each message it has one for, instead of classifying it again.
  virtual bool takes_classified() const { return false; }
  // Like async_write_message; `classified` is `bytes` classified, or null when the sender has
  // none (a message it built itself): the writer classifies that one. Only the bytes are framed.
  virtual boost::asio::awaitable<error_code> async_write_classified(std::string_view bytes,
                                                                    std::shared_ptr<const protocol::message> classified) {
    (void)classified;
    return async_write_message(bytes);
  }
  // Writes several messages in order; streams that can override it to use one system call for
  // all (a relay under load has many queued). Stops at the first error.
  virtual boost::asio::awaitable<error_code> async_write_messages(std::span<const std::string> messages) {
    for (const auto& bytes : messages)
      if (error_code ec = co_await async_write_message(bytes)) co_return ec;
    co_return error_code{};
  }
  // Writes `bytes` and the framing now if that cannot block; returns how many bytes went out
  // (0 to bytes.size() + 1). Streams without a non-blocking path write nothing.
  virtual std::size_t try_write_now(std::string_view bytes) {
    (void)bytes;
    return 0;
  }
  // Closes the stream: the peer sees end of input.
  virtual void close() = 0;
};

// Newline-delimited streams over a file descriptor that this process owns (takes ownership).
// Pipes, sockets and ttys are driven by the reactor; regular files and /dev/null, which epoll
// refuses, are served by a helper thread through a pipe so that callers see one behaviour.
std::unique_ptr<message_reader> make_fd_reader(boost::asio::any_io_executor executor, int fd,
                                               std::size_t max_message_bytes);
std::unique_ptr<message_writer> make_fd_writer(boost::asio::any_io_executor executor, int fd);

}  // namespace warden::transports
