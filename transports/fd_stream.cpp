#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <deque>
#include <climits>
#include <thread>
#include <vector>

#include "transports/stream.hpp"

namespace warden::transports {

namespace asio = boost::asio;

namespace {

bool reactor_can_watch(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return false;
  // epoll refuses regular files, and /dev/null is always "ready": only pipes, sockets and ttys
  // are worth handing to the reactor.
  return S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode) ||
         (S_ISCHR(info.st_mode) && ::isatty(fd) == 1);
}

// Copies a blocking fd into (or out of) a pipe on a detached thread, so the reactor sees a pipe.
// The thread owns `from` and `to` and exits at end of input or on a write error.
void start_copy_thread(int from, int to) {
  std::thread([from, to] {
    std::array<char, 65536> buffer{};
    for (;;) {
      const ssize_t n = ::read(from, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      for (ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(to, buffer.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          ::close(from);
          ::close(to);
          return;
        }
        done += w;
      }
    }
    ::close(from);
    ::close(to);
  }).detach();
}

int reactor_readable_fd(int fd) {
  if (reactor_can_watch(fd)) return fd;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return fd;
  start_copy_thread(fd, p[1]);
  return p[0];
}

int reactor_writable_fd(int fd) {
  if (reactor_can_watch(fd)) return fd;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return fd;
  start_copy_thread(p[0], fd);
  return p[1];
}

class fd_reader final : public message_reader {
 public:
  fd_reader(asio::any_io_executor executor, int fd, std::size_t max_message_bytes)
      : stream_(executor, reactor_readable_fd(fd)), framer_(max_message_bytes) {}

  asio::awaitable<read_outcome> async_read_message() override {
    while (ready_.empty()) {
      if (at_eof_) co_return read_outcome{asio::error::eof, {}, {}};
      error_code ec;
      const std::size_t n = co_await stream_.async_read_some(
          asio::buffer(buffer_), asio::redirect_error(asio::use_awaitable, ec));
      if (n > 0) {
        framer_.feed(std::string_view(buffer_.data(), n),
                     [this](frame&& f) { ready_.push_back(std::move(f)); });
      }
      if (ec == asio::error::eof) {
        framer_.finish([this](frame&& f) { ready_.push_back(std::move(f)); });
        at_eof_ = true;
      } else if (ec) {
        co_return read_outcome{ec, {}, {}};
      }
    }
    read_outcome outcome;
    outcome.message = std::move(ready_.front());
    ready_.pop_front();
    co_return outcome;
  }

  bool try_take_buffered(frame& out) override {
    if (ready_.empty()) return false;
    out = std::move(ready_.front());
    ready_.pop_front();
    return true;
  }

  bool has_buffered() const override { return !ready_.empty(); }

  void cancel() override {
    error_code ignored;
    stream_.cancel(ignored);
  }

 private:
  asio::posix::stream_descriptor stream_;
  line_framer framer_;
  std::array<char, 65536> buffer_{};
  std::deque<frame> ready_;
  bool at_eof_ = false;
};

class fd_writer final : public message_writer {
 public:
  fd_writer(asio::any_io_executor executor, int fd) : stream_(executor, reactor_writable_fd(fd)) {
    error_code ec;
    stream_.native_non_blocking(true, ec);
    write_at_once_ = !ec;
  }

  asio::awaitable<error_code> async_write_message(std::string_view bytes) override {
    if (!stream_.is_open()) co_return asio::error::bad_descriptor;
    error_code ec;
    const std::size_t written = write_now(bytes, ec);
    if (ec || written > bytes.size()) co_return ec;
    // The rest waits for room.
    static constexpr char newline = '\n';
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(bytes.data() + written, bytes.size() - written),
                                                    asio::buffer(&newline, 1)};
    co_await asio::async_write(stream_, buffers, asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
  }

  std::size_t try_write_now(std::string_view bytes) override {
    if (!stream_.is_open()) return 0;
    error_code ignored;  // the writer meets the error again and reports it
    return write_now(bytes, ignored);
  }

  asio::awaitable<error_code> async_write_messages(std::span<const std::string> messages) override {
    if (messages.size() == 1) co_return co_await async_write_message(messages.front());
    if (!stream_.is_open()) co_return asio::error::bad_descriptor;
    static constexpr char newline = '\n';
    // One gather write for the lot (each message and its newline), at once when the pipe has room.
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(messages.size() * 2);
    for (const auto& bytes : messages) {
      buffers.emplace_back(bytes.data(), bytes.size());
      buffers.emplace_back(&newline, 1);
    }
    std::size_t written = 0;
    if (write_at_once_) {
      for (std::size_t first = 0; first < buffers.size();) {
        const std::size_t count = std::min<std::size_t>(buffers.size() - first, IOV_MAX);
        std::vector<iovec> parts(count);
        for (std::size_t k = 0; k < count; ++k)
          parts[k] = {const_cast<void*>(buffers[first + k].data()), buffers[first + k].size()};
        ssize_t n;
        do n = ::writev(stream_.native_handle(), parts.data(), static_cast<int>(count));
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) co_return error_code(errno, boost::system::system_category());
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
        std::size_t chunk = 0;
        for (std::size_t k = 0; k < count; ++k) chunk += parts[k].iov_len;
        if (static_cast<std::size_t>(n) < chunk) break;
        first += count;
      }
    }
    // What did not fit waits for room.
    std::vector<asio::const_buffer> rest;
    for (const auto& b : buffers) {
      if (written >= b.size()) {
        written -= b.size();
        continue;
      }
      rest.push_back(b + written);
      written = 0;
    }
    if (rest.empty()) co_return error_code{};
    error_code ec;
    co_await asio::async_write(stream_, rest, asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
  }

  void close() override {
    error_code ignored;
    stream_.close(ignored);
  }

 private:
  // `bytes` and its newline, as far as the pipe takes them without waiting (a pipe with room takes
  // a message at once: no trip through the reactor and the scheduler, which costs more than the
  // write itself for small messages). Returns the bytes written, up to bytes.size() + 1.
  std::size_t write_now(std::string_view bytes, error_code& ec) {
    if (!write_at_once_) return 0;
    static constexpr char newline = '\n';
    iovec parts[2] = {{const_cast<char*>(bytes.data()), bytes.size()}, {const_cast<char*>(&newline), 1}};
    ssize_t n;
    do n = ::writev(stream_.native_handle(), parts, 2);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ec = error_code(errno, boost::system::system_category());
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }

  asio::posix::stream_descriptor stream_;
  bool write_at_once_ = false;  // the descriptor is non-blocking: a direct writev never stalls us
};

}  // namespace

std::unique_ptr<message_reader> make_fd_reader(asio::any_io_executor executor, int fd,
                                               std::size_t max_message_bytes) {
  return std::make_unique<fd_reader>(std::move(executor), fd, max_message_bytes);
}

std::unique_ptr<message_writer> make_fd_writer(asio::any_io_executor executor, int fd) {
  return std::make_unique<fd_writer>(std::move(executor), fd);
}

}  // namespace warden::transports
