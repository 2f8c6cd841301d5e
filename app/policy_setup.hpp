#pragma once
// The proxy's policy options (--policy, --audit-log, --audit-sign-key, --audit-syslog, --mode,
// --lockfile, --pin) and the runtime they build: the audit log (and its syslog shipper) and the
// policy inspector, plus the session start/end records.
// Single-threaded use from run_proxy; the audit log has its own writer thread.
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "analysis/surface.hpp"
#include "proxy/inspection.hpp"
#include "proxy/session.hpp"

namespace CLI {
class App;
}

namespace warden::metrics {
struct warden_metrics;
}

namespace warden::proxy {
class audit_log;
class checkpoint_signer;
class policy_inspector;
class syslog_shipper;
}  // namespace warden::proxy

namespace warden::app {

struct policy_settings {
  std::string policy_path;
  std::string audit_log_path;
  std::string mode;  // "", audit, enforce
  std::string lockfile_path;
  std::string pin;  // "", tofu, strict
  std::string audit_sync = "interval";
  std::uint64_t audit_rotate_mb = 64;
  std::string audit_sign_key;  // Ed25519 private key (PEM): signed checkpoints
  std::uint64_t audit_checkpoint_records = 1000;
  std::uint64_t audit_checkpoint_seconds = 60;
  std::string audit_syslog;                   // tcp://HOST:PORT or tls://HOST:PORT
  std::string audit_syslog_ca;                // tls: CA file
  std::uint64_t audit_syslog_spool_mb = 256;  // (--audit-syslog needs --audit-log: enabled() holds)
  // The shipper, one per audit file (serve: started before the first session); else start() starts it.
  std::shared_ptr<proxy::syslog_shipper> audit_shipper;
  // The key, read once when set (serve: before the first session); else start() reads it.
  std::shared_ptr<const proxy::checkpoint_signer> audit_signer;
  // --metrics-listen: verdicts, findings and audit counts are reported here (null: not reported).
  metrics::warden_metrics* metrics = nullptr;
  // Without any of these options the proxy runs exactly as before (no policy inspector). Metrics
  // need the inspector's verdicts: with them alone it runs the default policy in audit mode.
  bool enabled() const {
    return !policy_path.empty() || !audit_log_path.empty() || !mode.empty() || !lockfile_path.empty() || !pin.empty() ||
           !audit_sign_key.empty() || metrics;
  }
};

void add_policy_options(CLI::App& cli, policy_settings& settings);
// The signer --audit-sign-key asks for (null without it): settings.audit_signer when already
// read, else read now. Errors are for the user.
result<std::shared_ptr<const proxy::checkpoint_signer>> audit_signer(const policy_settings& settings);
// The shipper --audit-syslog asks for (null without it): settings.audit_shipper when already
// started, else its spool is opened and it starts now. Errors are for the user.
result<std::shared_ptr<proxy::syslog_shipper>> audit_shipper(const policy_settings& settings);

class policy_runtime {
 public:
  // Loads the policy and the lockfile, opens the audit log; errors are for the user (exit 2).
  static result<std::unique_ptr<policy_runtime>> start(const policy_settings& settings, const std::vector<std::string>& argv);
  ~policy_runtime();

  std::unique_ptr<proxy::inspector> take_inspector();
  void surface_changed(const analysis::server_surface& surface, bool complete);
  void session_ended(const proxy::session_outcome& outcome, const proxy::session_counters& counters);

 private:
  policy_runtime() = default;
  std::shared_ptr<proxy::syslog_shipper> shipper_;  // before audit_: stops after the log closed
  std::unique_ptr<proxy::audit_log> audit_;
  std::unique_ptr<proxy::policy_inspector> owned_;
  proxy::policy_inspector* inspector_ = nullptr;
  std::string session_id_;
  std::string identity_;
};

}  // namespace warden::app
