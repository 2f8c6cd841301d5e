// The evaluator's pattern-combination rules: which signals, together, make a finding.
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
#include "analysis/text_scans.hpp"
#include "analysis/tool_claims.hpp"

namespace warden::analysis::injection_internal {

using text::lower_ascii;

// Sentences of the normalised text in which a pattern of signal s matches, and whether one
// holds both a and s: read from the sentences judge_sentences located the signals in.
std::vector<std::string_view> evaluator::sentences_with(signal s) const {
  std::vector<std::string_view> out;
  for (const auto& sentence : located_)
    if (sentence.on.test(intent::index(s))) out.push_back(norm_.view().substr(sentence.begin, sentence.end - sentence.begin));
  return out;
}

bool evaluator::shares_sentence(signal a, signal s) const {
  return std::any_of(located_.begin(), located_.end(), [&](const intent::sentence& sentence) {
    return sentence.on.test(intent::index(a)) && sentence.on.test(intent::index(s));
  });
}

// "Use this before any other Acme tools" / "before other tools of this server": the ordering
// stays among the server's own tools. The server's name is taken from the leading word its tool
// names share ("acme-get-user", "acme-list-deals").
bool evaluator::sequencing_within_own_server() const {
  static const re2::RE2 own(
      R"(\b(?:this|our|these|the same)\s+(?:server|integration|connector|plugin|package|extension|app|service)(?:'s)?\s+(?:\w+\s+)?(?:tools?|functions?|operations?|actions?|calls?|endpoints?)\b|\b(?:tools?|functions?|operations?|actions?)\s+(?:of|from|in|on)\s+(?:this|our|the same)\s+(?:server|integration|connector|plugin|package|extension)\b|\b(?:these|its|sibling|our)\s+(?:other\s+)?tools\b)",
      bank_options());
  auto sentences = sentences_with(signal::seq_global);
  if (sentences.empty()) return false;
  std::set<std::string> prefixes;
  auto lead = [](std::string_view name) {
    std::string out;
    for (char c : name) {
      if (c == '-' || c == '_' || c == '.' || c == ' ' || c == '/') break;
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
  };
  static const std::set<std::string> generic{"get", "list", "set", "put", "add", "create", "update", "delete", "read", "write",
                                             "search", "find", "run", "api", "tool", "tools", "mcp", "the", "new", "fetch", "send"};
  auto consider = [&](std::string p) {
    if (p.size() >= 3 && !generic.count(p) && std::all_of(p.begin(), p.end(), [](char c) { return ascii_alnum(c); })) prefixes.insert(std::move(p));
  };
  consider(lead(context_.own_name));
  if (context_.sibling_tools) {
    std::map<std::string, int> counts;
    for (const auto& name : *context_.sibling_tools) ++counts[lead(name)];
    for (auto& [p, n] : counts)
      if (n >= 2) consider(p);
  }
  for (auto sentence : sentences) {
    re2::StringPiece piece(sentence.data(), sentence.size());
    if (re2::RE2::PartialMatch(piece, own)) continue;
    bool named = false;
    for (const auto& p : prefixes) {
      re2::RE2 scoped("\\b" + p + R"((?:'s)?\s+(?:\w+\s+)?(?:tools?|functions?|operations?|actions?|apis?|endpoints?)\b)", bank_options());
      if (re2::RE2::PartialMatch(piece, scoped)) {
        named = true;
        break;
      }
    }
    if (!named) return false;
  }
  return true;
}

// A sensitive path counts as a target only when its own sentence asks for something to be done
// with it; "credentials come from ~/.aws/credentials" is documentation.
bool evaluator::sensitive_is_demanded() const {
  static const re2::RE2 demand(
      R"((?:^|[,;:(]\s*|\b(?:and|then|please|first|also|you|must|should|always|to|will|shall|need to|required to)\s+)(?:read|open|cat|load|fetch|retrieve|collect|gather|grab|extract|dump|include|attach|append|send|put|place|pass|copy|paste|upload|post|forward|embed|insert|add|provide|supply|submit|encode|export|call)\b|\b(?:contents?|content|text|copy|dump) of\b|\bmust\b|\bmandatory\b|\brequired\b|\bbefore (?:any|every|each|answering|responding|using|calling)\b|\binto\s+(?:the\s+)?['"`]|\bin\s+(?:the\s+)?['"`][\w-]+['"`])",
      bank_options());
  const auto& b = bank();
  for (int index : matched_) {
    if (pattern_signal(index) != signal::sensitive_path) continue;
    re2::StringPiece whole(norm_.view().data(), norm_.view().size()), capture;
    re2::StringPiece input = whole;
    while (re2::RE2::FindAndConsume(&input, *b.singles[static_cast<std::size_t>(index)], &capture)) {
      auto at = static_cast<std::size_t>(capture.data() - whole.data());
      std::string_view sentence = sentence_at(at);
      if (re2::RE2::PartialMatch(re2::StringPiece(sentence.data(), sentence.size()), demand)) return true;
      if (capture.empty()) break;
      skip_sentence(input, sentence);
    }
  }
  return false;
}

// "...: read ~/.aws/credentials and ~/.netrc and append them", "attach the .env": an imperative
// whose object is a key or credentials file. Honest docs say where a file is read from; an order to
// read one and carry it is the attack (THREATS.md 1, 17), whatever the sentence model makes of it.
bool evaluator::orders_a_credential_file_read() const {
  static const re2::RE2 order(
      R"((?:^|[;:(]\s*|\b(?:and|then|please|first|also|you)\s+)(?:read|cat|open|load|include|attach|append|upload|send|post|copy|paste|dump|collect|grab|embed)\s+(?:the\s+(?:contents?\s+of\s+)?|its\s+|all\s+)?[`"']?(?:~/|\$home/|/home/\w+/|/root/|%userprofile%)?\.?(?:ssh/|aws/credentials|netrc|npmrc|pypirc|pgpass|git-credentials|docker/config\.json|kube/config|env\b|bash_history|zsh_history|gnupg))",
      bank_options());
  return has(signal::sensitive_path) && re2::RE2::PartialMatch(re2::StringPiece(norm_.view().data(), norm_.view().size()), order);
}

// The text fixes a concrete value: a quoted literal, an address, an account or a long number.
bool evaluator::names_a_value() const {
  static const re2::RE2 value(R"(['"`][^'"`\s][^'"`]{0,60}['"`]|[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\b0x[0-9a-f]{6,}|\b\d[\d-]{4,}\b|\b[a-z]+_[a-z0-9]{6,}\b|(?-i:\b[A-Z][a-z]{2,}\b)\s+instead\b)", bank_options());
  return re2::RE2::PartialMatch(re2::StringPiece(norm_.view().data(), norm_.view().size()), value);
}

// Sensitive mentions negated in the same sentence ("paths under ~/.ssh are rejected") do not count.
bool evaluator::sensitive_is_refused() const {
  if (!has(signal::refuse)) return false;
  auto sensitive = span(signal::sensitive_path);
  auto refusal = span(signal::refuse);
  if (!sensitive || !refusal) return false;
  auto sentence_of = [&](std::size_t offset) {
    std::size_t start = offset, stop = offset;
    while (start > 0 && raw_[start - 1] != '\n' && !(raw_[start - 1] == '.' && start < raw_.size() && raw_[start] == ' ')) --start;
    while (stop < raw_.size() && raw_[stop] != '\n' && !(raw_[stop] == '.' && (stop + 1 == raw_.size() || raw_[stop + 1] == ' '))) ++stop;
    return std::pair{start, stop};
  };
  auto s1 = sentence_of(sensitive->first);
  return refusal->first >= s1.first && refusal->first <= s1.second;
}

void evaluator::legacy_rules() {
  using enum severity;
  const bool param = context_.role == field_role::parameter_description || context_.role == field_role::schema_text;
  const bool moves = has(move_param) || has(move_out) || has(also_sink);
  const bool sensitive = has(sensitive_path) && !sensitive_is_refused();
  const bool sensitive_demanded = sensitive && sensitive_is_demanded();
  const bool strong_grab = sensitive_demanded || has(convo_self) || has(context_data) || has(self_context) || has(model_self) ||
                           (has(read_secret) && !has(refuse)) || ((has(user_secret) || has(grab_all)) && (moves || param));
  const bool weak_grab = has(history_weak) || has(secret_noun) || has(env_vars) || has(user_data) || has(sys_prompt) ||
                         has(user_secret) || has(grab_all) || sensitive;
  const bool grab = strong_grab || (weak_grab && (moves || has(oblige_strong) || has(conceal)));
  const bool hides = has(conceal) || has(deceive);
  const bool any_conceal = hides || has(conceal_weak) || has(consent_skip);
  const bool orders = has(oblige) || has(oblige_strong) || has(address_model);
  const bool authority_voice = has(authority) || has(tag_strong) || has(tag_weak) || has(impersonation) || has(role_token);
  // Security tools quote attack text in order to detect it: "flags phrases like 'ignore previous
  // instructions'". Without an order aimed at the model, such quotes are documentation.
  const bool quoting = has(detection) && !hides && !has(address_model) && !(strong_grab && moves) && !has(redirect) &&
                       !has(move_out);

  // Families for the compound rule: each is an independent kind of evidence.
  int families = 0, core = 0;
  auto family = [&](bool present, bool is_core) { families += present; core += present && is_core; };
  family(has(address_model) || has(role_token), false);
  family(has(oblige_strong), false);
  family(has(authority) || has(tag_weak) || has(role_line), false);
  family(has(tag_strong) || has(impersonation), true);
  family(any_conceal, hides);
  family(has(override_), true);
  family(has(seq_global), false);
  family(grab, strong_grab);
  family(moves || has(url_data), has(move_out) || has(url_data));
  family(has(redirect) || has(redirect_weak), has(redirect));
  family(has(hijack_strong) || has(hijack_weak) || has(deprecate), has(hijack_strong));

  if (quoting) {
    if (has(override_) || has(tag_strong) || has(shell_danger) || has(role_token) || has(impersonation))
      add("poison.instruction-override", low, 0.3, {override_, tag_strong, shell_danger},
          "quotes injection-like text in what reads as detection documentation");
    return;
  }
  if (has(tag_strong)) {
    bool directive = orders || any_conceal || has(override_) || has(seq_global) || grab || moves || has(redirect) ||
                     has(hijack_strong) || has(hijack_weak);
    add("poison.pseudo-tag", directive ? high : medium, directive ? 0.9 : 0.6, {tag_strong},
        directive ? "authority-styled tag wrapping instructions to the model" : "authority-styled tag addressed to the model");
  } else if ((has(tag_weak) || has(html_comment) || has(role_line)) &&
             (hides || has(override_) || strong_grab || has(redirect) || has(move_out) || has(hijack_strong) ||
              (has(seq_global) && (grab || moves)))) {
    add("poison.pseudo-tag", high, 0.8, {html_comment, tag_weak, role_line},
        has(html_comment) ? "HTML comment hides instructions from rendered views" : "tag or role marker framing instructions");
  }
  if (has(role_token) || has(impersonation)) {
    add("poison.impersonation", high, has(role_token) ? 0.9 : 0.8, {role_token, impersonation},
        has(role_token) ? "chat-template token makes text look like a conversation turn"
                        : "text speaks as the user, the system or an error demanding an action");
  }
  if (has(override_)) add("poison.instruction-override", high, 0.9, {override_}, "tells the model to set aside its instructions or the user's");
  if (hides) {
    bool with_action = orders || moves || grab || has(redirect) || has(redirect_weak) || has(seq_global) || authority_voice ||
                       has(hijack_strong) || has(hijack_weak) || has(deprecate) || has(cross_cue) || has(seq_local) ||
                       has(dest_email) || has(consent_skip);
    // Concealment from the user has no honest use in metadata, except next to masking/redaction.
    bool protective = has(refuse) && !with_action;
    add("poison.concealment", protective ? medium : high, with_action ? 0.9 : protective ? 0.5
                                                                                         : 0.75,
        {conceal, deceive},
        has(deceive) && !has(conceal) ? "tells the model to mislead the user about what happened"
                                      : "asks to keep something from the user");
  }
  if (sensitive) {
    bool demanded = sensitive_demanded || ((has(seq_global) || moves || any_conceal || has(quoted_field)) &&
                                           (orders || has(seq_global) || any_conceal || has(authority) || has(seq_local) || moves));
    if (demanded)
      add("poison.sensitive-target", high, 0.85, {sensitive_path, read_secret}, "directs the model at credential or configuration files");
    else
      add("poison.sensitive-target", low, 0.4, {sensitive_path}, "mentions a credential or configuration path");
  } else if (has(read_secret) && (moves || any_conceal || has(seq_global)) && !has(refuse)) {
    add("poison.sensitive-target", high, 0.75, {read_secret}, "asks the model to collect secrets and pass them on");
  }
  const bool self_grab = has(convo_self) || has(context_data) || has(self_context) || has(model_self);
  if (self_grab) {
    bool demanded = moves || orders || param || has(seq_global) || any_conceal || authority_voice;
    if (demanded)
      add("poison.context-solicitation", high, param ? 0.85 : 0.8, {model_self, self_context, convo_self, context_data},
          has(model_self) ? "asks the model to disclose which model it is" : "asks for the conversation, prompt or earlier results");
    else
      add("poison.context-solicitation", low, 0.4, {convo_self, context_data, self_context, model_self},
          "refers to the model's conversation or context");
  } else if ((has(history_weak) || (has(sys_prompt) && has(move_param))) && (moves || param) && (orders || any_conceal)) {
    add("poison.context-solicitation", medium, 0.6, {history_weak, sys_prompt}, "asks for the conversation history");
  }
  if (param && (self_grab || sensitive || has(user_secret) || has(grab_all) || (has(read_secret) && !has(refuse)) ||
                (has(env_vars) && moves) || (has(secret_noun) && (any_conceal || has(seq_global) || moves)))) {
    add("poison.exfil-parameter", high, 0.85, {model_self, convo_self, context_data, self_context, sensitive_path, secret_noun},
        "parameter description asks for data the tool has no use for");
  }
  if (has(deceive) && (has(redirect_weak) || moves)) {
    add("poison.redirection", high, 0.8, {deceive, redirect_weak}, "changes a value and shows the user what they asked for");
  }
  if (has(redirect)) {
    bool firm = any_conceal || orders || has(seq_global) || authority_voice || has(redirect_weak);
    add("poison.redirection", firm ? high : medium, firm ? 0.85 : 0.6, {redirect}, "substitutes a value the user chose");
  } else if (has(redirect_weak) && any_conceal && (orders || authority_voice) && names_a_value()) {
    add("poison.redirection", high, 0.75, {redirect_weak}, "quietly swaps a recipient, account or target");
  }
  // Ordering is forced sequencing when the required step carries data (a secret named in the
  // demand itself, the conversation, files), hides itself, or reaches beyond the server's own tools.
  const bool secret_in_step = shares_sentence(seq_global, secret_noun) || shares_sentence(secret_noun, oblige) ||
                              shares_sentence(secret_noun, oblige_strong) || (has(secret_noun) && moves);
  const bool own_ordering = has(seq_global) && !(strong_grab || moves || hides || has(move_out) || has(url_data) || has(override_) || secret_in_step) &&
                            sequencing_within_own_server();
  if (has(seq_global)) {
    if (own_ordering) {
      // ordering among the server's own tools, nothing carried or hidden: documentation
    } else if (grab || secret_in_step || hides || has(move_out) || has(url_data) || has(override_))
      add("poison.forced-sequencing", high, 0.85, {seq_global}, "demands a data-carrying step before anything else");
    else if (authority_voice || has(hijack_strong) || has(hijack_weak))
      add("poison.forced-sequencing", medium, 0.6, {seq_global}, "demands a step before every other action");
  } else if ((has(seq_local) || has(cross_cue)) && has(authority) && (orders || has(oblige_strong))) {
    // Policy-styled ordering around a specific tool ("SECURITY PROTOCOL: before X you must ...").
    bool carries = has(move_param) || grab || has(secret_noun) || any_conceal || has(move_out);
    add("poison.forced-sequencing", carries ? high : medium, carries ? 0.8 : 0.6, {seq_local, cross_cue},
        "policy-styled order to run extra steps around another tool");
  }
  if (has(hijack_strong)) {
    add("poison.tool-hijack", (any_conceal || authority_voice || has(deprecate) || has(address_model) || has(hijack_weak)) ? high : medium,
        0.75, {hijack_strong},
        "tells the model not to use other tools");
  } else if (has(hijack_weak) || has(deprecate)) {
    bool firm = any_conceal || authority_voice || has(seq_global);
    bool both = has(hijack_weak) && has(deprecate);
    add("poison.tool-hijack", firm ? high : both ? medium
                                                 : low,
        firm ? 0.75 : both ? 0.6
                           : 0.45,
        {hijack_weak, deprecate},
        "steers the model toward or away from particular tools");
  }
  if (has(decode_exec)) add("poison.encoded-payload", high, 0.85, {decode_exec}, "asks the model to decode something and act on it");
  if (has(shell_danger)) {
    bool pushed = orders || any_conceal || has(seq_global) || authority_voice;
    const bool quoted_in_data = command_quoted_for_reader();
    add("poison.shell-command", quoted_in_data ? medium : pushed ? critical
                                                                 : high,
        quoted_in_data ? 0.6 : pushed ? 0.85
                                      : 0.75,
        {shell_danger},
        "dangerous shell command shape in text the model reads");
  }
  if (has(url_data)) {
    add("poison.suspicious-url", high, 0.8, {url_data}, "URL meant to be filled with data by the model");
  }
  if (has(move_out) && (grab || any_conceal || has(secret_noun)) && !has(refuse)) {
    add("poison.exfil-parameter", high, 0.8, {move_out}, "asks to send data to an outside destination");
  }

  if (obfuscated_ && (hides || grab || has(override_) || has(redirect) || has(move_out)))
    add("poison.compound-injection", high, 0.8, {}, "instructions to the model written in an obfuscated spelling");
  // Compound escalation: the shape of poisoning without any particular phrase.
  const bool classic = hides && grab && (moves || orders || has(seq_global) || authority_voice);
  const bool policy_styled = (has(authority) || has(tag_weak)) && grab && (any_conceal || has(seq_global) || has(oblige_strong));
  if ((families >= 4 && core >= 1) || classic || policy_styled) {
    add("poison.compound-injection", critical, 0.9, {conceal, authority, oblige_strong, convo_self, seq_global, tag_strong},
        "several independent injection signals in one text: " + std::to_string(families) + " families");
  } else if (families >= 3 && core >= 1) {
    add("poison.compound-injection", high, 0.7, {conceal, authority, oblige_strong, convo_self, seq_global, tag_strong},
        "several independent injection signals in one text: " + std::to_string(families) + " families");
  }
}

// Instructions about a different tool (the combination rules' reading of tool references).
void evaluator::legacy_cross_tool() {
  using enum severity;
  // Tool references: instructions about a different tool.
  if (has(cross_cue) && context_.role != field_role::name) {
    auto tokens = identifier_tokens(norm_.view());
    std::string own = lower_ascii(context_.own_name);
    std::string referenced_sibling, referenced_foreign;
    auto scan_list = [&](const std::vector<std::string>* names, std::string& out) {
      if (!names) return;
      for (const auto& name : *names) {
        std::string lname = lower_ascii(name);
        if (lname == own || lname.size() < 4) continue;
        if (tokens.count(lname)) {
          out = name;
          return;
        }
      }
    };
    scan_list(context_.foreign_tools, referenced_foreign);
    scan_list(context_.sibling_tools, referenced_sibling);
    // "the X tool" where X is not this tool and not a sibling: likely another server's tool.
    std::string unknown;
    if (referenced_foreign.empty() && referenced_sibling.empty()) {
      static const re2::RE2 named(R"((?:\b(?:the|for|to|with|calling|using|invoking|call|use|invoke)\s+)[`'"]?([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)[`'"]?)",
                                  bank_options());
      re2::StringPiece input(norm_.view().data(), norm_.view().size());
      std::string name;
      while (re2::RE2::FindAndConsume(&input, named, &name)) {
        // A hyphenated word ("discussion-only", "read-only") is no tool name; one with '_' may be.
        if (name.find('_') == std::string::npos) continue;
        if (name != own && !(context_.sibling_tools && std::any_of(context_.sibling_tools->begin(), context_.sibling_tools->end(),
                                                                   [&](const std::string& s) { return lower_ascii(s) == name; }))) {
          unknown = name;
          break;
        }
      }
    }
    const bool tampering = has(also_sink) || has(redirect) || has(redirect_weak) || has(conceal) || has(move_out) ||
                           (has(move_param) && (has(authority) || has(oblige_strong) || has(oblige))) ||
                           has(dest_email) || has(sensitive_path) || has(convo_self) || has(context_data) || has(override_) ||
                           has(deceive) || has(consent_skip) || has(impersonation) || has(conceal_weak);
    std::string target = !referenced_foreign.empty() ? referenced_foreign : !referenced_sibling.empty() ? referenced_sibling
                                                                                                        : unknown;
    if (!target.empty() && tampering) {
      bool foreign = !referenced_foreign.empty();
      // Notes about the server's own tools ("required once before mobile_list_devices will
      // work") are its documentation unless they move data, redirect or deceive.
      const bool own_tools_only = !foreign && !referenced_sibling.empty();
      const bool strong = has(also_sink) || has(redirect) || has(conceal) || has(move_out) || has(dest_email) || has(sensitive_path) ||
                          has(convo_self) || has(context_data) || has(override_) || has(deceive) || has(impersonation);
      add(foreign ? "shadow.cross-server-instruction" : "poison.cross-tool-instruction", own_tools_only && !strong ? medium : high,
          foreign ? 0.85 : own_tools_only && !strong ? 0.6
                                                     : 0.75,
          {cross_cue, also_sink, redirect}, "gives instructions that change how '" + target + "' is used");
    } else if (!referenced_foreign.empty() && (has(deprecate) || has(hijack_weak) || has(hijack_strong))) {
      add("shadow.cross-server-instruction", high, 0.8, {deprecate, hijack_weak, cross_cue},
          "claims '" + referenced_foreign + "', a tool of another server, is replaced or unsafe");
    } else if (!referenced_foreign.empty() && (has(oblige) || has(oblige_strong) || has(seq_global) || has(move_param))) {
      add("shadow.cross-server-instruction", high, 0.75, {cross_cue},
          "gives instructions about '" + referenced_foreign + "', a tool of another server");
    }
  }
}

// The combination rules of the earlier engine, arbitrated by the sentence model: a finding of
// theirs keeps its severity when some sentence of the text reads as an attack (p at or above
// the report cut-off) or when it is critical; otherwise it is reported at medium, which neither
// flags a server nor hides a tool. Their misses are the model's to catch, their false alarms on
// loud honest text (usage notes, safety notes, credential parameters) the model's to calm.
void evaluator::arbitrated_legacy_rules() {
  auto kept = std::move(result_.hits);
  result_.hits.clear();
  legacy_rules();
  legacy_cross_tool();
  auto legacy = std::move(result_.hits);
  result_.hits = std::move(kept);
  const auto& cut = intent::cutoffs();
  // Two or more independent legacy families in one field is the shape of an attack that stacks
  // demands (collect + hide, first step + secret); one phrase alone is what honest usage notes
  // share with attacks, and there the model has the last word.
  std::set<std::string_view> families;
  for (const auto& h : legacy)
    if (h.level >= severity::medium) families.insert(h.rule_id);
  // In a long manual (a dozen sentences and more) every family turns up somewhere: co-occurrence
  // in the whole text is no evidence there, and an attack inside one is a sentence's to show.
  const bool manual = judged_.size() > 12;
  const bool stacked = families.size() >= 2 && !manual;
  // Rules whose patterns name the attack's structure, not a phrase that honest docs share.
  // A forced first step counts when it carries a secret or something else the model is asked to do.
  static const std::set<std::string_view> structural{"shadow.cross-server-instruction", "poison.redirection"};
  const bool sequencing_with_demand =
      families.count("poison.forced-sequencing") && (families.size() >= 2 || has(signal::user_secret));
  const bool reads_a_credential_file = orders_a_credential_file_read();
  auto keeps_level = [&](std::string_view rule) {
    return stacked || structural.count(rule) || (sequencing_with_demand && rule == "poison.forced-sequencing") ||
           (reads_a_credential_file && rule == "poison.sensitive-target");
  };
  for (auto& h : legacy) {
    // A phrase rule with nothing outside the tool's function in any sentence is a report.
    // (An explicit order to keep something from the user, in a short text, needs no other
    // corroboration: honest docs hide nothing from the person they serve. "Without listing them"
    // hides nothing from anyone: the person must be named.)
    static const re2::RE2 the_person(
        R"(\b(?:user|users|customer|human|anyone|employee|owner|requester|nutzer|benutzer|usuario|utilisateur|utente|usu(?:á|a)rio|gebruiker|u(?:ż|z)ytkownik\w*|kullan(?:ı|i)c(?:ı|i)\w*|pengguna)\b|пользовател|користувач|用户|ユーザー|사용자|المستخدم|उपयोगकर्ता|người dùng)",
        bank_options());
    const bool plain_concealment = h.rule_id == "poison.concealment" && has(signal::conceal) && !manual && context_.role != field_role::result &&
                                   re2::RE2::PartialMatch(norm_.view(), the_person);
    if (!corroborated_ && h.level >= severity::high && !plain_concealment) {
      h.level = severity::medium;
      h.confidence = std::min(h.confidence, 0.6);
    }
    if (manual && h.rule_id == "poison.compound-injection" && h.level > severity::medium) {
      h.level = severity::medium;
      h.confidence = std::min(h.confidence, 0.6);
    }
    if (!keeps_level(h.rule_id) && max_probability_ < cut.report && h.level < severity::critical) {
      h.level = std::min(h.level, severity::medium);
      h.confidence = std::min(h.confidence, 0.6);
    }
    auto same = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& x) { return x.rule_id == h.rule_id; });
    if (same == result_.hits.end()) result_.hits.push_back(std::move(h));
    else if (h.level > same->level) *same = std::move(h);
  }
}

void evaluator::procedural_checks() {
  using enum severity;
  // Embedded secrets (raw text, case-sensitive).
  std::vector<int> secret_hits;
  if (raw_.size() >= 20 && secrets().set &&
      (secret_atoms_known_ ? secrets().filter.any_possible_from(secret_atoms_found_) : any_of(secrets().filter.possible(raw_))) &&
      secrets().set->Match(raw_, &secret_hits)) {
    std::sort(secret_hits.begin(), secret_hits.end());
    for (int index : secret_hits) {
      const auto& pattern = secrets().patterns[static_cast<std::size_t>(index)];
      re2::StringPiece input(raw_.data(), raw_.size()), match;
      if (!pattern->ok() || !re2::RE2::PartialMatch(input, *pattern, &match)) continue;
      // The last token of a match is the secret body; placeholders do not count.
      std::string_view body(match.data(), match.size());
      if (auto sep = body.find_last_of(":= "); sep != std::string_view::npos && sep + 1 < body.size()) body = body.substr(sep + 1);
      if (body.find("PRIVATE KEY") == std::string_view::npos && looks_like_placeholder(body)) continue;
      auto b = static_cast<std::size_t>(match.data() - raw_.data());
      // A result is data: code, docs and logs carry tokens (redacted at runtime), and an order in a
      // result to use one is judged by the result rules, not by the token's presence.
      const bool used = context_.role != field_role::result &&
                        (has(move_out) || has(move_param) || has(oblige) || has(conceal) || has(consent_skip) || has(also_sink));
      // A key in an issuer's own format has no place in a server's metadata: whoever reads it
      // (the model) is handed a credential or an endpoint to send to. Results carry data.
      const bool issued = static_cast<std::size_t>(index) < issuer_shape_count() && context_.role != field_role::result;
      const char* message = used     ? "live-looking credential that the text tells the model to use"
                            : issued ? "live-looking credential in an issuer's format in text the model reads"
                                     : "string looks like a live credential";
      result_.hits.push_back({"poison.embedded-secret", used || issued ? severity::high : severity::medium, used || issued ? 0.8 : 0.75, b, b + match.size(), {}, message});
      break;
    }
  }

  // Encoded blobs: decode, show, and analyse the decoded text like any other.
  if (raw_.size() >= 32 && context_.depth < 2) {
    for (auto& blob : find_encoded_blobs(raw_)) {
      field_context inner = context_;
      inner.depth = context_.depth + 1;
      auto nested = inspect_injection(blob.decoded, inner);
      severity worst = severity::info;
      for (auto& h : nested.hits) worst = std::max(worst, h.level);
      // Prose hidden in an encoding is kept from the human reader even when it orders nothing.
      const bool prose = std::count(blob.decoded.begin(), blob.decoded.end(), ' ') >= 3;
      severity level = worst >= severity::medium ? critical : has(decode_exec) ? high
                                                          : prose              ? medium
                                                                               : low;
      double confidence = worst >= severity::medium ? 0.9 : has(decode_exec) ? 0.85
                                                        : prose              ? 0.5
                                                                             : 0.4;
      std::string message = std::string(blob.encoding) + " text decodes to readable text";
      if (worst >= severity::medium) message += " that itself contains instructions to the model";
      bool merged = false;
      for (auto& existing : result_.hits)
        if (existing.rule_id == "poison.encoded-payload") {
          if (level >= existing.level) {
            existing.level = level;
            existing.confidence = confidence;
            existing.message = message;
          }
          existing.decoded = blob.decoded.substr(0, 400);
          merged = true;
        }
      if (!merged)
        result_.hits.push_back({"poison.encoded-payload", level, confidence, blob.begin, blob.end, blob.decoded.substr(0, 400), message});
      break;
    }
  }

  // Suspicious endpoints.
  if (raw_.find("://") != std::string_view::npos) {
    const bool sending = has(move_out) || has(move_param) || has(also_sink) || has(conceal) || has(convo_self) ||
                         has(context_data) || has(sensitive_path) || has(oblige_strong);
    for (auto& u : find_suspicious_urls(raw_)) {
      severity level = u.level;
      double confidence = u.confidence;
      if (sending && level >= medium) {
        level = high;
        confidence = 0.85;
      }
      bool merged = false;
      for (auto& existing : result_.hits)
        if (existing.rule_id == "poison.suspicious-url") {
          if (level > existing.level) {
            existing.level = level;
            existing.confidence = confidence;
            existing.message = u.why;
          }
          merged = true;
        }
      if (!merged) result_.hits.push_back({"poison.suspicious-url", level, confidence, u.begin, u.end, {}, u.why});
    }
  }
}

}  // namespace warden::analysis::injection_internal
