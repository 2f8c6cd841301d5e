// verify_log: the hash chain across rotated files, and with public keys every signed checkpoint.
// Reads the files as they are; never re-serialises a record.
#include <filesystem>
#include <fstream>

#include "proxy/audit_log.hpp"
#include "proxy/audit_signer.hpp"

namespace warden::proxy {

verify_report verify_log(const std::string& path, const checkpoint_verifier* keys, bool received) {
  verify_report report;
  std::vector<std::string> files;
  for (unsigned k = 1; k < 100000; ++k) {
    const std::string rotated = path + "." + std::to_string(k);
    std::error_code ec;
    if (!std::filesystem::exists(rotated, ec)) break;
    files.insert(files.begin(), rotated);
  }
  files.push_back(path);
  std::string prev_hash;
  std::uint64_t prev_seq = 0;
  bool first = true;
  // A resend after a reconnect repeats records the log already has, from the last one the shipper
  // saw confirmed (at most its socket buffers' worth before the head): each must be the record
  // the log holds at that seq, byte for byte (same hash). The recent hashes, by seq.
  constexpr std::uint64_t resend_window = 1u << 17;
  std::vector<std::pair<std::uint64_t, std::string>> recent(received ? resend_window : 0);
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::ifstream in(files[f], std::ios::binary);
    if (!in) {
      report.ok = false;
      report.problem = files[f] + ": cannot open";
      return report;
    }
    report.files.push_back(files[f]);
    const bool last_file = f + 1 == files.size();
    std::string line;
    std::uint64_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      const bool unterminated = in.eof();  // no newline after this line: the file ends inside it
      const std::string where = files[f] + ":" + std::to_string(number) + ": ";
      const record_check check = check_record(line);
      if (!check.ok) {
        if (unterminated && last_file) {
          report.torn_tail = where + "incomplete last record (" + std::to_string(line.size()) +
                             " bytes, the writer stopped mid-write); not counted";
          break;
        }
        report.ok = false;
        report.problem = where + check.problem;
        return report;
      }
      const std::uint64_t seq = check.body["seq"].get<std::uint64_t>();
      const std::string prev = check.body["prev"].get<std::string>();
      const auto event = check.body.find("event");
      const bool is_gap = received && event != check.body.end() && *event == "syslog_gap";
      if (received && !first && seq <= prev_seq) {
        const auto& [seen_seq, seen_hash] = recent[seq % resend_window];
        if (seen_seq != seq || seen_hash != check.hash) {
          report.ok = false;
          report.problem = where + "seq " + std::to_string(seq) + " arrives again after seq " + std::to_string(prev_seq) +
                           (seen_seq == seq ? " with other content" : ", too far back to be a resend");
          return report;
        }
        ++report.resent;
        continue;
      }
      if (is_gap && !first && seq > prev_seq + 1 && check.body.value("last_seq", std::uint64_t{0}) == seq - 1 &&
          check.body.value("first_seq", prev_seq + 1) == prev_seq + 1) {
        report.gaps.push_back(where + "seq " + std::to_string(prev_seq + 1) + ".." + std::to_string(seq - 1) +
                              " were not shipped (" + check.body.value("reason", std::string("no reason given")) + ")");
      } else if (first) {
        // A file begins a chain (genesis) or continues one after a rotation ("log_rotated"); with
        // signatures asked for, a chain that starts anywhere else lost its front to an edit.
        if (prev != genesis_hash && keys && !is_gap && !(event != check.body.end() && *event == "log_rotated")) {
          report.ok = false;
          report.problem = where + "the chain starts at seq " + std::to_string(seq) +
                           ", which is neither the start of a log nor of a rotated file (\"log_rotated\"): records before it were cut off";
          return report;
        }
        if (prev != genesis_hash)
          report.notes.push_back(where + "the chain starts at seq " + std::to_string(seq) +
                                 " whose predecessor is not in these files (older rotated files removed?)");
        first = false;
      } else if (prev != prev_hash || seq != prev_seq + 1) {
        report.ok = false;
        std::string why;
        if (seq > prev_seq + 1)
          why = "expected seq " + std::to_string(prev_seq + 1) + ", found seq " + std::to_string(seq) +
                " (records deleted or moved)";
        else if (seq <= prev_seq)
          why = "seq " + std::to_string(seq) + " follows seq " + std::to_string(prev_seq) +
                " (records reordered or duplicated)";
        else
          why = "the record before this one was replaced or edited";
        report.problem = where + "chain broken: \"prev\" does not match the hash of the record before it; " + why;
        return report;
      }
      if (event != check.body.end() && *event == checkpoint_event) {
        ++report.checkpoints;
        if (keys) {
          if (const std::string why = keys->check(check.body); !why.empty()) {
            report.ok = false;
            report.problem = where + "checkpoint (seq " + std::to_string(seq) + "): " + why;
            return report;
          }
          report.signed_records = report.records;
          report.last_checkpoint = files[f] + ":" + std::to_string(number);
        }
      }
      prev_hash = check.hash;
      prev_seq = seq;
      if (received) recent[seq % resend_window] = {seq, check.hash};
      ++report.records;
      if (unterminated) report.notes.push_back(where + "last record has no trailing newline");
    }
  }
  if (keys) {
    // Signatures were asked for: a log without one proves nothing (it may have been rewritten
    // whole, checkpoints left out).
    if (report.checkpoints == 0) {
      report.ok = false;
      report.problem = path + ": no checkpoint in the log: no record is covered by a signature (was it written with --audit-sign-key?)";
      return report;
    }
    report.unsigned_tail = report.records - report.signed_records - 1;
  }
  return report;
}

}  // namespace warden::proxy
