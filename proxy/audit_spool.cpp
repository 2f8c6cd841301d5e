#include "proxy/audit_spool.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include <spdlog/spdlog.h>

#include "base/canonical_json.hpp"
#include "base/timestamp.hpp"

namespace warden::proxy {

namespace {

// Catch-up reads go in pieces of this size (a record longer than that is read whole).
constexpr std::size_t read_piece = 8u << 20;

bool write_fully(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Whole lines of `fd` from `from`, at most about `want` bytes but at least one line; "" at `to`.
std::string read_lines(int fd, std::uint64_t from, std::uint64_t to, std::size_t want) {
  std::string piece;
  for (;;) {
    const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(want, to - from));
    piece.resize(size);
    std::size_t got = 0;
    while (got < size) {
      const ssize_t n = ::pread(fd, piece.data() + got, size - got, static_cast<off_t>(from + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    piece.resize(got);
    const auto last = piece.rfind('\n');
    if (last != std::string::npos) {
      piece.resize(last + 1);
      return piece;
    }
    if (got < size || size == to - from) return {};  // no whole line left
    want *= 2;                                       // one line longer than `want`
  }
}

// State files hold fixed-width decimal numbers, rewritten in place by one pwrite: a kill never
// leaves part of one (a power cut might: such a file reads as absent).
constexpr std::size_t number_width = 20;

void write_numbers(int fd, std::initializer_list<std::uint64_t> numbers) {
  if (fd < 0) return;
  std::string text;
  for (const std::uint64_t n : numbers) {
    char digits[number_width + 1];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    text.append(number_width - static_cast<std::size_t>(end - digits), '0').append(digits, end) += ' ';
  }
  text.back() = '\n';
  if (::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    spdlog::warn("audit spool: cannot save its state: {}", std::strerror(errno));
}

std::vector<std::uint64_t> read_numbers(int fd, std::size_t count) {
  std::string text(count * (number_width + 1), '\0');
  if (::pread(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) || text.back() != '\n') return {};
  std::vector<std::uint64_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const char* begin = text.data() + i * (number_width + 1);
    if (std::from_chars(begin, begin + number_width, out[i]).ptr != begin + number_width) return {};
  }
  return out;
}

int open_state(const std::string& path) { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600); }

std::string segment_path(const std::string& dir, std::uint64_t start) {
  std::string name = std::to_string(start);
  return dir + "/" + std::string(number_width - name.size(), '0') + name + ".seg";
}

// Which file the spool was reading, beyond its inode (a removed file's inode is soon reused):
// from its first line, which no other file has. 0 while it has none.
std::uint64_t first_line_id(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return 0;
  const std::string first = read_lines(fd, 0, static_cast<std::uint64_t>(info.st_size), 4096);
  if (first.empty()) return 0;
  const std::string digest = base::sha256_hex(std::string_view(first).substr(0, first.find('\n')));
  return std::stoull(digest.substr(0, 15), nullptr, 16) + 1;
}

const char* gap_reason(char reason) {
  switch (reason) {
    case 'b': return "the syslog spool was full: the receiver did not take records for too long";
    case 'r': return "audit records were rotated away before the syslog spool read them";
    default: return "the syslog spool could not write records";
  }
}

}  // namespace

std::uint64_t record_seq(std::string_view line) {
  const record_check check = check_record(line);
  return check.ok ? check.body["seq"].get<std::uint64_t>() : 0;
}

audit_spool::audit_spool(spool_options options) : options_(std::move(options)) {
  if (options_.dir.empty()) options_.dir = options_.audit_path + ".spool";
  if (options_.segment_bytes == 0) options_.segment_bytes = std::clamp<std::uint64_t>(options_.max_bytes / 16, 64u << 10, 16u << 20);
}

audit_spool::~audit_spool() {
  {
    std::lock_guard lock(mutex_);
    persist_confirmed();
    persist_source();
  }
  for (const int fd : {write_fd_, source_fd_, gap_fd_, confirmed_fd_, lock_fd_})
    if (fd >= 0) ::close(fd);
}

result<std::shared_ptr<audit_spool>> audit_spool::open(spool_options options) {
  std::shared_ptr<audit_spool> spool(new audit_spool(std::move(options)));
  if (auto recovered = spool->recover(); !recovered) return error{recovered.error_message()};
  return spool;
}

result<bool> audit_spool::recover() {
  namespace fs = std::filesystem;
  const std::string& dir = options_.dir;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return error{"cannot create the syslog spool '" + dir + "': " + std::strerror(errno)};
  lock_fd_ = open_state(dir + "/lock");
  if (lock_fd_ < 0) return error{"cannot open the syslog spool '" + dir + "': " + std::strerror(errno)};
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return error{"the syslog spool '" + dir + "' is in use by another mcp-warden process: one process ships an audit " +
                 "file (give the others an --audit-log of their own)"};
  source_fd_ = open_state(dir + "/source");
  gap_fd_ = open_state(dir + "/gap");
  confirmed_fd_ = open_state(dir + "/confirmed");
  if (source_fd_ < 0 || gap_fd_ < 0 || confirmed_fd_ < 0)
    return error{"cannot open the state of the syslog spool '" + dir + "': " + std::strerror(errno)};

  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::uint64_t start = 0;
    if (name.size() != number_width + 4 || !name.ends_with(".seg") ||
        std::from_chars(name.data(), name.data() + number_width, start).ptr != name.data() + number_width)
      continue;
    segments_.push_back({start, entry.path().string()});
  }
  if (ec) return error{"cannot read the syslog spool '" + dir + "': " + ec.message()};
  std::sort(segments_.begin(), segments_.end(), [](const segment& a, const segment& b) { return a.start < b.start; });

  if (!segments_.empty()) {
    // The last segment ends with a whole line: a run killed mid-write left part of one.
    const segment& last = segments_.back();
    write_fd_ = ::open(last.path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (write_fd_ < 0) return error{"cannot open '" + last.path + "': " + std::strerror(errno)};
    struct stat info {};
    ::fstat(write_fd_, &info);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::uint64_t window = std::min<std::uint64_t>(size, read_piece);
    std::string tail(static_cast<std::size_t>(window), '\0');
    if (::pread(write_fd_, tail.data(), tail.size(), static_cast<off_t>(size - window)) != static_cast<ssize_t>(window))
      return error{"cannot read '" + last.path + "': " + std::strerror(errno)};
    const auto newline = tail.rfind('\n');
    write_size_ = newline == std::string::npos ? (window == size ? 0 : size) : size - window + newline + 1;
    if (write_size_ < size && ::ftruncate(write_fd_, static_cast<off_t>(write_size_)) != 0)
      return error{"cannot repair '" + last.path + "': " + std::strerror(errno)};
    if (newline != std::string::npos) {
      const auto before = newline == 0 ? std::string::npos : tail.rfind('\n', newline - 1);
      const std::size_t from = before == std::string::npos ? 0 : before + 1;
      if (before != std::string::npos || window == size) last_line_ = tail.substr(from, newline - from);
    }
    end_ = last.start + write_size_;
  }
  const auto confirmed = read_numbers(confirmed_fd_, 1);
  confirmed_ = confirmed.empty() ? 0 : confirmed[0];
  if (segments_.empty()) end_ = confirmed_;  // positions never go back
  confirmed_ = std::clamp(confirmed_, segments_.empty() ? end_ : segments_.front().start, end_);
  if (const auto source = read_numbers(source_fd_, 3); !source.empty()) {
    source_inode_ = source[0];
    source_offset_ = source[1];
    source_id_ = source[2];
  }
  if (const auto gap = read_numbers(gap_fd_, 3); !gap.empty() && gap[2] != 0) {
    gap_ = {gap[0], gap[1], static_cast<char>(gap[2])};
    spdlog::warn("audit spool '{}': records left out by the last run (from seq {}) are still to be announced", dir, gap_.first_seq);
  }
  return true;
}

void audit_spool::appended(int fd, std::string_view written, bool gap_note) {
  bool added = false;
  {
    std::lock_guard lock(mutex_);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || written.size() > static_cast<std::uint64_t>(info.st_size)) return;
    const auto inode = static_cast<std::uint64_t>(info.st_ino);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::uint64_t start = size - written.size();
    const std::uint64_t end_before = end_;
    const pending_gap gap_before = gap_;
    std::string out;
    try {
      // Our own writes continue where the spool is; anything else makes sure of the file first.
      const bool same_file = inode == source_inode_ && ((!resuming_ && source_offset_ == start) || same_first_line(fd));
      if (!same_file) {
        if (source_inode_ != 0) follow_rotation(out);
        source_inode_ = inode;
        source_offset_ = 0;
        source_id_ = 0;
      }
      if (source_id_ == 0) source_id_ = first_line_id(fd);
      if (source_offset_ < start) read_file(fd, source_offset_, start, out);
      resuming_ = false;
      take(written, gap_note, out);
      write_out(out);
    } catch (const std::exception& e) {
      spdlog::error("audit spool '{}': {}", options_.dir, e.what());
    }
    // The gap first: a kill in between then drops the same lines again, never forgets them.
    if (gap_.reason != gap_before.reason || gap_.dropped != gap_before.dropped) persist_gap();
    source_offset_ = size;
    persist_source();
    added = end_ != end_before;
  }
  if (!added) return;
  std::lock_guard lock(notify_mutex_);
  if (notify_) notify_();
}

// The file was rotated since the spool last read it: the rest of the one it was reading (now
// FILE.k), then the newer rotated files, oldest first. Removed ones leave a gap.
void audit_spool::follow_rotation(std::string& out) {
  const std::string& base = options_.audit_path;
  unsigned found = 0;
  for (unsigned k = 1; k < 100000 && !found; ++k) {
    struct stat info {};
    if (::stat((base + "." + std::to_string(k)).c_str(), &info) != 0) break;
    if (static_cast<std::uint64_t>(info.st_ino) != source_inode_) continue;
    const int fd = ::open((base + "." + std::to_string(k)).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && same_first_line(fd)) found = k;
    if (fd >= 0) ::close(fd);
  }
  if (!found) {
    if (!gap_.reason) start_gap('r', {});
    return;
  }
  for (unsigned k = found; k >= 1; --k) {
    const int fd = ::open((base + "." + std::to_string(k)).c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) {
      if (fd >= 0) ::close(fd);
      if (!gap_.reason) start_gap('r', {});
      return;
    }
    read_file(fd, k == found ? source_offset_ : 0, static_cast<std::uint64_t>(info.st_size), out);
    ::close(fd);
  }
}

void audit_spool::read_file(int fd, std::uint64_t from, std::uint64_t to, std::string& out) {
  while (from < to) {
    std::string piece = read_lines(fd, from, to, read_piece);
    if (piece.empty()) return;
    from += piece.size();
    std::string_view lines = piece;
    if (resuming_) {
      // The spool may hold these already: a run killed after writing them and before saving
      // how far it had read. Lines up to the spool's last one are not taken twice.
      resuming_ = false;
      const std::string last = last_line_ + '\n';
      std::size_t cut = std::string_view::npos;
      if (lines.starts_with(last)) cut = last.size();
      else if (const auto at = lines.find('\n' + last); at != std::string_view::npos) cut = at + 1 + last.size();
      if (!last_line_.empty() && cut != std::string_view::npos) lines.remove_prefix(cut);
    }
    take(lines, false, out);
    write_out(out);  // a long catch-up is not held in memory
  }
}

void audit_spool::take(std::string_view lines, bool gap_note, std::string& out) {
  for (bool first = true; !lines.empty(); first = false) {
    const auto newline = lines.find('\n');
    if (newline == std::string_view::npos) return;  // never happens: writers append whole lines
    const std::string_view line = lines.substr(0, newline + 1);
    lines.remove_prefix(newline + 1);
    if (first && gap_note) {
      spdlog::info("audit spool '{}': the records it left out are announced in the log (syslog_gap)", options_.dir);
      gap_ = {};
      ++stats_.gaps;
    } else if (!gap_.reason && end_ + out.size() - confirmed_ >= options_.max_bytes) {
      start_gap('b', line.substr(0, newline));
    }
    if (gap_.reason) {
      ++gap_.dropped;
      ++stats_.dropped;
      continue;
    }
    out += line;
    ++stats_.spooled;
  }
}

void audit_spool::start_gap(char reason, std::string_view line) {
  const std::uint64_t last = last_line_.empty() ? 0 : record_seq(last_line_);
  gap_ = {line.empty() ? (last ? last + 1 : 0) : record_seq(line), 0, reason};
  spdlog::warn(
      "audit spool '{}': {}; records are left out from seq {} on, and announced in the log (syslog_gap) once "
      "there is room",
      options_.dir, gap_reason(reason), gap_.first_seq);
}

void audit_spool::write_out(std::string& out) {
  std::string_view rest = out;
  while (!rest.empty()) {
    if (write_fd_ < 0 || write_size_ >= options_.segment_bytes) {
      const segment next{end_, segment_path(options_.dir, end_)};
      const int fd = ::open(next.path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (fd < 0) break;
      if (write_fd_ >= 0) ::close(write_fd_);
      write_fd_ = fd;
      write_size_ = 0;
      if (segments_.empty() || segments_.back().start != next.start) segments_.push_back(next);
    }
    // Whole lines, as many as the segment has room for (at least one).
    std::size_t size = rest.size();
    if (const std::uint64_t room = options_.segment_bytes - write_size_; size > room) {
      const auto cut = rest.rfind('\n', static_cast<std::size_t>(room) - 1);
      size = (cut == std::string_view::npos ? rest.find('\n') : cut) + 1;
    }
    if (!write_fully(write_fd_, rest.substr(0, size))) {
      if (::ftruncate(write_fd_, static_cast<off_t>(write_size_)) != 0) {
        ::close(write_fd_);
        write_fd_ = -1;  // a fresh segment next time
      }
      break;
    }
    const std::string_view kept = rest.substr(0, size - 1);
    last_line_ = kept.substr(kept.rfind('\n') == std::string_view::npos ? 0 : kept.rfind('\n') + 1);
    write_size_ += size;
    end_ += size;
    rest.remove_prefix(size);
  }
  if (!rest.empty()) {
    // Not kept: the first of them starts a gap (or extends the one already open).
    if (!gap_.reason) start_gap('w', rest.substr(0, rest.find('\n')));
    const auto lines = static_cast<std::uint64_t>(std::count(rest.begin(), rest.end(), '\n'));
    gap_.dropped += lines;
    stats_.dropped += lines;
    stats_.spooled -= std::min(stats_.spooled, lines);
  }
  out.clear();
}

bool audit_spool::same_first_line(int fd) const { return source_id_ == 0 || first_line_id(fd) == source_id_; }

void audit_spool::persist_source() { write_numbers(source_fd_, {source_inode_, source_offset_, source_id_}); }
void audit_spool::persist_gap() { write_numbers(gap_fd_, {gap_.first_seq, gap_.dropped, static_cast<unsigned char>(gap_.reason)}); }
void audit_spool::persist_confirmed() { write_numbers(confirmed_fd_, {confirmed_}); }

std::optional<audit_record> audit_spool::gap_record(bool closing, std::uint64_t last_seq) {
  std::lock_guard lock(mutex_);
  if (!gap_.reason) return std::nullopt;
  if (!closing && end_ - confirmed_ > options_.max_bytes / 4 * 3) return std::nullopt;
  if (gap_.first_seq > last_seq) {  // nothing after the last line spooled was left out after all
    gap_ = {};
    persist_gap();
    return std::nullopt;
  }
  audit_record record;
  record.text("event", "syslog_gap", false)
      .count("last_seq", last_seq)
      .text("reason", gap_reason(gap_.reason), false)
      .text("spool", options_.dir, false)
      .text("ts", base::utc_timestamp(), false);
  if (gap_.first_seq) record.count("first_seq", gap_.first_seq).count("records", last_seq - gap_.first_seq + 1);
  else record.count("records", gap_.dropped);
  return record;
}

audit_spool::chunk audit_spool::read(std::uint64_t from, std::size_t max_bytes) const {
  std::string path;
  std::uint64_t start = 0, stop = 0;
  {
    std::lock_guard lock(mutex_);
    if (segments_.empty() || from >= end_) return {{}, std::max(from, end_)};
    from = std::max(from, segments_.front().start);
    auto it = std::upper_bound(segments_.begin(), segments_.end(), from, [](std::uint64_t at, const segment& s) { return at < s.start; });
    --it;
    start = it->start;
    stop = std::next(it) == segments_.end() ? end_ : std::next(it)->start;
    path = it->path;
  }
  // Segments before the confirmed position are the only ones removed: this one stays.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  chunk out;
  if (fd >= 0) {
    out.lines = read_lines(fd, from - start, stop - start, max_bytes);
    ::close(fd);
  }
  if (out.lines.empty() && from < stop) spdlog::error("audit spool: '{}' is missing lines from position {}; skipped", path, from);
  out.next = out.lines.empty() ? stop : from + out.lines.size();
  return out;
}

std::uint64_t audit_spool::end() const {
  std::lock_guard lock(mutex_);
  return end_;
}

std::uint64_t audit_spool::confirmed() const {
  std::lock_guard lock(mutex_);
  return confirmed_;
}

void audit_spool::confirm(std::uint64_t position, bool persist_now) {
  std::vector<std::string> removed;
  {
    std::lock_guard lock(mutex_);
    confirmed_ = std::max(confirmed_, std::min(position, end_));
    while (segments_.size() > 1 && segments_[1].start <= confirmed_) {
      removed.push_back(std::move(segments_.front().path));
      segments_.erase(segments_.begin());
    }
    const auto now = std::chrono::steady_clock::now();
    if (persist_now || now - persisted_at_ >= options_.persist_interval) {
      persist_confirmed();
      persisted_at_ = now;
    }
  }
  for (const auto& path : removed) ::unlink(path.c_str());
}

void audit_spool::on_append(std::function<void()> notify) {
  std::lock_guard lock(notify_mutex_);
  notify_ = std::move(notify);
}

spool_stats audit_spool::stats() const {
  std::lock_guard lock(mutex_);
  spool_stats out = stats_;
  out.unconfirmed = end_ - confirmed_;
  return out;
}

}  // namespace warden::proxy
