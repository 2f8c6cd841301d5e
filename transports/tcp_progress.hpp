#pragma once
// How far the peer's TCP has acknowledged what was written on a connected socket (Linux): the
// only delivery confirmation a plain or TLS syslog connection gives (RFC 6587 has no
// application-level acknowledgement). Its own translation unit: <linux/tcp.h>, which has the
// counters, cannot be included next to <netinet/tcp.h>, which Asio includes.
#include <cstdint>
#include <optional>

namespace warden::transports {

struct tcp_progress {
  std::uint64_t acked = 0;   // bytes the peer acknowledged since the connection opened
  std::uint64_t queued = 0;  // bytes in the send queue: not sent yet, or sent and not acknowledged
  // Where the last byte written so far ends; acknowledged once a later `acked` reaches it.
  std::uint64_t written_end() const { return acked + queued; }
};

// Nothing when the kernel does not tell (not a TCP socket, too old a kernel).
std::optional<tcp_progress> read_tcp_progress(int fd);

}  // namespace warden::transports
