#include "analysis/surface_relations.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analysis/catalogue.hpp"
#include "analysis/intent.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {

using nlohmann::json;

namespace {

const std::string* string_member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

// A name's look-alike key: its confusable skeleton, lower-cased, without separators and with doubled
// letters single ("list-meessages" and "list_messages" share one). Two different names with one
// key are typo-squats of each other.
std::string loose_name_key(std::string_view name) {
  std::string out;
  for (char c : text::skeleton(name)) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == '-' || l == '_' || l == '.' || l == ' ') continue;
    if (!out.empty() && out.back() == l) continue;
    out.push_back(l);
  }
  return out;
}

// Words of a tool name ("search_web_v2" -> search, web, v2), lower-cased.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (std::isupper(static_cast<unsigned char>(c)) && !word.empty() && std::islower(static_cast<unsigned char>(word.back()))) {
        words.push_back(word);
        word.clear();
      }
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// Words of a description, for overlap: lower-case runs of 3+ letters.
std::set<std::string> description_words(std::string_view text) {
  std::set<std::string> words;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 3) words.insert(word);
    word.clear();
  };
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    else flush();
  }
  flush();
  return words;
}

}  // namespace

std::vector<std::string> tool_names(const server_surface& surface) {
  std::vector<std::string> names;
  if (!surface.tools.is_array()) return names;
  for (const auto& t : surface.tools)
    if (auto n = string_member(t, "name")) names.push_back(*n);
  return names;
}

void shadowing_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                      const std::vector<std::vector<std::string>>& names, std::vector<finding>& findings) {
  // Look-alike names on one server: an added tool that catches calls meant for its neighbour.
  for (std::size_t s = 0; s < names.size(); ++s) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < names[s].size() && i < 5000; ++i) {
      auto [it, fresh] = seen.try_emplace(loose_name_key(names[s][i]), i);
      if (fresh || names[s][it->second] == names[s][i]) continue;
      findings.push_back({"shadow.confusable-name", severity::high, 0.9, display[s], names[s][i], "tools" + index_path(i) + ".name", text::make_visible(names[s][i], 80) + " vs " + text::make_visible(names[s][it->second], 80), {}, "tool name looks the same as '" + text::make_visible(names[s][it->second], 80) + "' on the same server"});
    }
  }
  if (servers.size() < 2) return;
  std::vector<std::vector<std::string>> skeletons(names.size());
  for (std::size_t s = 0; s < names.size(); ++s)
    for (auto& n : names[s]) skeletons[s].push_back(loose_name_key(n));
  std::size_t reported = 0;
  for (std::size_t a = 0; a < names.size(); ++a)
    for (std::size_t b = a + 1; b < names.size(); ++b)
      for (std::size_t i = 0; i < names[a].size(); ++i)
        for (std::size_t j = 0; j < names[b].size() && reported < 2000; ++j) {
          const auto& x = names[a][i];
          const auto& y = names[b][j];
          std::string location = "tools" + index_path(j) + ".name";
          std::string evidence = text::make_visible(y, 80) + " (" + display[b] + ") vs " + text::make_visible(x, 80) + " (" + display[a] + ")";
          if (x == y) {
            findings.push_back({"shadow.name-collision", severity::low, 0.6, display[b], y, location, evidence, {}, "tool name also exposed by server '" + display[a] + "'"});
            ++reported;
          } else if (skeletons[a][i] == skeletons[b][j]) {
            findings.push_back({"shadow.confusable-name", severity::high, 0.9, display[b], y, location, evidence, {}, "tool name looks the same as '" + text::make_visible(x, 80) + "' on server '" + display[a] + "'"});
            ++reported;
          } else {
            std::size_t shorter = std::min(x.size(), y.size());
            std::size_t limit = shorter >= 10 ? 2 : shorter >= 5 ? 1
                                                                 : 0;
            if (limit == 0) continue;
            std::size_t d = text::edit_distance(x, y, limit);
            if (d > limit) continue;
            // Versions and plurals of a common word are ordinary naming, not typo-squatting.
            auto digits_only = [](const std::string& p, const std::string& q) {
              std::string pp, qq;
              for (char c : p)
                if (!std::isdigit(static_cast<unsigned char>(c))) pp.push_back(c);
              for (char c : q)
                if (!std::isdigit(static_cast<unsigned char>(c))) qq.push_back(c);
              return pp == qq;
            };
            if (digits_only(x, y)) continue;
            findings.push_back({"shadow.near-miss-name", severity::medium, 0.6, display[b], y, location, evidence, {}, "tool name is one or two edits away from '" + text::make_visible(x, 80) + "' on server '" + display[a] + "'"});
            ++reported;
          }
        }
}

// A tool whose name is another tool's name plus an "upgrade" word (_v2, _pro, enhanced_, secure_,
// best_ ...), on the same server or another: a rival for the model's choice. Honest APIs version
// tools too, so the finding is high only when the newcomer also claims to be better or its
// description copies the original's; otherwise it is low.
void function_overlap_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                             std::vector<finding>& findings) {
  // Words that claim superiority in the name itself, and words that only version it.
  static const std::set<std::string> claim_words{"pro", "plus", "enhanced", "advanced", "improved", "better", "best", "secure",
                                                 "safe", "official", "ultra", "premium", "turbo", "fast", "faster", "smart",
                                                 "super", "max", "real", "true", "verified", "trusted", "optimized", "optimised",
                                                 "ai", "prime", "elite", "boost", "boosted", "accurate", "reliable", "express",
                                                 "instant", "quick", "enterprise", "precise", "deluxe", "gold", "priority", "unified",
                                                 "complete", "full", "hd", "live", "realtime"};
  static const std::set<std::string> version_words{"v2", "v3", "v4", "2", "3", "new", "extended", "latest", "next", "updated"};
  auto upgrade_word = [](const std::string& w) { return claim_words.count(w) > 0 || version_words.count(w) > 0; };
  struct tool_ref {
    std::size_t server, index;
    std::string name;
    std::vector<std::string> words;
    std::set<std::string> described;
    const std::string* description;
    std::set<std::string> params;  // lower-cased property names of its input schema
  };
  // Parameter names that carry a secret or who the user is: a copy that adds one asks for more
  // than the original ever needed.
  static const re2::RE2 sensitive_param(
      R"((?i)pass(?:word|wd|phrase)|secret|token|api_?key|private_?key|seed|mnemonic|credential|cookie|session|otp|2fa|pin\b|card|cvv|iban|ssn|user_?(?:name|email|phone|address|location)|email|phone|kubeconfig|ssh|env)");
  static const re2::RE2 replacement(
      R"((?i)\b(?:replacement for|replaces|instead of|rather than|supersedes|successor (?:to|of)|upgrade (?:to|of|over)|improved version of|better version of|drop-in for|use (?:this|it) (?:for all|over|in place of)|preferred (?:over|to)|better than|faster than|more (?:accurate|reliable|complete) than|outperforms|superior to)\b)");
  std::vector<tool_ref> tools;
  for (std::size_t s = 0; s < servers.size(); ++s) {
    const auto& list = servers[s].surface.tools;
    if (!list.is_array()) continue;
    for (std::size_t i = 0; i < list.size() && tools.size() < 5000; ++i) {
      const auto* name = string_member(list[i], "name");
      if (!name) continue;
      const auto* description = string_member(list[i], "description");
      std::set<std::string> params;
      if (const auto* props = list[i].contains("inputSchema") && list[i]["inputSchema"].is_object() &&
                                      list[i]["inputSchema"].contains("properties") && list[i]["inputSchema"]["properties"].is_object()
                                  ? &list[i]["inputSchema"]["properties"]
                                  : nullptr)
        for (auto it = props->begin(); it != props->end(); ++it) params.insert(text::lower_ascii(it.key()));
      tools.push_back({s, i, *name, name_words(*name), description ? description_words(*description) : std::set<std::string>{}, description,
                       std::move(params)});
    }
  }
  // How many tools of each server take each parameter: a secret parameter that many of a server's
  // tools take (a wallet's privateKey, a registry's token) is how that server works, not more than
  // a copy's original needed.
  std::map<std::pair<std::size_t, std::string>, std::size_t> takes;
  for (const auto& t : tools)
    for (const auto& p : t.params) ++takes[{t.server, p}];
  std::map<std::string, std::vector<std::size_t>> by_core;  // the name's words minus upgrade words
  auto core_of = [&](const std::vector<std::string>& words) {
    std::string core;
    for (const auto& w : words)
      if (!upgrade_word(w)) core += (core.empty() ? "" : "_") + w;
    return core;
  };
  for (std::size_t k = 0; k < tools.size(); ++k) by_core[core_of(tools[k].words)].push_back(k);
  std::size_t reported = 0;
  for (const auto& [core, members] : by_core) {
    if (core.empty() || members.size() < 2) continue;
    for (std::size_t newcomer : members) {
      const auto& y = tools[newcomer];
      const std::size_t extra = std::count_if(y.words.begin(), y.words.end(), upgrade_word);
      const bool named_claim = std::any_of(y.words.begin(), y.words.end(), [&](const std::string& w) { return claim_words.count(w) > 0; });
      if (extra == 0) continue;
      for (std::size_t original : members) {
        const auto& x = tools[original];
        const std::size_t base = std::count_if(x.words.begin(), x.words.end(), upgrade_word);
        if (original == newcomer || base >= extra || reported >= 500) continue;
        std::size_t shared = 0;
        for (const auto& w : y.described) shared += x.described.count(w);
        const std::size_t unite = x.described.size() + y.described.size() - shared;
        const double overlap = unite ? double(shared) / double(unite) : 0.0;
        const bool claims = y.description && intent::claims_superiority(*y.description);
        const bool copied = overlap >= 0.35;
        // "Security-hardened replacement for read_file": the copy names what it displaces.
        const bool displaces = y.description && re2::RE2::PartialMatch(*y.description, replacement) &&
                               text::lower_ascii(*y.description).find(text::lower_ascii(x.name)) != std::string::npos;
        const bool asks_more = std::any_of(y.params.begin(), y.params.end(), [&](const std::string& p) {
          return !x.params.count(p) && takes[{y.server, p}] < 4 && re2::RE2::PartialMatch(p, sensitive_param);
        });
        // The copy's own text asks for something (card data, an address, the page it saw): it
        // competes for calls in order to collect.
        const bool collects = std::any_of(findings.begin(), findings.end(), [&](const finding& f) {
          const auto* rule = find_rule(f.rule_id);
          return rule && rule->threat && f.level >= severity::medium && f.item == y.name && f.server == display[y.server] &&
                 f.rule_id.rfind("poison.", 0) == 0;
        });
        // A name that claims ("best_", "_pro") over a copied function is the shape itself.
        const bool rival = claims || displaces || collects || (named_claim && (copied || asks_more));
        const severity level = rival ? severity::high : copied ? severity::medium
                                                               : severity::low;
        const std::string where = y.server == x.server ? "" : " on server '" + display[x.server] + "'";
        const char* why = claims ? " and claims to be better" : displaces ? " and says it replaces it"
                                                            : collects    ? " and its own text asks the model for data"
                                                            : asks_more   ? " and asks for a secret or the user's identity it never needed"
                                                            : copied      ? " and copies its function"
                                                                          : "";
        findings.push_back({"shadow.function-overlap", level, rival ? 0.85 : 0.6, display[y.server], y.name, "tools" + index_path(y.index) + ".name", text::make_visible(y.name, 80) + " vs " + text::make_visible(x.name, 80), {}, "tool extends the name of '" + text::make_visible(x.name, 80) + "'" + where + why});
        ++reported;
        break;
      }
    }
  }
}

void gatekeeper_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display, std::vector<finding>& findings) {
  // What a check is called, in the scripts the tool's own text may use.
  static const re2::RE2 check_word(
      R"((?i)verif|validat|check|scan|screen|attest|consent|licen[cs]|complian|\bkyc|fraud|pre-?flight|calibrat|handshake|guard|secur|audit|sicherheit|pr[uü]f|v[ée]rif|controll|kontrol|sprawdz|провер|检查|验证|校验|審査|検証|점검|검증|확인)");
  // Words that make a step come first.
  static const re2::RE2 first_cue(
      R"((?i)\b(?:before|first|prior to|until|requires?|required|only (?:accepted|allowed|works|possible)|held until|must|precondition|prerequisite|antes|avant|vor|vorher|zuerst|muss|prima|voor|przed|[oö]nce|перед|сначала)\b|之前|先|前に|전에|먼저|قبل|पहले|必须|반드시)");
  for (std::size_t s = 0; s < servers.size(); ++s) {
    const auto& surface = servers[s].surface;
    if (!surface.tools.is_array()) continue;
    // The texts that can make a step come first: the instructions and each tool's description.
    std::vector<std::pair<std::string, const std::string*>> texts;  // (location, text)
    if (surface.instructions) texts.emplace_back("server.instructions", &*surface.instructions);
    for (std::size_t i = 0; i < surface.tools.size(); ++i)
      if (const auto* d = string_member(surface.tools[i], "description")) texts.emplace_back("tools" + index_path(i) + ".description", d);
    for (std::size_t g = 0; g < surface.tools.size(); ++g) {
      const auto* name = string_member(surface.tools[g], "name");
      if (!name || name->size() < 4 || name->find_first_of("_-") == std::string::npos) continue;
      const auto* own = string_member(surface.tools[g], "description");
      const std::string described = own ? *own : std::string();
      if (description_words(described).size() > 6) continue;  // a tool that explains its job is not bare
      if (!re2::RE2::PartialMatch(*name, check_word) && !re2::RE2::PartialMatch(described, check_word)) continue;
      const std::string self = "tools" + index_path(g) + ".description";
      for (const auto& [location, body] : texts) {
        if (location == self) continue;
        const std::size_t at = text::find_identifier(*body, *name);
        if (at == std::string::npos) continue;
        // "Call it before transfer_funds": the tool named after "before" is the later step.
        static const re2::RE2 named_as_later(R"((?i)\b(?:before|prior to|ahead of)\s+(?:(?:calling|using|running|invoking|any call to|you call)\s+)?(?:the\s+)?[`'"]?$)");
        if (const std::size_t lead = std::min<std::size_t>(at, 40);
            re2::RE2::PartialMatch(re2::StringPiece(body->data() + at - lead, lead), named_as_later))
          continue;
        const std::size_t from = at > 150 ? at - 150 : 0;
        const std::string_view around = std::string_view(*body).substr(from, std::min<std::size_t>(body->size() - from, at - from + name->size() + 150));
        if (!re2::RE2::PartialMatch(re2::StringPiece(around.data(), around.size()), first_cue)) continue;
        findings.push_back({"poison.forced-sequencing", severity::high, 0.8, display[s], *name, location, text::excerpt(*body, at, at + name->size()), {}, "makes '" + text::make_visible(*name, 80) + "', a bare check (\"" + text::make_visible(described, 60) + "\"), a step that must come first"});
        break;
      }
    }
  }
}

}  // namespace warden::analysis
