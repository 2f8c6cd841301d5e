#pragma once
// Pins against rug pulls: per server identity (argv or URL), a SHA-256 over the canonical JSON of
// every tool, prompt, resource, template and the instructions. The lockfile keeps the pinned
// definitions too, so drift can be shown field by field. Pure except load/save; not thread-safe.
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "analysis/surface.hpp"

namespace warden::policy {

// One pinned item. kind: "tool", "prompt", "resource", "resourceTemplate", "instructions".
struct pinned_item {
  std::string kind;
  std::string name;           // tool/prompt name, resource uri, template uriTemplate; "" for instructions
  std::string digest;         // "sha256:<hex>" of canonical_json(definition)
  nlohmann::json definition;  // the pinned fields only (see pin_surface)
};

// "tool:read_file"
std::string item_key(const std::string& kind, const std::string& name);

struct server_pins {
  std::string identity;
  std::string server_name;
  std::string pinned_at;                     // ISO 8601 UTC of the last approval
  std::map<std::string, pinned_item> items;  // by item_key
  // What the proxy last saw when it differed from the pins (awaiting `pins approve`); empty if none.
  std::map<std::string, pinned_item> pending;
  std::string pending_seen_at;
};

struct lockfile {
  std::map<std::string, server_pins> servers;  // by identity
};

// The pinnable view of a surface. Tools: name, title, description, inputSchema, outputSchema,
// annotations. Prompts: name, title, description, arguments. Resources: uri, name, title,
// description, mimeType. Templates: uriTemplate, name, title, description, mimeType.
std::vector<pinned_item> pin_surface(const analysis::server_surface& surface);
pinned_item pin_item(const std::string& kind, const nlohmann::json& item);

struct field_change {
  std::string field;      // dotted path inside the definition, e.g. inputSchema.properties.note
  nlohmann::json before;  // null when added
  nlohmann::json after;   // null when removed
};

struct item_drift {
  enum class change { added,
                      removed,
                      changed,
                      renamed } what = change::changed;
  std::string kind;
  std::string name;           // current name (the old one for removed items)
  std::string previous_name;  // renamed: the pinned name
  std::vector<field_change> fields;
};
std::string_view to_string(item_drift::change what) noexcept;

// Differences between pins and the current surface; empty when nothing drifted. A removed and an
// added item of the same kind whose definitions differ only in the name are reported as a rename.
std::vector<item_drift> diff_pins(const server_pins& pinned, const std::vector<pinned_item>& current);
// Per-field differences between two definitions (objects recurse; other values compare whole).
std::vector<field_change> diff_fields(const nlohmann::json& before, const nlohmann::json& after);

// A missing file is an empty lockfile; malformed content is an error naming the file.
result<lockfile> load_lockfile(const std::string& path);
// Atomic replace (write a temporary file, then rename).
result<bool> save_lockfile(const std::string& path, const lockfile& pins);

nlohmann::json to_json(const lockfile& pins);
result<lockfile> lockfile_from_json(const nlohmann::json& document);

}  // namespace warden::policy
