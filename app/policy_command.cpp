// mcp-warden policy check | pins list|diff|approve | log show|verify|keygen
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <thread>

#include "app/command_line.hpp"
#include "app/commands.hpp"
#include "base/canonical_json.hpp"
#include "base/timestamp.hpp"
#include "policy/glob.hpp"
#include "policy/lockfile.hpp"
#include "policy/policy.hpp"
#include "proxy/audit_log.hpp"
#include "proxy/audit_signer.hpp"
#include "proxy/enumerate.hpp"
#include "transports/child_process.hpp"

namespace warden::app {

namespace {

using nlohmann::json;

// How these commands stop on an error: `message` on stderr (prefixed as it should read), then
// `exit_code` for the caller to return.
int stop(int exit_code, const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return exit_code;
}

// "--" ends our options and starts a server command (pins: SERVER is a positional before it).
int parse_cli(CLI::App& cli, const std::vector<std::string>& args, std::vector<std::string>* command = nullptr) {
  auto separator = std::find(args.begin(), args.end(), "--");
  if (command && separator != args.end()) command->assign(separator + 1, args.end());
  std::vector<std::string> own(args.begin(), command ? separator : args.end());
  if (auto done = parse_or_exit(cli, own, "mcp-warden: ")) return *done;
  return -1;
}

// --- policy check ----------------------------------------------------------------------------------

int policy_check(const std::vector<std::string>& args) {
  CLI::App cli{"mcp-warden policy check FILE: validate a policy file (errors as file:line:col)"};
  std::string path;
  cli.add_option("FILE", path, "Policy file")->required();
  if (int code = parse_cli(cli, args); code >= 0) return code;
  auto loaded = policy::load_policy(path);
  if (!loaded) return stop(1, loaded.error_message());
  const policy::policy& p = *loaded;
  std::printf("%s: ok: default %s, %zu tool rule(s), %zu role override(s), surface hiding %s, mode %s\n", path.c_str(),
              std::string(policy::to_string(p.default_action)).c_str(), p.tools.size(), p.roles.size(),
              p.surface.hide_at ? ("at or above " + std::string(analysis::to_string(*p.surface.hide_at))).c_str() : "off",
              p.preferred_mode ? std::string(policy::to_string(*p.preferred_mode)).c_str() : "from the command line");
  return 0;
}

// --- pins ------------------------------------------------------------------------------------------

bool server_matches(const policy::server_pins& s, const std::string& selector) {
  return selector.empty() || s.identity == selector || s.server_name == selector ||
         policy::glob_match(selector, s.server_name) || policy::glob_match(selector, s.identity);
}

void print_drift(const std::vector<policy::item_drift>& drift) {
  for (const auto& d : drift) {
    std::printf("  %s %s '%s'%s\n", std::string(policy::to_string(d.what)).c_str(), d.kind.c_str(), d.name.c_str(),
                d.previous_name.empty() ? "" : (" (was '" + d.previous_name + "')").c_str());
    for (const auto& f : d.fields) {
      std::printf("    %s:\n", f.field.c_str());
      if (!f.before.is_null()) std::printf("      - %s\n", f.before.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
      if (!f.after.is_null()) std::printf("      + %s\n", f.after.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    }
  }
}

int pins_command(const std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "list" && args[0] != "diff" && args[0] != "approve")) {
    std::fprintf(stderr, "usage: mcp-warden pins list|diff|approve [SERVER] [--lockfile FILE] [-- COMMAND...]\n");
    return 2;
  }
  const std::string verb = args[0];
  CLI::App cli{"mcp-warden pins " + verb +
               " [SERVER] [--lockfile FILE] [-- COMMAND...]\n"
               "SERVER: identity (argv), server name or glob. With -- COMMAND the server is enumerated live;\n"
               "otherwise the surface the proxy last saw (pending drift) is used."};
  std::string lockfile_path = "mcp-warden.lock.json", selector;
  cli.add_option("SERVER", selector, "Server identity, name or glob (default: all)");
  cli.add_option("--lockfile", lockfile_path, "Lockfile")->capture_default_str();
  std::vector<std::string> command;
  if (int code = parse_cli(cli, std::vector<std::string>(args.begin() + 1, args.end()), &command); code >= 0) return code;

  auto lock = policy::load_lockfile(lockfile_path);
  if (!lock) return stop(2, "mcp-warden: " + lock.error_message());
  // A live surface replaces the pending one for the server the command starts.
  if (!command.empty()) {
    proxy::enumerate_options options;
    options.argv = command;
    auto surface = proxy::enumerate_server(options);
    if (!surface) return stop(3, "mcp-warden: cannot enumerate the server: " + surface.error_message());
    const std::string identity = transports::describe_argv(command);
    auto& entry = lock->servers[identity];
    entry.identity = identity;
    entry.server_name = surface->name;
    entry.pending.clear();
    for (const auto& item : policy::pin_surface(*surface)) entry.pending[policy::item_key(item.kind, item.name)] = item;
    entry.pending_seen_at = base::utc_timestamp();
    selector = identity;
  }

  int drifted = 0, matched = 0;
  for (auto& [identity, server] : lock->servers) {
    if (!server_matches(server, selector)) continue;
    ++matched;
    if (verb == "list") {
      std::printf("%s\n  server: %s, pinned %s, %zu item(s)%s\n", identity.c_str(), server.server_name.c_str(),
                  server.pinned_at.empty() ? "never" : server.pinned_at.c_str(), server.items.size(),
                  server.pending.empty() ? "" : (", drift seen " + server.pending_seen_at + " (see pins diff)").c_str());
      for (const auto& [key, item] : server.items) std::printf("  %-40s %s\n", key.c_str(), item.digest.substr(0, 23).c_str());
      continue;
    }
    std::vector<policy::pinned_item> current;
    for (const auto& [key, item] : server.pending) current.push_back(item);
    const auto drift = server.pending.empty() ? std::vector<policy::item_drift>{} : policy::diff_pins(server, current);
    if (verb == "diff") {
      if (drift.empty()) {
        std::printf("%s: no drift\n", identity.c_str());
      } else {
        ++drifted;
        std::printf("%s: %zu item(s) drifted (seen %s)\n", identity.c_str(), drift.size(), server.pending_seen_at.c_str());
        print_drift(drift);
      }
      continue;
    }
    // approve: the pending surface becomes the pinned one.
    if (server.pending.empty()) {
      std::printf("%s: nothing to approve\n", identity.c_str());
      continue;
    }
    print_drift(drift);
    server.items = std::move(server.pending);
    server.pending.clear();
    server.pending_seen_at.clear();
    server.pinned_at = base::utc_timestamp();
    std::printf("%s: approved %zu item(s)\n", identity.c_str(), server.items.size());
  }
  if (matched == 0) return stop(1, "mcp-warden: no pinned server matches '" + selector + "' in " + lockfile_path);
  if (verb == "approve") {
    if (auto saved = policy::save_lockfile(lockfile_path, *lock); !saved) return stop(2, "mcp-warden: " + saved.error_message());
  }
  return verb == "diff" && drifted ? 1 : 0;
}

// --- log -------------------------------------------------------------------------------------------

// One log (with its rotated files): the report as lines, the verdict last. Returns whether it passed.
bool print_verify_report(const std::string& path, const proxy::checkpoint_verifier* keys, bool received, bool name_it) {
  const auto report = proxy::verify_log(path, keys, received);
  const auto count = [](std::uint64_t n) { return static_cast<unsigned long long>(n); };
  const std::string name = name_it ? path + ": " : "";
  for (const auto& note : report.notes) std::printf("note: %s\n", note.c_str());
  if (!report.torn_tail.empty()) std::printf("warning: %s\n", report.torn_tail.c_str());
  for (const auto& gap : report.gaps) std::printf("warning: %s\n", gap.c_str());
  if (!report.ok) {
    std::printf("FAILED %safter %llu valid record(s): %s\n", name.c_str(), count(report.records), report.problem.c_str());
    return false;
  }
  if (!keys && report.checkpoints > 0)
    std::printf("note: %llu signed checkpoint(s) not checked (give --pubkey to check them)\n", count(report.checkpoints));
  if (keys && report.unsigned_tail > 0)
    std::printf("warning: %llu record(s) after the last checkpoint (%s) are not covered by a signature yet\n",
                count(report.unsigned_tail), report.last_checkpoint.c_str());
  std::printf("ok: %s%llu record(s) in %zu file(s), hash chain intact", name.c_str(), count(report.records), report.files.size());
  if (received) std::printf("; %llu record(s) received twice, skipped", count(report.resent));
  if (keys)
    std::printf("; %llu checkpoint signature(s) verified, covering %llu record(s)", count(report.checkpoints),
                count(report.signed_records));
  std::printf("\n");
  return true;
}

int log_verify(const std::vector<std::string>& args) {
  CLI::App cli{
      "mcp-warden log verify [--pubkey KEY.pub]... [--received] FILE...: check the hash chain (and rotated FILE.N)\n"
      "and, with --pubkey, every signed checkpoint; exit 1 at the first bad record"};
  std::vector<std::string> paths, pubkeys;
  bool received = false;
  cli.add_option("FILE", paths, "Audit log(s)")->required();
  cli.add_option("--pubkey", pubkeys, "Ed25519 public key (PEM) the checkpoints must be signed with (repeatable)")
      ->allow_extra_args(false);
  cli.add_flag("--received", received,
               "FILE is what a syslog receiver got from --audit-syslog: records sent twice after a reconnect are "
               "skipped (same seq, same hash), gaps announced by a syslog_gap record are warnings");
  if (int code = parse_cli(cli, args); code >= 0) return code;
  std::optional<proxy::checkpoint_verifier> keys;
  if (!pubkeys.empty()) {
    auto loaded = proxy::checkpoint_verifier::load(pubkeys);
    if (!loaded) return stop(2, "mcp-warden: " + loaded.error_message());
    keys = std::move(*loaded);
  }
  bool ok = true;
  for (const auto& path : paths) ok = print_verify_report(path, keys ? &*keys : nullptr, received, paths.size() > 1) && ok;
  return ok ? 0 : 1;
}

int log_keygen(const std::vector<std::string>& args) {
  CLI::App cli{
      "mcp-warden log keygen --out PREFIX: a key pair for --audit-sign-key: PREFIX.key (private, mode 0600)\n"
      "and PREFIX.pub (for log verify --pubkey); never overwrites"};
  std::string prefix;
  cli.add_option("--out", prefix, "Path prefix of the two files")->required();
  if (int code = parse_cli(cli, args); code >= 0) return code;
  auto id = proxy::generate_checkpoint_key(prefix);
  if (!id) return stop(1, "mcp-warden: " + id.error_message());
  std::printf("wrote %s.key (private, mode 0600) and %s.pub; key id %s\n", prefix.c_str(), prefix.c_str(), id->c_str());
  return 0;
}

// "10m" / "2h" / "1d" ago, or an ISO timestamp prefix compared as text.
std::string since_threshold(const std::string& since) {
  if (since.empty()) return {};
  const char unit = since.back();
  const std::string digits = since.substr(0, since.size() - 1);
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos && std::string("smhd").find(unit) != std::string::npos) {
    const long long n = std::stoll(digits);
    const long long seconds = n * (unit == 's' ? 1 : unit == 'm' ? 60
                                                 : unit == 'h'   ? 3600
                                                                 : 86400);
    const auto when = std::chrono::system_clock::now() - std::chrono::seconds(seconds);
    const std::time_t t = std::chrono::system_clock::to_time_t(when);
    std::tm parts{};
    gmtime_r(&t, &parts);
    char buffer[40];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &parts);
    return buffer;
  }
  return since;
}

int log_show(const std::vector<std::string>& args) {
  CLI::App cli{"mcp-warden log show [options] FILE: print audit records"};
  std::string path, tool, decision, since, event;
  bool follow = false, raw = false;
  cli.add_option("FILE", path, "Audit log")->required();
  cli.add_option("--tool", tool, "Only calls of this tool (glob)");
  cli.add_option("--decision", decision, "Only this decision: allow|deny|ask");
  cli.add_option("--event", event, "Only this event type (call, request, surface, pin_drift, ...)");
  cli.add_option("--since", since, "Only records at or after: ISO time (2025-01-31T12:00) or 10m / 2h / 1d ago");
  cli.add_flag("--follow,-f", follow, "Keep printing new records");
  cli.add_flag("--json", raw, "Print the records as they are (JSON Lines)");
  if (int code = parse_cli(cli, args); code >= 0) return code;
  const std::string threshold = since_threshold(since);
  std::ifstream in(path);
  if (!in) return stop(2, "mcp-warden: cannot open " + path);
  auto show = [&](const std::string& line) {
    const auto check = proxy::check_record(line);
    json record = check.ok ? check.body : json();
    if (!check.ok) {
      try {
        record = json::parse(line);
      } catch (const json::exception&) {
        std::printf("(unreadable line) %s\n", line.substr(0, 120).c_str());
        return;
      }
    }
    if (!record.is_object()) return;
    const std::string ev = record.value("event", "");
    if (!event.empty() && ev != event) return;
    if (!tool.empty() && !policy::glob_match(tool, record.value("tool", ""))) return;
    if (!decision.empty() && record.value("decision", "") != decision) return;
    if (!threshold.empty() && record.value("ts", "") < threshold) return;
    if (raw) {
      std::printf("%s\n", line.c_str());
      return;
    }
    std::string detail;
    if (ev == "call") {
      detail = record.value("tool", "") + " " + record.value("decision", "") + (record.value("enforced", true) ? "" : " (audit only)");
      if (record.contains("asked")) detail += " asked:" + record.value("asked", "");
      if (record.value("decision", "") != "allow") detail += " - " + record.value("reason", "");
      if (record.contains("result_action")) detail += " result:" + record.value("result_action", "");
      if (record.contains("latency_us")) detail += " " + std::to_string(record["latency_us"].get<long long>() / 1000) + "ms";
    } else if (ev == "request") {
      detail = record.value("method", "");
      if (record.contains("hidden")) detail += " hidden:" + record["hidden"].dump();
    } else {
      json rest = record;
      for (const char* k : {"ts", "seq", "prev", "event", "session"}) rest.erase(k);
      detail = rest.dump(-1, ' ', false, json::error_handler_t::replace);
      if (detail.size() > 300) detail = detail.substr(0, 300) + "...";
    }
    std::printf("%s %6llu %-14s %s%s\n", record.value("ts", "").c_str(),
                static_cast<unsigned long long>(record.value("seq", 0ull)), ev.c_str(), detail.c_str(),
                check.ok ? "" : "  [NOT VERIFIED]");
  };
  std::string line;
  for (;;) {
    while (std::getline(in, line)) {
      if (in.eof()) break;  // an incomplete line: wait for the rest when following
      show(line);
    }
    if (!follow) {
      if (!line.empty() && in.eof()) show(line);
      break;
    }
    in.clear();
    if (in.eof() || !line.empty()) in.seekg(-static_cast<std::streamoff>(line.size()), std::ios::cur);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return 0;
}

}  // namespace

int run_policy_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "check") return policy_check(std::vector<std::string>(args.begin() + 1, args.end()));
  std::fprintf(stderr, "usage: mcp-warden policy check FILE\n");
  return 2;
}

int run_pins_command(const std::vector<std::string>& args) { return pins_command(args); }

int run_log_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "verify") return log_verify(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "show") return log_show(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "keygen") return log_keygen(std::vector<std::string>(args.begin() + 1, args.end()));
  std::fprintf(stderr, "usage: mcp-warden log show|verify FILE... | log keygen --out PREFIX\n");
  return 2;
}

}  // namespace warden::app
