// Audit records shipped to a syslog receiver per second (--audit-syslog): an audit log with a
// spool and a shipper, fed call-sized records as fast as its writer takes them; the clock stops
// when the receiver's output file holds them all. Also the writer alone, and with a spool nobody
// reads (the receiver away), for the spool's cost on it. Not a test: prints figures. bench/syslog.sh runs it against a private rsyslogd.
// Usage: syslog_bench URL RECEIVED_FILE WORK_DIR [RECORDS]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "proxy/audit_log.hpp"
#include "proxy/audit_spool.hpp"
#include "proxy/audit_syslog.hpp"

using namespace warden;
using clock_type = std::chrono::steady_clock;

namespace {

std::size_t count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Seconds to hand `records` call-like records (~450 bytes written each) to a log and close it.
double write_records(const std::string& path, int records, std::shared_ptr<proxy::audit_sink> sink) {
  proxy::audit_options options;
  options.path = path;
  options.rotate_bytes = 0;  // one file, to compare with what the receiver wrote
  options.sink = std::move(sink);
  auto log = proxy::audit_log::open(options);
  if (!log) throw std::runtime_error(log.error_message());
  const auto start = clock_type::now();
  for (int i = 0; i < records; ++i) {
    (*log)->record({{"event", "call"}, {"session", "5f2c9e1ab3d04c77"}, {"tool", "read_path"}, {"decision", "allow"}, {"mode", "enforce"}, {"request_id", i}, {"arguments", {{"path", "/srv/data/file" + std::to_string(i % 50) + ".txt"}}}, {"identity", "node /srv/mcp/server.js"}, {"result_bytes", 1834}, {"latency_us", 412}, {"findings", nlohmann::json::array()}});
  }
  (*log)->close();
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: syslog_bench URL RECEIVED_FILE WORK_DIR [RECORDS]\n");
    return 2;
  }
  const std::string url = argv[1], received = argv[2], dir = argv[3];
  const int records = argc > 4 ? std::stoi(argv[4]) : 200000;
  auto target = proxy::parse_syslog_url(url);
  if (!target) {
    std::fprintf(stderr, "%s\n", target.error_message().c_str());
    return 2;
  }
  std::filesystem::create_directories(dir);

  const double alone = write_records(dir + "/alone.jsonl", records, nullptr);
  // A spool nobody reads: its own cost, as when the receiver is away.
  proxy::spool_options unread_options;
  unread_options.audit_path = dir + "/unread.jsonl";
  unread_options.max_bytes = 1ull << 40;
  auto unread = proxy::audit_spool::open(unread_options);
  if (!unread) {
    std::fprintf(stderr, "%s\n", unread.error_message().c_str());
    return 2;
  }
  const double spooled = write_records(unread_options.audit_path, records, *unread);

  const std::string audit = dir + "/shipped.jsonl";
  proxy::spool_options spool_options;
  spool_options.audit_path = audit;
  auto spool = proxy::audit_spool::open(spool_options);
  if (!spool) {
    std::fprintf(stderr, "%s\n", spool.error_message().c_str());
    return 2;
  }
  proxy::syslog_options options;
  options.target = *target;
  options.identity = proxy::make_syslog_identity(audit);
  auto shipper = proxy::syslog_shipper::start(options, *spool);
  if (!shipper) {
    std::fprintf(stderr, "%s\n", shipper.error_message().c_str());
    return 2;
  }
  const std::size_t before = count_lines(received);
  const auto start = clock_type::now();
  const double written = write_records(audit, records, *spool);
  const std::size_t expected = before + count_lines(audit);
  while (count_lines(received) < expected) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double shipped = std::chrono::duration<double>(clock_type::now() - start).count();
  (*shipper)->stop();
  const auto bytes = std::filesystem::file_size(audit);
  std::printf("records: %d (%.0f bytes each)\n", records, static_cast<double>(bytes) / records);
  std::printf("audit writer alone:                        %8.0f records/s\n", records / alone);
  std::printf("audit writer with a spool, receiver away:   %8.0f records/s\n", records / spooled);
  std::printf("audit writer with a spool, shipping:        %8.0f records/s\n", records / written);
  std::printf("shipped and written by the receiver:       %8.0f records/s (%.1f MB/s of records; %.2f s for all)\n", records / shipped,
              static_cast<double>(bytes) / shipped / 1e6, shipped);
  return 0;
}
