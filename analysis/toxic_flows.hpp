#pragma once
// Toxic flows (THREATS.md: the lethal trifecta and its relatives): which combinations of the
// surface's tool capabilities let untrusted input reach private data, an external sink or a
// destructive tool, and the capability level the whole surface gets. Pure and thread-safe.
#include <vector>

#include "analysis/engine.hpp"

namespace warden::analysis {

// Adds each flow to `flows` and a finding for it to `findings`; `multi`: tools are labelled with
// their server.
void flow_checks(const std::vector<tool_capability>& caps, bool multi, std::vector<toxic_flow>& flows, std::vector<finding>& findings);

capability_level level_for(const std::vector<tool_capability>& caps, const std::vector<toxic_flow>& flows);

}  // namespace warden::analysis
