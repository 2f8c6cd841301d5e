#include "analysis/engine.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analysis/catalogue.hpp"
#include "base/digest.hpp"
#include "analysis/hidden.hpp"
#include "analysis/injection.hpp"
#include "analysis/intent.hpp"
#include "analysis/param_scope.hpp"
#include "analysis/hidden_orders.hpp"
#include "analysis/snapshots.hpp"
#include "analysis/surface_relations.hpp"
#include "analysis/toxic_flows.hpp"
#include "analysis/roles.hpp"
#include "analysis/schema_pins.hpp"
#include "analysis/json_text.hpp"
#include "analysis/secret_moves.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {

using nlohmann::json;

std::string_view to_string(role r) noexcept {
  switch (r) {
    case role::untrusted_input: return "untrusted-input";
    case role::private_data: return "private-data";
    case role::external_sink: return "external-sink";
    case role::code_execution: return "code-execution";
    case role::destructive: return "destructive";
    case role::filesystem_write: return "filesystem-write";
  }
  return "unknown";
}

std::string_view to_string(capability_level level) noexcept {
  switch (level) {
    case capability_level::minimal: return "minimal";
    case capability_level::moderate: return "moderate";
    case capability_level::high: return "high";
    case capability_level::critical: return "critical";
  }
  return "minimal";
}

namespace {

constexpr int max_schema_depth = 32;
constexpr std::size_t oversized_description = 8000;

// A medium poisoning finding in a text that also hides part of itself is hidden text at work.
void escalate_hidden_order(text_hit& h) {
  if (h.level != severity::medium || !h.rule_id.starts_with("poison.")) return;
  h.level = severity::high;
  h.confidence = std::max(h.confidence, 0.75);
  h.message += "; the text hides part of itself from a reader";
}

// Hidden-text findings that keep words from a human reader (not a stray control byte).
bool hiding_device(std::string_view rule) {
  return rule == "unicode.invisible-format" || rule == "unicode.deceptive-whitespace" || rule == "unicode.bidi-control" ||
         rule == "unicode.mixed-script-word" || rule == "unicode.confusable-identifier" || rule == "unicode.terminal-escape";
}

std::string canonical(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

// Same bytes as canonical(to_manifest(surface)) (object keys sorted), without copying the surface.
std::string canonical_manifest(const server_surface& surface) {
  json server = {{"name", surface.name}, {"version", surface.version}};
  if (surface.instructions) server["instructions"] = *surface.instructions;
  if (!surface.protocol_version.empty()) server["protocolVersion"] = surface.protocol_version;
  if (!surface.capabilities.empty()) server["capabilities"] = surface.capabilities;
  if (!surface.identity.empty()) server["identity"] = surface.identity;
  std::string out = "{\"prompts\":" + canonical(surface.prompts);
  out += ",\"resourceTemplates\":" + canonical(surface.resource_templates);
  out += ",\"resources\":" + canonical(surface.resources);
  out += ",\"server\":" + canonical(server);
  out += ",\"tools\":" + canonical(surface.tools);
  out += "}";
  return out;
}

const std::string* string_member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

struct tool_notes {
  signal_set description_signals;
  std::vector<std::pair<std::string, std::string>> side_params;  // (name, location)
};

// Walks one server surface, inspecting every LLM-visible string.
class surface_walker {
 public:
  surface_walker(const server_surface& surface, std::string server_name, const std::vector<std::string>& siblings,
                 const std::vector<std::string>& foreign, std::vector<finding>& findings, report_stats& stats)
      : surface_(surface), server_(std::move(server_name)), siblings_(siblings), foreign_(foreign), findings_(findings), stats_(stats) {}

  void run() {
    if (surface_.instructions) inspect(*surface_.instructions, "server.instructions", field_role::server_text, "", text_kind::prose);
    if (surface_.server_info.is_object())
      for (auto it = surface_.server_info.begin(); it != surface_.server_info.end(); ++it) {
        if (it.key() == "instructions" || it.key() == "capabilities" || it.key() == "protocolVersion") continue;
        walk_strings(*it, "server" + member_path(it.key()), field_role::server_text, "", 0);
      }
    if (surface_.tools.is_array())
      for (const auto& tool : surface_.tools)
        if (const auto schema = tool.find("inputSchema"); tool.is_object() && schema != tool.end() && schema->is_object())
          if (const auto props = schema->find("properties"); props != schema->end() && props->is_object())
            for (auto p = props->begin(); p != props->end(); ++p) ++param_tools_[squashed_name(p.key())];
    walk_items(surface_.tools, "tools", item_kind::tool);
    walk_items(surface_.prompts, "prompts", item_kind::prompt);
    walk_items(surface_.resources, "resources", item_kind::resource);
    walk_items(surface_.resource_templates, "resourceTemplates", item_kind::resource_template);
  }

 private:
  enum class item_kind { tool,
                         prompt,
                         resource,
                         resource_template };

  void add(std::string_view rule, severity level, double confidence, std::string item, std::string location,
           std::string evidence, std::string message, std::string decoded = {}) {
    findings_.push_back({std::string(rule), level, confidence, server_, std::move(item), std::move(location),
                         std::move(evidence), std::move(decoded), std::move(message)});
  }

  signal_set inspect(std::string_view raw, const std::string& location, field_role role, std::string_view item, text_kind kind) {
    ++stats_.strings_scanned;
    stats_.bytes_scanned += raw.size();
    if (raw.empty()) return {};
    auto hidden = scan_hidden(raw, kind);
    for (auto& h : hidden.hits)
      add(h.rule_id, h.level, h.confidence, std::string(item), location, text::excerpt(raw, h.begin, h.end), h.message,
          h.decoded.substr(0, 400));
    field_context context{role, item, &siblings_, &foreign_, 0, &name_index_, &own_params_, &own_options_};
    if (intent::current_observer()) intent::set_observed_location(location);
    auto result = inspect_injection(raw, context);
    // An order in a text that also hides part of itself from a reader (invisible characters,
    // off-screen whitespace, reordering, look-alike letters) is hidden text at work (THREATS.md 9).
    const bool hides = std::any_of(hidden.hits.begin(), hidden.hits.end(), [](const hidden_hit& h) { return hiding_device(h.rule_id); });
    bool escalated = false;
    for (auto& h : result.hits) {
      if (hides) escalate_hidden_order(h);
      escalated = escalated || (hides && h.level >= severity::high);
      add(h.rule_id, h.level, h.confidence, std::string(item), location, text::excerpt(raw, h.begin, h.end), h.message, h.decoded);
    }
    if (!escalated)
      if (auto order = order_behind_device(raw, hidden, context))
        add("poison.hidden-order", severity::high, 0.85, std::string(item), location, *order, "the text hides part of itself from a reader, and that part tells the model what to do");
    if (!hidden.revealed.empty()) {
      // What only the model can read: analyse it as text and escalate the hidden-text finding.
      auto revealed = inspect_injection(hidden.revealed, context);
      severity worst = severity::info;
      for (auto& h : revealed.hits) {
        worst = std::max(worst, h.level);
        add(h.rule_id, h.level, h.confidence, std::string(item), location,
            "hidden text: " + text::excerpt(hidden.revealed, h.begin, h.end), h.message + " (in invisible characters)",
            hidden.revealed.substr(0, 400));
      }
      if (worst >= severity::medium)
        for (auto& f : findings_)
          if (f.location == location && f.server == server_ &&
              (f.rule_id == "unicode.tag-characters" || f.rule_id == "unicode.variation-selector-payload")) {
            f.level = severity::critical;
            f.message += "; the hidden text gives instructions to the model";
          }
      result.signals |= revealed.signals;
    }
    if (kind == text_kind::prose && role != field_role::result && raw.size() > oversized_description)
      add("hygiene.oversized-text", severity::low, 0.9, std::string(item), location, text::excerpt(raw, 0, 60),
          "text is " + std::to_string(raw.size()) + " bytes long");
    return result.signals;
  }

  void walk_strings(const json& node, const std::string& path, field_role role, std::string_view item, int depth) {
    if (depth > max_schema_depth) return;
    if (node.is_string()) {
      inspect(node.get_ref<const std::string&>(), path, role, item, text_kind::prose);
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) walk_strings(node[i], path + index_path(i), role, item, depth + 1);
    } else if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it) walk_strings(*it, path + member_path(it.key()), role, item, depth + 1);
    }
  }

  // JSON Schema: every string a model sees, property names included; structure keywords skipped.
  void walk_schema(const json& schema, const std::string& path, std::string_view item, int depth, bool in_property,
                   tool_notes* notes) {
    if (depth > max_schema_depth) {
      add("hygiene.weak-schema", severity::low, 0.8, std::string(item), path, {}, "schema nesting deeper than " + std::to_string(max_schema_depth) + " levels was not analysed further");
      return;
    }
    if (!schema.is_object()) return;
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      const std::string& key = it.key();
      const json& value = *it;
      const std::string here = path + member_path(key);
      if (key == "properties" || key == "patternProperties" || key == "$defs" || key == "definitions" ||
          key == "dependentSchemas") {
        if (!value.is_object()) continue;
        for (auto p = value.begin(); p != value.end(); ++p) {
          const std::string prop_path = here + member_path(p.key());
          inspect(p.key(), prop_path, field_role::name, item, text_kind::identifier);
          if (key == "properties" && notes && depth <= 1) check_parameter_name(p.key(), *p, prop_path, item, *notes);
          if (key == "properties")
            if (auto pinned = pinned_by_schema(p.key(), *p))
              add(pinned->rule, severity::high, 0.8, std::string(item), prop_path, pinned->value, pinned->message);
          walk_schema(*p, prop_path, item, depth + 1, key == "properties", notes);
        }
      } else if (key == "items" || key == "additionalProperties" || key == "not" || key == "if" || key == "then" ||
                 key == "else" || key == "contains" || key == "propertyNames" || key == "unevaluatedProperties" ||
                 key == "additionalItems" || key == "unevaluatedItems") {
        if (value.is_array()) {
          for (std::size_t i = 0; i < value.size(); ++i) walk_schema(value[i], here + index_path(i), item, depth + 1, in_property, notes);
        } else {
          walk_schema(value, here, item, depth + 1, in_property, notes);
        }
      } else if (key == "allOf" || key == "anyOf" || key == "oneOf" || key == "prefixItems") {
        if (!value.is_array()) continue;
        for (std::size_t i = 0; i < value.size(); ++i) walk_schema(value[i], here + index_path(i), item, depth + 1, in_property, notes);
      } else if (key == "description" || key == "title" || key == "$comment") {
        walk_strings(value, here, in_property ? field_role::parameter_description : field_role::schema_text, item, depth + 1);
      } else if (key == "type" || key == "$schema" || key == "$id" || key == "$ref" || key == "format" || key == "required" ||
                 key == "$anchor" || key == "$dynamicRef" || key == "contentEncoding" || key == "contentMediaType") {
        continue;  // structure, not prose
      } else {
        // enum, const, default, examples, pattern, x-* and anything unknown: every string leaf.
        walk_strings(value, here, field_role::schema_text, item, depth + 1);
      }
    }
  }

  // Parameters shaped as side channels: named for conversation, the model itself, or covert notes,
  // on tools whose purpose has nothing to do with that.
  void check_parameter_name(const std::string& name, const json& schema, const std::string& path, std::string_view item,
                            tool_notes& notes) {
    auto words = identifier_words(name);
    auto has = [&](std::initializer_list<std::string_view> wanted) {
      for (auto& w : words)
        for (auto x : wanted)
          if (w == x) return true;
      return false;
    };
    std::string lower;
    for (auto& w : words) lower += w;
    bool covert = has({"sidenote", "covert", "exfil", "backdoor", "smuggle", "stealth"}) ||
                  (has({"side"}) && has({"note", "notes", "channel", "info", "data"})) ||
                  (has({"hidden", "secret", "internal"}) && has({"note", "notes", "channel", "context", "instructions", "data", "payload"}));
    bool conversation = (has({"conversation", "chat", "dialog", "dialogue", "transcript"})) ||
                        (has({"previous", "prior", "recent", "all", "full", "past"}) && has({"messages", "prompts", "turns", "context"})) ||
                        (has({"system"}) && has({"prompt", "instructions"})) || lower == "history" || lower == "contextdump" ||
                        lower == "memorydump" || (has({"user"}) && has({"messages", "history", "prompts"}));
    bool model_self = (has({"model", "llm", "assistant", "ai", "agent"}) && has({"name", "id", "identity", "version", "vendor", "provider", "family"})) ||
                      (has({"calling", "caller"}) && has({"model", "llm", "agent", "assistant"}));
    if (!covert && !conversation && !model_self) return;
    // A side channel is a value the model fills in. A switch (boolean, number, closed enum) cannot
    // carry the conversation or the model's identity: "include_transcript: true" asks the server
    // for a document's transcript, it does not ask the model for its own.
    auto type_is = [&](std::string_view wanted) {
      auto t = schema.find("type");
      if (t == schema.end()) return false;
      if (t->is_string()) return t->get<std::string>() == wanted;
      if (t->is_array()) {
        bool all = !t->empty();
        for (const auto& x : *t) all = all && x.is_string() && (x.get<std::string>() == wanted || x.get<std::string>() == "null");
        return all;
      }
      return false;
    };
    if (schema.is_object() && (type_is("boolean") || type_is("integer") || type_is("number") ||
                               (schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty()) ||
                               schema.contains("const")))
      return;
    // What the tool is about: a chat tool may legitimately take a transcript, an ML tool a model id.
    std::string purpose;
    if (owning_tool_) {
      if (auto n = string_member(*owning_tool_, "name")) purpose += *n + " ";
      if (auto d = string_member(*owning_tool_, "description")) purpose += *d;
    }
    auto normal_purpose = text::normalize(purpose);
    std::string lp(normal_purpose.view());
    for (auto& c : lp) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto purpose_has = [&](std::initializer_list<std::string_view> words_) {
      for (auto w : words_)
        if (lp.find(w) != std::string::npos) return true;
      return false;
    };
    if (conversation && purpose_has({"chat", "conversation", "message", "summar", "memory", "transcript", "prompt", "llm",
                                     "dialog", "history", "session", "agent", "assistant"}))
      conversation = false;
    if (model_self && purpose_has({"model", "llm", "inference", "embedding", "completion", "generat", "huggingface", "ai ",
                                   "agent", "assistant", "bot"}))
      model_self = false;
    if (!covert && !conversation && !model_self) return;
    std::string description;
    if (auto d = string_member(schema, "description")) description = *d;
    notes.side_params.emplace_back(name, path);
    const char* why = covert         ? "parameter named as a covert side channel"
                      : conversation ? "parameter collects the conversation on a tool unrelated to it"
                                     : "parameter asks which model is calling, on a tool unrelated to models";
    add("poison.exfil-parameter", covert ? severity::medium : severity::medium, covert ? 0.65 : 0.6, std::string(item), path,
        text::make_visible(name, 80) + (description.empty() ? "" : ": " + text::make_visible(description, 160)), why);
  }

  void walk_items(const json& items, const std::string& base, item_kind kind) {
    if (kind == item_kind::tool) own_params_.clear(), own_options_.clear();
    if (!items.is_array()) return;
    std::set<std::string> seen_names;
    // The server's argument vocabulary, gathered before its texts are read: a text that names one
    // of its fields ("use the object_id field", "follow parent_uuid") names data, not a tool.
    if (kind == item_kind::tool)
      for (const auto& entry : items) collect_property_names(entry, 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const json& entry = items[i];
      const std::string path = base + index_path(i);
      if (!entry.is_object()) {
        add("hygiene.malformed-entry", severity::low, 0.9, "", path, text::make_visible(canonical(entry), 80),
            "entry is not a JSON object");
        continue;
      }
      const std::string* name_ptr = string_member(entry, "name");
      std::string name = name_ptr ? *name_ptr : std::string();
      if (kind == item_kind::tool) {
        ++stats_.tools;
        owning_tool_ = &entry;
      } else if (kind == item_kind::prompt) {
        ++stats_.prompts;
      } else if (kind == item_kind::resource) {
        ++stats_.resources;
      } else {
        ++stats_.resource_templates;
      }
      if (!name_ptr && kind != item_kind::resource && kind != item_kind::resource_template) {
        add("hygiene.malformed-entry", severity::low, 0.9, "", path, {}, "entry has no string 'name'");
      }
      if (name_ptr && (kind == item_kind::tool || kind == item_kind::prompt) && !seen_names.insert(name).second)
        add("hygiene.malformed-entry", severity::low, 0.8, name, path + ".name", text::make_visible(name, 80),
            "two entries share this name; clients may pick either");
      tool_notes notes;
      for (auto it = entry.begin(); it != entry.end(); ++it) {
        const std::string& key = it.key();
        const std::string here = path + member_path(key);
        if (key == "name") {
          if (it->is_string()) inspect(it->get_ref<const std::string&>(), here, field_role::name, name, text_kind::identifier);
        } else if (key == "title" || key == "description") {
          if (it->is_string()) {
            auto s = inspect(it->get_ref<const std::string&>(), here, field_role::tool_description, name, text_kind::prose);
            if (key == "description") notes.description_signals |= s;
          } else {
            walk_strings(*it, here, field_role::tool_description, name, 0);
          }
        } else if (key == "inputSchema" || key == "outputSchema") {
          walk_schema(*it, here, name, 0, false, key == "inputSchema" && kind == item_kind::tool ? &notes : nullptr);
        } else if (key == "annotations") {
          if (it->is_object())
            for (auto a = it->begin(); a != it->end(); ++a)
              walk_strings(*a, here + member_path(a.key()), field_role::annotation, name, 1);
        } else if (key == "arguments" && kind == item_kind::prompt) {
          walk_prompt_arguments(*it, here, name);
        } else if (key == "uri" || key == "uriTemplate") {
          walk_strings(*it, here, field_role::schema_text, name, 0);
        } else if (key == "mimeType" || key == "_meta" || key == "icons" || key == "size") {
          continue;
        } else {
          walk_strings(*it, here, field_role::schema_text, name, 0);
        }
      }
      if (kind == item_kind::tool) tool_checks(entry, path, name, notes);
      if (kind == item_kind::prompt && !string_member(entry, "description"))
        add("hygiene.missing-description", severity::low, 0.9, name, path, {}, "prompt has no description");
    }
    owning_tool_ = nullptr;
  }

  // Every property name and enum value in an item's schemas (squashed_name): a text that names one speaks
  // of the server's own arguments ("the HTTP method to call voice_url with"), not of another tool.
  void collect_property_names(const json& node, int depth) {
    if (depth > max_schema_depth || own_params_.size() > 16384) return;
    if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() == "properties" && it->is_object())
          for (auto p = it->begin(); p != it->end(); ++p) own_params_.insert(squashed_name(p.key()));
        // Enum and const values name the tool's own options ("for analyze_usage operation").
        if (it.key() == "enum" || it.key() == "const")
          for (const auto& v : it->is_array() ? *it : json::array({*it}))
            if (v.is_string() && v.get_ref<const std::string&>().size() < 80) {
              if (it.key() == "enum") own_params_.insert(squashed_name(v.get_ref<const std::string&>()));
              own_options_.insert(squashed_name(v.get_ref<const std::string&>()));
            }
        collect_property_names(*it, depth + 1);
      }
    } else if (node.is_array()) {
      for (const auto& x : node) collect_property_names(x, depth + 1);
    }
  }

  void walk_prompt_arguments(const json& arguments, const std::string& path, std::string_view item) {
    if (!arguments.is_array()) {
      walk_strings(arguments, path, field_role::schema_text, item, 0);
      return;
    }
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      const json& argument = arguments[i];
      const std::string here = path + index_path(i);
      if (!argument.is_object()) continue;
      for (auto it = argument.begin(); it != argument.end(); ++it) {
        if (!it->is_string()) continue;
        field_role r = it.key() == "name" ? field_role::name : field_role::parameter_description;
        inspect(it->get_ref<const std::string&>(), here + member_path(it.key()), r, item,
                it.key() == "name" ? text_kind::identifier : text_kind::prose);
      }
    }
  }

  void tool_checks(const json& tool, const std::string& path, const std::string& name, const tool_notes& notes) {
    const std::string* description = string_member(tool, "description");
    if (!description || description->find_first_not_of(" \t\n") == std::string::npos)
      add("hygiene.missing-description", severity::low, 0.9, name, path, {}, "tool has no description");
    auto schema = tool.find("inputSchema");
    if (schema == tool.end() || !schema->is_object()) {
      add("hygiene.weak-schema", severity::low, 0.9, name, path, {}, "tool has no inputSchema object");
    } else {
      auto type = schema->find("type");
      if (type == schema->end() || !type->is_string() || type->get<std::string>() != "object")
        add("hygiene.weak-schema", severity::low, 0.8, name, path + ".inputSchema", {}, "inputSchema is not of type object");
      if (auto props = schema->find("properties"); props != schema->end() && props->is_object()) {
        for (auto p = props->begin(); p != props->end(); ++p) {
          if (!p->is_object()) continue;
          auto words = identifier_words(p.key());
          bool risky = false;
          for (auto& w : words)
            if (w == "command" || w == "cmd" || w == "script" || w == "path" || w == "url" || w == "uri" || w == "file" ||
                w == "filename" || w == "sql" || w == "code")
              risky = true;
          auto ptype = p->find("type");
          bool is_string = ptype != p->end() && ptype->is_string() && ptype->get<std::string>() == "string";
          bool constrained = p->contains("enum") || p->contains("pattern") || p->contains("const") || p->contains("format") ||
                             p->contains("maxLength");
          if (risky && is_string && !constrained)
            add("hygiene.unconstrained-parameter", severity::low, 0.6, name, path + ".inputSchema.properties" + member_path(p.key()),
                text::make_visible(p.key(), 80), "free-form string parameter for a command, path, URL or code");
          if (ptype == p->end() && !p->contains("anyOf") && !p->contains("oneOf") && !p->contains("allOf") && !p->contains("$ref") &&
              !p->contains("enum") && !p->contains("const"))
            add("hygiene.weak-schema", severity::low, 0.6, name, path + ".inputSchema.properties" + member_path(p.key()),
                text::make_visible(p.key(), 80), "parameter has no type");
        }
      }
    }
    for (const auto& ask : params_beyond_function(tool, param_tools_))
      add(ask.rule, severity::high, 0.8, name, path + ".inputSchema.properties" + member_path(ask.property), ask.evidence,
          "parameter asks for " + ask.what + ", which nothing in the tool's name, description or other arguments involves");
    for (const auto& fixed : fixed_destinations(tool))
      add(fixed.rule, severity::high, 0.8, name, path + (fixed.property.empty() ? ".description" : ".inputSchema.properties" + member_path(fixed.property)),
          fixed.evidence, fixed.message());
    if (const auto move = secret_leaves_for_host(tool)) add(move->rule, severity::high, 0.8, name, path + "." + move->location, move->evidence, move->message);
    // Cross-field: a tool whose description conceals or grabs data and that has a side-channel parameter.
    const auto& s = notes.description_signals;
    auto on = [&](signal x) { return s.test(static_cast<std::size_t>(x)); };
    if (!notes.side_params.empty() && (on(signal::conceal) || on(signal::conceal_weak) || on(signal::oblige_strong) ||
                                       on(signal::convo_self) || on(signal::context_data) || on(signal::move_param))) {
      for (auto& f : findings_)
        if (f.server == server_ && f.rule_id == "poison.exfil-parameter" && f.location.rfind(path + ".", 0) == 0) {
          f.level = severity::high;
          f.confidence = 0.85;
          f.message += "; the tool description pushes the model to fill it";
        }
    }
    // Annotations are claims: compare them with what the name says the tool does.
    roles.emplace_back(name, infer_roles(tool));
    const auto& inferred = roles.back().second;
    if (auto annotations = tool.find("annotations"); annotations != tool.end() && annotations->is_object()) {
      auto flag = [&](const char* key) -> int {
        auto it = annotations->find(key);
        if (it == annotations->end() || !it->is_boolean()) return -1;
        return it->get<bool>() ? 1 : 0;
      };
      const std::uint8_t writes = static_cast<std::uint8_t>(role::destructive) | static_cast<std::uint8_t>(role::filesystem_write) |
                                  static_cast<std::uint8_t>(role::code_execution) | static_cast<std::uint8_t>(role::external_sink);
      if (flag("readOnlyHint") == 1 && (inferred.name_roles & writes)) {
        std::string what;
        for (role r : all_roles)
          if (inferred.name_roles & writes & static_cast<std::uint8_t>(r)) what += (what.empty() ? "" : ", ") + std::string(to_string(r));
        // Clients run read-only tools without asking: on a tool named to delete, the claim removes the check.
        const bool destroys = name_says_it_destroys(name);
        add("capability.annotation-mismatch", destroys ? severity::high : severity::medium, destroys ? 0.85 : 0.75, name,
            path + ".annotations.readOnlyHint", "readOnlyHint: true", "claims to be read-only but its name says " + what);
      }
      if (flag("destructiveHint") == 0 && (inferred.name_roles & static_cast<std::uint8_t>(role::destructive)) && flag("readOnlyHint") != 1)
        add("capability.annotation-mismatch", severity::low, 0.6, name, path + ".annotations.destructiveHint", "destructiveHint: false",
            "claims not to be destructive but its name says it deletes or resets");
      if (flag("openWorldHint") == 0 && (inferred.name_roles & static_cast<std::uint8_t>(role::untrusted_input)) &&
          (inferred.name_roles & static_cast<std::uint8_t>(role::private_data)) == 0)
        add("capability.annotation-mismatch", severity::low, 0.5, name, path + ".annotations.openWorldHint", "openWorldHint: false",
            "claims a closed world but its name says it reads outside content");
    }
  }

  const server_surface& surface_;
  std::string server_;
  const std::vector<std::string>& siblings_;
  const std::vector<std::string>& foreign_;
  const tool_name_index name_index_{&siblings_, &foreign_};
  std::vector<finding>& findings_;
  report_stats& stats_;
  const json* owning_tool_ = nullptr;
  std::unordered_set<std::string> own_params_;        // of the server's tools (all of them), as squashed_name()
  std::unordered_set<std::string> own_options_;       // their enum and const values alone
  std::unordered_map<std::string, int> param_tools_;  // top-level property name (squashed_name) -> tools that take it

 public:
  std::vector<std::pair<std::string, role_inference>> roles;  // per tool, in order
};

int severity_rank(severity s) { return static_cast<int>(s); }

}  // namespace

char grade_for(int score) noexcept {
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 65) return 'C';
  if (score >= 50) return 'D';
  return 'F';
}

bool is_flagged(const trust_score& trust) noexcept { return trust.grade != 'A' && trust.grade != 'B'; }

trust_score score_findings(const std::vector<finding>& findings) {
  // Penalty per finding = weight(severity) x confidence; repeats of one rule count 30% each, so a
  // hundred identical low findings cannot sink an honest server while distinct signals add up.
  auto weight = [](severity s) {
    switch (s) {
      case severity::critical: return 60.0;
      case severity::high: return 35.0;
      case severity::medium: return 12.0;
      case severity::low: return 3.0;
      case severity::info: return 0.0;
    }
    return 0.0;
  };
  std::vector<const finding*> threats;
  for (const auto& f : findings)
    if (const auto* rule = find_rule(f.rule_id); rule && rule->threat) threats.push_back(&f);
  std::sort(threats.begin(), threats.end(), [&](const finding* a, const finding* b) {
    return weight(a->level) * a->confidence > weight(b->level) * b->confidence;
  });
  std::map<std::string, int> seen;
  double penalty = 0;
  int cap = 100;
  for (const finding* f : threats) {
    double p = weight(f->level) * std::clamp(f->confidence, 0.0, 1.0);
    penalty += seen[f->rule_id]++ == 0 ? p : 0.3 * p;
    // One confident high or critical finding decides the grade on its own (see docs/scoring.md).
    if (f->level == severity::critical && f->confidence >= 0.7) cap = std::min(cap, 49);
    else if (f->level == severity::high && f->confidence >= 0.7) cap = std::min(cap, 79);
  }
  int score = static_cast<int>(std::lround(std::max(0.0, 100.0 - penalty)));
  score = std::min(score, cap);
  // Medium and low findings are reported, not verdicts: on their own, however many, they cannot
  // flag a server (grade C or worse needs a high or critical finding; docs/scoring.md).
  const bool any_high = std::any_of(threats.begin(), threats.end(), [](const finding* f) { return f->level >= severity::high; });
  if (!any_high) score = std::max(score, 80);
  return {score, grade_for(score)};
}

analysis_report analyse(const std::vector<server_input>& servers) {
  analysis_report report;
  report.stats.servers = servers.size();
  report.live = !servers.empty();
  std::vector<std::string> display;
  std::vector<std::vector<std::string>> names;
  std::set<std::string> used;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    std::string name = servers[i].surface.name.empty() ? "server" + std::to_string(i + 1) : servers[i].surface.name;
    name = text::make_visible(name, 80);
    while (!used.insert(name).second) name += "#" + std::to_string(i + 1);
    display.push_back(name);
    names.push_back(tool_names(servers[i].surface));
  }
  // A later snapshot of a server replaces the earlier one: the two are one server, not rivals, and
  // the cross-server checks read the latest snapshot of each.
  const std::vector<std::size_t> earlier = earlier_snapshots(servers);
  std::vector<std::size_t> lineage(servers.size());
  std::vector<bool> superseded(servers.size(), false);
  for (std::size_t i = 0; i < servers.size(); ++i) {
    lineage[i] = earlier[i] == no_earlier_snapshot ? i : lineage[earlier[i]];
    if (earlier[i] != no_earlier_snapshot) superseded[earlier[i]] = true;
  }
  std::string canonical_all = "[";
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const auto& surface = servers[i].surface;
    std::vector<std::string> foreign;
    for (std::size_t j = 0; j < servers.size(); ++j)
      if (lineage[j] != lineage[i] && !superseded[j]) foreign.insert(foreign.end(), names[j].begin(), names[j].end());
    std::size_t first_finding = report.findings.size();
    report_stats before = report.stats;
    surface_walker walker(surface, servers.size() > 1 ? display[i] : std::string(), names[i], foreign, report.findings, report.stats);
    walker.run();
    if (servers.size() > 1)
      for (std::size_t k = first_finding; k < report.findings.size(); ++k) report.findings[k].server = display[i];
    std::string manifest = canonical_manifest(surface);
    if (i) canonical_all += ",";
    canonical_all += manifest;
    server_summary summary;
    summary.name = display[i];
    summary.version = surface.version;
    summary.identity = surface.identity;
    summary.source = servers[i].source;
    summary.live = surface.live;
    summary.digest = base::sha256_hex(manifest);
    summary.tools = report.stats.tools - before.tools;
    summary.prompts = report.stats.prompts - before.prompts;
    summary.resources = report.stats.resources - before.resources;
    summary.resource_templates = report.stats.resource_templates - before.resource_templates;
    summary.trust = score_findings(std::vector<finding>(report.findings.begin() + static_cast<std::ptrdiff_t>(first_finding), report.findings.end()));
    report.servers.push_back(std::move(summary));
    report.live = report.live && surface.live;
    for (auto& [tool_name, inferred] : walker.roles) {
      tool_capability cap;
      cap.server = display[i];
      cap.tool = tool_name;
      cap.roles = inferred.roles;
      cap.reasons = std::move(inferred.reasons);
      report.capabilities.push_back(std::move(cap));
    }
  }
  auto cross_server_checks = [&](const std::vector<server_input>& in, const std::vector<std::string>& shown,
                                 const std::vector<std::vector<std::string>>& tool_lists) {
    shadowing_checks(in, shown, tool_lists, report.findings);
    function_overlap_checks(in, shown, report.findings);
    gatekeeper_checks(in, shown, report.findings);
  };
  if (std::find(superseded.begin(), superseded.end(), true) == superseded.end()) {
    cross_server_checks(servers, display, names);
  } else {
    std::vector<server_input> latest;
    std::vector<std::string> latest_display;
    std::vector<std::vector<std::string>> latest_names;
    for (std::size_t i = 0; i < servers.size(); ++i)
      if (!superseded[i]) {
        latest.push_back(servers[i]);
        latest_display.push_back(display[i]);
        latest_names.push_back(names[i]);
      }
    cross_server_checks(latest, latest_display, latest_names);
  }
  rug_pull_checks(servers, display, earlier, report.findings);
  flow_checks(report.capabilities, servers.size() > 1, report.flows, report.findings);
  report.capability = level_for(report.capabilities, report.flows);
  canonical_all += "]";
  report.surface_digest = servers.size() == 1 ? report.servers.front().digest : base::sha256_hex(canonical_all);
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const finding& a, const finding& b) {
    if (a.level != b.level) return severity_rank(a.level) > severity_rank(b.level);
    if (a.server != b.server) return a.server < b.server;
    if (a.location != b.location) return a.location < b.location;
    return a.rule_id < b.rule_id;
  });
  report.trust = score_findings(report.findings);
  // Per-server grades in a multi-server scan also carry shadowing findings attributed to them.
  if (servers.size() > 1)
    for (auto& s : report.servers) {
      std::vector<finding> mine;
      for (const auto& f : report.findings)
        if (f.server == s.name) mine.push_back(f);
      s.trust = score_findings(mine);
    }
  return report;
}

namespace {

// Long results are analysed in chunks cut at line or sentence ends: injected instructions are
// local, and a pattern confirmation then never rescans megabytes.
constexpr std::size_t chunk_size = 16384;

std::vector<std::pair<std::size_t, std::size_t>> plan_chunks(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  for (std::size_t begin = 0; begin < text.size() || begin == 0;) {
    std::size_t end = std::min(text.size(), begin + chunk_size);
    if (end < text.size()) {
      // Look for the cut only in the chunk's second half: searching back from `end` through the
      // whole text made a result without line or sentence ends quadratic in its size.
      // (A cut may stand at `end` itself, as before.)
      const std::size_t floor = begin + chunk_size / 2 + 1;
      std::size_t cut = text.substr(floor, end + 1 - floor).rfind('\n');
      if (cut == std::string_view::npos) cut = text.substr(floor, end + 2 - floor).rfind(". ");
      if (cut != std::string_view::npos) end = floor + cut + 1;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    }
    chunks.emplace_back(begin, end);
    if (end >= text.size()) break;
    begin = end;
  }
  return chunks;
}

// Runs task(0) .. task(count - 1) on up to `threads` threads, the caller's included; tasks are
// taken in order, so put the longest first. The first exception is rethrown once all have stopped.
void run_tasks(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // stop handing out work
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, count); ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the caller's own thread does the rest
    }
  }
  work();
  for (auto& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::vector<finding> scan_text(std::string_view text_in, std::string_view location, unsigned max_threads) {
  field_context context{field_role::result, {}, nullptr, nullptr, 0};
  if (intent::current_observer()) intent::set_observed_location(location);
  const auto chunks = plan_chunks(text_in);
  // A long result spreads over the cores: chunks and the hidden-text pass are independent and
  // merged in order (hardware_concurrency() reads /sys on every call: asked once, for long texts).
  unsigned threads = 1;
  if (text_in.size() >= parallel_scan_min) {
    static const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    threads = max_threads ? max_threads : cores;
  }
  hidden_scan hidden;
  std::vector<injection_result> results(chunks.size());
  const auto task = [&](std::size_t i) {
    if (i == 0) hidden = scan_hidden(text_in, text_kind::result);
    else results[i - 1] = inspect_injection(text_in.substr(chunks[i - 1].first, chunks[i - 1].second - chunks[i - 1].first), context);
  };
  if (threads == 1 && chunks.size() == 1) {  // most results: two calls, no task machinery
    task(0);
    task(1);
  } else {
    run_tasks(chunks.size() + 1, threads, task);
  }

  std::vector<finding> out;
  for (auto& h : hidden.hits)
    out.push_back({std::string(h.rule_id), h.level, h.confidence, {}, {}, std::string(location), text::excerpt(text_in, h.begin, h.end), h.decoded.substr(0, 400), h.message});
  std::map<std::string_view, std::size_t> best;  // rule -> index in out: one finding per rule, the strongest
  const auto keep_strongest = [&](const text_hit& h, std::string evidence) {
    finding f{std::string(h.rule_id), h.level, h.confidence, {}, {}, std::string(location), std::move(evidence), h.decoded, h.message};
    const auto [it, fresh] = best.try_emplace(h.rule_id, out.size());
    if (fresh) out.push_back(std::move(f));
    else if (f.level > out[it->second].level) out[it->second] = std::move(f);
  };
  const bool hides = std::any_of(hidden.hits.begin(), hidden.hits.end(), [](const hidden_hit& h) { return hiding_device(h.rule_id); });
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::size_t begin = chunks[c].first;
    for (auto& h : results[c].hits) {
      if (hides) escalate_hidden_order(h);
      keep_strongest(h, text::excerpt(text_in, begin + h.begin, begin + h.end));
    }
  }
  // A JSON result's escaped strings, read as the lines they are.
  if (const auto decoded = escaped_json_strings(text_in); !decoded.empty())
    for (const auto& h : inspect_injection(decoded, context).hits) keep_strongest(h, "decoded JSON: " + text::excerpt(decoded, h.begin, h.end));
  if (!hidden.revealed.empty())
    for (auto& h : inspect_injection(hidden.revealed, context).hits)
      out.push_back({std::string(h.rule_id), h.level, h.confidence, {}, {}, std::string(location), "hidden text: " + text::excerpt(hidden.revealed, h.begin, h.end), hidden.revealed.substr(0, 400), h.message + " (in invisible characters)"});
  std::stable_sort(out.begin(), out.end(), [](const finding& a, const finding& b) { return a.level > b.level; });
  return out;
}

}  // namespace warden::analysis
