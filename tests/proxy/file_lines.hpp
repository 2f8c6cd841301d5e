#pragma once
// Reading and rewriting a log file line by line, for the audit tests that edit records.
#include <fstream>
#include <string>
#include <vector>

namespace warden::test {

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

}  // namespace warden::test
