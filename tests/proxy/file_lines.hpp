#pragma once
// For the audit tests: a private directory holding one audit file, opening and filling a log
// there, and reading and rewriting a log file line by line (the tests that edit records).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proxy/audit_log.hpp"

namespace warden::test {

// A fresh directory under the system's temp folder, removed with everything in it at the end.
struct temp_audit_dir {
  std::filesystem::path dir;
  std::string log;  // DIR/audit.jsonl
  explicit temp_audit_dir(const std::string& prefix = "warden-audit") {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::create_directories(dir);
    log = (dir / "audit.jsonl").string();
  }
  ~temp_audit_dir() { std::filesystem::remove_all(dir); }
  temp_audit_dir(const temp_audit_dir&) = delete;
  temp_audit_dir& operator=(const temp_audit_dir&) = delete;
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string spool() const { return log + ".spool"; }
};

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& l : lines) out << l << '\n';
}

// An audit log opened with `options` (options.path says where); the test stops if it cannot be.
inline std::unique_ptr<proxy::audit_log> open_log(proxy::audit_options options) {
  auto log = proxy::audit_log::open(std::move(options));
  REQUIRE_MESSAGE(log, (log ? std::string() : log.error_message()));
  return std::move(*log);
}

// Opens a log with `options`, records `count` events, event(i) for i = from, from + 1, ..., and
// closes it.
inline void write_events(proxy::audit_options options, int from, int count, const std::function<nlohmann::json(int)>& event) {
  auto log = open_log(std::move(options));
  for (int i = from; i < from + count; ++i) log->record(event(i));
  log->close();
}

}  // namespace warden::test
