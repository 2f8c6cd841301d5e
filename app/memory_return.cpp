#include "app/memory_return.hpp"

#if defined(WARDEN_TCMALLOC)
#include <gperftools/malloc_extension.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstddef>
#endif

namespace warden::app {

#if defined(WARDEN_TCMALLOC)
namespace {

// Below this much free memory in the page heap, keep it: small-call traffic reuses it at once.
constexpr std::size_t keep_free_bytes = 8u << 20;

boost::asio::awaitable<void> return_memory_periodically() {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  for (;;) {
    timer.expires_after(std::chrono::seconds(1));
    co_await timer.async_wait(boost::asio::use_awaitable);
    std::size_t free_bytes = 0;
    if (MallocExtension::instance()->GetNumericProperty("tcmalloc.pageheap_free_bytes", &free_bytes) &&
        free_bytes > keep_free_bytes)
      MallocExtension::instance()->ReleaseFreeMemory();
  }
}

}  // namespace

void start_memory_return(const boost::asio::any_io_executor& executor) {
  boost::asio::co_spawn(executor, return_memory_periodically(), boost::asio::detached);
}
#else
void start_memory_return(const boost::asio::any_io_executor&) {}
#endif

}  // namespace warden::app
