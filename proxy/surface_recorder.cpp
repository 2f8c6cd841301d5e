#include "proxy/surface_recorder.hpp"

namespace warden::proxy {

using nlohmann::json;

std::string_view list_method(list_kind kind) {
  switch (kind) {
    case list_kind::tools: return "tools/list";
    case list_kind::prompts: return "prompts/list";
    case list_kind::resources: return "resources/list";
    case list_kind::resource_templates: return "resources/templates/list";
  }
  return {};
}

std::string_view list_result_key(list_kind kind) {
  switch (kind) {
    case list_kind::tools: return "tools";
    case list_kind::prompts: return "prompts";
    case list_kind::resources: return "resources";
    case list_kind::resource_templates: return "resourceTemplates";
  }
  return {};
}

std::optional<list_kind> list_kind_of_method(std::string_view method) {
  for (list_kind kind : all_list_kinds)
    if (list_method(kind) == method) return kind;
  return std::nullopt;
}

std::optional<list_kind> list_kind_of_change(std::string_view method) {
  if (method == "notifications/tools/list_changed") return list_kind::tools;
  if (method == "notifications/prompts/list_changed") return list_kind::prompts;
  if (method == "notifications/resources/list_changed") return list_kind::resources;
  return std::nullopt;
}

bool server_offers(const json& capabilities, list_kind kind) {
  if (!capabilities.is_object()) return false;
  switch (kind) {
    case list_kind::tools: return capabilities.contains("tools");
    case list_kind::prompts: return capabilities.contains("prompts");
    case list_kind::resources:
    case list_kind::resource_templates: return capabilities.contains("resources");
  }
  return false;
}

void surface_recorder::record_initialize(const json& result) {
  if (!result.is_object()) return;
  initialized_ = true;
  auto text = [&](const json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  surface_.protocol_version = text(result, "protocolVersion");
  if (auto it = result.find("capabilities"); it != result.end() && it->is_object())
    surface_.capabilities = *it;
  if (auto it = result.find("serverInfo"); it != result.end() && it->is_object()) {
    surface_.server_info = *it;
    surface_.name = text(*it, "name");
    surface_.version = text(*it, "version");
  }
  if (auto it = result.find("instructions"); it != result.end() && it->is_string())
    surface_.instructions = it->get<std::string>();
  else
    surface_.instructions.reset();
}

json& surface_recorder::target(list_kind kind) {
  switch (kind) {
    case list_kind::tools: return surface_.tools;
    case list_kind::prompts: return surface_.prompts;
    case list_kind::resources: return surface_.resources;
    case list_kind::resource_templates: return surface_.resource_templates;
  }
  return surface_.tools;
}

void surface_recorder::start_listing(list_kind kind, list_source source) {
  pending_[index(kind)][static_cast<std::size_t>(source)] = json::array();
}

bool surface_recorder::add_page(list_kind kind, list_source source, const json& result) {
  json& items = pending_[index(kind)][static_cast<std::size_t>(source)];
  if (!items.is_array()) items = json::array();  // a page we did not see start: begin here
  if (!result.is_object()) return false;
  if (auto page = result.find(list_result_key(kind)); page != result.end() && page->is_array())
    for (const auto& item : *page) items.push_back(item);
  auto cursor = result.find("nextCursor");
  if (cursor != result.end() && cursor->is_string() && !cursor->get_ref<const std::string&>().empty())
    return false;
  target(kind) = std::move(items);
  items = json();
  listed_[index(kind)] = true;
  refused_[index(kind)] = false;
  return true;
}

void surface_recorder::finish_listing_refused(list_kind kind, list_source source) {
  pending_[index(kind)][static_cast<std::size_t>(source)] = json();
  listed_[index(kind)] = true;
  refused_[index(kind)] = true;
}

}  // namespace warden::proxy
