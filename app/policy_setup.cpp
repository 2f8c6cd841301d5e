#include "app/policy_setup.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <random>
#include <spdlog/spdlog.h>

#include "app/version.hpp"
#include "policy/policy.hpp"
#include "proxy/audit_log.hpp"
#include "proxy/audit_signer.hpp"
#include "proxy/audit_spool.hpp"
#include "proxy/audit_syslog.hpp"
#include "policy/policy_inspector.hpp"
#include "proxy/runtime_text.hpp"
#include "transports/child_process.hpp"

namespace warden::app {

using nlohmann::json;

void add_policy_options(CLI::App& cli, policy_settings& s) {
  cli.add_option("--policy", s.policy_path, "Capability policy file (docs/policy.md); default: the built-in policy");
  auto* audit_log = cli.add_option("--audit-log", s.audit_log_path, "Append the hash-chained audit log (JSON Lines) to FILE");
  cli.add_option("--mode", s.mode, "audit: decide and record only (default) | enforce: act on the decisions")
      ->check(CLI::IsMember({"audit", "enforce"}));
  cli.add_option("--lockfile", s.lockfile_path, "Pin the surface in FILE (rug-pull detection)");
  cli.add_option("--pin", s.pin, "tofu: pin on first sight (default) | strict: hide unpinned items until approved")
      ->check(CLI::IsMember({"tofu", "strict"}));
  cli.add_option("--audit-sync", s.audit_sync, "fdatasync the audit log: never | interval (1 s, default) | always")
      ->check(CLI::IsMember({"never", "interval", "always"}));
  cli.add_option("--audit-rotate-mb", s.audit_rotate_mb, "Rotate the audit log past this size (0: never)")->capture_default_str();
  auto* sign_key = cli.add_option("--audit-sign-key", s.audit_sign_key,
                                  "Sign the audit log: checkpoint records signed with this Ed25519 private key (PEM, mode "
                                  "0600; mcp-warden log keygen)");
  cli.add_option("--audit-checkpoint-records", s.audit_checkpoint_records, "With --audit-sign-key: a checkpoint after this many records")
      ->check(CLI::PositiveNumber)
      ->needs(sign_key)
      ->capture_default_str();
  cli.add_option("--audit-checkpoint-seconds", s.audit_checkpoint_seconds,
                 "With --audit-sign-key: a checkpoint at most this long after an unsigned record")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{366} * 86400))
      ->needs(sign_key)
      ->capture_default_str();
  auto* syslog = cli.add_option("--audit-syslog", s.audit_syslog,
                                "Also ship every audit record to a syslog receiver: tcp://HOST:PORT or tls://HOST:PORT "
                                "(RFC 5424, octet-counted; docs/fleet.md)")
                     ->needs(audit_log);
  cli.add_option("--audit-syslog-ca", s.audit_syslog_ca, "With a tls:// receiver: trust the CA certificates in FILE, not the system store")
      ->needs(syslog);
  cli.add_option("--audit-syslog-spool-mb", s.audit_syslog_spool_mb,
                 "Records the receiver has not confirmed wait in AUDIT-LOG.spool/, up to this size")
      ->check(CLI::PositiveNumber)
      ->needs(syslog)
      ->capture_default_str();
}

result<std::shared_ptr<const proxy::checkpoint_signer>> audit_signer(const policy_settings& settings) {
  if (settings.audit_sign_key.empty() || settings.audit_signer) return settings.audit_signer;
  if (settings.audit_log_path.empty()) return error{"--audit-sign-key needs --audit-log"};
  return proxy::checkpoint_signer::load(settings.audit_sign_key);
}

result<std::shared_ptr<proxy::syslog_shipper>> audit_shipper(const policy_settings& settings) {
  if (settings.audit_syslog.empty() || settings.audit_shipper) return settings.audit_shipper;
  if (settings.audit_log_path.empty()) return error{"--audit-syslog needs --audit-log (records are shipped from that file)"};
  auto target = proxy::parse_syslog_url(settings.audit_syslog);
  if (!target) return error{target.error_message()};
  if (!target->tls && !settings.audit_syslog_ca.empty()) return error{"--audit-syslog-ca needs a tls:// receiver"};
  proxy::spool_options spool;
  spool.audit_path = settings.audit_log_path;
  spool.max_bytes = settings.audit_syslog_spool_mb << 20;
  auto opened = proxy::audit_spool::open(std::move(spool));
  if (!opened) return error{opened.error_message()};
  proxy::syslog_options options;
  options.target = *target;
  options.ca_file = settings.audit_syslog_ca;
  options.identity = proxy::make_syslog_identity(settings.audit_log_path);
  auto shipper = proxy::syslog_shipper::start(std::move(options), std::move(*opened));
  if (!shipper) return error{shipper.error_message()};
  return std::shared_ptr<proxy::syslog_shipper>(std::move(*shipper));
}

result<std::unique_ptr<policy_runtime>> policy_runtime::start(const policy_settings& settings,
                                                              const std::vector<std::string>& argv) {
  std::unique_ptr<policy_runtime> runtime(new policy_runtime());
  auto signer = audit_signer(settings);
  if (!signer) return error{signer.error_message()};
  auto shipper = audit_shipper(settings);
  if (!shipper) return error{shipper.error_message()};
  runtime->shipper_ = std::move(*shipper);
  policy::policy rules = policy::default_policy();
  if (!settings.policy_path.empty()) {
    auto loaded = policy::load_policy(settings.policy_path);
    if (!loaded) return error{loaded.error_message()};
    rules = std::move(*loaded);
  }
  if (settings.pin == "strict") rules.pins.first_sight = policy::pin_mode::strict;
  if (settings.pin == "tofu") rules.pins.first_sight = policy::pin_mode::tofu;
  policy::mode mode = rules.preferred_mode.value_or(policy::mode::audit);
  if (settings.mode == "enforce") mode = policy::mode::enforce;
  if (settings.mode == "audit") mode = policy::mode::audit;

  std::random_device entropy;
  char id[20];
  std::snprintf(id, sizeof id, "%08x%08x", entropy(), entropy());
  runtime->session_id_ = id;
  runtime->identity_ = transports::describe_argv(argv);

  if (!settings.audit_log_path.empty()) {
    proxy::audit_options options;
    options.path = settings.audit_log_path;
    options.rotate_bytes = settings.audit_rotate_mb << 20;
    options.sync = settings.audit_sync == "never"    ? proxy::audit_sync::never
                   : settings.audit_sync == "always" ? proxy::audit_sync::always
                                                     : proxy::audit_sync::interval;
    // Secrets out, sizes capped, on the writer thread (values a peer sent: see audit_record).
    options.redact_secrets = rules.secrets.redact_audit;
    options.max_string = 2048;
    options.max_depth = 12;
    if (runtime->shipper_) options.sink = runtime->shipper_->spool();
    options.signer = *signer;
    options.checkpoint_records = settings.audit_checkpoint_records;
    options.checkpoint_interval = std::chrono::seconds(settings.audit_checkpoint_seconds);
    options.metrics = settings.metrics;
    auto opened = proxy::audit_log::open(std::move(options));
    if (!opened) return error{opened.error_message()};
    runtime->audit_ = std::move(*opened);
  }

  proxy::policy_inspector_options options;
  options.rules = rules;
  options.mode = mode;
  options.identity = runtime->identity_;
  options.lockfile_path = settings.lockfile_path;
  options.audit = runtime->audit_.get();
  options.session_id = runtime->session_id_;
  options.metrics = settings.metrics;
  auto inspector = proxy::policy_inspector::create(std::move(options));
  if (!inspector) return error{inspector.error_message()};
  runtime->owned_ = std::move(*inspector);
  runtime->inspector_ = runtime->owned_.get();

  if (runtime->audit_) {
    runtime->audit_->record({{"event", "session_start"},
                             {"session", runtime->session_id_},
                             {"warden_version", version},
                             {"pid", ::getpid()},
                             {"argv", argv},
                             {"identity", runtime->identity_},
                             {"mode", std::string(policy::to_string(mode))},
                             {"policy", rules.source},
                             {"lockfile", settings.lockfile_path}});
  }
  spdlog::info("policy '{}' in {} mode{}{}{}", rules.source, policy::to_string(mode),
               settings.audit_log_path.empty() ? "" : "; audit log " + settings.audit_log_path,
               *signer ? ", signed by key " + (*signer)->key_id() : "",
               runtime->shipper_ ? ", shipped to " + settings.audit_syslog : "");
  return runtime;
}

policy_runtime::~policy_runtime() {
  if (audit_) audit_->close();
}

std::unique_ptr<proxy::inspector> policy_runtime::take_inspector() { return std::move(owned_); }

void policy_runtime::surface_changed(const analysis::server_surface& surface, bool complete) {
  if (inspector_) inspector_->surface_changed(surface, complete);
}

void policy_runtime::session_ended(const proxy::session_outcome& outcome, const proxy::session_counters& counters) {
  if (inspector_) inspector_->session_ended();
  if (!audit_) return;
  audit_->record({{"event", "session_end"},
                  {"session", session_id_},
                  {"exit_code", outcome.exit_code},
                  {"reason", outcome.reason},
                  {"client_messages", counters.client_messages},
                  {"server_messages", counters.server_messages},
                  {"client_rejected", counters.client_rejected},
                  {"server_dropped", counters.server_dropped},
                  {"inspector_failures", counters.inspector_failures}});
  audit_->close();
  const auto stats = audit_->stats();
  if (stats.not_announced)
    spdlog::error(
        "audit log: {} record(s) could not be written, {} of them not even as a records_dropped count "
        "(the log took no more writes)",
        stats.dropped, stats.not_announced);
  else if (stats.dropped)
    spdlog::warn("audit log: {} record(s) could not be written (recorded as records_dropped)", stats.dropped);
}

}  // namespace warden::app
