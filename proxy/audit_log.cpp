#include "proxy/audit_log.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>

#include <spdlog/spdlog.h>

#include "base/byte_scan.hpp"
#include "base/canonical_json.hpp"
#include "base/timestamp.hpp"
#include "metrics/warden_metrics.hpp"
#include "proxy/audit_signer.hpp"
#include "proxy/runtime_text.hpp"

namespace warden::proxy {

using nlohmann::json;

namespace {

constexpr std::string_view hash_prefix = ",\"hash\":\"";
constexpr std::size_t hash_suffix_size = hash_prefix.size() + 64 + 2;  // ,"hash":"<64>"}

// Appends the record line of an event to `out`: its canonical text with "seq" and "prev", then
// `,"hash":"<sha256 of that text>"` before the closing brace, and a newline. Sets `hash`.
// Written in place: a batch's records are appended to the one text handed to write(2).
void append_record(std::string& out, audit_record& event, std::uint64_t seq, const std::string& prev, std::string& hash) {
  event.count("seq", seq);
  event.text("prev", prev, false);
  const std::size_t start = out.size();
  event.append_canonical_text(out);
  hash = base::sha256_hex(std::string_view(out).substr(start));
  out.pop_back();
  out += hash_prefix;
  out += hash;
  out += "\"}\n";
}

std::string chain_record(audit_record& event, std::uint64_t seq, const std::string& prev, std::string& hash) {
  std::string line;
  append_record(line, event, seq, prev, hash);
  return line;
}

// Keys whose values mcp-warden always fills itself: never searched for credentials.
constexpr std::string_view own_keys[] = {"event", "decision", "mode", "session", "ts", "warden_version"};

constexpr std::size_t tail_window = 8u << 20;  // records are size-capped far below this

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A batch of a few hundred records is a noticeable stretch of work. When the relay's pipeline
// keeps both cores of a small machine busy, its threads woken on the writer's core would wait all
// of it, and the pipeline would fall back to taking turns. So the writer steps aside (sched_yield)
// after every short slice of work: it keeps its priority and its fair share, so records reach the
// disk as soon as before. (Running the writer niced instead was tried: on a loaded machine it
// falls behind, and records wait in memory and, past the queue, slow the relay to its pace.)
// The pipelined full-path rows of docs/benchmarks.md measure this.
class work_slices {
 public:
  void step() {
    if (clock::now() - start_ < slice) return;
    ::sched_yield();
    start_ = clock::now();
  }

 private:
  using clock = std::chrono::steady_clock;
  static constexpr auto slice = std::chrono::microseconds(100);  // a few dozen call records
  clock::time_point start_ = clock::now();
};

// Writes `bytes`; returns how many reached the file. Fewer than all only on an error (a full disk
// takes a text up to its last free byte, then refuses the rest); errno says which.
std::size_t write_prefix(int fd, std::string_view bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + sent, bytes.size() - sent);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

bool write_all(int fd, std::string_view bytes) { return write_prefix(fd, bytes) == bytes.size(); }

// Holds flock(LOCK_EX) for one batch: several proxies may append to one log.
class file_lock {
 public:
  // Refers to the descriptor member: rotation may swap it while the lock is held.
  explicit file_lock(const int& fd) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~file_lock() {
    if (fd_ >= 0) ::flock(fd_, LOCK_UN);
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  const int& fd_;
};

// Whether a well-formed JSON text is written as it is: it is its own canonical form (no
// whitespace; object keys in strictly increasing byte order, so no repeated key; strings of plain
// bytes only, which a JSON writer copies unchanged; integers of at most 18 digits, which parse and
// print back the same), no string is longer than `max_string`, no array or object sits where
// cap_json would summarise it, and, with `redact`, no string may hold a credential. Anything else
// (a float, an escape, a non-ASCII byte) is left to the document path, which is always right.
class verbatim_check {
 public:
  verbatim_check(std::string_view text, std::size_t max_string, bool redact)
      : text_(text), max_string_(max_string), redact_(redact) {}

  bool passes(std::size_t depth_budget) {
    std::size_t at = 0;
    return value(at, depth_budget, 0) && at == text_.size();
  }

 private:
  static constexpr std::size_t max_nesting = 64;  // deeper texts take the document path

  char at_or_nul(std::size_t at) const { return at < text_.size() ? text_[at] : '\0'; }

  bool string(std::size_t& at, std::string_view& out) const {
    const std::size_t begin = at + 1;
    const std::size_t end = begin + base::json_plain_prefix(text_.substr(std::min(begin, text_.size())));
    if (at_or_nul(end) != '"') return false;
    out = text_.substr(begin, end - begin);
    at = end + 1;
    return true;
  }

  bool integer(std::size_t& at) const {
    std::size_t i = at;
    if (at_or_nul(i) == '-') ++i;
    const std::size_t first = i;
    while (at_or_nul(i) >= '0' && at_or_nul(i) <= '9') ++i;
    const std::size_t digits = i - first;
    if (digits == 0 || digits > 18 || (text_[first] == '0' && (digits > 1 || first > at))) return false;  // "-0", "01"
    const char next = at_or_nul(i);
    if (next == '.' || next == 'e' || next == 'E') return false;
    at = i;
    return true;
  }

  bool word(std::size_t& at, std::string_view expected) const {
    if (text_.substr(at, expected.size()) != expected) return false;
    at += expected.size();
    return true;
  }

  bool value(std::size_t& at, std::size_t budget, std::size_t nesting) const {
    switch (at_or_nul(at)) {
      case '"': {
        std::string_view text;
        return string(at, text) && text.size() <= max_string_ && !(redact_ && may_hold_secret(text, true));
      }
      case '{': {
        if (budget == 0 || nesting == max_nesting) return false;
        ++at;
        if (at_or_nul(at) == '}') return ++at, true;
        std::string_view previous;
        for (bool first = true;; first = false) {
          std::string_view key;
          if (at_or_nul(at) != '"' || !string(at, key) || (!first && !(previous < key)) || at_or_nul(at) != ':') return false;
          previous = key;
          ++at;
          if (!value(at, budget - 1, nesting + 1)) return false;
          const char next = at_or_nul(at++);
          if (next == '}') return true;
          if (next != ',') return false;
        }
      }
      case '[': {
        if (budget == 0 || nesting == max_nesting) return false;
        ++at;
        if (at_or_nul(at) == ']') return ++at, true;
        for (;;) {
          if (!value(at, budget - 1, nesting + 1)) return false;
          const char next = at_or_nul(at++);
          if (next == ']') return true;
          if (next != ',') return false;
        }
      }
      case 't': return word(at, "true");
      case 'f': return word(at, "false");
      case 'n': return word(at, "null");
      default: return integer(at);
    }
  }

  std::string_view text_;
  std::size_t max_string_;
  bool redact_;
};

}  // namespace

record_check check_record(std::string_view line) {
  record_check out;
  if (line.size() < hash_suffix_size + 2 || line.substr(line.size() - 2) != "\"}" ||
      line.substr(line.size() - hash_suffix_size, hash_prefix.size()) != hash_prefix) {
    out.problem = "not a record (no trailing \"hash\" member)";
    return out;
  }
  out.hash = std::string(line.substr(line.size() - 66, 64));
  if (!is_hex64(out.hash)) {
    out.problem = "not a record (malformed \"hash\")";
    return out;
  }
  std::string body(line.substr(0, line.size() - hash_suffix_size));
  body += '}';
  if (base::sha256_hex(body) != out.hash) {
    out.problem = "record content does not match its hash (the record was edited)";
    return out;
  }
  try {
    out.body = json::parse(body);
  } catch (const json::exception&) {
    out.problem = "not a record (invalid JSON)";
    return out;
  }
  if (!out.body.is_object() || !out.body.contains("seq") || !out.body["seq"].is_number_unsigned() ||
      !out.body.contains("prev") || !out.body["prev"].is_string() || !is_hex64(out.body["prev"].get<std::string>())) {
    out.problem = "not a record (missing \"seq\" or \"prev\")";
    return out;
  }
  out.ok = true;
  return out;
}

// ---------------------------------------------------------------------------------------------

audit_record audit_record::from_json(json event, bool peer_data) {
  audit_record out;
  if (!event.is_object()) {
    out.text("event", "invalid", false);
    out.value("value", std::move(event), peer_data);
    return out;
  }
  auto& members = event.get_ref<json::object_t&>();
  out.members_.reserve(members.size() + 3);
  for (auto& [key, value] : members) {
    const bool own = std::find(std::begin(own_keys), std::end(own_keys), key) != std::end(own_keys);
    out.value(key, std::move(value), peer_data && !own);
  }
  return out;
}

// Built in place: each move of a member copies its short strings' bytes, and every call record
// goes through here.
template <typename Value>
audit_record& audit_record::add(audit_key&& key, Value&& value, bool peer) {
  if (members_.capacity() == 0) members_.reserve(24);  // a call record: ~15 members, with seq/prev/ts
  members_.emplace_back(std::move(key), std::forward<Value>(value), peer);
  return *this;
}
audit_record& audit_record::text(audit_key key, std::string value, bool peer) { return add(std::move(key), std::move(value), peer); }
audit_record& audit_record::number(audit_key key, std::int64_t value) { return add(std::move(key), value, false); }
audit_record& audit_record::count(audit_key key, std::uint64_t value) { return add(std::move(key), value, false); }
audit_record& audit_record::flag(audit_key key, bool value) { return add(std::move(key), value, false); }
audit_record& audit_record::value(audit_key key, json value, bool peer) { return add(std::move(key), std::move(value), peer); }
audit_record& audit_record::json_text(audit_key key, std::string text, bool peer) {
  return add(std::move(key), verbatim{std::move(text)}, peer);
}

std::string audit_record::event_name() const {
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if (it->key.view() != "event") continue;
    if (const auto* text = std::get_if<std::string>(&it->value)) return *text;
    if (const auto* doc = std::get_if<json>(&it->value); doc && doc->is_string()) return doc->get<std::string>();
    return {};
  }
  return {};
}

void audit_record::redact_and_cap(const audit_options& rules) {
  const std::size_t max_string = rules.max_string ? rules.max_string : std::string::npos;
  const bool capped = rules.max_string || rules.max_depth;
  const std::size_t depth_budget = rules.max_depth ? rules.max_depth - 1 : std::string::npos;
  for (auto& m : members_) {
    const bool redact = m.peer && rules.redact_secrets;
    if (auto* source = std::get_if<verbatim>(&m.value)) {
      // Each string is checked on its own: the whole text has a ':' after every key, which makes
      // may_hold_secret take its slow path (a search for credential keywords) on every record.
      source->canonical = verbatim_check(source->text, max_string, redact).passes(capped ? depth_budget : std::string::npos);
      if (source->canonical) continue;
      m.value = json::parse(source->text);
    }
    if (auto* text = std::get_if<std::string>(&m.value)) {
      if (redact)
        if (auto redacted = redacted_copy(*text, true)) *text = std::move(*redacted);
      cap_text(*text, max_string);
    } else if (auto* doc = std::get_if<json>(&m.value)) {
      if (redact) redact_json(*doc, true);
      // Members are one level below the record: the depth left for their contents is one less.
      if (capped) cap_json(*doc, max_string, depth_budget);
    }
  }
}

std::string audit_record::canonical_text() const {
  std::string out;
  append_canonical_text(out);
  return out;
}

void audit_record::append_canonical_text(std::string& out) const {
  // Sorted by key (an insertion sort of pointers: a record has a few dozen members at most, and
  // moving the members themselves cost more than writing them); it is stable, so of members with
  // equal keys the one added last comes last and is the one written. Records built in key order
  // (pair_record) cost one comparison per member.
  // Keys nearly always differ in their first byte: compared there before the full comparison.
  const auto before = [](std::string_view a, std::string_view b) {
    if (!a.empty() && !b.empty() && a[0] != b[0]) return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]);
    return a < b;
  };
  // On the stack for every record the proxy writes (a call record has ~20 members).
  std::array<const member*, 32> inline_order;
  std::vector<const member*> heap_order;
  if (members_.size() > inline_order.size()) heap_order.resize(members_.size());
  const member** order = heap_order.empty() ? inline_order.data() : heap_order.data();
  std::size_t count = 0;
  for (const auto& m : members_) {
    std::size_t at = count++;
    for (; at > 0 && before(m.key.view(), order[at - 1]->key.view()); --at) order[at] = order[at - 1];
    order[at] = &m;
  }
  out.reserve(out.size() + 512);
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < count; ++i) {
    const audit_key& key = order[i]->key;
    if (i + 1 < count && order[i + 1]->key.view() == key.view()) continue;
    if (const std::string_view name = key.view(); key.is_literal() && name.size() <= 60) {
      // Checked at compile time: written as is, with its comma and colon in one append.
      char head[64];
      std::size_t n = 0;
      if (!first) head[n++] = ',';
      head[n++] = '"';
      std::memcpy(head + n, name.data(), name.size());
      n += name.size();
      head[n++] = '"';
      head[n++] = ':';
      out.append(head, n);
    } else {
      if (!first) out += ',';
      base::append_json_string(out, name);
      out += ':';
    }
    first = false;
    std::visit(
        [&out](const auto& v) {
          using type = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<type, std::string>) base::append_json_string(out, v);
          else if constexpr (std::is_same_v<type, bool>) out += v ? "true" : "false";
          else if constexpr (std::is_same_v<type, json>) base::append_canonical_json(out, v);
          else if constexpr (std::is_same_v<type, verbatim>) {
            if (v.canonical) out += v.text;
            else base::append_canonical_json(out, json::parse(v.text));  // not through redact_and_cap
          } else {                                                       // a number
            char digits[24];
            out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
          }
        },
        order[i]->value);
  }
  out += '}';
}

// ---------------------------------------------------------------------------------------------

audit_log::audit_log(audit_options options) : options_(std::move(options)) {}

result<std::unique_ptr<audit_log>> audit_log::open(audit_options options) {
  std::unique_ptr<audit_log> log(new audit_log(std::move(options)));
  if (auto opened = log->open_file(); !opened) return error{opened.error_message()};
  {
    file_lock lock(log->fd_);
    log->refresh_tail();
    log->ship({});  // a sink that missed records (a run killed before it took them) catches up
  }
  log->writer_ = std::thread([raw = log.get()] { raw->writer_loop(); });
  return log;
}

audit_log::~audit_log() { close(); }

result<bool> audit_log::open_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(options_.path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) return error{"cannot open the audit log '" + options_.path + "': " + std::strerror(errno)};
  struct stat info {};
  ::fstat(fd_, &info);
  inode_ = static_cast<std::uint64_t>(info.st_ino);
  expected_size_ = std::uint64_t(-1);  // force a tail read
  return true;
}

// Brings seq_/last_hash_ up to date with the file's last complete record. A torn last line (a
// writer killed mid-write) is cut off and the loss is itself recorded.
bool audit_log::refresh_tail() {
  struct stat on_disk {};
  if (::stat(options_.path.c_str(), &on_disk) != 0 || static_cast<std::uint64_t>(on_disk.st_ino) != inode_) {
    if (!open_file()) return false;  // rotated (or removed) by another writer: follow the name
    ::flock(fd_, LOCK_EX);
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0) return false;
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size == expected_size_) return true;
  if (size == 0) {
    seq_ = 0;
    last_hash_ = genesis_hash;
    expected_size_ = 0;
    return true;
  }
  const std::uint64_t window = std::min<std::uint64_t>(size, tail_window);
  std::string tail(window, '\0');
  const ssize_t got = ::pread(fd_, tail.data(), window, static_cast<off_t>(size - window));
  if (got < 0) return false;
  tail.resize(static_cast<std::size_t>(got));

  std::optional<audit_record> torn_event;
  std::uint64_t end = size;
  if (tail.back() != '\n') {
    const auto last_newline = tail.rfind('\n');
    const std::size_t cut = last_newline == std::string::npos ? 0 : last_newline + 1;
    const std::string torn = tail.substr(cut);
    end = size - torn.size();
    if (::ftruncate(fd_, static_cast<off_t>(end)) == 0) {
      torn_event = audit_record::from_json({{"event", "torn_tail_discarded"},
                                            {"bytes", torn.size()},
                                            {"sha256", base::sha256_hex(torn)},
                                            {"note", "an incomplete last line (a writer stopped mid-write) was removed before appending"}},
                                           false);
    }
    tail.resize(cut);
  }
  seq_ = 0;
  last_hash_ = genesis_hash;
  if (!tail.empty()) {
    tail.pop_back();  // the newline
    const auto start = tail.rfind('\n');
    const std::string_view line = std::string_view(tail).substr(start == std::string::npos ? 0 : start + 1);
    const record_check last = check_record(line);
    if (last.ok) {
      seq_ = last.body["seq"].get<std::uint64_t>();
      last_hash_ = last.hash;
    } else {
      last_hash_ = base::sha256_hex(line);  // keep chaining; verify will point at the bad line
    }
  }
  expected_size_ = end;
  if (torn_event) {
    torn_event->text("ts", base::utc_timestamp(), false);
    append_own(std::move(*torn_event));
  }
  return true;
}

// A partly written record must not stay: the next one would be appended to its torn end (seen on
// a full disk). It is cut off; if it cannot be, nothing is written until refresh_tail() repairs it.
bool audit_log::append_own(audit_record event, bool gap_note) {
  if (expected_size_ == std::uint64_t(-1)) return false;
  std::string hash;
  const std::string line = chain_record(event, seq_ + 1, last_hash_, hash);
  if (!write_all(fd_, line)) {
    if (::ftruncate(fd_, static_cast<off_t>(expected_size_)) != 0) expected_size_ = std::uint64_t(-1);
    return false;
  }
  ++seq_;
  last_hash_ = std::move(hash);
  expected_size_ += line.size();
  dirty_ = true;
  count_unsigned();
  ship(line, gap_note);
  return true;
}

void audit_log::write_checkpoint() {
  if (!options_.signer || unsigned_records_ == 0) return;
  auto checkpoint = options_.signer->checkpoint(seq_, last_hash_);
  if (!checkpoint) {
    spdlog::error("audit log '{}': {}", options_.path, checkpoint.error_message());
    return;
  }
  if (append_own(std::move(*checkpoint))) unsigned_records_ = 0;  // else tried again when next due
}

void audit_log::checkpoint_if_due(bool closing) {
  if (!options_.signer || unsigned_records_ == 0) return;
  if (!closing && unsigned_records_ < options_.checkpoint_records &&
      std::chrono::steady_clock::now() - first_unsigned_at_ < options_.checkpoint_interval)
    return;
  file_lock lock(fd_);
  if (refresh_tail()) write_checkpoint();  // signs the head, whoever wrote it
}

void audit_log::rotate_if_needed() {
  if (options_.rotate_bytes == 0 || expected_size_ < options_.rotate_bytes) return;
  write_checkpoint();  // each file then ends signed
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string base = options_.path;
  const unsigned keep = std::max(1u, options_.keep_files);
  fs::remove(base + "." + std::to_string(keep), ec);
  for (unsigned k = keep; k-- > 1;)
    fs::rename(base + "." + std::to_string(k), base + "." + std::to_string(k + 1), ec);
  fs::rename(base, base + ".1", ec);
  const int old_fd = fd_;
  fd_ = -1;
  if (!open_file()) {
    fd_ = old_fd;  // keep appending to the renamed file rather than losing records
    return;
  }
  ::flock(fd_, LOCK_EX);
  ::flock(old_fd, LOCK_UN);
  ::close(old_fd);
  expected_size_ = 0;  // a fresh file: the chain continues from last_hash_
  append_own(audit_record::from_json({{"event", "log_rotated"}, {"previous_file", base + ".1"}, {"ts", base::utc_timestamp()}}, false));
}

void audit_log::record(json event) { record(audit_record::from_json(std::move(event))); }

void audit_log::record(audit_record event) { enqueue({std::chrono::system_clock::now(), std::move(event), nullptr}); }

void audit_log::record(std::unique_ptr<deferred_record> event) {
  enqueue({std::chrono::system_clock::now(), audit_record{}, std::move(event)});
}

void audit_log::enqueue(entry next) {
  bool wake = false;
  {
    std::unique_lock lock(mutex_);
    if (stopping_ && !writer_.joinable()) return;
    const auto full = [&] { return queue_.size() >= options_.queue_capacity; };
    if (full() && !writer_stalled_ && !stopping_ && options_.full_wait.count() > 0) {
      // Back-pressure: the caller (the relay) waits for the writer instead of losing the record.
      wake_.notify_one();  // a gathering writer takes a full queue at once
      if (!room_.wait_for(lock, options_.full_wait, [&] { return !full() || stopping_ || writer_stalled_; }))
        writer_stalled_ = true;
    }
    if (full()) {
      ++dropped_;  // written as a "records_dropped" record by the next batch
      count_lost(1);
      return;
    }
    queue_.push_back(std::move(next));
    if (options_.metrics) options_.metrics->audit_queue_depth.add(1);
    // Only an idle writer needs waking; a gathering one takes the queue when its pause ends.
    wake = std::exchange(writer_idle_, false);
  }
  if (wake) wake_.notify_one();
}

void audit_log::writer_loop() {
  ::pthread_setname_np(::pthread_self(), "warden-audit");  // for top -H, perf, gdb
  bool note_retried = false;
  for (;;) {
    std::vector<entry> batch;
    std::uint64_t dropped = 0;
    bool stop = false;
    {
      std::unique_lock lock(mutex_);
      // After a failed write (disk full) the loss is announced with the next events or after the
      // interval, not in a busy loop.
      writer_idle_ = true;
      wake_.wait_for(lock, options_.sync_interval,
                     [&] { return stopping_ || !queue_.empty() || (dropped_ > 0 && !last_write_failed_); });
      writer_idle_ = false;
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
      if (options_.metrics) options_.metrics->audit_queue_depth.sub(static_cast<std::int64_t>(batch.size()));
      dropped = std::exchange(dropped_, 0);
      stop = stopping_;
      writer_stalled_ = false;  // making progress again
    }
    room_.notify_all();
    if (!batch.empty() || dropped > 0) write_batch(batch, dropped);
    checkpoint_if_due(false);
    const auto now = std::chrono::steady_clock::now();
    if (dirty_ && (options_.sync == audit_sync::always ||
                   (options_.sync == audit_sync::interval && now - last_sync_ >= options_.sync_interval))) {
      ::fdatasync(fd_);
      dirty_ = false;
      last_sync_ = now;
    }
    if (stop) {
      std::lock_guard lock(mutex_);
      // A loss owed after a failed write gets one more try, with the records_dropped note alone: a
      // few hundred bytes may fit where the batch did not. Then close gives up; stats() counts
      // what the log does not announce.
      if (queue_.empty() && (dropped_ == 0 || (last_write_failed_ && std::exchange(note_retried, true)))) break;
    } else if (!batch.empty() && options_.gather.count() > 0) {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, options_.gather, [&] { return stopping_ || queue_.size() >= options_.queue_capacity; });
    }
  }
  if (options_.sink)
    if (file_lock lock(fd_); refresh_tail()) announce_gap(true);  // owed even without room
  checkpoint_if_due(true);
  if (dirty_ && options_.sync != audit_sync::never) ::fdatasync(fd_);
}

void audit_log::write_batch(std::vector<entry>& batch, std::uint64_t dropped) {
  // Off the lock: building deferred records, timestamps and redaction (the expensive part).
  work_slices slices;
  for (auto& item : batch) {
    slices.step();
    try {
      if (item.deferred) {
        item.event = std::move(*item.deferred).build();
        item.deferred.reset();
      }
      item.event.redact_and_cap(options_);
    } catch (...) {
      const std::string name = item.event.event_name();
      item.event = audit_record{};
      item.event.text("event", name.empty() ? "unknown" : name, false).flag("redaction_failed", true);
    }
    item.event.text("ts", base::utc_timestamp(item.when), false);
  }
  file_lock lock(fd_);
  if (!refresh_tail()) {
    write_errors_ += 1;
    last_write_failed_ = true;
    count_lost(batch.size());
    std::lock_guard guard(mutex_);
    dropped_ += batch.size() + dropped;
    return;
  }
  rotate_if_needed();
  announce_gap(false);
  std::uint64_t seq_before = seq_;
  std::string hash_before = last_hash_;
  std::string text;
  // Room for the usual records at once (a call's is ~450 bytes), not a regrowth and copy per doubling.
  text.reserve(std::min<std::size_t>(batch.size() + 1, 8192) * 512);
  std::size_t in_text = 0;  // events of the batch inside `text`
  std::uint64_t lost = 0;
  // Hands `text` to the kernel. On a failed write the complete records that reached the file stay
  // (a full disk takes a text up to its last free byte) and the torn end is cut off; the chain
  // continues from the last record kept. The records_dropped note goes first into the first text;
  // until it is on disk the count it carries is still owed (tests/e2e/audit-disk-full.test.mjs).
  bool note_owed = dropped > 0;
  bool note_in_text = false;  // the note is the first line of `text`
  auto flush = [&]() {
    if (text.empty()) return;
    const std::uint64_t size_before = expected_size_;
    // After a failed write in this batch whose torn end could not be cut off, write nothing more
    // (count it as lost) until the next batch's refresh_tail() repairs the file.
    const std::size_t sent = size_before == std::uint64_t(-1) ? 0 : write_prefix(fd_, text);
    if (sent == text.size()) {
      expected_size_ += text.size();
      written_ += in_text;
      if (options_.metrics) options_.metrics->audit_records.inc(in_text);
      dirty_ = true;
      if (last_write_failed_) spdlog::warn("audit log '{}': writes succeed again", options_.path);
      last_write_failed_ = false;
      note_owed = false;
      ship(text);
    } else {
      const int error = errno;
      const auto last_newline = sent == 0 ? std::string::npos : text.rfind('\n', sent - 1);
      const std::size_t keep = last_newline == std::string::npos ? 0 : last_newline + 1;
      const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(keep), '\n'));
      const std::size_t events = lines - (note_in_text && lines > 0 ? 1 : 0);
      if (note_in_text && lines > 0) note_owed = false;
      if (lines > 0) {
        // Each line ends `"hash":"<64 hex>"}\n`.
        seq_ = seq_before + lines;
        last_hash_ = text.substr(keep - 3 - 64, 64);
        dirty_ = true;
      } else {
        seq_ = seq_before;
        last_hash_ = hash_before;
      }
      written_ += events;
      if (options_.metrics) options_.metrics->audit_records.inc(events);
      lost += in_text - events;
      ++write_errors_;
      if (!last_write_failed_ && size_before != std::uint64_t(-1))
        spdlog::error(
            "audit log '{}': a write failed ({}); records that cannot be written are counted and the "
            "loss is recorded once writes succeed again",
            options_.path, std::strerror(error));
      last_write_failed_ = true;
      // A torn end must not stay: the next record would be appended to it.
      if (size_before == std::uint64_t(-1) || ::ftruncate(fd_, static_cast<off_t>(size_before + keep)) != 0)
        expected_size_ = std::uint64_t(-1);
      else
        expected_size_ = size_before + keep;
      ship(std::string_view(text).substr(0, keep));  // the whole records kept, if the file is sound
    }
    text.clear();
    in_text = 0;
    note_in_text = false;
    seq_before = seq_;
    hash_before = last_hash_;
  };
  auto append = [&](audit_record& event) {
    std::string hash;
    append_record(text, event, seq_ + 1, last_hash_, hash);
    ++seq_;
    last_hash_ = std::move(hash);
    count_unsigned();
  };
  if (dropped > 0) {
    auto note = audit_record::from_json({{"event", "records_dropped"},
                                         {"count", dropped},
                                         {"ts", base::utc_timestamp()},
                                         {"reason", "the audit queue was full or a write failed; these events were not recorded"}},
                                        false);
    append(note);
    note_in_text = true;
  }
  for (auto& item : batch) {
    slices.step();
    append(item.event);
    ++in_text;
    // Rotate inside a large batch too, so no file grows far past the limit; and sign, so that a
    // checkpoint follows every checkpoint_records records however they were batched.
    const bool sign = options_.signer && unsigned_records_ >= options_.checkpoint_records;
    if (sign || (options_.rotate_bytes && expected_size_ != std::uint64_t(-1) && expected_size_ + text.size() >= options_.rotate_bytes)) {
      flush();
      if (sign) write_checkpoint();
      rotate_if_needed();
      seq_before = seq_;
      hash_before = last_hash_;
    }
  }
  flush();
  count_lost(lost);
  if (lost > 0 || note_owed) {
    std::lock_guard guard(mutex_);
    dropped_ += lost + (note_owed ? dropped : 0);
  }
  if (!note_owed) total_dropped_ += dropped;
}

void audit_log::close() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !writer_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  room_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

// The metric counts each record once, when it is lost (dropped_ carries it until announced).
void audit_log::count_lost(std::uint64_t n) {
  if (options_.metrics && n > 0) options_.metrics->audit_records_lost.inc(n);
}

audit_stats audit_log::stats() const {
  audit_stats s;
  s.written = written_;
  s.write_errors = write_errors_;
  std::lock_guard lock(mutex_);
  s.dropped = total_dropped_ + dropped_;
  s.not_announced = dropped_;
  s.closing = stopping_;
  return s;
}

}  // namespace warden::proxy
