#include "metrics/warden_metrics.hpp"

namespace warden::metrics {

namespace {

// Prometheus' default buckets, widened at both ends: a relayed call can take a millisecond, a
// tool that browses or builds a minute.
std::vector<double> call_buckets() { return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}; }

}  // namespace

warden_metrics::warden_metrics(registry& r, std::string_view version)
    : tool_calls(r.counter_family("mcp_warden_tool_calls_total",
                                  "tools/call requests by the policy's verdict (allow, deny, ask) and the server's name",
                                  {"verdict", "server"})),
      tool_call_duration(r.histogram_family("mcp_warden_tool_call_duration_seconds",
                                            "Time from a tools/call relayed to the server to its answer received",
                                            {"server"}, call_buckets())),
      findings(r.counter_family("mcp_warden_findings_total",
                                "Findings of the surface analysis, each time a session analyses a new surface",
                                {"rule", "severity"})),
      audit_records(r.add_counter("mcp_warden_audit_records_total", "Audit records written")),
      audit_records_lost(r.add_counter("mcp_warden_audit_records_lost_total",
                                       "Audit records that could not be written (queue full, write failed)")),
      audit_queue_depth(r.add_gauge("mcp_warden_audit_queue_depth", "Audit records waiting for the writer")),
      sessions_active(r.add_gauge("mcp_warden_sessions_active", "Proxied sessions now running")),
      sessions_opened(r.add_counter("mcp_warden_sessions_opened_total", "Proxied sessions started")) {
  r.gauge_family("mcp_warden_build_info", "Always 1; the version of mcp-warden in a label", {"version"}).with({version}).set(1);
}

}  // namespace warden::metrics
