#pragma once
// Ships an audit log to a syslog receiver (--audit-syslog, docs/fleet.md). Every record, exactly
// as written to the file, is the MSG of one RFC 5424 message, framed by octet counting (RFC 6587:
// "LEN SP SYSLOG-MSG"), over TCP or TLS (RFC 5425). The records come from the spool
// (audit_spool.hpp), never from the relay: a slow or absent receiver only makes the spool grow.
//
// Delivery: a spool position is confirmed once the receiver's TCP has acknowledged every byte up
// to it (tcp_progress.hpp) and the connection is still open `confirm_after` later. After a
// failure the next connection resends from the confirmed position, so records that reached the
// receiver without that being seen arrive twice (same seq, same hash: `log verify --received`
// recognises them). Reconnects back off from 250 ms to 15 s.
// Thread-safety: runs on a thread of its own; stop() and the destructor from one other thread.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace warden::proxy {

class audit_spool;

struct syslog_target {
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;
};

// tcp://HOST[:PORT] (default 514) or tls://HOST[:PORT] (default 6514); IPv6 as [ADDR].
result<syslog_target> parse_syslog_url(std::string_view url);

// The header fields that name the sender: printable ASCII only (others become '_'), cut to the
// RFC 5424 lengths.
struct syslog_identity {
  std::string hostname;  // gethostname()
  std::string procid;    // the pid
  std::string msgid;     // the audit file's name: keeps several audit files of one host apart
};
syslog_identity make_syslog_identity(std::string_view audit_path);

// "<110>1 TIMESTAMP HOSTNAME mcp-warden PROCID MSGID - ": facility 13 (log audit), severity 6
// (informational), no structured data; MSG follows.
std::string syslog_header(const syslog_identity& who, std::string_view timestamp);
// Appends one frame "LEN SP HEADER RECORD" per newline-terminated record in `lines`; returns how many.
std::size_t append_syslog_frames(std::string& out, std::string_view header, std::string_view lines);

struct syslog_options {
  syslog_target target;
  std::string ca_file;  // tls: trust these CAs instead of the system store
  syslog_identity identity;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds write_timeout{60'000};  // a receiver that takes nothing this long is left
  std::chrono::milliseconds confirm_after{1000};
  std::chrono::milliseconds backoff_min{250};
  std::chrono::milliseconds backoff_max{15'000};
  std::chrono::milliseconds drain{1500};  // stop(): time left to send what is spooled
  std::size_t chunk_bytes = 256u << 10;   // records per write
};

struct syslog_stats {
  std::uint64_t sent = 0;         // records written to a connection (resent ones again)
  std::uint64_t connections = 0;  // established
};

class syslog_shipper {
 public:
  // Checks the TLS set-up (CA file) now; connects in the background.
  static result<std::unique_ptr<syslog_shipper>> start(syslog_options options, std::shared_ptr<audit_spool> spool);
  ~syslog_shipper();
  syslog_shipper(const syslog_shipper&) = delete;
  syslog_shipper& operator=(const syslog_shipper&) = delete;

  // Sends what is spooled for at most `drain` (not at all while the receiver is away), then stops;
  // the rest stays in the spool for the next run. Idempotent.
  void stop();
  const std::shared_ptr<audit_spool>& spool() const;
  syslog_stats stats() const;

 private:
  class impl;
  explicit syslog_shipper(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace warden::proxy
