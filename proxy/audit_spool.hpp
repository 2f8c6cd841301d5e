#pragma once
// The on-disk spool between an audit log and its syslog shipper (audit_syslog.hpp): every line of
// the audit file, in file order, kept in DIR (default FILE.spool/) until the shipper confirms that
// the receiver has it. The audit file stays the source of truth; the spool is a bounded queue.
//
// Positions are byte offsets in the stream of every line ever spooled. Segment files
// DIR/<position, 20 digits>.seg hold the lines from that position on; a new one starts past
// `segment_bytes`, and each one wholly before the confirmed position is removed. DIR/confirmed
// holds that position (written at most every `persist_interval`, and when the shipper stops: after
// a kill, lines confirmed since are sent again, never lost).
//
// Feeding (audit_sink): the writers hand over what they appended, with the file locked. What the
// spool has not seen is read from the file itself, tracked by inode, offset and first line
// (DIR/source): other processes' records, the lines of a run killed between its write and the
// spool's, the rest of a file rotated meanwhile (FILE.N). A new spool starts at the beginning of
// the current file.
//
// Bound: once `max_bytes` are not confirmed, lines are dropped (counted in DIR/gap, which survives
// a restart) until a "syslog_gap" record naming their seq range is chained: when the spool is
// below 3/4 of the bound again, or at the latest when a writer closes. Every line from the first
// dropped one to the gap record is left out, so a received copy shows one announced gap.
//
// Thread-safety: the sink side is called by audit writers (serialised by the file lock), the
// reader side (read, confirm) by one shipper thread. One process per spool: DIR/lock is flocked.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "proxy/audit_log.hpp"

namespace warden::proxy {

struct spool_options {
  std::string audit_path;
  std::string dir;                         // "": audit_path + ".spool"
  std::uint64_t max_bytes = 256ull << 20;  // lines not confirmed yet, at most
  std::uint64_t segment_bytes = 0;         // 0: max_bytes / 16, within 64 KiB .. 16 MiB
  std::chrono::milliseconds persist_interval{200};
};

struct spool_stats {
  std::uint64_t spooled = 0;      // lines taken by this process
  std::uint64_t dropped = 0;      // lines this process could not keep
  std::uint64_t gaps = 0;         // syslog_gap records chained through this spool
  std::uint64_t unconfirmed = 0;  // bytes waiting for the receiver
};

class audit_spool final : public audit_sink {
 public:
  static result<std::shared_ptr<audit_spool>> open(spool_options options);
  ~audit_spool() override;
  audit_spool(const audit_spool&) = delete;
  audit_spool& operator=(const audit_spool&) = delete;

  // audit_sink
  void appended(int fd, std::string_view written, bool gap_note) override;
  std::optional<audit_record> gap_record(bool closing, std::uint64_t last_seq) override;

  // Whole lines from `from` (the confirmed position, or a chunk's `next`), about `max_bytes` (at
  // least one line); empty at the end. `next` may move past a missing segment with no lines.
  struct chunk {
    std::string lines;
    std::uint64_t next = 0;
  };
  chunk read(std::uint64_t from, std::size_t max_bytes) const;
  std::uint64_t end() const;
  std::uint64_t confirmed() const;
  // The receiver has everything before `position`. `persist_now`: write it down at once.
  void confirm(std::uint64_t position, bool persist_now = false);
  // Called after lines were added (on a writer's thread, outside the spool's lock); empty: none.
  void on_append(std::function<void()> notify);
  spool_stats stats() const;
  const std::string& dir() const { return options_.dir; }

 private:
  struct segment {
    std::uint64_t start = 0;
    std::string path;
  };
  struct pending_gap {
    std::uint64_t first_seq = 0;  // 0: not known
    std::uint64_t dropped = 0;    // lines dropped here (a removed rotated file's are not counted)
    char reason = 0;              // 0: no gap; 'b' bound, 'r' rotated away unread, 'w' write failed
  };
  explicit audit_spool(spool_options options);
  result<bool> recover();
  void take(std::string_view lines, bool gap_note, std::string& out);
  void start_gap(char reason, std::string_view line);
  void read_file(int fd, std::uint64_t from, std::uint64_t to, std::string& out);
  void follow_rotation(std::string& out);
  bool same_first_line(int fd) const;  // the file the spool was reading (or it did not know yet)
  void write_out(std::string& out);
  void persist_source();
  void persist_gap();
  void persist_confirmed();

  spool_options options_;
  int lock_fd_ = -1;
  int source_fd_ = -1, gap_fd_ = -1, confirmed_fd_ = -1;  // fixed-width state files, rewritten in place
  mutable std::mutex mutex_;
  std::vector<segment> segments_;  // oldest first; the last one is appended to
  int write_fd_ = -1;              // the last segment, once opened
  std::uint64_t write_size_ = 0;
  std::uint64_t end_ = 0;
  std::uint64_t confirmed_ = 0;
  std::chrono::steady_clock::time_point persisted_at_{};
  std::uint64_t source_inode_ = 0, source_offset_ = 0;  // how far the audit file was read; inode 0: new
  std::uint64_t source_id_ = 0;                         // its first line's (first_line_id)
  std::string last_line_;                               // the last line spooled (no newline): a gap after it starts at its seq + 1
  bool resuming_ = true;                                // the first catch-up skips lines up to last_line_ (already spooled)
  pending_gap gap_;
  spool_stats stats_;
  std::mutex notify_mutex_;
  std::function<void()> notify_;
};

// The "seq" of a record line; 0 when it is not a record.
std::uint64_t record_seq(std::string_view line);

}  // namespace warden::proxy
