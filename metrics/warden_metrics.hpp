#pragma once
// mcp-warden's own metrics (docs/fleet.md, "Metrics and health"): one set per process, in the
// registry given, which must outlive it. Code that reports takes a pointer to it (null: metrics off).
#include <string_view>

#include "metrics/registry.hpp"

namespace warden::metrics {

struct warden_metrics {
  warden_metrics(registry& r, std::string_view version);

  family<counter>& tool_calls;            // verdict (allow, deny, ask), server
  family<histogram>& tool_call_duration;  // server; seconds from the call relayed to its answer
  family<counter>& findings;              // rule, severity
  counter& audit_records;
  counter& audit_records_lost;
  gauge& audit_queue_depth;
  gauge& sessions_active;
  counter& sessions_opened;
};

}  // namespace warden::metrics
