#pragma once
// The confirmed surface of one MCP server: what a running server (or a saved manifest) exposes to
// the model. Plain data; the JSON members hold the items exactly as the server sent them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace warden::analysis {

struct server_surface {
  std::string identity;          // how the server was reached: argv joined for display, or a URL
  std::string name;              // serverInfo.name
  std::string version;           // serverInfo.version
  std::string protocol_version;  // negotiated in initialize ("" when unknown)
  std::optional<std::string> instructions;
  nlohmann::json server_info = nlohmann::json::object();   // the whole serverInfo object
  nlohmann::json capabilities = nlohmann::json::object();  // the server's declared capabilities
  nlohmann::json tools = nlohmann::json::array();
  nlohmann::json prompts = nlohmann::json::array();
  nlohmann::json resources = nlohmann::json::array();
  nlohmann::json resource_templates = nlohmann::json::array();
  bool live = false;  // enumerated from a running server, not read from a file
};

// The manifest shape written by --save-surface and read by `scan --manifest`:
// {server:{name,version,instructions,protocolVersion,capabilities,identity}, tools, prompts,
//  resources, resourceTemplates}
nlohmann::json to_manifest(const server_surface& surface);

// Accepts the manifest shape above, or a raw tools/list result ({"tools":[...]}), or a bare array
// of tools. Errors name the offending member.
result<server_surface> from_manifest(const nlohmann::json& document);

// A JSON object's string member, or "" when it is missing or not a string.
std::string text_member(const nlohmann::json& object, const char* key);

// Locations inside a manifest, as findings give them ("tools[3].inputSchema.properties.note"): a
// member segment is .name when the name is a plain identifier and ["..."] otherwise.
std::string member_path(std::string_view key);
std::string index_path(std::size_t i);

}  // namespace warden::analysis
