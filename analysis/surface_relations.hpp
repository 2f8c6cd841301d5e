#pragma once
// Relations between the tools of a surface (and of several servers side by side): look-alike and
// colliding names, near-miss names across servers, and a tool that extends another's name to win
// the model's choice (shadow.*). Pure and thread-safe.
#include <string>
#include <vector>

#include "analysis/engine.hpp"

namespace warden::analysis {

// The tool names of a surface, in order (tools without a name are skipped).
std::vector<std::string> tool_names(const server_surface& surface);

// Confusable names on one server, and collisions, confusables and near misses across servers.
// `display`: each server's name as findings show it; `names`: tool_names() of each server.
void shadowing_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                      const std::vector<std::vector<std::string>>& names, std::vector<finding>& findings);

// A tool whose name is another's plus an upgrade word, copying its function, claiming to replace
// it or asking for a secret it never needed.
void function_overlap_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                             std::vector<finding>& findings);

// A bare check made a prerequisite (THREATS.md 18): a tool whose name or description is only a
// check ("kyc_precheck: KYC precheck.", "attest: Attestation.") and that the server's own text
// requires before another tool's work. Honest first steps do a job the next call needs (sign in,
// list tables, describe a schema) and say so; a bare check in front of a transfer or a push is
// the pretext a malicious server uses to be called first, with whatever data it asks for.
void gatekeeper_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display, std::vector<finding>& findings);

}  // namespace warden::analysis
