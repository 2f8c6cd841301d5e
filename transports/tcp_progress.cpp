#include "transports/tcp_progress.hpp"

#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstddef>

namespace warden::transports {

std::optional<tcp_progress> read_tcp_progress(int fd) {
  // The queue first, then the acknowledged count: an acknowledgement arriving in between then
  // makes written_end() too large (a later confirmation), never too small (an early one).
  int queued = 0;
  if (::ioctl(fd, SIOCOUTQ, &queued) != 0 || queued < 0) return std::nullopt;
  struct tcp_info info {};
  socklen_t size = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0 ||
      size < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof info.tcpi_bytes_acked)
    return std::nullopt;
  return tcp_progress{info.tcpi_bytes_acked, static_cast<std::uint64_t>(queued)};
}

}  // namespace warden::transports
