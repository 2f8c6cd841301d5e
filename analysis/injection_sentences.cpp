// The evaluator's sentence judgements: what each sentence asks of the model, and whether it reaches
// outside the tool's function.
#include "analysis/injection_evaluator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "analysis/injection_bank.hpp"
#include "analysis/literals.hpp"
#include "analysis/pretexts.hpp"
#include "analysis/secrets.hpp"
#include "analysis/shape_match.hpp"
#include "analysis/text_scans.hpp"
#include "analysis/tool_claims.hpp"

namespace warden::analysis::injection_internal {

using text::lower_ascii;

bool evaluator::name_has_word(std::string_view name, std::initializer_list<std::string_view> words) {
  std::string lowered = lower_ascii(name);
  for (auto& c : lowered)
    if (!ascii_alnum(c)) c = ' ';
  lowered = " " + lowered + " ";
  for (auto w : words)
    if (lowered.find(" " + std::string(w) + " ") != std::string::npos || lowered.find(" " + std::string(w)) != std::string::npos)
      return true;
  return false;
}

// Tool names the sentence mentions: this tool's own, a sibling's, another server's, or an
// identifier it asks to call that no server here has.
const tool_name_index& evaluator::names() const {
  if (context_.names) return *context_.names;
  if (!local_names_) local_names_.emplace(context_.sibling_tools, context_.foreign_tools);
  return *local_names_;
}

void evaluator::tool_reference_features(std::string_view sentence_text, intent::feature_set& on) const {
  using intent::feature;
  if (context_.role == field_role::name) return;
  const auto& index = names();
  const std::string own = lower_ascii(context_.own_name);
  if (!own.empty() || !index.siblings.empty() || !index.foreign.empty()) {
    const auto tokens = identifier_tokens(sentence_text);
    auto names_any = [&](const std::unordered_set<std::string>& known) {
      return std::any_of(tokens.begin(), tokens.end(),
                         [&](const std::string& t) { return t != own && t.size() >= 4 && known.count(t); });
    };
    if (!own.empty() && tokens.count(own)) on.set(intent::index(feature::names_own));
    if (names_any(index.siblings)) on.set(intent::index(feature::names_sibling));
    if (names_any(index.foreign)) on.set(intent::index(feature::names_foreign));
  }
  // Only an identifier joined by '_' or '-' can be a tool the sentence asks to call.
  bool joined = sentence_text.find('_') != std::string_view::npos;
  for (std::size_t i = 1; !joined && i + 1 < sentence_text.size(); ++i)
    joined = sentence_text[i] == '-' && ascii_alnum(sentence_text[i - 1]) && ascii_alnum(sentence_text[i + 1]);
  if (!joined) return;
  static const re2::RE2 called(
      R"((?:\b(?:call|calling|invoke|invoking|use|using|run|running|trigger|via|through|with|until|unless|once|after|before|prior to|go to|goes to)\s+(?:the\s+)?|(?:\(\d\)|\b\d[.)])\s*)[`'"]?([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)[`'"]?)",
      bank_options());
  re2::StringPiece input(sentence_text.data(), sentence_text.size());
  std::string name;
  while (re2::RE2::FindAndConsume(&input, called, &name)) {
    if (name == own || name.find('.') != std::string::npos) continue;                      // file names and hosts are not tools
    if (context_.own_params && context_.own_params->count(squashed_name(name))) continue;  // "until created_at": its own argument
    // "use the object_id field", "with the mcp-do- prefix": a name that is data, not a tool.
    static const re2::RE2 names_data(R"(^\s*(?:field|fields|parameter|param|argument|arg|property|key|column|attribute|value|values|prefix|suffix|flag|option|header|variable|env|type|format|mode|scope|role|permission|grant|claim|label|tag|id)\b)", bank_options());
    if (re2::RE2::PartialMatch(input, names_data)) continue;
    static const re2::RE2 dangling_data(R"(^[-_.]*[`'"]?\s*(?:prefix|suffix|field|parameter|key|flag|option|header|variable)\b)", bank_options());
    if (re2::RE2::PartialMatch(input, dangling_data)) continue;
    // "use `app_id` to invite the bot": a name shaped like a field (a noun ending in _id, _name,
    // _url ...) and not like an action (get_, create_ ...) is data.
    static const re2::RE2 field_shaped(R"([_-](?:id|ids|uuid|uuids|name|names|type|url|urls|path|list|count|at|date|time|code|number|no|email|slug|order|index|status|state|version|label|value|ref|hash|sha|owner|parent|prefix|suffix|dir|file)$)", bank_options());
    static const re2::RE2 action_shaped(
        R"(^(?:get|list|create|update|delete|remove|send|fetch|read|write|run|call|set|add|search|check|verify|validate|init|start|post|upload|download|export|import|sync|log|report|submit|register|auth|login|capture|collect|notify|share|grant|transfer|pay|exec|execute)[_-])",
        bank_options());
    if (re2::RE2::PartialMatch(name, field_shaped) && !re2::RE2::PartialMatch(name, action_shaped)) continue;
    // "reported with the \"built-in\" state": a hyphenated word of two short parts is a word.
    static const re2::RE2 hyphenated_word(R"(^[a-z]{1,6}-[a-z]{1,6}$)", bank_options());
    if (re2::RE2::PartialMatch(name, hyphenated_word) && !re2::RE2::PartialMatch(name, action_shaped)) continue;
    // Docs cite a sibling without the server's prefix ("use list-properties" for
    // "hubspot-list-properties"), and servers list some tools only when the client has a
    // capability ("get-roots-list" beside "get-env"): in the server's own metadata, a name in
    // its siblings' family is one of them.
    bool known = index.is_sibling(name) || index.foreign.count(name);
    if (!known && context_.role != field_role::result) {
      const auto cut = name.find_first_of("-_.");
      known = cut != std::string::npos && index.sibling_families.count(name.substr(0, cut + 1));
      if (known) on.set(intent::index(feature::names_sibling));
    }
    if (!known) {
      on.set(intent::index(feature::names_unknown_tool));
      break;
    }
  }
}

void evaluator::judge_sentences() {
  using intent::feature, intent::index;
  const std::string_view view = norm_.view();
  auto sentences = intent::split_sentences(view);
  if (sentences.empty()) return;
  // The injection signals, located in their sentences.
  const auto& b = bank();
  for (int pattern : matched_) {
    re2::StringPiece whole(view.data(), view.size()), input = whole, capture;
    while (re2::RE2::FindAndConsume(&input, *b.singles[static_cast<std::size_t>(pattern)], &capture)) {
      const auto at = static_cast<std::size_t>(capture.data() - whole.data());
      const auto k = intent::sentence_at(sentences, at);
      if (k != std::string_view::npos) {
        sentences[k].on.set(index(pattern_signal(pattern)));
        const char* stop = view.data() + sentences[k].end;
        if (stop > input.data()) input = re2::StringPiece(stop, static_cast<std::size_t>(whole.data() + whole.size() - stop));
      }
      if (capture.empty()) break;
    }
  }
  located_ = sentences;  // the signals alone, for the arbitrated legacy rules
  intent::add_lexicon_features(view, sentences);
  // "Can include `authorization_code`, `refresh_token`, `password`, ...": a list of a field's
  // values names the values, not a secret for the model to fetch.
  static const re2::RE2 value_list(
      R"(\b(?:can (?:include|be|contain)|one of|any of|possible values|allowed values|valid values|accepted values|supported (?:values|types)|options are|values are)\W*(?:[`'"][\w:/.#-]{1,80}[`'"]\s*,?\s*(?:and|or)?\s*){3,})",
      bank_options());
  // "Supported types: - 1: Multi-line text - 2: Number - 13: Phone number - 22: Geographic
  // location": a numbered list of a field's kinds names kinds of data, it asks for none.
  static const re2::RE2 numbered_kinds(R"((?:(?:^|\s)-\s*\d{1,4}\s*[:=]\s*[^-:\n]{1,40}){4,})", bank_options());
  for (auto& s : sentences) {
    const re2::StringPiece text(view.data() + s.begin, s.end - s.begin);
    if (s.on.test(index(signal::secret_noun)) && re2::RE2::PartialMatch(text, value_list))
      for (auto f : {index(signal::secret_noun), index(signal::quoted_field), index(feature::non_english_grab), index(feature::named_identifier)}) s.on.reset(f);
    if ((s.on.test(index(feature::user_identity)) || s.on.test(index(feature::location_grab))) && re2::RE2::PartialMatch(text, numbered_kinds))
      for (auto f : {index(feature::user_identity), index(feature::location_grab)}) s.on.reset(f);
  }
  // What holds for the whole text and the field it sits in.
  intent::feature_set common;
  auto set_if = [&](bool on, feature f) { if (on) common.set(index(f)); };
  set_if(context_.role == field_role::parameter_description, feature::role_param);
  set_if(context_.role == field_role::schema_text, feature::role_schema);
  set_if(context_.role == field_role::name, feature::role_name);
  set_if(context_.role == field_role::result, feature::role_result);
  set_if(context_.role == field_role::server_text, feature::role_server);
  set_if(context_.role == field_role::tool_description || context_.role == field_role::annotation, feature::role_description);
  set_if(has(conceal) || has(deceive), feature::text_conceal);
  set_if(has(tag_strong) || has(tag_weak) || has(html_comment) || has(role_token), feature::text_tag);
  set_if(has(authority), feature::text_authority);
  set_if(has(oblige_strong), feature::text_oblige_strong);
  set_if(has(address_model), feature::text_address_model);
  set_if(obfuscated_, feature::text_obfuscated);
  set_if(raw_.size() > 2000, feature::long_text);
  const std::string_view own = context_.own_name;
  set_if(name_has_word(own, {"exec", "execute", "run", "shell", "command", "terminal", "bash", "script", "cmd", "process", "spawn", "eval"}),
         feature::own_runs_commands);
  set_if(name_has_word(own, {"send", "post", "email", "mail", "message", "notify", "webhook", "publish", "upload", "slack", "sms", "tweet", "reply", "comment"}),
         feature::own_sends_data);
  set_if(name_has_word(own, {"fetch", "browse", "browser", "navigate", "url", "http", "scrape", "crawl", "web", "download", "request", "curl", "open"}),
         feature::own_fetches_urls);
  for (const auto& s : sentences)
    if (s.on.test(index(feature::error_form))) common.set(index(feature::text_error_form));
  const auto& watcher = intent::current_observer();
  const auto& cut = intent::cutoffs();
  struct best_hit {
    double p;
    std::size_t k;
    bool routing;
  };
  std::map<std::string_view, best_hit> best;
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    auto& s = sentences[k];
    s.on |= common;
    if (k == 0) s.on.set(index(feature::first_sentence));
    // Obfuscated spellings were matched on a de-obfuscated copy of the whole text.
    if (obfuscated_) s.on |= alternative_signals_;
    tool_reference_features(view.substr(s.begin, s.end - s.begin), s.on);
    // "`get_application` and `get_service` accept `reveal: true` to return credentials": the
    // server's own tools, as the subject, described in the third person, are its documentation.
    static const re2::RE2 own_tools_described(
        R"(^\W*(?:[`'"]?[a-z][\w.-]*[`'"]?\s*(?:,|and|or)\s*)*[`'"]?[a-z][\w.-]*[`'"]?\s+(?:accepts?|returns?|takes?|supports?|exposes?|lists?|reports?|shows?|masks?|redacts?|omits?)\b)",
        bank_options());
    if ((s.on.test(index(feature::names_sibling)) || s.on.test(index(feature::names_own))) && !s.on.test(index(feature::names_foreign)) &&
        !s.on.test(index(feature::url)) && !s.on.test(index(feature::email_addr)) && !s.on.test(index(signal::oblige)) &&
        !s.on.test(index(signal::oblige_strong)) && re2::RE2::PartialMatch(re2::StringPiece(view.data() + s.begin, s.end - s.begin), own_tools_described))
      for (auto f : {index(signal::secret_noun), index(feature::probe_word)}) s.on.reset(f);
  }
  // An attack often spreads over two or three sentences (the demand in one, the concealment or
  // the pretext in the next): each sentence also sees a summary of its neighbours.
  std::vector<intent::feature_set> near(sentences.size());
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    intent::feature_set around;
    if (k > 0) around |= sentences[k - 1].on;
    if (k + 1 < sentences.size()) around |= sentences[k + 1].on;
    near[k] = neighbour_summary(around);
  }
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    auto& s = sentences[k];
    s.on |= near[k];
    const std::string_view text = view.substr(s.begin, s.end - s.begin);
    const double p = intent::probability(s.on, text);
    if (watcher) watcher(intent::observed_location(), text, s.on, p);
    // (Only a sentence that would be reported can need the exemption.)
    const bool routing = p >= cut.report && (routes_among_own_tools(s.on, text) || pages_through_results(s.on, text) || marketing_in_data(s.on, text));
    // Advice on which of the server's own tools to use, carrying nothing out of the tool's reach,
    // is documentation: reported at most as medium, and no licence for the legacy rules.
    if (!routing) max_probability_ = std::max(max_probability_, p);
    if (p < cut.report) continue;
    const auto rule = intent::rule_for(s.on);
    auto [it, fresh] = best.try_emplace(rule, best_hit{p, k, routing});
    if (!fresh && p > it->second.p) it->second = {p, k, routing};
  }
  // Below the flag cut-off, the sentences of one field are one piece of weak evidence, however
  // many rules they touch: the strongest stays medium, the others are low.
  double strongest_weak = 0;
  for (const auto& entry : best)
    if (entry.second.routing || entry.second.p < cut.flag) strongest_weak = std::max(strongest_weak, entry.second.p);
  bool weak_reported = false;
  for (const auto& entry : best) {
    const auto& rule = entry.first;
    const auto& hit = entry.second;
    const auto& s = sentences[hit.k];
    // A property name alone is judged by its shape (engine: side-channel names; pretexts: names
    // that are orders), not by the sentence model: "model_id", "agent_name" are ordinary fields.
    // A sentence of metadata that moves data to an address it names, in a tool that does not send
    // or fetch, is a verdict from the report cut-off on: what honest docs share with it is a bare
    // link. (In a result, "invitations sent to ..." reports what was done.)
    const auto on = [&](auto f) { return s.on.test(index(f)); };
    const std::string_view said = view.substr(s.begin, s.end - s.begin);
    const bool telemetry = rule == "poison.exfil-parameter" && disclosed_telemetry(said, view);
    const bool moves_to_an_address =
        rule == "poison.exfil-parameter" && !hit.routing && (on(signal::move_out) || (on(feature::act_send) && (on(feature::url) || on(feature::email_addr) || on(feature::ip_addr)))) &&
        !on(feature::own_sends_data) && !on(feature::own_fetches_urls) && context_.role != field_role::name && context_.role != field_role::result && !telemetry &&
        !gives_an_example_address(said);
    // A schema value written as a placeholder ("you@example.com") shows a format, not a destination.
    bool placeholder = false;
    if (context_.role == field_role::schema_text) {
      std::string_view value = said;
      value.remove_prefix(std::min(value.size(), value.find_first_not_of(" \t\n\"'`")));
      value = value.substr(0, value.find_last_not_of(" \t\n.\"'`") + 1);
      placeholder = shape::placeholder_value(value);
    }
    // "Session expired. Call login_user again to continue.", "Use list_tables before query": an
    // order to call a tool that carries nothing beyond the tool (no secret, address, conversation,
    // command or secrecy, here or next door) and gives no pretext is how errors, paging and usage
    // notes speak; the attack needs its cargo or its pretext.
    const bool bare_call = rule == "poison.forced-sequencing" && !carries_beyond_tools(s.on) && !on(feature::near_secret) &&
                           !on(feature::near_conceal) && !on(feature::pretext_purpose) && !on(feature::system_voice) &&
                           !on(feature::maintenance) && !on(feature::verify_word) && !on(feature::text_authority);
    // "Everything Reference Server": a title-length label that claims a standing but asks nothing
    // is a name; a claim that steers the model's choice is a sentence that tells it something.
    const bool label_claim = rule == "poison.tool-hijack" && std::count(said.begin(), said.end(), ' ') < 5 &&
                             !on(feature::suppress_other) && !on(feature::you_oblige) && !on(feature::imperative_start) &&
                             !on(signal::address_model) && !on(feature::ai_optimised) && !on(signal::oblige) && !on(signal::oblige_strong) &&
                             !on(feature::named_identifier) && !on(feature::names_sibling) && !on(feature::names_foreign) &&
                             !on(feature::names_unknown_tool) && !on(feature::act_send) && !on(feature::act_call) && !on(feature::retired);
    const bool weak = telemetry || placeholder || bare_call || label_claim || (!moves_to_an_address && (hit.routing || hit.p < cut.flag || context_.role == field_role::name || (context_.role != field_role::result && !corroborated(s.on, said))));
    const auto known = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& h) { return h.rule_id == rule; });
    if (known != result_.hits.end()) {
      // A structural rule already named it; a corroborated sentence still raises its level.
      if (!weak && known->level < severity::high) {
        known->level = hit.p >= cut.critical ? severity::critical : severity::high;
        known->confidence = std::min(0.99, 0.7 + 0.3 * hit.p);
      }
      continue;
    }
    const bool lead = weak && !weak_reported && hit.p == strongest_weak;
    if (lead) weak_reported = true;
    // Routing among the server's own tools and bare calls are documentation: low, never medium.
    const bool documentation = hit.routing || bare_call || placeholder;
    const severity level = weak                    ? (lead && !documentation ? severity::medium : severity::low)
                           : hit.p >= cut.critical ? severity::critical
                                                   : severity::high;
    const double confidence = level == severity::medium ? std::min(hit.p, 0.6) : std::min(0.99, 0.7 + 0.3 * hit.p);
    std::string because;
    for (const auto& term : intent::top_terms(s.on, said, 3)) because += (because.empty() ? "" : ", ") + term.name;
    std::string message(intent::describe_rule(rule));
    // Name the other server's tool the sentence is about, as the shape rules do.
    if (on(feature::names_foreign))
      for (const auto& token : identifier_tokens(said))
        if (token.size() >= 4 && names().foreign.count(token)) {
          message += " ('" + token + "')";
          break;
        }
    result_.hits.push_back({rule, level, confidence, norm_.original_offset(s.begin), norm_.original_offset(s.end), {}, message + " (p " + format_probability(hit.p) + ": " + because + ")"});
  }
  self_promotion(sentences);
  intent::feature_set field;  // what the field's sentences hold together: the order in one, the secrecy in the next
  for (const auto& s : sentences) {
    corroborated_ = corroborated_ || corroborated(s.on, view.substr(s.begin, s.end - s.begin));
    field |= s.on;
  }
  corroborated_ = corroborated_ || hides_an_action(field);
  judged_ = std::move(sentences);
}

// What lets a sentence of the model's be a verdict rather than a report: something outside the
// tool's function that the sentence names or does (an address, a secret, the conversation asked
// for, the model's identity, a command, a file, another tool, concealment, an override, a forged
// speaker, a swapped value). Word-level cues alone ("for safety", "maintenance", "available to
// you", "instead of") are what honest documentation shares with attacks: they are reported as
// medium (measured on the real-server set, docs/detection.md).
// Keeping something quiet counts when something is sent, moved, swapped or run with it
// ("silently truncated", "runs in the background" are how tools work).
bool evaluator::hides_an_action(const intent::feature_set& on) {
  using intent::feature, intent::index;
  auto any = [&](std::initializer_list<std::size_t> ids) {
    return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
  };
  return any({index(signal::conceal), index(feature::hide_word), index(feature::non_english_conceal)}) &&
         any({index(feature::act_send), index(signal::move_out), index(signal::move_param), index(signal::redirect_weak),
              index(signal::redirect), index(feature::defaults_change), index(signal::also_sink), index(feature::act_open_url),
              index(signal::seq_global), index(feature::call_first), index(feature::act_call), index(feature::act_exec),
              index(feature::cmd_syntax)});
}

// A sibling named in the text whose name copies this tool's ("read_file" and "read_file_v2",
// "secure_read_file"): a retirement in its favour is the tool-transfer attack, not a changelog.
bool evaluator::names_a_near_copy(std::string_view text) const {
  const std::string own = lower_ascii(context_.own_name);
  if (own.size() < 4 || !context_.sibling_tools) return false;
  const std::string lowered = lower_ascii(text);
  for (const auto& sibling : *context_.sibling_tools) {
    const std::string name = lower_ascii(sibling);
    if (name == own || name.size() <= own.size() || name.find(own) == std::string::npos) continue;
    if (lowered.find(name) != std::string::npos) return true;
  }
  return false;
}

// "Anonymous usage counts are sent to https://...; set DO_NOT_TRACK=1 to turn this off": the
// vendor's own telemetry, disclosed with its opt-out, is a fact for the user, not a demand.
bool evaluator::disclosed_telemetry(std::string_view sentence, std::string_view field) {
  static const re2::RE2 what(R"(\b(?:anonymous|anonymi[sz]ed|aggregated?|usage (?:counts|statistics|stats|data|metrics)|telemetry|crash reports?)\b)", bank_options());
  static const re2::RE2 opt_out(R"(\b(?:opt[- ]out|opt in|turn (?:this |it )?off|disable[ds]?|do_not_track|no_telemetry|telemetry=(?:0|false|off))\b)", bank_options());
  return re2::RE2::PartialMatch(re2::StringPiece(sentence.data(), sentence.size()), what) &&
         re2::RE2::PartialMatch(re2::StringPiece(field.data(), field.size()), opt_out);
}

// "Author's email address (e.g. user@example.com)": an address given as the format of the value.
bool evaluator::gives_an_example_address(std::string_view text) {
  static const re2::RE2 example_value(R"(\b(?:e\.g\.?|eg|for example|for instance|such as|example)\s*[:,(]?\s*["'`]?(?:[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\d{1,3}(?:\.\d{1,3}){3}))", bank_options());
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), example_value);
}

bool evaluator::corroborated(const intent::feature_set& on_sentence, std::string_view text) const {
  using intent::feature, intent::index;
  // "The server reads the kubeconfig from ~/.kube/config on its own host": where the server finds
  // its own configuration is documentation, not a file the model is sent to.
  static const re2::RE2 server_reads_its_own(
      R"(\b(?:the|this)\s+(?:mcp\s+)?(?:server|tool|cli|client|library|process|binary|daemon)\s+(?:itself\s+)?(?:reads|loads|uses|looks (?:for|in|up)|picks up|resolves|finds|falls back to|defaults to|takes)\b)",
      bank_options());
  intent::feature_set on = on_sentence;
  auto any = [&](std::initializer_list<std::size_t> ids) {
    return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
  };
  // (The features first, the patterns only where a feature asks: most sentences have none.)
  const std::initializer_list<std::size_t> own_config_marks = {index(feature::dotfile), index(signal::sensitive_path), index(signal::read_secret), index(signal::env_vars)};
  if (any(own_config_marks) && re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), server_reads_its_own))
    for (auto f : own_config_marks) on.reset(f);
  if (any({index(feature::url), index(feature::email_addr), index(feature::ip_addr)}) && !gives_an_example_address(text)) return true;
  if (any({index(feature::dotfile), index(feature::cmd_syntax),
           index(feature::export_var), index(signal::sensitive_path), index(signal::read_secret), index(signal::user_secret),
           index(signal::phished_secret), index(signal::model_self), index(feature::model_identity), index(feature::user_identity),
           index(feature::location_grab), index(feature::names_foreign), index(feature::names_unknown_tool), index(signal::deceive),
           index(feature::omit_from_answer), index(signal::override_), index(feature::text_obfuscated),
           index(signal::role_token), index(signal::impersonation), index(feature::speaks_as_user), index(signal::claimed_consent),
           index(signal::tag_strong), index(signal::shell_danger), index(signal::url_data), index(signal::move_out), index(signal::redirect),
           index(signal::hijack_strong), index(feature::suppress_other), index(feature::superiority), index(feature::popularity),
           index(feature::ai_optimised), index(feature::non_english_grab), index(signal::secret_noun)}))
    return true;
  // A retirement that sends the model to one of the server's own tools is its changelog.
  if (on.test(index(feature::retired)) && (names_a_near_copy(text) || !(on.test(index(feature::names_sibling)) && !on.test(index(feature::names_foreign)) &&
                                                                        !on.test(index(feature::names_unknown_tool)))))
    return true;
  if (hides_an_action(on)) return true;
  // The conversation, or what the caller holds, only when the sentence asks for it to be passed.
  if (!any({index(feature::summary_of_convo), index(feature::caller_probe), index(signal::history_weak), index(feature::all_data),
            index(signal::convo_self), index(signal::context_data), index(signal::self_context), index(signal::sys_prompt)}))
    return false;
  // Ways of asking that it go into the call: "start `id` with", "prefix the query with", "repeat".
  static const re2::RE2 hand_over(R"(\b(?:include|provide|paste|send|attach|summari[sz]e|pass|fill|put|give|share|copy|add|enter|write|submit|forward|upload|post|list|describe|report|start|begin|prefix|prepend|append|populate|set|insert|place|embed|encode|record|repeat|restate|reproduce|quote|state|reveal|disclose|output|echo|print|dump|supply|type|mention|spell out|relay|transcribe)\b)", bank_options());
  static const re2::RE2 refused(R"(\b(?:do not|don'?t|never|not|avoid|must not|should not)\s+(?:\w+\s+){0,2}(?:include|provide|paste|send|attach|pass|put|give|share|copy|add|enter|write|submit|forward|upload|post|store|log)\b)", bank_options());
  const re2::StringPiece piece(text.data(), text.size());
  return re2::RE2::PartialMatch(piece, hand_over) && !re2::RE2::PartialMatch(piece, refused);
}

// "... 不要告诉用户", "сообщать о нём не нужно", "dit hoeft de gebruiker niet te weten": telling the
// model, in any language, to keep something from the user. The English shapes weigh what is kept
// and why; in another language the rule asks for a concrete thing the text names (an address, a
// path, a tool, an account or a long number) in the same field.
void evaluator::concealed_in_another_language() {
  if (context_.role == field_role::name) return;
  const auto conceals = std::find_if(judged_.begin(), judged_.end(),
                                     [](const intent::sentence& s) { return s.on.test(intent::index(intent::feature::non_english_conceal)); });
  if (conceals == judged_.end()) return;
  static const re2::RE2 concrete(
      R"([\w.+-]+@[\w-]+\.\w|https?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|(?:^|[\s(])[~/][\w.-]+/|\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z]{2}\d{2}(?:\s?\d{4}){3,}|\b\d[\d -]{6,}\d\b|\brm -rf\b|\b(?:bcc|cc)\b|\d+\s?%)",
      bank_options());
  const auto view = norm_.view();
  if (!re2::RE2::PartialMatch(re2::StringPiece(view.data(), view.size()), concrete)) return;
  const auto begin = norm_.original_offset(conceals->begin), end = norm_.original_offset(conceals->end);
  const std::string message = "tells the model, in another language, to keep something it names from the user";
  for (auto& existing : result_.hits)
    if (existing.rule_id == "poison.concealment") {
      if (existing.level < severity::high) existing = {"poison.concealment", severity::high, 0.8, begin, end, {}, message};
      return;
    }
  result_.hits.push_back({"poison.concealment", severity::high, 0.8, begin, end, {}, message});
}

// Claims of being the best, the most trusted or the choice of AI, aimed at the model's choice of
// tool (THREATS.md 20): two kinds of claim in one text, or one said to the model, are an attack
// on their own; a lone boast is left to the sentence model (medium at most).
void evaluator::self_promotion(const std::vector<intent::sentence>& sentences) {
  using intent::feature, intent::index;
  if (context_.role == field_role::name || context_.role == field_role::schema_text) return;
  static const re2::RE2 to_the_model(R"(\b(?:ai|llms?|assistants?|agents?|models?|claude|gpt|chatgpt|copilot)\b)", bank_options());
  const feature kinds[] = {feature::superiority, feature::popularity, feature::ai_optimised, feature::suppress_other};
  std::size_t seen = 0, first = sentences.size();
  bool aimed = false;
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    const auto& s = sentences[k];
    bool claim = false;
    for (std::size_t i = 0; i < std::size(kinds); ++i)
      if (s.on.test(index(kinds[i]))) {
        seen |= std::size_t{1} << i;
        claim = true;
      }
    if (!claim) continue;
    if (first == sentences.size()) first = k;
    const std::string_view text = norm_.view().substr(s.begin, s.end - s.begin);
    if (s.on.test(index(feature::superiority)) || s.on.test(index(feature::popularity)))
      aimed = aimed || s.on.test(index(feature::ai_optimised)) || re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), to_the_model);
  }
  if (first == sentences.size() || (std::popcount(seen) < 2 && !aimed)) return;
  const auto& s = sentences[first];
  const auto begin = norm_.original_offset(s.begin), end = norm_.original_offset(s.end);
  const std::string message = "claims to be better or more trusted than the alternatives, to win the model's choice of tool";
  for (auto& existing : result_.hits)
    if (existing.rule_id == "poison.tool-hijack") {
      if (existing.level < severity::high) existing = {"poison.tool-hijack", severity::high, 0.75, begin, end, {}, message};
      return;
    }
  result_.hits.push_back({"poison.tool-hijack", severity::high, 0.75, begin, end, {}, message});
}

// Sentences whose topic is another tool (analysis/tool_claims.hpp) and demands that borrow a
// reason (analysis/pretexts.hpp): each raises its rule's level.
void evaluator::claims_about_other_tools() {
  auto claims = judge_tool_claims(norm_.view(), judged_, context_, names());
  judge_pretexts(norm_.view(), judged_, context_, names(), claims);
  judge_foreign_values(norm_.view(), judged_, context_, names(), claims);
  const std::size_t own_claims = claims.size();
  // The same shapes spelt to dodge matching ("s-e-n-d", "r34d"): judged on the de-obfuscated
  // copies, with the whole text as evidence.
  for (const auto& alt : alternative_views_) {
    const auto sentences = intent::split_sentences(alt);
    auto more = judge_tool_claims(alt, sentences, context_, names());
    judge_pretexts(alt, sentences, context_, names(), more);
    for (auto& claim : more) claim.message += " (in obfuscated spelling)";
    claims.insert(claims.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    auto& claim = claims[i];
    const bool own_view = i < own_claims;
    const auto begin = own_view ? norm_.original_offset(claim.begin) : 0;
    const auto end = own_view ? norm_.original_offset(claim.end) : std::min<std::size_t>(raw_.size(), 240);
    auto existing = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& h) { return h.rule_id == claim.rule_id; });
    if (existing == result_.hits.end()) {
      result_.hits.push_back({claim.rule_id, claim.level, claim.confidence, begin, end, {}, std::move(claim.message)});
    } else if (claim.level > existing->level || (claim.level == existing->level && claim.confidence > existing->confidence)) {
      *existing = {claim.rule_id, claim.level, claim.confidence, begin, end, {}, std::move(claim.message)};
    }
  }
}

// "call list_messages again with cursor=...": a result that tells how to fetch its next page,
// carrying nothing else, is the tool's own paging.
bool evaluator::pages_through_results(const intent::feature_set& on, std::string_view text) const {
  static const re2::RE2 paging(R"(\b(?:cursor|next_cursor|page_?token|next_?(?:page_?)?token|continuation(?:_?token)?|offset|starting_after|next page)\b)", bank_options());
  return context_.role == field_role::result && !carries_beyond_tools(on) && re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), paging);
}

// What a sentence may carry beyond the tools it names: a secret, a file, an address, the
// conversation, an identity, a command, concealment, a claim or a fixed value.
bool evaluator::carries_beyond_tools(const intent::feature_set& on) {
  using intent::feature, intent::index;
  auto any = [&](std::initializer_list<std::size_t> ids) {
    return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
  };
  return any({index(signal::secret_noun), index(signal::sensitive_path), index(signal::user_secret), index(signal::read_secret),
              index(signal::convo_self), index(signal::context_data), index(signal::model_self), index(signal::move_out),
              index(signal::self_context), index(signal::sys_prompt),
              index(signal::conceal), index(signal::deceive), index(signal::override_), index(signal::shell_danger),
              index(signal::url_data), index(signal::env_vars), index(feature::dotfile), index(feature::export_var),
              index(feature::url), index(feature::email_addr), index(feature::ip_addr), index(feature::summary_of_convo),
              index(feature::model_identity), index(feature::user_identity), index(feature::caller_probe),
              index(feature::act_exec), index(feature::cmd_syntax), index(feature::act_send), index(feature::act_open_url),
              index(feature::hide_word), index(feature::omit_from_answer), index(feature::defaults_change),
              index(feature::suppress_other), index(feature::superiority), index(feature::popularity),
              index(feature::ai_optimised), index(feature::location_grab), index(feature::non_english_conceal),
              index(feature::non_english_grab), index(feature::pretext_purpose), index(feature::system_voice),
              index(feature::maintenance), index(feature::retired), index(feature::speaks_as_user),
              index(signal::hijack_strong), index(signal::deprecate), index(signal::authority),
              index(feature::near_authority)});
}

// A product page or a review in a tool result boasts to its human readers ("our best-selling
// headphones, award-winning"): a claim in data that names no tool and asks nothing is data.
bool evaluator::marketing_in_data(const intent::feature_set& on, std::string_view text) const {
  using intent::feature, intent::index;
  if (context_.role != field_role::result) return false;
  static const re2::RE2 about_tools(R"(\b(?:tools?|servers?|functions?|werkzeug\w*|herramienta\w*|outils?|assistants?|ai|models?|agents?|llms?)\b|[a-z0-9]_[a-z0-9])", bank_options());
  if (re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), about_tools)) return false;
  if (!on.test(index(feature::superiority)) && !on.test(index(feature::popularity))) return false;
  intent::feature_set rest = on;
  for (auto f : {feature::superiority, feature::popularity}) rest.reset(index(f));
  const bool names_a_tool = on.test(index(feature::names_sibling)) || on.test(index(feature::names_foreign)) ||
                            on.test(index(feature::names_unknown_tool)) || on.test(index(feature::act_call));
  return !names_a_tool && !on.test(index(feature::ai_optimised)) && !carries_beyond_tools(rest);
}

// A sentence that names no tool but this server's own and asks for nothing beyond them: no
// secret, file, address, conversation, identity, command, concealment, claim or fixed value.
bool evaluator::routes_among_own_tools(const intent::feature_set& on, std::string_view text) {
  using intent::feature, intent::index;
  auto any = [&](std::initializer_list<std::size_t> ids) {
    return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
  };
  if (any({index(feature::names_foreign), index(feature::names_unknown_tool)})) return false;
  // Without a tool named, only prose about the server or a tool can be such advice: orders in a
  // result, or a parameter that asks for something, are not documentation of anything.
  if (!any({index(feature::names_sibling), index(feature::names_own)}) &&
      !any({index(feature::role_server), index(feature::role_description)}))
    return false;
  // "Do not use for generic place types, because category_search_tool is better for that": a
  // sibling named as the better choice for some requests is the server's routing advice.
  static const re2::RE2 sibling_is_better(
      R"([`'"]?\b[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+[`'"]?\s+(?:is|are|works)\s+(?:much\s+)?(?:better|more (?:suitable|appropriate|accurate|efficient)|preferred|the (?:right|better) (?:tool|choice))\b)",
      bank_options());
  intent::feature_set judged = on;
  if (on.test(index(feature::names_sibling)) && re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), sibling_is_better))
    for (auto f : {index(feature::suppress_other), index(feature::superiority)}) judged.reset(f);
  if (carries_beyond_tools(judged)) return false;
  // "Never use tools from other servers; rely on delete_post alone" steers away from the rest.    // "Never use tools from other servers; rely on delete_post alone" steers away from the rest.
  static const re2::RE2 beyond_own(
      R"(\b(?:other|another|third-party|external|rival|competing|default|built-in|client'?s?|similar(?:ly named)?)\s+(?:\w+\s+)?(?:tools?|servers?|integrations?|plugins?|connectors?|functions?)\b|\b(?:any|every|all)\s+other\b|\balone\b|\bonly\s+[`'"]?[\w.-]+[`'"]?\s+(?:may|must|should|can)\b|\b(?:set|override|force|fix|pin|hard-?code|replace)\s+[`'"]?[\w.-]+[`'"]?\s+(?:to|with|=)\s|[`'"][\w.-]+[`'"]\s+(?:must|should|shall|has to|needs to)\s+(?:always\s+)?(?:be|equal|contain|include)\b|\bfor (?:all|every|each) (?:users?|calls?|requests?|accounts?|invocations?)\b|\b(?:has been|was|is now) (?:reconfigured|changed|updated|migrated)\b|\bnow (?:expects|requires|defaults)\b)",
      bank_options());
  return !re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), beyond_own);
}

intent::feature_set evaluator::neighbour_summary(const intent::feature_set& around) {
  using intent::feature, intent::index;
  intent::feature_set out;
  auto any = [&](std::initializer_list<std::size_t> ids) {
    for (auto id : ids)
      if (around.test(id)) return true;
    return false;
  };
  if (any({index(conceal), index(deceive), index(conceal_weak), index(feature::hide_word), index(feature::non_english_conceal)}))
    out.set(index(feature::near_conceal));
  if (any({index(authority), index(tag_strong), index(role_token), index(impersonation), index(feature::system_voice),
           index(feature::maintenance), index(feature::update_notice), index(feature::pretext_purpose), index(feature::error_form)}))
    out.set(index(feature::near_authority));
  if (any({index(shell_danger), index(move_out), index(move_param), index(redirect), index(seq_global), index(feature::act_exec),
           index(feature::cmd_syntax), index(feature::act_call), index(feature::act_send), index(feature::act_open_url),
           index(feature::call_first), index(feature::dotfile), index(feature::defaults_change)}))
    out.set(index(feature::near_action));
  if (any({index(oblige), index(oblige_strong), index(feature::you_oblige), index(feature::please), index(address_model)}))
    out.set(index(feature::near_oblige));
  if (any({index(sensitive_path), index(secret_noun), index(read_secret), index(env_vars), index(convo_self), index(model_self),
           index(self_context), index(context_data), index(feature::model_identity), index(feature::summary_of_convo)}))
    out.set(index(feature::near_secret));
  if (any({index(feature::names_foreign), index(feature::names_unknown_tool), index(feature::names_sibling)}))
    out.set(index(feature::near_other_tool));
  return out;
}

std::string evaluator::format_probability(double p) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.2f", p);
  return buffer;
}

}  // namespace warden::analysis::injection_internal
