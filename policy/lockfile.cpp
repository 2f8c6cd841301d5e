#include "policy/lockfile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/canonical_json.hpp"

namespace warden::policy {

using nlohmann::json;

std::string item_key(const std::string& kind, const std::string& name) { return kind + ":" + name; }

std::string_view to_string(item_drift::change what) noexcept {
  switch (what) {
    case item_drift::change::added: return "added";
    case item_drift::change::removed: return "removed";
    case item_drift::change::changed: return "changed";
    case item_drift::change::renamed: return "renamed";
  }
  return "changed";
}

namespace {

json pick(const json& item, std::initializer_list<const char*> fields) {
  json out = json::object();
  if (!item.is_object()) return out;
  for (const char* field : fields)
    if (auto it = item.find(field); it != item.end()) out[field] = *it;
  return out;
}

std::string name_of(const std::string& kind, const json& item) {
  const char* key = kind == "resource" ? "uri" : kind == "resourceTemplate" ? "uriTemplate"
                                                                            : "name";
  if (!item.is_object()) return {};
  const auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

pinned_item pin_item(const std::string& kind, const json& item) {
  pinned_item pinned;
  pinned.kind = kind;
  pinned.name = name_of(kind, item);
  if (kind == "tool")
    pinned.definition = pick(item, {"name", "title", "description", "inputSchema", "outputSchema", "annotations"});
  else if (kind == "prompt")
    pinned.definition = pick(item, {"name", "title", "description", "arguments"});
  else if (kind == "resource")
    pinned.definition = pick(item, {"uri", "name", "title", "description", "mimeType"});
  else if (kind == "resourceTemplate")
    pinned.definition = pick(item, {"uriTemplate", "name", "title", "description", "mimeType"});
  else
    pinned.definition = item;  // instructions: the string itself
  pinned.digest = "sha256:" + base::sha256_hex(base::canonical_json(pinned.definition));
  return pinned;
}

std::vector<pinned_item> pin_surface(const analysis::server_surface& surface) {
  std::vector<pinned_item> items;
  if (surface.instructions) items.push_back(pin_item("instructions", json(*surface.instructions)));
  for (const auto& [kind, list] : {std::pair<const char*, const json*>{"tool", &surface.tools},
                                   {"prompt", &surface.prompts},
                                   {"resource", &surface.resources},
                                   {"resourceTemplate", &surface.resource_templates}}) {
    if (!list->is_array()) continue;
    for (const auto& item : *list) items.push_back(pin_item(kind, item));
  }
  return items;
}

namespace {

void diff_into(const json& before, const json& after, const std::string& path, std::vector<field_change>& out) {
  if (before == after) return;
  if (before.is_object() && after.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : before.items()) keys.insert(k);
    for (const auto& [k, v] : after.items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string child = path.empty() ? k : path + "." + k;
      const json b = before.contains(k) ? before[k] : json();
      const json a = after.contains(k) ? after[k] : json();
      diff_into(b, a, child, out);
    }
    return;
  }
  out.push_back({path.empty() ? "(value)" : path, before, after});
}

}  // namespace

std::vector<field_change> diff_fields(const json& before, const json& after) {
  std::vector<field_change> out;
  diff_into(before, after, "", out);
  return out;
}

std::vector<item_drift> diff_pins(const server_pins& pinned, const std::vector<pinned_item>& current) {
  std::vector<item_drift> drift;
  std::map<std::string, const pinned_item*> now;
  for (const auto& item : current) now[item_key(item.kind, item.name)] = &item;

  std::vector<const pinned_item*> removed, added;
  for (const auto& [key, item] : pinned.items) {
    auto it = now.find(key);
    if (it == now.end()) {
      removed.push_back(&item);
    } else if (it->second->digest != item.digest) {
      drift.push_back({item_drift::change::changed, item.kind, item.name, {}, diff_fields(item.definition, it->second->definition)});
    }
  }
  for (const auto& [key, item] : now)
    if (!pinned.items.count(key)) added.push_back(item);

  // Renames: same kind, same definition once the naming member is set aside.
  auto without_name = [](const pinned_item& item) {
    json d = item.definition;
    if (d.is_object()) {
      d.erase("name");
      d.erase("uri");
      d.erase("uriTemplate");
    }
    return d;
  };
  for (auto a = added.begin(); a != added.end();) {
    bool matched = false;
    for (auto r = removed.begin(); r != removed.end(); ++r) {
      if ((*r)->kind == (*a)->kind && without_name(**r) == without_name(**a)) {
        drift.push_back({item_drift::change::renamed, (*a)->kind, (*a)->name, (*r)->name,
                         diff_fields((*r)->definition, (*a)->definition)});
        removed.erase(r);
        matched = true;
        break;
      }
    }
    if (matched) {
      a = added.erase(a);
    } else {
      ++a;
    }
  }
  for (const auto* item : removed) drift.push_back({item_drift::change::removed, item->kind, item->name, {}, {}});
  for (const auto* item : added)
    drift.push_back({item_drift::change::added, item->kind, item->name, {}, diff_fields(json(), item->definition)});
  return drift;
}

json to_json(const lockfile& pins) {
  json servers = json::object();
  for (const auto& [identity, server] : pins.servers) {
    json items = json::object();
    for (const auto& [key, item] : server.items)
      items[key] = {{"kind", item.kind}, {"name", item.name}, {"digest", item.digest}, {"definition", item.definition}};
    servers[identity] = {{"name", server.server_name}, {"pinnedAt", server.pinned_at}, {"items", items}};
    if (!server.pending.empty()) {
      json pending = json::object();
      for (const auto& [key, item] : server.pending)
        pending[key] = {{"kind", item.kind}, {"name", item.name}, {"digest", item.digest}, {"definition", item.definition}};
      servers[identity]["pending"] = {{"seenAt", server.pending_seen_at}, {"items", pending}};
    }
  }
  return {{"version", 1}, {"servers", servers}};
}

result<lockfile> lockfile_from_json(const json& document) {
  lockfile pins;
  if (!document.is_object() || document.value("version", 0) != 1 || !document.contains("servers") ||
      !document["servers"].is_object())
    return error{"not a version 1 lockfile (expected {\"version\":1,\"servers\":{...}})"};
  for (const auto& [identity, server] : document["servers"].items()) {
    if (!server.is_object() || !server.contains("items") || !server["items"].is_object())
      return error{"server '" + identity + "' has no items object"};
    server_pins entry;
    entry.identity = identity;
    entry.server_name = server.value("name", "");
    entry.pinned_at = server.value("pinnedAt", "");
    // Copied: clang 14 cannot capture a structured binding in a lambda.
    const std::string& server_identity = identity;
    auto read_items = [&](const json& list, std::map<std::string, pinned_item>& into) -> std::string {
      for (const auto& [key, item] : list.items()) {
        if (!item.is_object() || !item.contains("digest") || !item["digest"].is_string())
          return "item '" + key + "' of server '" + server_identity + "' has no digest";
        pinned_item pinned;
        pinned.kind = item.value("kind", "");
        pinned.name = item.value("name", "");
        pinned.digest = item["digest"].get<std::string>();
        pinned.definition = item.value("definition", json());
        into[key] = std::move(pinned);
      }
      return {};
    };
    if (auto problem = read_items(server["items"], entry.items); !problem.empty()) return error{problem};
    if (auto p = server.find("pending"); p != server.end() && p->is_object() && p->contains("items") && (*p)["items"].is_object()) {
      entry.pending_seen_at = p->value("seenAt", "");
      if (auto problem = read_items((*p)["items"], entry.pending); !problem.empty()) return error{problem};
    }
    pins.servers[identity] = std::move(entry);
  }
  return pins;
}

result<lockfile> load_lockfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return lockfile{};
    return error{path + ": cannot open the lockfile"};
  }
  std::ostringstream text;
  text << in.rdbuf();
  json document;
  try {
    document = json::parse(text.str());
  } catch (const json::exception& e) {
    return error{path + ": not valid JSON: " + e.what()};
  }
  auto pins = lockfile_from_json(document);
  if (!pins) return error{path + ": " + pins.error_message()};
  return pins;
}

result<bool> save_lockfile(const std::string& path, const lockfile& pins) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc | std::ios::binary);
    out << to_json(pins).dump(2, ' ', false, json::error_handler_t::replace) << '\n';
    out.flush();
    if (!out) return error{temporary + ": cannot write the lockfile"};
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return error{path + ": cannot replace the lockfile: " + ec.message()};
  return true;
}

}  // namespace warden::policy
