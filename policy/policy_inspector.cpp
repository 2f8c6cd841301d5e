#include "policy/policy_inspector.hpp"

#include <spdlog/spdlog.h>

#include "analysis/engine.hpp"
#include "base/canonical_json.hpp"
#include "base/timestamp.hpp"
#include "metrics/warden_metrics.hpp"
#include "proxy/runtime_text.hpp"
#include "proxy/surface_recorder.hpp"

namespace warden::proxy {

using namespace protocol;

using namespace std::string_view_literals;

using nlohmann::json;
using policy::action;

namespace {

json response_with_result(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json denied_result() {
  return {{"content", json::array({{{"type", "text"}, {"text", std::string(denied_call_text)}}})}, {"isError", true}};
}

std::optional<item_kind> listed_kind(std::string_view method) {
  if (method == "tools/list") return item_kind::tool;
  if (method == "prompts/list") return item_kind::prompt;
  if (method == "resources/list") return item_kind::resource;
  if (method == "resources/templates/list") return item_kind::resource_template;
  return std::nullopt;
}

json rules_json(const std::vector<std::string>& rules) {
  json out = json::array();
  for (const auto& r : rules) out.push_back(r);
  return out;
}

// The same array as JSON text, for a call record: written as it is when canonical (the writer
// checks), where a document would be built, redacted and serialised on every call.
std::string rules_text(const std::vector<std::string>& rules) {
  std::string out = "[";
  for (const auto& r : rules) {
    if (out.size() > 1) out += ',';
    base::append_json_string(out, r);
  }
  out += ']';
  return out;
}

bool declares_elicitation(const json& capabilities) {
  return capabilities.is_object() && capabilities.contains("elicitation");
}

// Answers whose judgement can be read from the text (see needs_document).
bool judged_from_text(std::string_view method) {
  return method == "tools/call" || method == "resources/read" || method == "prompts/get";
}

}  // namespace

policy_inspector::policy_inspector(policy_inspector_options options)
    : options_(std::move(options)),
      session_id_(std::make_shared<const std::string>(options_.session_id)),
      engine_(options_.rules, options_.mode) {}

result<std::unique_ptr<policy_inspector>> policy_inspector::create(policy_inspector_options options) {
  std::unique_ptr<policy_inspector> self(new policy_inspector(std::move(options)));
  if (!self->options_.lockfile_path.empty()) {
    auto loaded = policy::load_lockfile(self->options_.lockfile_path);
    if (!loaded) return error{loaded.error_message()};
    self->lock_ = std::move(*loaded);
    if (auto it = self->lock_.servers.find(self->options_.identity); it != self->lock_.servers.end())
      self->engine_.set_pins(&it->second);
    else if (self->options_.rules.pins.first_sight == policy::pin_mode::strict)
      self->engine_.set_pins(nullptr);  // nothing approved yet: everything stays hidden
  }
  return self;
}

void policy_inspector::audit(json event) { audit(audit_record::from_json(std::move(event))); }

void policy_inspector::audit(audit_record event) {
  if (!options_.audit) return;
  event.text("session", *session_id_, false);
  options_.audit->record(std::move(event));
}

// --- client -> server ----------------------------------------------------------------------------

bool policy_inspector::needs_document(const message& msg, direction from) const {
  // A tools/call is read from its text: only its arguments are built.
  if (from == direction::client_to_server) return msg.kind == message_kind::request && msg.method != "tools/call"sv;
  switch (msg.kind) {
    case message_kind::notification:
      return false;  // recorded by method
    case message_kind::response: {
      const auto it = pending_.find(msg.key());
      return it != pending_.end() && !judged_from_text(it->second.method);
    }
    default:
      return true;  // a server's request is recorded with its params
  }
}

verdict policy_inspector::inspect(const message& msg, const message_context& context) {
  if (context.from == direction::client_to_server) {
    if (msg.kind != message_kind::request) return verdict::forward();
    if (msg.has_document) return on_client_request(msg, msg.doc);
    // needs_document() said a tools/call: from the text, or as a document when that cannot be sure.
    if (auto decided = call_from_text(msg, context.raw)) return std::move(*decided);
    return on_client_request(msg, parse_document(context.raw));
  }
  if (msg.kind == message_kind::response) return on_server_response(msg, context);
  if (msg.kind == message_kind::request) {
    audit({{"event", "server_request"}, {"method", msg.method}, {"id", msg.id}, {"params", msg.doc.value("params", json())}});
  } else if (msg.kind == message_kind::notification && list_kind_of_change(msg.method)) {
    audit({{"event", "list_changed"}, {"method", msg.method}});
  }
  return verdict::forward();
}

policy_inspector::pending policy_inspector::new_entry(const message& msg) {
  pending entry;
  entry.method = msg.method;
  entry.id = msg.id;
  entry.started = std::chrono::steady_clock::now();
  entry.relayed = entry.started;
  return entry;
}

std::optional<verdict> policy_inspector::call_from_text(const message& msg, std::string_view raw) {
  const std::string_view params = msg.params_text.in(raw);
  std::string_view name, arguments;
  bool plain = json_text::is_object(params);  // else the document path says what to do
  json_text::for_each_member(params, [&](std::string_view key, std::string_view value) {
    if (key == "name") name = value;
    else if (key == "arguments") arguments = value;
    else if (key == "_meta" || key.find('\\') != std::string_view::npos) plain = false;  // capabilities, or unsure
  });
  if (!plain || !json_text::is_string(name)) return std::nullopt;
  std::string storage;
  std::string tool(json_text::string_text(name, storage));
  return decide_tool_call(msg, new_entry(msg), std::move(tool), arguments.empty() ? call_arguments() : call_arguments::from_text(arguments));
}

verdict policy_inspector::on_client_request(const message& msg, const json& doc) {
  static const json no_params = json::object();
  const auto found = doc.find("params");  // read in place: a call's arguments can be large
  const json& params = found != doc.end() ? *found : no_params;
  pending entry = new_entry(msg);
  const std::string& key = msg.key();

  if (msg.method == "initialize" && params.is_object()) {
    client_can_elicit_ = declares_elicitation(params.value("capabilities", json()));
    audit({{"event", "client_initialize"},
           {"clientInfo", params.value("clientInfo", json())},
           {"protocolVersion", params.value("protocolVersion", json())},
           {"elicitation", client_can_elicit_}});
  }
  // Stateless revisions carry the client's capabilities on every request.
  if (params.is_object() && params.contains("_meta") && params["_meta"].is_object()) {
    const json& meta = params["_meta"];
    if (auto caps = meta.find("io.modelcontextprotocol/clientCapabilities"); caps != meta.end())
      client_can_elicit_ = client_can_elicit_ || declares_elicitation(*caps);
  }

  if (msg.method == "tools/call" && params.is_object())
    return decide_tool_call(msg, std::move(entry), params.value("name", ""), params.value("arguments", json::object()));

  if ((msg.method == "prompts/get" || msg.method == "resources/read") && params.is_object()) {
    const item_kind kind = msg.method == "prompts/get" ? item_kind::prompt : item_kind::resource;
    entry.tool = params.value(kind == item_kind::prompt ? "name" : "uri", "");
    const std::string why = engine_.refuse_item(kind, entry.tool);
    if (!why.empty()) {
      entry.decision.what = action::deny;
      entry.decision.reason = why;
      entry.decision.rules = {"surface.hidden"};
      entry.decided = true;
      if (engine_.enforcing()) {
        record_pair(std::move(entry), nullptr, {{"enforced", true}});
        verdict v;
        v.what = verdict::action::block;
        v.reason = why;
        v.more().reply = json::parse(error_response(msg.id, -32602, "mcp-warden: blocked by the security policy"));
        return v;
      }
    }
  }
  pending_[key] = std::move(entry);
  return verdict::forward();
}

verdict policy_inspector::decide_tool_call(const message& msg, pending entry, std::string tool, call_arguments arguments) {
  entry.tool = std::move(tool);
  entry.arguments = std::move(arguments);
  entry.decision = engine_.decide_call(entry.tool, entry.arguments, entry.started);
  entry.decided = true;
  if (engine_.enforcing() && entry.decision.what == action::deny) {
    record_pair(std::move(entry), nullptr, {{"enforced", true}});
    return deny_call(msg.id);
  }
  pending& kept = pending_.insert_or_assign(msg.key(), std::move(entry)).first->second;
  if (engine_.enforcing() && kept.decision.what == action::ask) return ask_user(msg, kept);
  return verdict::forward();
}

verdict policy_inspector::deny_call(const json& id) {
  verdict v;
  v.what = verdict::action::block;
  v.reason = "tools/call denied by policy";
  v.more().reply = response_with_result(id, denied_result());
  return v;
}

verdict policy_inspector::ask_user(const message& msg, pending& entry) {
  const std::string& key = msg.key();
  if (!client_can_elicit_) {
    entry.asked = "no-elicitation";
    entry.decision.what = action::deny;
    entry.decision.reason += " (ask: the client did not declare the elicitation capability, so the call is denied)";
    record_pair(std::move(entry), nullptr, {{"enforced", true}});
    pending_.erase(key);
    return deny_call(msg.id);
  }
  json shown = entry.arguments.document();
  redact_json(shown, true);
  cap_json(shown, 200, 4);
  std::string text = "mcp-warden asks: allow the tool '" + entry.tool + "'";
  if (!server_name_.empty()) text += " of server '" + server_name_ + "'";
  text += " to run with arguments " + shown.dump(-1, ' ', false, json::error_handler_t::replace) + "?";
  if (!entry.decision.ask_text.empty()) text += " Reason: " + entry.decision.ask_text + ".";
  verdict v;
  v.what = verdict::action::ask;
  v.reason = entry.decision.reason;
  v.more().ask_timeout = std::chrono::seconds(options_.rules.ask_timeout_seconds);
  v.more().question = {{"message", text},
                       {"requestedSchema",
                        {{"type", "object"},
                         {"properties", {{"approve", {{"type", "boolean"}, {"title", "Allow this call"}, {"description", "Allow this one call"}}}}},
                         {"required", json::array({"approve"})}}}};
  const json id = msg.id;
  v.more().resume = [this, key, id](const json* answer) -> verdict {
    auto it = pending_.find(key);
    std::string outcome = "timeout";
    bool approved = false;
    if (answer) {
      const json result = answer->value("result", json());
      if (result.is_object()) {
        outcome = result.value("action", "invalid");
        const json content = result.value("content", json::object());
        approved = outcome == "accept" && content.is_object() && content.value("approve", false) == true;
        if (outcome == "accept" && !approved) outcome = "accept-without-approval";
      } else {
        outcome = "error";
      }
    }
    if (it == pending_.end()) return approved ? verdict::forward() : deny_call(id);
    it->second.asked = outcome;
    if (approved) {
      it->second.relayed = std::chrono::steady_clock::now();
      it->second.decision.what = action::allow;
      it->second.decision.reason = "approved by the user (" + it->second.decision.reason + ")";
      return verdict::forward();  // the pair is recorded when the server answers
    }
    it->second.decision.what = action::deny;
    it->second.decision.reason = "the user did not approve (" + outcome + "): " + it->second.decision.reason;
    record_pair(std::move(it->second), nullptr, {{"enforced", true}});
    pending_.erase(it);
    return deny_call(id);
  };
  return v;
}

// --- server -> client ----------------------------------------------------------------------------

verdict policy_inspector::on_server_response(const message& msg, const message_context& context) {
  auto it = pending_.find(msg.key());
  if (it == pending_.end()) return verdict::forward();
  // Taken out of the map as its node: the entry moves once, into its audit record.
  auto node = pending_.extract(it);
  pending& entry = node.mapped();
  if (msg.has_document) return on_answer(std::move(entry), msg, msg.doc, context.raw.size());
  // needs_document() said: a call, read or get, judged from the text unless something must change.
  if (auto judged = answer_from_text(entry, msg, context.raw)) return std::move(*judged);
  return on_answer(std::move(entry), msg, parse_document(context.raw), context.raw.size());
}

std::optional<verdict> policy_inspector::answer_from_text(pending& entry, const message& msg, std::string_view raw) {
  answer_facts facts;
  facts.bytes = raw.size();
  std::optional<result_judgement> judged;
  if (const std::string_view result = msg.result_text.in(raw); !result.empty()) {
    json_text::lookup is_error;
    judged = engine_.judge_result_text(entry.method, result, &is_error);
    if (!judged) return std::nullopt;
    if (is_error.unsure || (!is_error.value.empty() && is_error.value != "true" && is_error.value != "false"))
      return std::nullopt;  // the document path reads it (and fails as it does)
    facts.is_error = is_error.value == "true";
  }
  if (const std::string_view error = msg.error_text.in(raw); !error.empty()) {
    facts.has_error = true;
    facts.error = parse_document(error);
  }
  json extra;  // an object once something is added
  verdict outcome = verdict::forward();
  if (judged) apply_judgement(entry, msg.id, std::move(*judged), facts.is_error, extra, outcome);
  record_pair(std::move(entry), &facts, std::move(extra));
  return outcome;
}

verdict policy_inspector::on_answer(pending entry, const message& msg, const json& doc, std::size_t bytes) {
  const auto result = doc.find("result");
  const bool has_result = result != doc.end();
  answer_facts facts;
  facts.bytes = bytes;
  if (auto error = doc.find("error"); error != doc.end()) {
    facts.has_error = true;
    facts.error = *error;
  }
  facts.is_error = has_result && result->is_object() && result->value("isError", false);
  json extra = json::object();
  verdict outcome = verdict::forward();

  if (entry.method == "initialize" && has_result && result->is_object()) {
    const json info = result->value("serverInfo", json::object());
    server_name_ = info.is_object() ? info.value("name", "") : "";
    engine_.set_server_name(server_name_);
    call_counters_ = {};
    call_duration_ = nullptr;
  }

  if (auto kind = listed_kind(entry.method); kind && has_result && result->is_object()) {
    // Judge the items of this page (cached by digest), then hide what the policy hides.
    analysis::server_surface page;
    page.name = server_name_;
    const char* member = *kind == item_kind::tool ? "tools" : *kind == item_kind::prompt ? "prompts"
                                                          : *kind == item_kind::resource ? "resources"
                                                                                         : "resourceTemplates";
    json& target = *kind == item_kind::tool ? page.tools : *kind == item_kind::prompt ? page.prompts
                                                       : *kind == item_kind::resource ? page.resources
                                                                                      : page.resource_templates;
    target = result->value(member, json::array());
    engine_.judge_items(page);
    std::vector<std::string> removed;
    json filtered = engine_.filter_listing(*kind, *result, removed);
    if (!removed.empty()) {
      extra["hidden"] = removed;
      extra["enforced"] = engine_.enforcing();
      if (engine_.enforcing()) {
        outcome.what = verdict::action::replace;
        outcome.more().replacement = response_with_result(msg.id, std::move(filtered));
        outcome.reason = std::to_string(removed.size()) + " item(s) hidden from " + entry.method;
      }
    }
  }

  if (judged_from_text(entry.method) && has_result)
    apply_judgement(entry, msg.id, engine_.judge_result(entry.method, *result), facts.is_error, extra, outcome);
  record_pair(std::move(entry), &facts, std::move(extra));
  return outcome;
}

void policy_inspector::apply_judgement(const pending& entry, const json& id, result_judgement judged, bool is_error,
                                       json& extra, verdict& outcome) {
  const bool blocked = judged.what == result_judgement::outcome::blocked;
  if (entry.method == "tools/call"sv && !(blocked && engine_.enforcing())) engine_.note_call_result(entry.tool, is_error);
  if (judged.rules.empty() && !judged.changed) return;
  extra["result_rules"] = rules_json(judged.rules);
  extra["result_action"] = blocked ? "block" : judged.what == result_judgement::outcome::sanitized ? "sanitize"
                                                                                                   : "redact";
  if (!judged.reason.empty()) extra["result_reason"] = judged.reason;
  if (judged.removed_invisible + judged.removed_escapes > 0)
    extra["removed"] = {{"invisible", judged.removed_invisible}, {"escapes", judged.removed_escapes}};
  if (judged.secrets_redacted) extra["secrets_redacted"] = judged.secrets_redacted;
  extra["enforced"] = engine_.enforcing();
  if (engine_.enforcing() && judged.changed) {
    outcome.what = verdict::action::replace;
    outcome.reason = "result " + std::string(blocked ? "blocked" : "sanitised") + ": " + judged.reason;
    if (blocked && entry.method != "tools/call")
      outcome.more().replacement = json::parse(error_response(id, -32603, "mcp-warden: the content was withheld by the security policy"));
    else
      outcome.more().replacement = response_with_result(id, std::move(judged.replacement));
  }
}

struct policy_inspector::pair_record final : deferred_record {
  pending entry;
  std::optional<answer_facts> answer;  // none: the request was not forwarded
  json extra;
  std::int64_t latency_us = 0;
  policy::mode mode = policy::mode::audit;
  bool enforcing = false;
  std::shared_ptr<const std::string> session;

  audit_record build() && override {
    // Added in key order, so that sorting them costs one comparison each; the extras come last,
    // and of equal keys the last added is the one written.
    audit_record event;
    const bool call = entry.method == "tools/call"sv;
    if (call && entry.arguments.has_text()) event.json_text("arguments", std::move(entry.arguments).take_text(), true);
    else if (call) event.value("arguments", std::move(entry.arguments).take_document(), true);
    if (!entry.asked.empty()) event.text("asked", std::move(entry.asked), true);
    if (entry.decided) {
      event.text("decision", std::string(policy::to_string(entry.decision.what)), false);
      if (!enforcing) event.flag("enforced", false);
    }
    if (answer && answer->has_error) event.value("error", std::move(answer->error), true);
    event.text("event", call ? "call" : "request", false);
    if (!answer) event.flag("forwarded", false);
    event.value("id", std::move(entry.id), true);
    if (answer && !answer->has_error && answer->is_error) event.flag("is_error", true);
    event.number("latency_us", latency_us);
    event.text("mode", std::string(policy::to_string(mode)), false);
    const bool is_resource = entry.method == "resources/read"sv;
    event.text("method", std::move(entry.method), true);
    if (!entry.tool.empty() && !call && !is_resource) event.text("name", std::move(entry.tool), true);
    if (entry.decided) {
      if (entry.decision.reason.empty() && entry.decision.what == action::allow)
        event.text("reason", std::string(allowed_by_default), false);
      else
        event.text("reason", std::move(entry.decision.reason), true);
    }
    if (answer) event.count("result_bytes", answer->bytes);
    if (entry.decided) {
      event.json_text("rules", rules_text(entry.decision.rules), true);
      if (!entry.decision.secrets.empty()) event.value("secrets", std::move(entry.decision.secrets), true);
    }
    event.text("session", *session, false);
    if (!entry.tool.empty() && call) event.text("tool", std::move(entry.tool), true);
    if (!entry.tool.empty() && is_resource) event.text("uri", std::move(entry.tool), true);
    if (extra.is_object())
      for (auto& [key, value] : extra.get_ref<json::object_t&>()) event.value(key, std::move(value), true);
    return event;
  }
};

// Every finished pair passes record_pair once: each call is counted once, with its final verdict.
void policy_inspector::count_call(const pending& entry, bool answered) {
  if (!options_.metrics || !entry.decided || entry.method != "tools/call"sv) return;
  const auto verdict = static_cast<std::size_t>(entry.decision.what);
  if (verdict >= call_counters_.size()) return;
  auto& calls = call_counters_[verdict];
  if (!calls) calls = &options_.metrics->tool_calls.with({policy::to_string(entry.decision.what), server_name_});
  calls->inc();
  if (!answered) return;
  if (!call_duration_) call_duration_ = &options_.metrics->tool_call_duration.with({server_name_});
  call_duration_->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - entry.relayed).count());
}

void policy_inspector::record_pair(pending&& entry, answer_facts* answer, json extra) {
  count_call(entry, answer != nullptr);
  if (!options_.audit) return;
  // One record per relayed call: the relay only moves what it holds into the queue, the writer
  // thread builds, sorts, redacts and caps the members.
  auto record = std::make_unique<pair_record>();
  record->latency_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - entry.started).count();
  record->entry = std::move(entry);
  if (answer) record->answer = std::move(*answer);
  record->extra = std::move(extra);
  record->mode = engine_.mode();
  record->enforcing = engine_.enforcing();
  record->session = session_id_;
  options_.audit->record(std::move(record));
}

void policy_inspector::surface_changed(const analysis::server_surface& surface, bool complete) {
  engine_.judge_items(surface);
  if (!complete) return;
  // One surface record per distinct surface: digest, counts, findings summary.
  analysis::server_surface pinned_view = surface;
  pinned_view.identity = options_.identity;
  const std::string digest = base::sha256_hex(base::canonical_json(analysis::to_manifest(pinned_view)));
  if (digest != last_surface_) {
    last_surface_ = digest;
    const analysis::analysis_report report = analysis::analyse({analysis::server_input{surface, options_.identity}});
    json counts = json::object();
    json top = json::array();
    for (const auto& f : report.findings) {
      if (options_.metrics) options_.metrics->findings.with({f.rule_id, analysis::to_string(f.level)}).inc();
      counts[std::string(analysis::to_string(f.level))] = counts.value(std::string(analysis::to_string(f.level)), 0) + 1;
      if (top.size() < 20 && f.level >= analysis::severity::medium)
        top.push_back({{"rule", f.rule_id}, {"severity", analysis::to_string(f.level)}, {"location", f.location}});
    }
    audit({{"event", "surface"},
           {"server", {{"name", surface.name}, {"version", surface.version}, {"identity", options_.identity}}},
           {"protocol_version", surface.protocol_version},
           {"surface_digest", report.surface_digest.empty() ? digest : report.surface_digest},
           {"tools", surface.tools.size()},
           {"prompts", surface.prompts.size()},
           {"resources", surface.resources.size()},
           {"resource_templates", surface.resource_templates.size()},
           {"grade", std::string(1, report.trust.grade)},
           {"findings", counts},
           {"top_findings", top}});
  }
  if (options_.lockfile_path.empty()) return;

  const auto items = policy::pin_surface(surface);
  auto it = lock_.servers.find(options_.identity);
  if (it == lock_.servers.end()) {
    if (options_.rules.pins.first_sight == policy::pin_mode::strict) {
      if (last_drift_ != "unpinned") {
        last_drift_ = "unpinned";
        spdlog::warn("strict pinning: server '{}' has no pins; its items stay hidden until 'mcp-warden pins approve'", surface.name);
        audit({{"event", "pins_missing"}, {"identity", options_.identity}, {"items", items.size()}});
        save_pending(surface.name, items);
      }
      return;
    }
    // Trust on first use: pin what we see now.
    policy::server_pins pins;
    pins.identity = options_.identity;
    pins.server_name = surface.name;
    pins.pinned_at = base::utc_timestamp();
    for (const auto& item : items) pins.items[policy::item_key(item.kind, item.name)] = item;
    lock_.servers[options_.identity] = std::move(pins);
    // Re-read before writing: another session may have pinned other servers meanwhile.
    if (auto fresh = policy::load_lockfile(options_.lockfile_path); fresh) {
      fresh->servers[options_.identity] = lock_.servers[options_.identity];
      lock_ = std::move(*fresh);
    }
    if (auto saved = policy::save_lockfile(options_.lockfile_path, lock_); !saved)
      spdlog::error("{}", saved.error_message());
    engine_.set_pins(&lock_.servers[options_.identity]);
    audit({{"event", "pins_created"}, {"identity", options_.identity}, {"items", items.size()}});
    spdlog::info("pinned {} item(s) of server '{}' (trust on first use)", items.size(), surface.name);
    return;
  }
  const auto drift = policy::diff_pins(it->second, items);
  json report = json::array();
  for (const auto& d : drift) {
    json fields = json::array();
    for (const auto& f : d.fields) fields.push_back({{"field", f.field}, {"before", f.before}, {"after", f.after}});
    json entry = {{"change", policy::to_string(d.what)}, {"kind", d.kind}, {"name", d.name}, {"fields", fields}};
    if (!d.previous_name.empty()) entry["previous_name"] = d.previous_name;
    report.push_back(std::move(entry));
  }
  const std::string drift_digest = drift.empty() ? "" : base::sha256_hex(report.dump());
  if (drift_digest == last_drift_) return;
  last_drift_ = drift_digest;
  if (drift.empty()) return;
  save_pending(surface.name, items);
  spdlog::warn("server '{}' drifted from its pins: {} item(s) changed{}", surface.name, drift.size(),
               engine_.enforcing() && options_.rules.pins.hide_drift ? "; they are hidden until approved" : "");
  audit({{"event", "pin_drift"},
         {"rule", "pins.drift"},
         {"severity", "high"},
         {"identity", options_.identity},
         {"enforced", engine_.enforcing() && options_.rules.pins.hide_drift},
         {"drift", report}});
}

// Records what was seen for `pins diff` / `pins approve`, without touching the approved pins.
void policy_inspector::save_pending(const std::string& server_name, const std::vector<policy::pinned_item>& items) {
  auto fresh = policy::load_lockfile(options_.lockfile_path);
  policy::lockfile next = fresh ? std::move(*fresh) : lock_;
  auto& entry = next.servers[options_.identity];
  if (entry.identity.empty()) {
    entry.identity = options_.identity;
    entry.server_name = server_name;
  }
  entry.pending.clear();
  for (const auto& item : items) entry.pending[policy::item_key(item.kind, item.name)] = item;
  entry.pending_seen_at = base::utc_timestamp();
  if (auto saved = policy::save_lockfile(options_.lockfile_path, next); !saved) spdlog::error("{}", saved.error_message());
}

void policy_inspector::session_ended() {
  for (const auto& [key, entry] : pending_) record_pair(pending(entry), nullptr, {{"unanswered", true}});
  pending_.clear();
}

}  // namespace warden::proxy
