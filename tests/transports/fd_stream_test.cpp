#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>
#include <string>

#include "transports/stream.hpp"

namespace asio = boost::asio;
using warden::transports::make_fd_reader;
using warden::transports::make_fd_writer;

namespace {

// n bytes from fd, failing (not hanging) when they do not come within a few seconds.
std::string read_exactly(int fd, std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    pollfd ready{fd, POLLIN, 0};
    REQUIRE(::poll(&ready, 1, 5000) == 1);
    const ssize_t r = ::read(fd, out.data() + got, n - got);
    REQUIRE(r > 0);
    got += static_cast<std::size_t>(r);
  }
  return out;
}

}  // namespace

TEST_CASE("a direct write takes what the pipe has room for; the writer sends the rest, even a lone newline") {
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  const int capacity = ::fcntl(p[1], F_SETPIPE_SZ, 4096);
  REQUIRE(capacity > 0);
  asio::io_context context;
  auto writer = make_fd_writer(context.get_executor(), p[1]);

  // Room for all of it: message and newline go out at once.
  CHECK(writer->try_write_now("hello") == 6);
  CHECK(read_exactly(p[0], 6) == "hello\n");

  // Room for the message but not its newline: the direct write reports exactly that.
  const std::string fills(static_cast<std::size_t>(capacity), 'a');
  CHECK(writer->try_write_now(fills) == fills.size());
  CHECK(writer->try_write_now("more") == 0);  // full: nothing written, nothing lost

  // What is left of that line is only its newline: an empty message to the writer.
  bool done = false;
  asio::co_spawn(
      context, [&]() -> asio::awaitable<void> {
        const auto ec = co_await writer->async_write_message("");
        CHECK_FALSE(ec);
        done = true;
      },
      asio::detached);
  context.run_for(std::chrono::milliseconds(20));
  CHECK_FALSE(done);  // waiting for room
  CHECK(read_exactly(p[0], fills.size()) == fills);
  context.restart();
  context.run_for(std::chrono::seconds(5));
  CHECK(done);
  CHECK(read_exactly(p[0], 1) == "\n");
  writer->close();
  ::close(p[0]);
}

TEST_CASE("the reader tells whether further messages are already framed") {
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  asio::io_context context;
  auto reader = make_fd_reader(context.get_executor(), p[0], 1 << 20);
  CHECK_FALSE(reader->has_buffered());
  const std::string lines = "{\"a\":1}\n{\"b\":2}\n";
  REQUIRE(::write(p[1], lines.data(), lines.size()) == static_cast<ssize_t>(lines.size()));

  std::string first;
  asio::co_spawn(
      context, [&]() -> asio::awaitable<void> {
        auto outcome = co_await reader->async_read_message();
        first = outcome.message.bytes;
      },
      asio::detached);
  context.run_for(std::chrono::seconds(5));
  CHECK(first == "{\"a\":1}");
  CHECK(reader->has_buffered());
  warden::transports::frame second;
  REQUIRE(reader->try_take_buffered(second));
  CHECK(second.bytes == "{\"b\":2}");
  CHECK_FALSE(reader->has_buffered());
  ::close(p[1]);
}
