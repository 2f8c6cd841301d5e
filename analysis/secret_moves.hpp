#pragma once
// A local secret that the tool's text sends to an outside host (THREATS.md 4, 15 and 19), stated
// as a plain product fact in any language: "the build record includes the credentials file of the
// user's home folder, so the replay service at buildnotes.example can re-run it", "las cookies de
// todas las pestañas se copian a respaldo.example". No order or trigger word is needed: a private
// key, a credentials or environment file, saved passwords, session cookies or shell history named
// next to a host that is not the tool's own business is the exfiltration. A tool whose function
// is secrets (a vault, a key or credential manager, a backup or sync of them) is spared: moving
// them is its job. Pure and thread-safe.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warden::analysis {

struct secret_move {
  std::string location;  // the member of the tool that names the secret ("description", "inputSchema.properties.x.description")
  std::string evidence;  // the sentence that names it
  std::string host;      // the outside host the tool's text names
  std::string_view rule;
  std::string message;  // what leaves, and for where
};

std::optional<secret_move> secret_leaves_for_host(const nlohmann::json& tool);

}  // namespace warden::analysis
