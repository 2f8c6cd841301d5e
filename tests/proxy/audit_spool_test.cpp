// The syslog spool (proxy/audit_spool.hpp) fed by real audit logs: order, segments, the bound and
// its gap record, resuming after a restart or a kill, rotation; and log verify --received.
#include "proxy/audit_spool.hpp"

#include <doctest/doctest.h>
#include "file_lines.hpp"
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace warden::proxy;
using namespace warden::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::shared_ptr<audit_spool> open_spool(const temp_audit_dir& t, std::uint64_t max_bytes = 1 << 20, std::uint64_t segment_bytes = 0) {
  spool_options options;
  options.audit_path = t.log;
  options.max_bytes = max_bytes;
  options.segment_bytes = segment_bytes;
  auto spool = audit_spool::open(options);
  REQUIRE_MESSAGE(spool, (spool ? std::string() : spool.error_message()));
  return *spool;
}

// Writes `count` events through an audit log feeding `sink` (none: the file alone).
void write_events(const temp_audit_dir& t, int count, std::shared_ptr<audit_sink> sink, audit_options options = {}) {
  options.path = t.log;
  options.sink = std::move(sink);
  warden::test::write_events(options, 0, count, [](int i) { return json{{"event", "call"}, {"n", i}, {"pad", std::string(100, 'x')}}; });
}

// Everything the spool holds from its confirmed position, read as a shipper would.
std::string drain(audit_spool& spool, std::size_t chunk = 300, bool confirm = false) {
  std::string out;
  for (std::uint64_t at = spool.confirmed();;) {
    auto part = spool.read(at, chunk);
    if (part.lines.empty() && part.next == at) break;
    out += part.lines;
    at = part.next;
    if (confirm) spool.confirm(at);
  }
  return out;
}

// The position after the first `n` lines of `text`.
std::size_t after_lines(const std::string& text, std::size_t n) {
  std::size_t at = 0;
  for (; n > 0; --n) at = text.find('\n', at) + 1;
  return at;
}

std::size_t segment_count(const temp_audit_dir& t) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(t.spool())) n += e.path().extension() == ".seg";
  return n;
}

}  // namespace

TEST_CASE("the spool holds every line the audit file gains, in file order, byte for byte") {
  temp_audit_dir t;
  auto spool = open_spool(t);
  write_events(t, 40, spool);
  write_events(t, 5, spool);  // a second writer of the same file, same sink
  CHECK(drain(*spool) == read_file(t.log));
  CHECK(spool->stats().spooled == lines_of(read_file(t.log)).size());
  CHECK(spool->end() == read_file(t.log).size());
  SUBCASE("a chunk is whole lines, at least one even when it is longer than asked") {
    auto one = spool->read(0, 10);
    CHECK(one.lines == lines_of(read_file(t.log))[0] + "\n");
    CHECK(one.next == one.lines.size());
  }
}

TEST_CASE("segments: a new one past segment_bytes; those wholly confirmed are removed, the last one stays") {
  temp_audit_dir t;
  auto spool = open_spool(t, 1 << 20, 1024);
  write_events(t, 30, spool);
  const std::string all = read_file(t.log);
  const std::size_t segments = segment_count(t);
  CHECK(segments >= 4);
  CHECK(drain(*spool) == all);
  spool->confirm(after_lines(all, 15));
  CHECK(segment_count(t) < segments);
  CHECK(drain(*spool) == all.substr(after_lines(all, 15)));
  spool->confirm(all.size());
  CHECK(segment_count(t) == 1);
  CHECK(drain(*spool).empty());
}

TEST_CASE("after a restart the spool resumes: the confirmed position, the lines after it, and what the file gained meanwhile") {
  temp_audit_dir t;
  std::string first_half;
  std::size_t confirmed = 0;
  {
    auto spool = open_spool(t, 1 << 20, 2048);
    write_events(t, 20, spool);
    first_half = read_file(t.log);
    confirmed = after_lines(first_half, 7);
    spool->confirm(confirmed, true);
  }
  SUBCASE("a clean restart") {
    auto spool = open_spool(t, 1 << 20, 2048);
    CHECK(spool->confirmed() == confirmed);
    CHECK(spool->end() == first_half.size());
    write_events(t, 10, spool);
    const std::string all = read_file(t.log);
    CHECK(drain(*spool) == all.substr(confirmed));
  }
  SUBCASE("records written without the spool (no --audit-syslog, or a run killed before the spool took them) are caught up") {
    write_events(t, 7, nullptr);
    auto spool = open_spool(t, 1 << 20, 2048);
    write_events(t, 3, spool);
    CHECK(drain(*spool) == read_file(t.log).substr(confirmed));
  }
  SUBCASE("a kill after the spool wrote and before it saved how far it read: no line twice") {
    // DIR/source one batch behind, as a kill right after the segment write leaves it.
    const auto lines = lines_of(first_half);
    const std::uint64_t behind = first_half.size() - lines.back().size() - 1 - lines[lines.size() - 2].size() - 1;
    const int fd = ::open((t.spool() + "/source").c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    std::string state(63, '\0');  // inode, offset, first line: 20 digits and a separator each
    REQUIRE(::pread(fd, state.data(), state.size(), 0) == 63);
    std::string offset = std::to_string(behind);
    state.replace(21, 20, std::string(20 - offset.size(), '0') + offset);
    REQUIRE(::pwrite(fd, state.data(), state.size(), 0) == 63);
    ::close(fd);
    auto spool = open_spool(t, 1 << 20, 2048);
    write_events(t, 2, spool);
    CHECK(drain(*spool) == read_file(t.log).substr(confirmed));
  }
  SUBCASE("a segment torn by a kill mid-write is cut back to its last whole line") {
    std::string last;
    for (const auto& e : fs::directory_iterator(t.spool()))
      if (e.path().extension() == ".seg" && e.path().string() > last) last = e.path().string();
    std::ofstream(last, std::ios::app) << "{\"event\":\"torn";
    auto spool = open_spool(t, 1 << 20, 2048);
    CHECK(spool->end() == first_half.size());
    write_events(t, 2, spool);
    CHECK(drain(*spool) == read_file(t.log).substr(confirmed));
  }
}

TEST_CASE("one process per spool") {
  temp_audit_dir t;
  auto spool = open_spool(t);
  spool_options options;
  options.audit_path = t.log;
  auto second = audit_spool::open(options);
  REQUIRE_FALSE(second);
  CHECK(second.error_message() == "the syslog spool '" + t.spool() +
                                      "' is in use by another mcp-warden process: one process ships an audit file "
                                      "(give the others an --audit-log of their own)");
}

TEST_CASE("past the bound lines are dropped and a syslog_gap record announces them; the received copy verifies") {
  temp_audit_dir t;
  write_events(t, 60, nullptr);  // more than the spool may keep, for it to catch up with
  auto spool = open_spool(t, 4096, 1024);
  std::string received;  // what a receiver got: the spool as it is read and confirmed
  SUBCASE("room again: the gap record is chained before the next records, and they are kept") {
    const int fd = ::open(t.log.c_str(), O_RDONLY);
    spool->appended(fd, {}, false);
    ::close(fd);
    CHECK(spool->stats().dropped > 0);
    CHECK_FALSE(spool->gap_record(false, 60));  // no room yet
    received += drain(*spool, 300, true);       // the receiver takes everything
    write_events(t, 5, spool);
    CHECK(check_record(lines_of(read_file(t.log))[60]).body["event"] == "syslog_gap");
    received += drain(*spool, 300, true);
    CHECK(lines_of(received).size() == lines_of(read_file(t.log)).size() - spool->stats().dropped);
  }
  SUBCASE("still full when the log closes: the gap is announced anyway") {
    write_events(t, 5, spool);
    CHECK(check_record(lines_of(read_file(t.log)).back()).body["event"] == "syslog_gap");
    received += drain(*spool, 300, true);
  }
  const auto file = lines_of(read_file(t.log));
  json gap;
  for (const auto& line : file)
    if (auto c = check_record(line); c.body.value("event", "") == "syslog_gap") gap = c.body;
  REQUIRE(gap.is_object());
  CHECK(gap["records"] == gap["last_seq"].get<std::uint64_t>() - gap["first_seq"].get<std::uint64_t>() + 1);
  CHECK(gap["reason"] == "the syslog spool was full: the receiver did not take records for too long");
  CHECK(gap["records"] == spool->stats().dropped);
  CHECK(spool->stats().gaps == 1);
  // The received copy: the lines up to the gap, the gap record, everything after it.
  const auto got = lines_of(received);
  CHECK(got.size() == file.size() - gap["records"].get<std::size_t>());
  CHECK(std::find(got.begin(), got.end(), file[gap["seq"].get<std::size_t>() - 1]) != got.end());
  const std::string copy = (t.dir / "received.jsonl").string();
  std::ofstream(copy) << received;
  const auto plain = verify_log(copy);
  CHECK_FALSE(plain.ok);
  const auto report = verify_log(copy, nullptr, true);
  CHECK_MESSAGE(report.ok, report.problem);
  REQUIRE(report.gaps.size() == 1);
  CHECK(report.gaps[0].find("seq " + std::to_string(gap["first_seq"].get<std::uint64_t>()) + ".." +
                            std::to_string(gap["last_seq"].get<std::uint64_t>()) + " were not shipped (the syslog spool was full") !=
        std::string::npos);
}

TEST_CASE("a gap still to be announced survives a restart of the spool") {
  temp_audit_dir t;
  write_events(t, 3, nullptr);
  {
    auto spool = open_spool(t, 200);
    const int fd = ::open(t.log.c_str(), O_RDONLY);
    spool->appended(fd, {}, false);  // catch-up: the first line fits, the rest overflow
    ::close(fd);
    CHECK(spool->stats().dropped == 2);
    CHECK_FALSE(spool->gap_record(false, 3));  // no room yet
  }
  auto spool = open_spool(t, 200);
  auto gap = spool->gap_record(true, 3);
  REQUIRE(gap);
  auto body = json::parse(gap->canonical_text());
  CHECK(body["ts"].is_string());
  body.erase("ts");
  CHECK(body ==
        json{{"event", "syslog_gap"}, {"first_seq", 2}, {"last_seq", 3}, {"records", 2}, {"reason", "the syslog spool was full: the receiver did not take records for too long"}, {"spool", t.spool()}});
}

TEST_CASE("rotation: the spool follows the chain into the new file; files rotated away unread leave an announced gap") {
  temp_audit_dir t;
  audit_options options;
  options.rotate_bytes = 2000;
  options.keep_files = 50;
  SUBCASE("followed") {
    auto spool = open_spool(t);
    write_events(t, 40, spool, options);
    std::string all;
    for (int k = 50; k >= 1; --k)
      if (fs::exists(t.log + "." + std::to_string(k))) all += read_file(t.log + "." + std::to_string(k));
    all += read_file(t.log);
    CHECK(fs::exists(t.log + ".3"));
    CHECK(drain(*spool) == all);
  }
  SUBCASE("rotated away while nobody shipped") {
    {
      auto spool = open_spool(t);
      write_events(t, 5, spool, options);
    }
    options.keep_files = 1;
    write_events(t, 60, nullptr, options);  // the file the spool read is long gone
    auto spool = open_spool(t);
    write_events(t, 1, spool, options);
    const auto file = lines_of(read_file(t.log + ".1") + read_file(t.log));  // a rotation may follow the gap
    json gap;
    for (const auto& line : file)
      if (auto c = check_record(line); c.body.value("event", "") == "syslog_gap") gap = c.body;
    REQUIRE(gap.is_object());
    CHECK(gap["first_seq"] == 6);
    CHECK(gap["reason"] == "audit records were rotated away before the syslog spool read them");
    const std::string copy = (t.dir / "received.jsonl").string();
    std::ofstream(copy) << drain(*spool);
    const auto report = verify_log(copy, nullptr, true);
    CHECK_MESSAGE(report.ok, report.problem);
    CHECK(report.gaps.size() == 1);
  }
}

TEST_CASE("log verify --received: records sent again are skipped only when they are the log's own") {
  temp_audit_dir t;
  write_events(t, 12, nullptr);
  const auto lines = lines_of(read_file(t.log));
  const std::string copy = (t.dir / "received.jsonl").string();
  auto write_copy = [&](std::vector<std::string> picked) {
    std::ofstream out(copy, std::ios::trunc);
    for (const auto& l : picked) out << l << '\n';
  };
  std::vector<std::string> resent(lines.begin(), lines.begin() + 8);
  resent.insert(resent.end(), lines.begin() + 5, lines.end());  // 6..8 again, then on
  write_copy(resent);
  CHECK_FALSE(verify_log(copy).ok);
  auto report = verify_log(copy, nullptr, true);
  CHECK_MESSAGE(report.ok, report.problem);
  CHECK(report.records == 12);
  CHECK(report.resent == 3);

  SUBCASE("a repeated seq with other content") {
    temp_audit_dir other;
    {
      audit_options options;
      options.path = other.log;
      auto log = open_log(options);
      for (int i = 0; i < 12; ++i) log->record({{"event", "other"}});
    }
    auto edited = resent;
    edited[9] = lines_of(read_file(other.log))[6];  // a seq 7 of another log, where seq 7 is sent again
    write_copy(edited);
    report = verify_log(copy, nullptr, true);
    CHECK_FALSE(report.ok);
    CHECK(report.problem == copy + ":10: seq 7 arrives again after seq 8 with other content");
  }
  SUBCASE("a gap nobody announced fails as before") {
    std::vector<std::string> holed(lines.begin(), lines.begin() + 4);
    holed.insert(holed.end(), lines.begin() + 6, lines.end());
    write_copy(holed);
    report = verify_log(copy, nullptr, true);
    CHECK_FALSE(report.ok);
    CHECK(report.problem.find("expected seq 5, found seq 7") != std::string::npos);
  }
}
