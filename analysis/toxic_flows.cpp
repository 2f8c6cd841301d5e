#include "analysis/toxic_flows.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace warden::analysis {
namespace {

std::string join_limited(const std::vector<std::string>& items, std::size_t limit = 6) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += ", +" + std::to_string(items.size() - limit) + " more";
  return out;
}

}  // namespace

void flow_checks(const std::vector<tool_capability>& caps, bool multi, std::vector<toxic_flow>& flows, std::vector<finding>& findings) {
  std::vector<std::string> untrusted, priv, sinks, destroy;
  std::set<std::string> servers_u, servers_p, servers_s, servers_d;
  for (const auto& c : caps) {
    std::string label = multi ? c.server + "/" + c.tool : c.tool;
    if (c.has(role::untrusted_input)) {
      untrusted.push_back(label);
      servers_u.insert(c.server);
    }
    if (c.has(role::private_data)) {
      priv.push_back(label);
      servers_p.insert(c.server);
    }
    if (c.has(role::external_sink)) {
      sinks.push_back(label);
      servers_s.insert(c.server);
    }
    if (c.has(role::destructive) || c.has(role::code_execution)) {
      destroy.push_back(label);
      servers_d.insert(c.server);
    }
  }
  auto spans = [](std::initializer_list<const std::set<std::string>*> sets) {
    std::set<std::string> all;
    for (auto* s : sets) all.insert(s->begin(), s->end());
    return all.size() > 1;
  };
  bool trifecta = !untrusted.empty() && !priv.empty() && !sinks.empty();
  if (trifecta) {
    toxic_flow f{"flow.lethal-trifecta", severity::high, spans({&servers_u, &servers_p, &servers_s}), untrusted, priv, sinks, {}, {}};
    f.summary = "untrusted input (" + join_limited(untrusted) + ") + private data (" + join_limited(priv) + ") + external sink (" +
                join_limited(sinks) + ")";
    flows.push_back(f);
  }
  if (!untrusted.empty() && !destroy.empty()) {
    toxic_flow f{"flow.untrusted-to-destructive", severity::high, spans({&servers_u, &servers_d}), untrusted, {}, {}, destroy, {}};
    f.summary = "untrusted input (" + join_limited(untrusted) + ") + destructive or code-running tools (" + join_limited(destroy) + ")";
    flows.push_back(f);
  }
  if (!trifecta && !priv.empty() && !sinks.empty()) {
    toxic_flow f{"flow.private-to-sink", severity::medium, spans({&servers_p, &servers_s}), {}, priv, sinks, {}, {}};
    f.summary = "private data (" + join_limited(priv) + ") + external sink (" + join_limited(sinks) + ")";
    flows.push_back(f);
  }
  for (const auto& f : flows)
    findings.push_back({f.rule_id, f.level, 0.7, f.cross_server ? std::string("(several servers)") : std::string(), {}, "surface", f.summary, {}, std::string(f.cross_server ? "across servers: " : "") + f.summary});
}

capability_level level_for(const std::vector<tool_capability>& caps, const std::vector<toxic_flow>& flows) {
  std::uint8_t all = 0;
  for (const auto& c : caps) all |= c.roles;
  auto has = [&](role r) { return all & static_cast<std::uint8_t>(r); };
  bool trifecta = std::any_of(flows.begin(), flows.end(), [](const toxic_flow& f) { return f.rule_id == "flow.lethal-trifecta"; });
  if (has(role::code_execution) || trifecta) return capability_level::critical;
  if (has(role::destructive) || has(role::filesystem_write) || has(role::external_sink)) return capability_level::high;
  if (has(role::private_data) || has(role::untrusted_input)) return capability_level::moderate;
  return capability_level::minimal;
}

}  // namespace warden::analysis
