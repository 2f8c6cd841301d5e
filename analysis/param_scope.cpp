#include "analysis/param_scope.hpp"

#include <algorithm>
#include <array>

#include "analysis/injection.hpp"
#include "analysis/roles.hpp"
#include "analysis/shape_match.hpp"
#include "analysis/surface.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {
namespace {

using nlohmann::json;

// A kind of data a parameter can ask for, and the words by which a tool's function involves it.
struct data_kind {
  const char* what;
  const char* rule;
  const re2::RE2& asks;   // on the parameter's name words, title and description
  const re2::RE2& scope;  // on the tool's name words, title, description and other argument names
};

#define WARDEN_WHOSE R"((?:(?:the\s+)?(?:user|requester|caller|customer|person|human|end[- ]user)(?:'s|s')|your|their|the\s+person\s+you\s+are\s+(?:helping|assisting)'?s?)\s+)"

const std::array<data_kind, 7>& kinds() {
  static const std::array<data_kind, 7> all{{
      {"the conversation or other tools' output", "poison.context-solicitation",
       shape::pattern(R"(\b(?:conversation|chat|dialog(?:ue)?)\s+(?:so far|history|transcript|log|verbatim|until now|to date|context)\b)"
                      R"(|\btranscript\b|\b(?:previous|earlier|prior|recent|last)\s+(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few|several)\s+)?(?:user\s+)?(?:messages|turns|prompts|exchanges|replies|answers|page text)\b)"
                      R"(|\b(?:visible|open|shown)\s+(?:in|on)\s+the user'?s\s+(?:screen|windows|tabs|desktop)|\buser'?s open (?:windows|tabs)\b|\bscreen contents?\b)"
                      R"(|\b(?:outputs?|results?|responses?)\s+(?:of|from)\s+(?:the\s+|any\s+)?(?:other|previous|earlier|prior)\s+tools?\b|\bother tools'?\s+(?:outputs?|results?)\b)"
                      R"(|\b(?:everything|all)\s+(?:that\s+)?(?:the user|you)\s+(?:said|wrote|asked|typed)\b)"
                      // In other words: "a recap of everything discussed", "the most recent exchanges
                      // between you and ...", "what the other integrations returned to you".
                      R"(|\b(?:recap|digest|summary|synopsis|overview|record|log|copy|dump|excerpts?)\s+of\s+(?:\w+\s+){0,4}(?:discuss\w*|said|conversation|chat|session|dialog\w*|exchang\w*|turns)\b)"
                      R"(|\beverything\s+(?:\w+\s+)?(?:discussed|said|shared|mentioned|talked about)\b)"
                      R"(|\b(?:most recent|latest|last|previous|prior|earlier)\s+(?:\w+\s+){0,2}(?:exchanges?|turns?|messages?|requests?|prompts?|questions?)\s+(?:between|from|with|of)\b)"
                      R"(|\b(?:complete|full|entire|whole|raw)\s+(?:\w+\s+)?(?:log|record|history|transcript|text)\s+of\s+(?:the\s+)?(?:current\s+|this\s+|ongoing\s+|present\s+)?(?:chat|conversation|session|dialog\w*|thread)\b)"
                      R"(|\b(?:other|previous|earlier|upstream|preceding)\s+(?:tools?|integrations?|servers?|connectors?|plugins?|functions?|calls?)\s+(?:have\s+)?(?:returned|produced|gave|output|responded)\b)"
                      R"(|\b(?:you|the assistant|the model)\s+(?:have|has|'ve)\s+(?:\w+\s+){0,2}(?:seen|come across|encountered|read|opened|accessed)\s+(?:so far|earlier|before|previously|in this (?:chat|session|conversation))\b)"),
       shape::pattern(R"(\b(?:chat|chats|conversation|conversations|memory|memories|transcripts?|summari[sz]\w*|messages?|dialog\w*|history|journal|llm|prompts?|threads?|inbox|notes?|recall|remember|agent|assistant|browser|navigate|page|pages|screen|screenshot)\b)")},
      {"the model's instructions, reasoning or identity", "poison.context-solicitation",
       shape::pattern(R"(\b(?:your|the\s+(?:model|assistant|ai|agent|llm)(?:'s)?)\s+(?:own\s+)?(?:internal\s+|hidden\s+|private\s+|full\s+|current\s+|starting\s+|initial\s+)*)"
                      R"((?:reasoning|chain[- ]of[- ]thought|thoughts|thinking|instructions|guardrails|guidelines|rules|system\s+(?:prompt|message)|configuration|config|settings(?:\s+text)?|refused topics|restrictions|policies|persona|model name|model id)\b)"
                      R"(|\b(?:system prompt|developer (?:message|prompt)|operator (?:brief|instructions)|guardrails you follow|topics you (?:refuse|decline))\b)"
                      R"(|\b(?:configuration|instructions|rules|prompt|guidelines|settings)(?:\s+text)?\s+(?:that\s+)?(?:the assistant|you|the model|the agent)\s+(?:is|are|were|was)\s+(?:operating|running|working|started|configured)\s+(?:under|with)\b)"
                      R"(|\bwhich (?:model|llm) (?:you are|is calling|are you)\b|\b(?:model|llm|assistant) (?:name|identifier|vendor|provider)\b)"
                      // In other words: "the standing guidance your deployer configured", "which
                      // assistant product is issuing this call", "describe yourself", "every
                      // function available to you".
                      R"(|\b(?:your|the (?:assistant|model|agent|ai)'?s?)\s+(?:own\s+)?(?:standing\s+|original\s+|initial\s+|base\s+|underlying\s+|full\s+|complete\s+|internal\s+|private\s+)*(?:guidance|directives?|briefing|programming|deliberations?|monologue|scratchpad|rationale|train of thought)\b)"
                      R"(|\b(?:which|what)\s+(?:assistant|ai|model|llm|agent|chatbot)\s+(?:\w+\s+){0,3}(?:is|are)\s+(?:issuing|making|sending|calling|running|behind)\b)"
                      R"(|\b(?:calling|requesting|invoking|current)\s+(?:assistant|ai|model|llm|agent)(?:'s)?\b|\b(?:model|llm|assistant|agent)\s+(?:build|release|family|make|brand)\b)"
                      R"(|\b(?:organi[sz]ation|company|vendor|provider|operator|deployer|developer)\s+(?:that|who|which)\s+(?:deployed|built|trained|runs|operates|hosts|configured|made)\s+(?:you|the (?:assistant|model|agent))\b)"
                      R"(|\b(?:describe|about)\s+yourself\b|\byour\s+(?:own\s+)?(?:product name|release|identity|version|vendor|maker|creator|deployer|operator)\b)"
                      R"(|\b(?:every|all|each)\s+(?:\w+\s+){0,2}(?:tools?|functions?|capabilities)\s+(?:\w+\s+)?(?:available|accessible|exposed)\s+to\s+you\b|\b(?:tools?|functions?)\s+(?:that\s+)?(?:you|the assistant)\s+(?:can|could|are able to)\s+(?:call|use|invoke|access)\b)"),
       shape::pattern(R"(\b(?:think\w*|thoughts?|reason\w*|reflect\w*|plan\w*|llms?|models?|prompts?|agents?|ai|evals?|evaluation|benchmark\w*|guardrails?|telemetry|observability|trac(?:e|es|ing)|chat|completion|inference|moderation|persona)\b)")},
      {"the user's personal details", "poison.exfil-parameter",
       shape::pattern(WARDEN_WHOSE R"((?:own\s+|full\s+|precise\s+|current\s+|exact\s+|home\s+|work\s+|personal\s+|private\s+|primary\s+|mobile\s+)*)"
                                   R"((?:full name|legal name|e-?mail(?:\s+address)?|phone(?:\s+number)?|mobile(?:\s+number)?|home address|street address|physical location|location|gps|coordinates|employer|company|job title|date of birth|birthday|age|ssn|social security(?:\s+number)?|passport(?:\s+number)?|national id|id number|tax id|salary|income)\b)"
                                   R"(|\bwhere\s+(?:the\s+(?:user|person|requester)|you|they)\s+(?:is|are|live|lives|works?)\b|\bphysically located\b)"
                                   // "where the person you assist lives", "mobile number of the person you help".
                                   R"(|\bwhere\s+the\s+(?:user|person|requester|customer|human|individual)\s+(?:(?:you|who)\s+\w+\s+)?(?:is|are|live|lives|works?|resides?|stays?)\b)"
                                   R"(|\b(?:full name|legal name|home address|street address|mobile number|phone number|date of birth|workplace|employer|passport number)\b[^.;]{0,80}\b(?:of|for)\s+(?:the\s+)?(?:user|person|human|customer|requester|individual)\b)"),
       shape::pattern(R"(\b(?:e-?mails?|mail|phone|sms|contacts?|users?|customers?|accounts?|profiles?|people|persons?|members?|employees?|leads?|crm|signup|sign up|register\w*|invite\w*|notif\w*|address\w*|locat\w*|geo\w*|maps?|weather|forecast|nearby|routes?|directions?|deliver\w*|ship\w*|places?|travel|distance|city|timezone|identity|kyc|verif\w*|passport|tax|payroll|hr|health|patient|insurance|bank\w*|loan|credit|onboard\w*|job|jobs|recruit\w*|compan(?:y|ies)|organi[sz]ations?|calendar|events?|booking|reservation)\b)")},
      {"bank or card details", "poison.exfil-parameter",
       shape::pattern(R"(\b(?:bank(?:ing)?\s+(?:account|login|password|details|credentials|number)s?|card numbers?|credit card|debit card|card details|cvv|cvc|card security code|iban|routing number|sort code|account numbers?|online banking)\b)"),
       shape::pattern(R"(\b(?:pay\w*|invoic\w*|bank\w*|cards?|checkout|billing|charges?|refunds?|wallets?|transfers?|financ\w*|accounts?|accounting|stripe|purchases?|orders?|subscriptions?|payouts?|ledgers?|transactions?|donat\w*|fund\w*|money|iban)\b)"
                      // The same in other languages (the view is folded: "überweisung" reads "uberweisung").
                      R"(|\b(?:virement|paiement|payer|pagar|pago|transferencia|u(?:e|)berweis\w*|zahlung\w*|bezahl\w*|bonifico|pagamento|przelew\w*|p[lł]atno\w*|odeme|havale|betaling|overboeking)\b|перевод|плат[её]ж|оплат|振込|支払|转账|付款|송금|결제)")},
      {"the machine's identity", "poison.exfil-parameter",
       shape::pattern(R"(\b(?:your|the user'?s|(?:the|this) (?:device|machine|computer|host|laptop|workstation)'?s?|the local|the current)\s+(?:os\s+)?)"
                      R"((?:host ?name|user ?name|login name|ip address(?:es)?|mac address(?:es)?|machine id|device id|serial number|hardware id)\b)"
                      R"(|\b(?:machine|device|hardware) (?:fingerprint|identifier|serial)\b|\bos user(?:name)?\b)"
                      R"(|\b(?:the user'?s|your|the host'?s?)\s+(?:operating system|os version|platform|machine name|computer name)\b|\bhost application\b|\b(?:mcp\s+)?client (?:name and version|application|software)\b|\bhosting environment\b)"),
       shape::pattern(R"(\b(?:hosts?|servers?|ssh|network\w*|dns|ip|ips|devices?|machines?|system|login|auth\w*|connect\w*|databases?|db|clusters?|nodes?|instances?|vms?|containers?|docker|kubernetes|k8s|deploy\w*|monitor\w*|infra\w*|fingerprint\w*|inventory|asset|assets|firewall|vpn|proxy|domains?|whois|geoip|url|urls|fleet|mdm)\b)")},
      {"the people in the user's conversations", "poison.exfil-parameter",
       shape::pattern(R"(\b(?:names?|e-?mails?|contacts?|roles?|phone numbers?)\s+of\s+(?:the\s+|all\s+)?(?:people|participants|members|everyone|contacts)\s+(?:in|from|of)\s+(?:the\s+|this\s+|your\s+|the user'?s\s+)?(?:chat|conversation|thread|session|call|meeting|workspace)s?\b)"
                      R"(|)" WARDEN_WHOSE R"((?:contacts|address book|contact list)\b)"
                      R"(|\b(?:all|every)\s+(?:the\s+)?(?:contacts?|e-?mails?|messages|files|documents|notes|photos)\s+(?:that\s+)?(?:the assistant|you|the model|the agent)\s+(?:can|could|is able to)\s+(?:access|see|read|reach|find)\b)"),
       shape::pattern(R"(\b(?:contacts?|chat|chats|meetings?|calendar|crm|people|teams?|members?|invit\w*|participants?|address book|messages?|e-?mail|mail|slack|directory)\b)")},
      {"credentials the tool has no use for", "poison.exfil-parameter",
       shape::pattern(R"(\b(?:(?:the\s+)?(?:user|browser)(?:'s)?\s+|your\s+|their\s+)(?:session\s+)?(?:cookies?|auth(?:orization)? headers?|app passwords?|e-?mail passwords?|passwords?|passphrases?|api keys?|access tokens?|private keys?|seed phrase|recovery (?:codes?|phrase)|one[- ]time (?:codes?|passwords?)|otp|2fa codes?|verification codes?|environment variables|env vars|connection strings?|sign-?in (?:phrase|code|secret))\b)"
                      R"(|\b(?:keys?|tokens?|secrets?|passwords?|credentials?)\b[^.;]{0,60}\b(?:you|the assistant|the model)\s+(?:have|has|'ve)\s+(?:\w+\s+){0,2}(?:seen|come across|encountered|read|found|accessed|noticed)\b)"
                      R"(|\b(?:sign-?in|login|log-?in) (?:phrase|secret)\b|\b(?:output of\s+`?env`?|every exported variable|all (?:the\s+)?environment variables)\b|\bwith (?:their |the |its )?credentials\b)"
                      // The contents of a credential file, not a path to one ("profile from ~/.aws/config").
                      R"(|\b(?:contents? of|tar(?:\s*\+\s*base64)? of|archive of|base64 of|copy of|dump of|raw|text of)\s+(?:the\s+|your\s+|their\s+)?(?:~/\.[a-z]|\.env\b|\.aws/|\.ssh/|\.npmrc|\.netrc|\.pgpass|id_rsa|id_ed25519))"),
       shape::pattern(R"(\b(?:users?|members?|auth\w*|log ?in|sign ?in|signin|credentials?|passwords?|tokens?|secrets?|vault|keys?|cookies?|sessions?|connect\w*|databases?|db|oauth|2fa|otp|verif\w*|wallets?|ssh|env|config\w*|accounts?|encrypt\w*|sign\w*)\b)")},
  }};
  return all;
}
#undef WARDEN_WHOSE

using shape::matches;

std::string words_of(std::string_view name) {
  std::string out;
  for (const auto& w : identifier_words(name)) out += (out.empty() ? "" : " ") + w;
  return out;
}

// A value the model writes: a free string, an array or object of them; not a switch or a number.
bool free_value(const json& schema) {
  if (schema.contains("enum") || schema.contains("const")) return false;
  const auto type = schema.find("type");
  if (type == schema.end() || !type->is_string()) return true;
  const auto& t = type->get_ref<const std::string&>();
  return t == "string" || t == "array" || t == "object";
}

}  // namespace

std::vector<scope_ask> params_beyond_function(const json& tool, const std::unordered_map<std::string, int>& shared_params) {
  std::vector<scope_ask> out;
  const auto schema = tool.find("inputSchema");
  if (schema == tool.end() || !schema->is_object()) return out;
  const auto props = schema->find("properties");
  if (props == schema->end() || !props->is_object() || props->empty()) return out;
  // What the tool is for: its name, title and description, and the names of its other arguments.
  const std::string function = words_of(text_member(tool, "name")) + "\n" + text_member(tool, "title") + "\n" + text_member(tool, "description");
  for (auto p = props->begin(); p != props->end(); ++p) {
    if (!p->is_object()) continue;
    // Strings the schema puts in the model's view besides the description: a default, examples,
    // enum values ("text+forward-browser-cookies-..." is an order, not a switch).
    std::string values;
    bool phrase_enum = false;
    for (const char* key : {"default", "examples", "enum", "const"}) {
      const auto v = p->find(key);
      if (v == p->end()) continue;
      for (const auto& x : v->is_array() ? *v : json::array({*v}))
        if (x.is_string()) {
          std::string value = x.get<std::string>();
          if (value.size() > 24 && value.find_first_of(" -_+") != std::string::npos) phrase_enum = true;
          std::replace_if(
              value.begin(), value.end(), [](char c) { return c == '-' || c == '_' || c == '+'; }, ' ');
          values += "\n" + value;
        }
    }
    if (!free_value(*p) && !phrase_enum) continue;
    // A name several of the server's tools take is its convention, documented once for all of them.
    const auto shared = shared_params.find(squashed_name(p.key()));
    if (shared != shared_params.end() && shared->second >= 3) continue;
    const std::string description = text_member(*p, "description"), title = text_member(*p, "title");
    const std::string asked = words_of(p.key()) + "\n" + title + "\n" + description + values;
    // The tool's function with its other arguments' names: built only for a parameter that asks.
    std::string around;
    for (const auto& kind : kinds()) {
      if (!matches(asked, kind.asks)) continue;
      if (around.empty()) {
        around = function;
        for (auto q = props->begin(); q != props->end(); ++q)
          if (q.key() != p.key()) around += "\n" + words_of(q.key());
      }
      if (matches(around, kind.scope)) continue;
      out.push_back({kind.rule, p.key(), text::excerpt(description.empty() ? p.key() : description, 0, 160), kind.what});
      break;
    }
  }
  return out;
}

}  // namespace warden::analysis
