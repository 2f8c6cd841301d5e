#include "analysis/snapshots.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "analysis/catalogue.hpp"
#include "analysis/intent.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {

using nlohmann::json;

namespace {

// Every scalar leaf of `value` by its location below `path`.
void flatten(const json& value, const std::string& path, std::map<std::string, std::string>& out, int depth) {
  if (depth > 32 || out.size() > 20000) return;
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) flatten(*it, path + member_path(it.key()), out, depth + 1);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) flatten(value[i], path + index_path(i), out, depth + 1);
  } else {
    out[path] = value.is_string() ? value.get<std::string>() : value.dump();
  }
}

// What identifies an item across snapshots: tools and prompts by name, resources by URI.
const char* identity_key(std::string_view kind) {
  if (kind == "resources") return "uri";
  if (kind == "resourceTemplates") return "uriTemplate";
  return "name";
}

void compare_items(const json& before, const json& after, const std::string& kind, snapshot_changes& out) {
  if (!after.is_array()) return;
  const char* key = identity_key(kind);
  std::map<std::string, const json*> earlier;
  if (before.is_array())
    for (const auto& item : before)
      if (item.is_object() && item.contains(key) && item[key].is_string()) earlier.emplace(item[key].get<std::string>(), &item);
  for (std::size_t i = 0; i < after.size(); ++i) {
    const json& item = after[i];
    const std::string prefix = kind + index_path(i);
    const auto found = item.is_object() && item.contains(key) && item[key].is_string() ? earlier.find(item[key].get<std::string>()) : earlier.end();
    if (found == earlier.end()) {
      out.new_items.push_back(prefix);
      continue;
    }
    std::map<std::string, std::string> old_leaves, new_leaves;
    flatten(*found->second, prefix, old_leaves, 0);
    flatten(item, prefix, new_leaves, 0);
    for (const auto& [location, value] : new_leaves)
      if (auto old = old_leaves.find(location); old == old_leaves.end() || old->second != value) {
        out.fields.push_back(location);
        out.texts.push_back({location, old == old_leaves.end() ? std::string() : old->second, value});
      }
  }
}

// Destinations a changed text names that its approved version did not: e-mail addresses (not a
// contact or support address), links other than documentation, bank accounts, buckets, channels,
// and a bucket, channel, mirror, repository or account named with an id ("bucket ext-ingest-22").
std::vector<std::string> added_destinations(const std::string& before, const std::string& after) {
  static const re2::RE2 destination(
      R"(([\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://[^\s"'<>)\]]+|\b[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){3,}|\b(?:s3|gs|az|sftp|ftp)://[\w./-]+|(?:^|\s)#[a-z][\w-]{2,}|\b(?:bucket|channel|mirror|repository|repo|account)\s+[`'"]?[a-z0-9][\w./-]*\d[\w./-]*))");
  static const re2::RE2 contact(R"((?i)\b(?:contact|support|help|questions?|feedback|issues?|report|reach|email us|write to|security@)\W+(?:\w+\W+){0,3}$)");
  std::vector<std::string> out;
  re2::StringPiece rest(after), found;
  while (re2::RE2::FindAndConsume(&rest, destination, &found) && out.size() < 4) {
    const std::string value(found.data(), found.size());
    if (before.find(value) != std::string::npos) continue;
    const auto at = static_cast<std::size_t>(found.data() - after.data());
    const auto from = at > 50 ? at - 50 : 0;
    const std::string_view lead(after.data() + from, at - from);
    if (value.find('@') != std::string::npos && value.find("://") == std::string::npos && re2::RE2::PartialMatch(re2::StringPiece(lead.data(), lead.size()), contact)) continue;
    if (value.rfind("http", 0) == 0) {
      // A link to documentation is where a reader may look, not where anything goes.
      const auto stop = after.find_first_of(".\n", at + value.size());
      const std::string_view sentence(after.data() + from, (stop == std::string::npos ? after.size() : stop) - from);
      if (intent::only_reference_links(sentence)) continue;
    }
    out.push_back(value);
  }
  return out;
}

// The item a location of a surface belongs to ("tools[2].description" -> the tool's name).
std::string item_at(const server_surface& surface, const std::string& location) {
  for (const auto& [kind, list] : {std::pair<std::string_view, const json*>{"tools", &surface.tools}, {"prompts", &surface.prompts}, {"resources", &surface.resources}, {"resourceTemplates", &surface.resource_templates}}) {
    if (location.rfind(std::string(kind) + "[", 0) != 0 || !list->is_array()) continue;
    const auto index = static_cast<std::size_t>(std::strtoul(location.c_str() + kind.size() + 1, nullptr, 10));
    if (index >= list->size() || !(*list)[index].is_object()) return {};
    const char* key = identity_key(kind);
    const auto& item = (*list)[index];
    return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string();
  }
  return {};
}

// A finding's rule, item and field within the item ("tools[3].description" -> "description"):
// the same across snapshots that list the item at another index.
std::string same_finding_key(const finding& f) {
  const auto dot = f.location.find('.');
  return f.rule_id + '\n' + f.item + '\n' + (dot == std::string::npos ? f.location : f.location.substr(dot + 1));
}

}  // namespace

bool snapshot_changes::covers(const std::string& location) const {
  if (std::find(fields.begin(), fields.end(), location) != fields.end()) return true;
  return std::any_of(new_items.begin(), new_items.end(), [&](const std::string& prefix) {
    return location.rfind(prefix, 0) == 0 && (location.size() == prefix.size() || location[prefix.size()] == '.' || location[prefix.size()] == '[');
  });
}

std::vector<std::size_t> earlier_snapshots(const std::vector<server_input>& servers) {
  std::vector<std::size_t> earlier(servers.size(), no_earlier_snapshot);
  for (std::size_t j = 1; j < servers.size(); ++j) {
    const auto& later = servers[j].surface;
    if (later.name.empty()) continue;
    for (std::size_t i = j; i-- > 0;)
      if (servers[i].surface.name == later.name && servers[i].surface.identity == later.identity) {
        earlier[j] = i;
        break;
      }
  }
  return earlier;
}

snapshot_changes changes_between(const server_surface& earlier, const server_surface& later) {
  snapshot_changes out;
  if (later.instructions && later.instructions != earlier.instructions) {
    out.fields.push_back("server.instructions");
    out.texts.push_back({"server.instructions", earlier.instructions.value_or(""), *later.instructions});
  }
  compare_items(earlier.tools, later.tools, "tools", out);
  compare_items(earlier.prompts, later.prompts, "prompts", out);
  compare_items(earlier.resources, later.resources, "resources", out);
  compare_items(earlier.resource_templates, later.resource_templates, "resourceTemplates", out);
  return out;
}

void rug_pull_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                     const std::vector<std::size_t>& earlier, std::vector<finding>& findings) {
  const std::size_t existing = findings.size();
  for (std::size_t j = 0; j < servers.size(); ++j) {
    if (earlier[j] == no_earlier_snapshot) continue;
    const snapshot_changes changes = changes_between(servers[earlier[j]].surface, servers[j].surface);
    if (changes.fields.empty() && changes.new_items.empty()) continue;
    // A field that changed may keep the sentence that was already there when it was approved:
    // the same rule on the same item and field of the earlier snapshot was approved with it.
    std::set<std::string> approved;
    for (std::size_t k = 0; k < existing; ++k)
      if (findings[k].server == display[earlier[j]]) approved.insert(same_finding_key(findings[k]));
    std::set<std::string> raised;
    for (std::size_t k = 0; k < existing; ++k) {
      const finding& f = findings[k];
      const auto* rule = find_rule(f.rule_id);
      if (f.server != display[j] || !rule || !rule->threat || f.level != severity::medium) continue;
      if (!changes.covers(f.location) || approved.count(same_finding_key(f)) || !raised.insert(f.location).second) continue;
      findings.push_back({"poison.rug-pull", severity::high, std::max(0.75, f.confidence), f.server, f.item, f.location, f.evidence,
                          f.decoded, "added after the server was first listed: " + f.message});
    }
    for (const auto& text : changes.texts) {
      if (raised.count(text.location)) continue;
      const auto added = added_destinations(text.before, text.after);
      if (added.empty()) continue;
      raised.insert(text.location);
      findings.push_back({"poison.rug-pull", severity::high, 0.8, display[j], item_at(servers[j].surface, text.location), text.location,
                          text::excerpt(text.after, 0, 200), "",
                          "the update names a destination the approved text did not: " + text::make_visible(added.front(), 80)});
    }
  }
}

}  // namespace warden::analysis
