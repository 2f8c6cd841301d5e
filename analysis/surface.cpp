#include "analysis/surface.hpp"

#include <algorithm>
#include <cctype>

#include "analysis/text.hpp"

namespace warden::analysis {

using nlohmann::json;

json to_manifest(const server_surface& surface) {
  json server = {{"name", surface.name}, {"version", surface.version}};
  if (surface.instructions) server["instructions"] = *surface.instructions;
  if (!surface.protocol_version.empty()) server["protocolVersion"] = surface.protocol_version;
  if (!surface.capabilities.empty()) server["capabilities"] = surface.capabilities;
  if (!surface.identity.empty()) server["identity"] = surface.identity;
  return json{{"server", std::move(server)},
              {"tools", surface.tools},
              {"prompts", surface.prompts},
              {"resources", surface.resources},
              {"resourceTemplates", surface.resource_templates}};
}

namespace {

result<json> array_member(const json& document, const char* key) {
  auto found = document.find(key);
  if (found == document.end() || found->is_null()) return json::array();
  if (!found->is_array()) return error{std::string("manifest member '") + key + "' must be an array"};
  return *found;
}

}  // namespace

std::string text_member(const json& object, const char* key) {
  const auto found = object.is_object() ? object.find(key) : object.end();
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

result<server_surface> from_manifest(const json& document) {
  server_surface surface;
  if (document.is_array()) {
    surface.tools = document;
    return surface;
  }
  if (!document.is_object()) return error{"manifest must be a JSON object or an array of tools"};

  auto server = document.find("server");
  if (server != document.end() && !server->is_null()) {
    if (!server->is_object()) return error{"manifest member 'server' must be an object"};
    surface.name = text_member(*server, "name");
    surface.version = text_member(*server, "version");
    surface.protocol_version = text_member(*server, "protocolVersion");
    surface.identity = text_member(*server, "identity");
    if (auto it = server->find("instructions"); it != server->end() && it->is_string())
      surface.instructions = it->get<std::string>();
    if (auto it = server->find("capabilities"); it != server->end() && it->is_object())
      surface.capabilities = *it;
    surface.server_info = *server;
  }
  // A raw initialize result also carries instructions at top level.
  if (auto it = document.find("instructions"); it != document.end() && it->is_string())
    surface.instructions = it->get<std::string>();

  struct member {
    const char* key;
    json* target;
  };
  for (member m : {member{"tools", &surface.tools}, member{"prompts", &surface.prompts},
                   member{"resources", &surface.resources},
                   member{"resourceTemplates", &surface.resource_templates}}) {
    auto items = array_member(document, m.key);
    if (!items) return error{items.error_message()};
    *m.target = std::move(items.value());
  }
  return surface;
}

std::string member_path(std::string_view key) {
  bool plain = !key.empty() && key.size() < 80 &&
               std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '$'; });
  if (plain) return "." + std::string(key);
  std::string quoted = "[\"";
  quoted += text::make_visible(key, 80);
  quoted += "\"]";
  return quoted;
}

std::string index_path(std::size_t i) { return "[" + std::to_string(i) + "]"; }

}  // namespace warden::analysis
