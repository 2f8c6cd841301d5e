#pragma once
// Returns memory the allocator keeps after large messages to the system.
#include <boost/asio/any_io_executor.hpp>

namespace warden::app {

// With tcmalloc: checks once a second how much freed memory its page heap holds and hands it back
// to the system beyond a few MiB (glibc unmaps large blocks on free by itself; tcmalloc keeps them
// for reuse, so one large result would otherwise leave the relay larger for good, by a few times
// the message's size). Without tcmalloc: does nothing. Runs until the executor's context stops.
void start_memory_return(const boost::asio::any_io_executor& executor);

}  // namespace warden::app
