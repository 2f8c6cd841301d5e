#pragma once
// The tamper-evident audit log: JSON Lines, one record per event, each record carrying the SHA-256
// of the record before it ("prev") and of itself ("hash"), so that an edit, a deletion or a
// reordering breaks the chain at the first record concerned.
//
// Record text: the canonical JSON of the event (keys sorted) with "seq", "ts", "prev" added, then
// `,"hash":"<sha256 of that text>"` appended before the closing brace. verify_log() checks it
// textually, never by re-serialising.
//
// Writing: record() does no I/O. Events go to a bounded queue; a writer thread redacts and caps
// them, writes their canonical text, chains them and appends each batch with one write(2) under
// flock(2) (several proxies may share one file). When the queue is full, record() waits for the
// writer to take it (at most `full_wait`): traffic faster than the writer slows to its pace rather
// than losing records. A writer that cannot make room in that time (a disk that hangs) is
// stalled: until it takes a batch again, events are counted, not written, without waiting (fail
// open), and the next batch starts with a "records_dropped" record naming how many were lost.
// Flush policy: a batch is handed to the kernel as soon as the writer wakes (immediately when idle),
// so a crash or kill -9 of mcp-warden loses nothing already queued for more than a moment;
// fdatasync(2) follows per `sync` (default: at most once per second while records arrive, and at
// close). Rotation: past `rotate_bytes` the file is renamed FILE.1 (FILE.1 -> FILE.2 ...) and the
// new file's first record continues the chain from the last hash of the old one.
// Signed checkpoints (with a `signer`, see audit_signer.hpp): the writer adds a "checkpoint" record
// signing the chain head once `checkpoint_records` of its records are unsigned, once the oldest
// of them is `checkpoint_interval` old, before a rotation and at close.
// Shipping (with a `sink`, see audit_sink below): every line the file gains goes to the sink, in
// file order, and the sink's gap records are chained (a syslog spool that had to drop lines).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "base/result.hpp"

namespace warden::metrics {
struct warden_metrics;
}

namespace warden::proxy {

class audit_sink;
class checkpoint_signer;
class checkpoint_verifier;

enum class audit_sync { never,
                        interval,
                        always };

struct audit_options {
  std::string path;
  std::size_t queue_capacity = 4096;          // events waiting for the writer
  std::chrono::milliseconds full_wait{1000};  // record() on a full queue: how long to wait; 0: drop at once
  std::uint64_t rotate_bytes = 64ull << 20;   // 0: never rotate
  unsigned keep_files = 9;                    // rotated files kept (FILE.1 .. FILE.N)
  audit_sync sync = audit_sync::interval;
  std::chrono::milliseconds sync_interval{1000};
  // After each write the writer lets records gather this long (group commit): under load one
  // wake-up and one write() per batch instead of per record; when idle a record waits at most this.
  std::chrono::milliseconds gather{2};
  // Applied on the writer thread before a record is chained. Values from a peer (see
  // audit_record) get credentials replaced by "[REDACTED:<kind>]"; every value is capped:
  // strings past max_string bytes are cut, values nested past max_depth levels summarised.
  bool redact_secrets = false;
  std::size_t max_string = 0;                       // 0: no cap
  std::size_t max_depth = 0;                        // levels below the record (its members are level 1); 0: no cap
  std::shared_ptr<audit_sink> sink;                 // none: nothing shipped
  std::shared_ptr<const checkpoint_signer> signer;  // none: no checkpoints
  std::uint64_t checkpoint_records = 1000;
  std::chrono::milliseconds checkpoint_interval{60'000};
  // Records written and lost, the queue's depth (shared by every log of the process); may be null.
  metrics::warden_metrics* metrics = nullptr;
};

// A member's key. Nearly all are literals: those are checked at compile time to need no JSON
// escaping, and are neither copied nor scanned when a record is built and written. Keys read from
// a JSON object are owned (on the heap, so that the view stays valid when the key moves).
class audit_key {
 public:
  consteval audit_key(const char* literal) : view_(literal) {  // NOLINT: implicit, as a string's would be
    for (const char c : view_)
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') throw "an audit key literal must need no JSON escaping";
  }
  audit_key(std::string key)  // NOLINT: implicit
      : owned_(std::make_unique<const std::string>(std::move(key))), view_(*owned_) {}
  std::string_view view() const noexcept { return view_; }
  bool is_literal() const noexcept { return !owned_; }

 private:
  std::unique_ptr<const std::string> owned_;
  std::string_view view_;
};

// One record as its members, for the writer to serialise: sorted by key (a later member with the
// same key replaces an earlier one), peer values redacted, all capped. The records written per
// relayed call are built this way, with no JSON document to build, copy and tear down.
class audit_record {
 public:
  audit_record() = default;
  // The members of a JSON object (anything else becomes {"event":"invalid","value":...}). With
  // `peer_data`, members other than the ones mcp-warden always fills itself ("event",
  // "decision", "mode", "session", "ts", "warden_version") count as peer values.
  static audit_record from_json(nlohmann::json event, bool peer_data = true);

  // `peer`: the value came from a client or a server and may carry a credential.
  audit_record& text(audit_key key, std::string value, bool peer);
  audit_record& number(audit_key key, std::int64_t value);
  audit_record& count(audit_key key, std::uint64_t value);
  audit_record& flag(audit_key key, bool value);
  audit_record& value(audit_key key, nlohmann::json value, bool peer);
  // A JSON text already accepted from a peer (well-formed). Written as it is when it is its own
  // canonical form and nothing in it is redacted or capped (most tool-call arguments); otherwise
  // parsed and written as value() would write the document.
  audit_record& json_text(audit_key key, std::string text, bool peer);

  // Redaction and caps in place, per the options (the writer thread's work).
  void redact_and_cap(const audit_options& rules);
  // The record's canonical JSON text (keys sorted, no hash).
  std::string canonical_text() const;
  void append_canonical_text(std::string& out) const;
  // The "event" member's text ("" when there is none).
  std::string event_name() const;

 private:
  struct verbatim {
    std::string text;
    bool canonical = false;  // set by redact_and_cap: the text passed the checks and is written as is
  };
  struct member {
    template <typename Value>
    member(audit_key&& name, Value&& content, bool from_peer)
        : key(std::move(name)), value(std::in_place_type<std::decay_t<Value>>, std::forward<Value>(content)), peer(from_peer) {}
    audit_key key;
    std::variant<std::string, std::int64_t, std::uint64_t, bool, nlohmann::json, verbatim> value;
    bool peer = false;
  };
  template <typename Value>
  audit_record& add(audit_key&& key, Value&& value, bool peer);
  std::vector<member> members_;
};

// An event whose record is built on the writer thread. The relay thread hands over what it already
// holds (moved, not copied); turning it into members, like redaction, is then the writer's work,
// so a busy relay spends as little as possible per recorded call.
class deferred_record {
 public:
  virtual ~deferred_record() = default;
  virtual audit_record build() && = 0;
};

// Receives every line of one audit file in file order (audit_spool.hpp), whoever wrote it. Called
// by the writers with the file locked, so one sink may serve all the writers of a file in a process.
class audit_sink {
 public:
  virtual ~audit_sink() = default;
  // The locked file `fd` now ends with `written`, which this writer just appended (empty: only
  // catch up with what others appended). `gap_note`: the first line of `written` is the record
  // gap_record() returned.
  virtual void appended(int fd, std::string_view written, bool gap_note) = 0;
  // A record (with "ts") announcing lines the sink could not keep, to be chained now (the file's
  // last record has `last_seq`); none while nothing is owed, or no room yet unless `closing`.
  virtual std::optional<audit_record> gap_record(bool closing, std::uint64_t last_seq) = 0;
};

struct audit_stats {
  std::uint64_t written = 0;
  std::uint64_t dropped = 0;
  std::uint64_t not_announced = 0;  // of `dropped`: not (yet) in a records_dropped record
  std::uint64_t write_errors = 0;
  bool closing = false;  // close() has begun: what is queued now is written as the log closes
};

// Thread-safe: record() may be called from any thread. close() (or the destructor) drains the queue.
class audit_log {
 public:
  static result<std::unique_ptr<audit_log>> open(audit_options options);
  ~audit_log();
  audit_log(const audit_log&) = delete;
  audit_log& operator=(const audit_log&) = delete;

  // Queues one event (a JSON object, or the members of one, with at least "event"). Never
  // blocks on I/O.
  void record(nlohmann::json event);
  void record(audit_record event);
  void record(std::unique_ptr<deferred_record> event);
  // Writes everything queued, syncs, stops the writer. Idempotent.
  void close();
  audit_stats stats() const;

 private:
  explicit audit_log(audit_options options);
  struct entry {
    std::chrono::system_clock::time_point when;
    audit_record event;
    std::unique_ptr<deferred_record> deferred;  // when set, `event` is built from it by the writer
  };
  void enqueue(entry next);
  result<bool> open_file();
  void writer_loop();
  void write_batch(std::vector<entry>& batch, std::uint64_t dropped);
  bool refresh_tail();  // re-reads seq/hash when someone else appended (call under flock)
  void rotate_if_needed();
  bool append_own(audit_record event, bool gap_note = false);   // a record of the writer's own, written at once (under flock)
  void ship(std::string_view written, bool gap_note = false) {  // to the sink, if any (under flock, file sound)
    if (options_.sink && expected_size_ != std::uint64_t(-1)) options_.sink->appended(fd_, written, gap_note);
  }
  // The sink's gap record, if due: after everything appended so far (so the gap ends at the head),
  // before this writer's next records (under flock).
  void announce_gap(bool closing) {
    if (!options_.sink) return;
    ship({});
    if (auto gap = options_.sink->gap_record(closing, seq_)) append_own(std::move(*gap), true);
  }
  void write_checkpoint();  // under flock, tail fresh
  void checkpoint_if_due(bool closing);
  void count_lost(std::uint64_t n);
  void count_unsigned() {
    if (unsigned_records_++ == 0) first_unsigned_at_ = std::chrono::steady_clock::now();
  }

  audit_options options_;
  int fd_ = -1;
  std::uint64_t inode_ = 0;
  std::uint64_t expected_size_ = 0;
  std::uint64_t seq_ = 0;
  std::string last_hash_;
  std::chrono::steady_clock::time_point last_sync_{};
  bool dirty_ = false;
  std::uint64_t unsigned_records_ = 0;  // chained by this writer since its last checkpoint
  std::chrono::steady_clock::time_point first_unsigned_at_{};

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable room_;  // the writer took the queue
  std::deque<entry> queue_;
  std::uint64_t dropped_ = 0;    // guarded by mutex_
  bool writer_stalled_ = false;  // a full queue was not taken within full_wait; until it is
  bool stopping_ = false;
  bool writer_idle_ = false;  // waiting for the first record of a batch: record() must wake it
  std::atomic<std::uint64_t> written_{0}, total_dropped_{0}, write_errors_{0};
  bool last_write_failed_ = false;  // writer thread only
  std::thread writer_;
};

// The hash a genesis record carries as "prev".
inline constexpr std::string_view genesis_hash = "0000000000000000000000000000000000000000000000000000000000000000";

struct verify_report {
  bool ok = true;
  std::uint64_t records = 0;       // complete, valid records
  std::vector<std::string> files;  // verified, oldest first
  std::string problem;             // first failure: "FILE:LINE: ..."
  std::string torn_tail;           // a torn last line (crash mid-write): reported, not a failure
  std::vector<std::string> notes;  // informational (chain starts in a removed file, ...)
  // Checkpoints (checked only with keys): every one must verify, and at least one must be there.
  std::uint64_t checkpoints = 0;     // seen; with keys, all verified
  std::uint64_t signed_records = 0;  // with keys: records before the last checkpoint (its signature covers them)
  std::uint64_t unsigned_tail = 0;   // with keys: records after the last checkpoint
  std::string last_checkpoint;       // "FILE:LINE"
  // `received` only: records sent twice (skipped), and gaps a syslog_gap record announces.
  std::uint64_t resent = 0;
  std::vector<std::string> gaps;  // "FILE:LINE: seq A..B not shipped (reason)"
};

// Verifies FILE and its rotated predecessors (FILE.N ... FILE.1, oldest first) as one chain; with
// `keys`, also every checkpoint's signature (audit_verify.cpp). `received`: FILE is a copy a
// syslog receiver got from --audit-syslog; records sent again after a reconnect are skipped when
// they chain on and rejoin the log with the same hash, and a jump in seq announced by the
// syslog_gap record after it is reported instead of failing.
verify_report verify_log(const std::string& path, const checkpoint_verifier* keys = nullptr, bool received = false);

// One complete record line -> its hash, or an explanation why it is not a record.
struct record_check {
  bool ok = false;
  std::string hash;
  nlohmann::json body;  // the record without "hash"
  std::string problem;
};
record_check check_record(std::string_view line);

}  // namespace warden::proxy
