#pragma once
// The policy on live traffic: decides every tools/call (allow / deny / ask), hides items from
// listings, refuses calls to hidden or drifted items, scans results, keeps the pins and writes the
// audit trail (one record per request/response pair, with decision, matched rules and latency).
// In audit mode it decides and records but forwards everything unchanged.
// Runs on the session's thread like every inspector; not thread-safe.
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "policy/lockfile.hpp"
#include "policy/policy.hpp"
#include "proxy/audit_log.hpp"
#include "proxy/inspection.hpp"
#include "policy/policy_engine.hpp"

namespace warden::metrics {
class counter;
class histogram;
struct warden_metrics;
}  // namespace warden::metrics

namespace warden::proxy {

struct policy_inspector_options {
  policy::policy rules = policy::default_policy();
  policy::mode mode = policy::mode::audit;
  std::string identity;        // server identity for pins: argv joined, or a URL
  std::string lockfile_path;   // "" = no pinning
  audit_log* audit = nullptr;  // may be null; must outlive the inspector
  std::string session_id;
  metrics::warden_metrics* metrics = nullptr;  // may be null; must outlive the inspector
};

class policy_inspector : public inspector {
 public:
  // Loads the lockfile (a malformed one is an error for the caller to report).
  static result<std::unique_ptr<policy_inspector>> create(policy_inspector_options options);

  std::string_view name() const override { return "policy"; }
  verdict inspect(const message& msg, const message_context& context) override;
  bool needs_document(const message& msg, direction from) const override;

  // The session's surface changed: re-judge items, pin on first sight, report drift.
  void surface_changed(const analysis::server_surface& surface, bool complete);
  // Requests still unanswered when the session ends are recorded as such.
  void session_ended();

  policy_engine& engine() noexcept { return engine_; }

 private:
  explicit policy_inspector(policy_inspector_options options);
  struct pending {
    std::string method;
    std::string tool;
    nlohmann::json id;
    call_arguments arguments;  // tools/call
    call_decision decision;
    bool decided = false;  // a tools/call that went through decide_call
    std::string asked;     // "", or the user's answer: accept / decline / cancel / timeout / no-elicitation
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point relayed;  // later than started when the user was asked
  };
  // What the audit record says of the server's answer.
  struct answer_facts {
    std::size_t bytes = 0;
    bool has_error = false;  // an error response: `error` is its error member
    nlohmann::json error;
    bool is_error = false;  // a result with isError: true
  };
  struct pair_record;  // the audit record of a pending entry, built on the audit writer's thread
  static pending new_entry(const message& msg);
  // A tools/call without its document: nullopt when the text walk cannot be sure (see json_text).
  std::optional<verdict> call_from_text(const message& msg, std::string_view raw);
  verdict on_client_request(const message& msg, const nlohmann::json& doc);
  verdict decide_tool_call(const message& msg, pending entry, std::string tool, call_arguments arguments);
  verdict on_server_response(const message& msg, const message_context& context);
  // The answer to a call, read or get without its document: nullopt (entry untouched) when it
  // must be judged as a document.
  std::optional<verdict> answer_from_text(pending& entry, const message& msg, std::string_view raw);
  verdict on_answer(pending entry, const message& msg, const nlohmann::json& doc, std::size_t bytes);
  void apply_judgement(const pending& entry, const nlohmann::json& id, result_judgement judged, bool is_error,
                       nlohmann::json& extra, verdict& outcome);
  verdict deny_call(const nlohmann::json& id);
  verdict ask_user(const message& msg, pending& entry);
  void record_pair(pending&& entry, answer_facts* answer, nlohmann::json extra);
  void count_call(const pending& entry, bool answered);
  void audit(nlohmann::json event);
  void audit(audit_record event);  // adds the session
  void save_pending(const std::string& server_name, const std::vector<policy::pinned_item>& items);

  policy_inspector_options options_;
  std::shared_ptr<const std::string> session_id_;  // shared with the pair records in the audit queue
  policy_engine engine_;
  policy::lockfile lock_;
  std::string server_name_;
  bool client_can_elicit_ = false;
  std::unordered_map<std::string, pending> pending_;
  std::string last_drift_;    // digest of the last reported drift, so it is reported once
  std::string last_surface_;  // digest of the last recorded surface
  // This server's series, resolved on first use and again when the server's name changes.
  std::array<metrics::counter*, 3> call_counters_{};  // by policy::action
  metrics::histogram* call_duration_ = nullptr;
};

}  // namespace warden::proxy
