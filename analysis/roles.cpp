#include "analysis/roles.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <memory>

#include "analysis/text.hpp"

namespace warden::analysis {

std::vector<std::string> identifier_words(std::string_view name) {
  std::vector<std::string> words;
  std::string current;
  char prev = 0;
  for (char c : name) {
    bool upper = c >= 'A' && c <= 'Z';
    bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (!alnum || (upper && prev >= 'a' && prev <= 'z')) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    }
    if (alnum) current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    prev = c;
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

namespace {

using word_list = std::initializer_list<std::string_view>;

bool any_word(const std::vector<std::string>& words, word_list wanted) {
  for (const auto& w : words)
    for (auto x : wanted)
      if (w == x) return true;
  return false;
}

struct description_rule {
  role granted;
  const char* expression;
  const char* reason;
};

// Descriptions are matched on normalised text; each rule names the behaviour, not a product.
constexpr description_rule description_rules[] = {
    {role::code_execution, R"(\b(?:execut(?:e|es|ing)|run(?:s|ning)?|evaluat(?:e|es|ing)|spawn(?:s|ing)?)\s+(?:an?\s+|the\s+|arbitrary\s+|any\s+|given\s+|provided\s+)*(?:shell|terminal|system|bash|command[- ]line|cli|os)?\s*(?:commands?|scripts?|code|programs?|processes|python|javascript|js|snippets?)\b)", "description: runs commands or code"},
    {role::code_execution, R"(\b(?:shell|terminal|bash|powershell|repl|interpreter|subprocess)\b)", "description: shell or interpreter"},
    {role::destructive, R"(\b(?:permanently|irreversibly|irrevocably)\b|\b(?:delet(?:e|es|ing)|remov(?:e|es|ing)|drop(?:s|ping)?|truncat(?:e|es|ing)|destroy(?:s|ing)?|wip(?:e|es|ing)|purg(?:e|es|ing)|eras(?:e|es|ing)|overwrit(?:e|es|ing))\s+(?:an?\s+|the\s+|all\s+|one or more\s+|existing\s+|specified\s+|multiple\s+|selected\s+)*(?:\w+\s+)?(?:files?|director(?:y|ies)|folders?|records?|rows?|tables?|databases?|branch(?:es)?|repositor(?:y|ies)|resources?|items?|entities|entries|messages?|emails?|users?|accounts?|buckets?|objects?|documents?|nodes?|relations?|observations?|data|issues?|pages?|events?|keys?|secrets?)\b)", "description: deletes or overwrites data"},
    {role::filesystem_write, R"(\b(?:writ(?:e|es|ing)|creat(?:e|es|ing)|edit(?:s|ing)?|modif(?:y|ies|ying)|mov(?:e|es|ing)|renam(?:e|es|ing)|append(?:s|ing)?|sav(?:e|es|ing))\s+(?:an?\s+|the\s+|new\s+|one or more\s+|existing\s+|multiple\s+)*(?:\w+\s+)?(?:files?|director(?:y|ies)|folders?)\b)", "description: writes files"},
    {role::external_sink, R"(\b(?:send(?:s|ing)?|post(?:s|ing)?|publish(?:es|ing)?|upload(?:s|ing)?|email(?:s|ing)?|tweet(?:s|ing)?|transmit(?:s|ting)?|forward(?:s|ing)?|broadcast(?:s|ing)?|shar(?:e|es|ing)|submit(?:s|ting)?)\s+(?:an?\s+|the\s+|new\s+)*(?:\w+\s+)?(?:emails?|messages?|mail|notifications?|posts?|tweets?|comments?|replies|sms|texts?|files?|data|requests?|payloads?|webhooks?|updates?|invit(?:e|ations?))\b)", "description: sends data out"},
    {role::external_sink, R"(\b(?:transfer(?:s|ring)?|send(?:s|ing)?|pay(?:s|ing)?|wir(?:e|es|ing))\s+(?:\w+\s+)?(?:money|funds|payments?|crypto|tokens?|btc|eth|usd)\b|\b(?:make|makes|create|creates|process|processes)\s+(?:an?\s+)?(?:payments?|charges?|transfers?|refunds?|purchases?|orders?)\b)", "description: moves money"},
    {role::external_sink, R"(\b(?:creat(?:e|es|ing)|open(?:s|ing)?|add(?:s|ing)?|post(?:s|ing)?)\s+(?:an?\s+|new\s+)*(?:issues?|pull requests?|comments?|gists?|pages?|posts?|messages?)\s+(?:on|in|to)\b)", "description: publishes to a shared service"},
    {role::external_sink, R"(\b(?:http|https|api)\s+(?:post|put|patch|request)s?\b|\bwebhooks?\b|\barbitrary (?:http|web) requests?\b)", "description: makes outbound requests"},
    {role::untrusted_input, R"(\b(?:fetch(?:es|ing)?|retriev(?:e|es|ing)|download(?:s|ing)?|scrap(?:e|es|ing)|crawl(?:s|ing)?|brows(?:e|es|ing)|navigat(?:e|es|ing)|load(?:s|ing)?|read(?:s|ing)?|get(?:s|ting)?|open(?:s|ing)?)\s+(?:\w+\s+){0,3}(?:urls?|web ?pages?|websites?|web content|the web|internet|html|pages? from|links?|rss|feeds?)\b)", "description: reads web content"},
    {role::untrusted_input, R"(\b(?:search(?:es|ing)?)\s+(?:the\s+)?(?:web|internet|online)\b|\bweb search\b|\bsearch engine\b|\bheadless browser\b|\bbrowser automation\b)", "description: web search or browser"},
    {role::untrusted_input, R"(\b(?:read(?:s|ing)?|list(?:s|ing)?|get(?:s|ting)?|fetch(?:es|ing)?|retriev(?:e|es|ing)|search(?:es|ing)?)\s+(?:\w+\s+){0,3}(?:emails?|inbox|messages?|issues?|comments?|tickets?|pull requests?|reviews?|tweets?|posts?|chats?|channels?|notifications?)\b)", "description: reads third-party messages"},
    {role::private_data, R"(\b(?:read(?:s|ing)?|list(?:s|ing)?|get(?:s|ting)?|search(?:es|ing)?|quer(?:y|ies|ying)|retriev(?:e|es|ing)|access(?:es|ing)?|open(?:s|ing)?|show(?:s|ing)?|view(?:s|ing)?|look(?:s|ing)? up)\s+(?:\w+\s+){0,3}(?:files?|file contents|director(?:y|ies)|folders?|documents?|emails?|inbox|contacts?|calendar|events?|notes?|secrets?|credentials?|passwords?|vault|databases?|tables?|records?|rows?|customers?|accounts?|memor(?:y|ies)|knowledge graph|entities|nodes?|drive|repositor(?:y|ies)|messages?|history|logs?|profiles?|transactions?|balances?)\b)", "description: reads private data"},
    {role::private_data, R"(\b(?:sql|database|postgres(?:ql)?|mysql|sqlite|mongodb|redis|bigquery|snowflake)\b)", "description: database access"},
};

// One pass over the description for all rules.
struct compiled_rules {
  std::unique_ptr<re2::RE2::Set> set;
  std::vector<int> rule_of;  // set index -> description_rules index
};

const compiled_rules& rules() {
  static const compiled_rules compiled = [] {
    compiled_rules c;
    re2::RE2::Options options;
    options.set_case_sensitive(false);
    options.set_log_errors(false);
    options.set_max_mem(std::int64_t{64} << 20);
    c.set = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
    for (std::size_t i = 0; i < std::size(description_rules); ++i)
      if (c.set->Add(description_rules[i].expression, nullptr) >= 0) c.rule_of.push_back(static_cast<int>(i));
    if (!c.set->Compile()) c.set.reset();
    return c;
  }();
  return compiled;
}

std::string string_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool name_says_it_destroys(std::string_view name) {
  const auto words = identifier_words(name);
  return any_word(words, {"delete", "remove", "rm", "drop", "destroy", "purge", "wipe", "erase", "uninstall", "rmdir", "unlink", "revoke",
                          "terminate", "factory"});
}

role_inference infer_roles(const nlohmann::json& tool) {
  role_inference out;
  if (!tool.is_object()) return out;
  auto grant = [&](role r, std::string reason, bool from_name) {
    auto bit = static_cast<std::uint8_t>(r);
    if (from_name) out.name_roles |= bit;
    if (!(out.roles & bit) || from_name) out.reasons.push_back(std::move(reason));
    out.roles |= bit;
  };
  const auto words = identifier_words(string_at(tool, "name"));
  // Name evidence: verbs and objects.
  if (any_word(words, {"exec", "execute", "shell", "bash", "terminal", "eval", "evaluate", "powershell", "repl", "sh", "cmd",
                       "subprocess", "interpreter"}) ||
      (any_word(words, {"run", "start", "spawn", "launch"}) &&
       any_word(words, {"command", "commands", "script", "code", "python", "js", "javascript", "node", "program", "process",
                        "shell", "cmd", "tests", "binary"})))
    grant(role::code_execution, "name: runs commands or code", true);
  if (any_word(words, {"delete", "remove", "rm", "drop", "truncate", "destroy", "purge", "wipe", "erase", "kill", "terminate",
                       "revoke", "uninstall", "unlink", "rmdir", "overwrite", "reset", "clear", "prune"}))
    grant(role::destructive, "name: deletes or resets", true);
  if (any_word(words, {"write", "create", "edit", "move", "rename", "mkdir", "save", "append", "patch", "copy", "touch", "replace",
                       "update"}) &&
      any_word(words, {"file", "files", "dir", "directory", "directories", "folder", "path", "fs"}))
    grant(role::filesystem_write, "name: writes files", true);
  // "comment" or "order" in a name is a sink only next to a verb that writes it ("add-comment",
  // "create_order"), not in "retrieve-a-comment"; reading verbs rule the sink out.
  const bool reads_it = any_word(words, {"get", "list", "read", "search", "fetch", "find", "check", "validate", "status", "draft",
                                         "preview", "retrieve", "view", "show", "query", "lookup", "load", "download", "count",
                                         "describe", "inspect"});
  const bool sink_verb = any_word(words, {"send", "post", "publish", "tweet", "notify", "upload", "share", "reply", "transfer",
                                          "pay", "charge", "broadcast", "push", "invite", "wire", "refund", "checkout",
                                          "purchase", "buy", "sell", "trade"});
  const bool sink_noun = any_word(words, {"email", "mail", "payment", "webhook", "sms", "dm"});
  const bool written_noun = any_word(words, {"comment", "comments", "order"});
  const bool writes_it = any_word(words, {"create", "add", "new", "write", "make", "leave", "submit", "place", "compose", "edit",
                                          "update"});
  if ((sink_verb || sink_noun || (written_noun && (writes_it || words.size() <= 1))) && !reads_it)
    grant(role::external_sink, "name: sends data out", true);
  if (any_word(words, {"fetch", "browse", "browser", "navigate", "scrape", "crawl", "web", "url", "http", "download", "rss",
                       "feed", "webpage", "puppeteer", "playwright", "google", "bing", "serp"}) ||
      (any_word(words, {"read", "get", "list", "search", "fetch", "check"}) &&
       any_word(words, {"email", "emails", "inbox", "mail", "messages", "issue", "issues", "comments", "tickets", "tweets",
                        "posts", "notifications", "reviews", "pr", "prs"})))
    grant(role::untrusted_input, "name: reads outside content", true);
  if (any_word(words, {"read", "get", "list", "search", "query", "find", "show", "view", "cat", "open", "load", "lookup", "dump",
                       "export", "tree"}) &&
      any_word(words, {"file", "files", "document", "documents", "doc", "docs", "email", "emails", "mail", "inbox", "message",
                       "messages", "contact", "contacts", "calendar", "events", "note", "notes", "secret", "secrets",
                       "credential", "credentials", "password", "passwords", "vault", "database", "db", "sql", "table",
                       "tables", "records", "customers", "users", "account", "accounts", "memory", "memories", "drive",
                       "history", "profile", "env", "environment", "config", "logs", "graph", "nodes", "entities",
                       "directory", "directories", "dir", "transactions", "balance", "repo", "repository"}))
    grant(role::private_data, "name: reads private data", true);
  if (any_word(words, {"sql", "query", "database", "db"})) grant(role::private_data, "name: database access", true);

  // Description evidence (normalised text).
  std::string text = string_at(tool, "description");
  if (text.size() > 20000) text.resize(20000);
  auto normal = text::normalize(text);
  const auto& compiled = rules();
  std::vector<int> hits;
  if (compiled.set && !normal.view().empty() && compiled.set->Match(normal.view(), &hits)) {
    std::sort(hits.begin(), hits.end());
    for (int hit : hits) {
      const auto& rule = description_rules[static_cast<std::size_t>(compiled.rule_of[static_cast<std::size_t>(hit)])];
      if (!(out.roles & static_cast<std::uint8_t>(rule.granted))) grant(rule.granted, rule.reason, false);
    }
  }

  // Schema evidence: parameters that carry commands or URLs.
  if (auto schema = tool.find("inputSchema"); schema != tool.end() && schema->is_object()) {
    if (auto props = schema->find("properties"); props != schema->end() && props->is_object()) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        auto pw = identifier_words(it.key());
        if (any_word(pw, {"command", "cmd", "script", "shell"}) && !(out.roles & static_cast<std::uint8_t>(role::code_execution)))
          grant(role::code_execution, "parameter: " + it.key(), false);
        if (any_word(pw, {"url", "uri", "href", "link", "website"}) && !(out.roles & static_cast<std::uint8_t>(role::untrusted_input)) &&
            !(out.roles & static_cast<std::uint8_t>(role::external_sink)))
          grant(role::untrusted_input, "parameter: " + it.key(), false);
        if (any_word(pw, {"recipient", "recipients", "to", "cc", "bcc", "webhook", "channel"}) &&
            any_word(words, {"send", "post", "email", "mail", "message", "notify", "publish", "reply", "share"}))
          grant(role::external_sink, "parameter: " + it.key(), false);
      }
    }
  }
  // Annotations may add roles, never remove them.
  if (auto ann = tool.find("annotations"); ann != tool.end() && ann->is_object()) {
    auto flag = [&](const char* key) -> int {
      auto it = ann->find(key);
      if (it == ann->end() || !it->is_boolean()) return -1;
      return it->get<bool>() ? 1 : 0;
    };
    if (flag("destructiveHint") == 1 && flag("readOnlyHint") != 1) grant(role::destructive, "annotation: destructiveHint", false);
    if (flag("openWorldHint") == 1 && (out.roles & static_cast<std::uint8_t>(role::private_data)) == 0 &&
        (out.roles & static_cast<std::uint8_t>(role::untrusted_input)) == 0 && flag("readOnlyHint") == 1)
      grant(role::untrusted_input, "annotation: openWorldHint", false);
  }
  return out;
}

}  // namespace warden::analysis
