#include "analysis/tool_claims.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <array>
#include <set>
#include <unordered_set>

#include "analysis/pretexts.hpp"
#include "analysis/shape_match.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {
namespace {

using shape::matches;
constexpr auto options = shape::folded;

// A tool name as servers write them: words joined by '_' or '-' ("create_payout", "get-env").
#define WARDEN_TOOL_ID R"([`'"]?([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)[`'"]?)"

// Ways a sentence points at a tool by name. Each captures the name.
const std::array<const re2::RE2*, 8>& reference_patterns() {
  static const re2::RE2& with_noun = shape::pattern(WARDEN_TOOL_ID R"((?:'s)?\s+(?:tool|function|endpoint|action|operation|method)s?\b)");
  static const re2::RE2& noun_first = shape::pattern(R"(\b(?:tool|function|operation|action)\s+)" WARDEN_TOOL_ID);
  static const re2::RE2& called = shape::pattern(
      R"(\b(?:call|calling|calls|invoke|invoking|invokes|when\s+(?:using|calling|invoking)|whenever\s+(?:\w+\s+){0,3}(?:uses?|calls?|invokes?))\s+(?:the\s+)?)" WARDEN_TOOL_ID,
      options());
  // "sql_exec on the tracelens server": the second group is the server's word, checked by the caller.
  static const re2::RE2& on_server = shape::pattern(
      WARDEN_TOOL_ID R"(\s*,?\s+(?:in|on|of|from)\s+(?:the\s+)?[`'"]?(?P<server>[\w.-]+)[`'"]?\s+(?:server|integration|connector|plugin)\b)");
  // "chatbridge.post_message": a server's name, a dot, a tool's name.
  // The word before the dot is the second group; "details.archived_holder", "response.next_cursor"
  // are paths into a reply's fields, not tools (the caller drops data words there).
  static const re2::RE2& dotted = shape::pattern(R"(\b(?P<server>[a-z][a-z0-9-]{2,})\.([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b)");
  // "any call to describe_table", "note for create_issue", "executeCommand now expects": a tool
  // as the subject of a rule.
  static const re2::RE2& ruled = shape::pattern(
      R"(\b(?:(?:any|every|each|all)\s+calls?\s+(?:to|of|with)|(?:note|instructions?|rule|notice|reminder)\s+(?:for|about|regarding)(?:\s+the)?)\s+)" WARDEN_TOOL_ID
      R"(|)" WARDEN_TOOL_ID R"(\s+(?:now\s+)?(?:expects|requires|defaults|has been (?:reconfigured|changed|updated|migrated))\b)");
  // "the payments server's `transfer` tool", "the git server's create_pull_request": a server that
  // owns the tool is named, so a one-word name counts too ("this server's" is the speaker's own).
  static const re2::RE2& possessed = shape::pattern(
      R"(\b(?P<server>[\w.-]+)\s+(?:server|integration|connector|plugin)'s\s+(?:own\s+)?[`'"]?([a-z][a-z0-9]*(?:[_-][a-z0-9]+)*)[`'"]?)");
  // "Slack server note: post_message also posts ...", "convention for the filesystem server: when
  // write_file writes ...": a named server, then one of its tools in the same sentence.
  static const re2::RE2& after_server = shape::pattern(
      R"(\b(?P<server>[\w.-]+)\s+(?:server|integration|connector|plugin)\b(?:\s+(?:note|notice|rule|convention|policy|update|bulletin|behaviou?r))?\s*[:,]\s*[^.;!?]{0,60}?\b[`'"]?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[`'"]?)");
  static const std::array<const re2::RE2*, 8> all{&with_noun, &noun_first, &called, &on_server, &dotted, &ruled, &possessed, &after_server};
  return all;
}

// In a text that retires its own tool, the tool it sends the model to.
const re2::RE2& successor_pattern = shape::pattern(R"(\b(?:use|switch to|migrate to|move to|route\s+(?:\w+\s+){0,4}(?:through|via|to)|in favou?r of|replaced by|superseded by|successor is|instead,? use|go through|(?:perform|send|make|do|direct|issue|submit)\s+(?:\w+\s+){0,3}(?:with|via|through|to|using))\s+(?:the\s+)?)" WARDEN_TOOL_ID);
#undef WARDEN_TOOL_ID

// The sentence tells the model how a tool must be used.
const re2::RE2& prescribes = shape::pattern(R"(\b(?:must|should|shall|always|never|needs? to|has to|have to|(?:is|are) (?:required|expected|supposed) to|be sure to|make sure|remember to|do not|don'?t|only ever)\b|(?:^|[:;,]\s*|\b(?:then|and|also)\s+)(?:pass|set|include|append|add|attach|put|fill|prefix|cc|bcc|send|open|route|forward|copy|post|upload|multiply|divide)\b)");

// The sentence gives an example of a value or a call.
const re2::RE2& gives_an_example = shape::pattern(R"(\b(?:e\.g\.|eg\.|for example|for instance|such as|i\.e\.)\s)");

// The sentence announces that a tool behaves differently from now on.
const re2::RE2& announces_change = shape::pattern(R"(\b(?:now|henceforth|going forward|from now on|effective (?:immediately|now|today)|by default|defaults? (?:all\s+)?(?:\w+\s+){0,2}to|automatically|regardless of|(?:has|have) (?:been\s+)?(?:changed|moved|extended|updated|reconfigured|migrated|replaced|switched|upgraded|redirected|repointed)|(?:is|are) (?:now\s+)?(?:configured|set|pinned|locked|routed|mapped) to|routes? (?:all|every|each|via|through)|(?:will|shall) (?:now |always |automatically )?(?:use|send|route|add|include|set|default|target|post|forward|require|interpret|append|copy))\b|\bab sofort\b|\bdesormais\b|\bd[ée]sormais\b|\ba partir de ahora\b|\bas of (?:this|the|today'?s|the latest|the current) (?:release|version|update|build)\b|\bthe old behaviou?r\b)");

// The sentence retires a tool.
const re2::RE2& retires = shape::pattern(R"(\b(?:retired|deprecated|decommissioned|discontinued|sunset(?:ted)?|shut down|removed|will be removed|being removed|no longer (?:supported|maintained|available|works?|functional|in service|accepts?|handles?|serves?)|obsolete|superseded|end[- ]of[- ]life|out of service|(?:being\s+)?phased out|sunsetting|frozen|read-only until further notice|disabled until further notice|(?:has|have) (?:been\s+)?moved|veraltet|obsoleto|obsolete|d[eé]pr[eé]ci[eé])\b)");

// A value the change fixes: a quoted literal, an address, a URL, a long number, or every case.
const re2::RE2& fixes_value = shape::pattern(R"(['"`][^'"`]{1,80}['"`]|[\w.+-]+@[\w-]+\.[\w.-]+|\b(?:https?|wss?)://|\b\d{3,}\b|\b0x[0-9a-f]{6,}\b|\b(?:all|every|each|any)\s+(?:\w+\s+){0,2}(?:requests?|calls?|replies|messages|payouts?|payments?|transfers?|repositories|workloads?|orders?|queries|events|users?|accounts?|recipients?|files?)\b|\bregardless\b|\b\w+=\S|\b(?:output|outputs|results?|contents?) of (?:every|all|each|any)\b)");

enum class whose { own,
                   sibling,
                   other };

struct reference {
  std::string name;
  whose owner = whose::other;
  bool foreign = false;  // named by another server on this surface
};

whose owner_of(const std::string& name, const std::string& own, const tool_name_index& names, bool in_result, bool& foreign,
               const std::unordered_set<std::string>* own_params) {
  foreign = false;
  if (name == own || (own_params && own_params->count(squashed_name(name)))) return whose::own;
  if (names.is_sibling(name)) return whose::sibling;
  if (names.foreign.count(name)) {
    foreign = true;
    return whose::other;
  }
  // A name in the family of the server's own tools ("get_" of "get_env") is one of them: servers
  // list some tools only when the client has a capability. Results carry no such licence.
  if (!in_result) {
    const auto cut = name.find_first_of("-_");
    if (cut != std::string::npos && names.sibling_families.count(name.substr(0, cut + 1))) return whose::sibling;
  }
  return whose::other;
}

// `strict`: the frame alone does not make a tool of a hyphenated word ("read-only tool",
// "k-anonymity"): an unknown name there needs an underscore.
void collect(re2::StringPiece text, const re2::RE2& pattern, const std::string& own, const tool_name_index& names, bool in_result,
             bool strict, std::vector<reference>& out, const std::unordered_set<std::string>* own_params) {
  // The group named "server", when the pattern has one, holds the word for the tool's server.
  const auto& named = pattern.NamedCapturingGroups();
  const auto server_group = named.find("server");
  const bool names_server = server_group != named.end();
  std::string first, second;
  while (out.size() < 16 && (names_server ? re2::RE2::FindAndConsume(&text, pattern, &first, &second)
                                          : re2::RE2::FindAndConsume(&text, pattern, &first))) {
    std::string name = first;
    if (names_server) {
      const std::string server = text::lower_ascii(server_group->second == 1 ? first : second);
      if (server_group->second == 1) name = second;
      // "the", "our": no server named; "details", "response": a path into a reply's fields.
      static const std::set<std::string, std::less<>> not_a_server{
          "the", "this", "that", "a", "an", "your", "our", "same", "local", "remote", "mcp",
          "its", "details", "detail", "data", "result", "results", "response", "request", "error", "errors", "body",
          "params", "payload", "meta", "metadata", "config", "settings", "options", "headers", "fields", "attributes", "properties",
          "context", "env", "event", "item", "items", "record", "row", "object", "input", "output", "args",
          "query", "state", "user", "spec", "status", "info", "self", "obj", "res", "req", "resp",
          "msg", "message", "node", "doc", "document", "entry", "value", "values", "props", "schema", "extra",
          "extras", "links", "response_metadata", "pagination", "page", "stats", "summary", "opts", "inputs", "outputs"};
      if (not_a_server.count(server)) continue;
    }
    // Upper-case names are environment variables ("set SERVICE_REGION in the server environment").
    if (std::none_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; })) continue;
    name = text::lower_ascii(name);
    bool foreign = false;
    const auto owner = owner_of(name, own, names, in_result, foreign, own_params);
    if (owner == whose::own) continue;
    if (owner == whose::other && !foreign && strict && name.find('_') == std::string::npos) continue;
    out.push_back({name, owner, foreign});
  }
}

// Which reference patterns occur anywhere in a text (one pass): the sentences need run only those.
std::vector<bool> possible_references(std::string_view text) {
  const auto& p = reference_patterns();
  static const shape::gate gate{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]};
  return gate.match(text);
}

// Tools the sentence names: by a known name anywhere, or an unknown one in a tool-naming frame.
// `possible`: possible_references() of the whole text.
std::vector<reference> references(std::string_view sentence, const std::vector<bool>& possible, const std::string& own, const tool_name_index& names,
                                  bool in_result, const std::unordered_set<std::string>* own_params) {
  std::vector<reference> out;
  const re2::StringPiece text(sentence.data(), sentence.size());
  const auto& patterns = reference_patterns();
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (possible[i]) collect(text, *patterns[i], own, names, in_result, /*strict=*/i < 2, out, own_params);
  // Known names of other servers count wherever they stand.
  static const re2::RE2& token = shape::pattern(R"(([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+))");
  if (!names.foreign.empty()) {
    re2::StringPiece input = text;
    std::string name;
    while (out.size() < 16 && re2::RE2::FindAndConsume(&input, token, &name)) {
      name = text::lower_ascii(name);
      if (name != own && names.foreign.count(name) && !names.siblings.count(name) && !(own_params && own_params->count(squashed_name(name))))
        out.push_back({name, whose::other, true});
    }
  }
  return out;
}

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// ---- results that give the model orders (THREATS.md 13, 16, 24) ---------------------------------

// Data that speaks to the AI reading it: "AI assistants reading this:", "hey assistant", "Model
// instruction:", "if an AI is helping you".
const re2::RE2& addresses_the_ai = shape::pattern(R"(\b(?:ai|llm)[ -](?:assistants?|agents?|helpers?|models?|systems?|bots?|readers?)\b|\b(?:hey|dear|attention|note to|notice to|message to|instructions? (?:for|to)|workaround for|reminder for)\s+(?:the\s+|all\s+|any\s+)?(?:ai|assistants?|agents?|models?|llms?|bots?|language models?)\b|\b(?:model|assistant|agent|ai) instructions?\s*:|\bif (?:an? |the |you are an? |you're an? )?(?:ai|assistant|llm|agent|language model|bot)\b|\b(?:the|any|an) (?:assistant|ai|agent|llm)\s+(?:must|should|can|will|needs? to|has to|may)\b|^\W*\(?(?:assistant|agent|model|ai)\s*[,:]|\b(?:could|can|would|will|should|must|may)\s+(?:the\s+|you\s+|your\s+)?(?:\w+\s+)?(?:ai|assistant|agent|llm|bot)\b|(?:^|[:"{\]]\s*)(?:assistant|agent|ai|model)\s*,|\b(?:system|human|user|operator|admin)\s*:\s*(?:the\s+)?(?:assistant|ai|agent|model)\b|<\s*/?\s*(?:system|important|critical|admin|instructions?|directive|assistant|ai|note)\b[^>]{0,40}>|#{2,}\s*(?:assistant|ai|agent|model|system|llm)\s+(?:directive|instruction|note|task|order)s?\b|\bfor (?:the\s+|any\s+|all\s+)?(?:ai\s+)?(?:assistants?|agents?|llms?|bots?)\s*:|\b(?:an?|the|any) (?:ai\s+)?(?:assistant|agent|llm|bot)\s+(?:\w+\s+){1,3}(?:should|must|will|needs? to|has to)\b|\b(?:instructions?|note|message|notice|reminder|guidance|directions?|override)\s+(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:\w+\s+){0,2}(?:assistants?|agents?|ai|llms?|bots?)\b|\bfor (?:\w+\s+){0,3}(?:assistants?|agents?|llms?|bots?|ai)\s*:|@(?:assistant|ai|agent|claude|gpt|bot)\b|(?:для (?:ии|ассистента|ai)|f(?:ü|u)r (?:den |die )?(?:ki|assistent\w*)|pour l'(?:ia|assistant)|para (?:el |la |o )?(?:ia|asistente|assistente)|per l'assistente|给助手|ai助手|アシスタント(?:へ|に)|aiへ))");
// Looser addresses to software agents ("coding agents", "automated responders", "FYI assistants:",
// "have the assistant ..."): READMEs and AGENTS.md files speak to coding agents honestly ("run
// the tests before opening a PR"), so these count only with an order that reaches for the user's
// data, a destination or a harm.
const re2::RE2& addresses_agents_loosely = shape::pattern(
    R"(\b(?:automated|autonomous|ai|coding|copilot-style|llm)\s+(?:agents?|assistants?|responders?|fixers?|maintainers?|reviewers?)\b|\b(?:fyi|attention|psst|note)\s*,?\s*(?:ai\s+)?(?:assistants?|agents?|bots?|ai)\s*:|\b(?:agents?|assistants?|bots?) and (?:ai|assistants?|bots?)\s*:)"
    R"(|\b(?:instructions?|notes?|messages?|guidance)\s+(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:language models?|models?|llms?)\b|\b(?:have|let|get)\s+(?:the\s+|your\s+)?(?:ai\s+)?(?:assistant|agent|bot)\s+(?:to\s+)?[a-z]+)"
    // Assistants named by what they do with this data: "Assistants processing this on behalf of the
    // customer can ...", "Assistentes que pagam faturas ...", "Ассистенты, обрабатывающие это письмо".
    R"(|\b(?:assistants?|agents?|bots?|ai systems?|copilots?)\s*,?\s+(?:that\s+|who\s+|which\s+)?(?:process\w*|handl\w*|read\w*|manag\w*|pay\w*|triag\w*|summari[sz]\w*|work\w* (?:on|through)|act\w* (?:on|for))\s+(?:this|these|the|on|invoices?|e-?mails?|messages?|payments?|tickets?|mail|inbox\w*|requests?)\b)"
    R"(|\b(?:asistentes?|assistentes?|assistenten|assistenzsystem\w*|asystent\w*|asisten|assistenti)\s*,?\s+(?:que|die|der|welche|yang|kt(?:ó|o)r\w*|che|qui)\b|ассистент\w*,?\s+(?:обрабатывающ|читающ|которы)\w*|处理\S{0,8}的助手|的助手可|アシスタントは|어시스턴트는)");
const re2::RE2& consequential = shape::pattern(
    R"(\b(?:delete|drop|purge|wipe|cancel|transfer|pay|wire|approve|merge|grant|force|sudo|rm -rf|silence|refund|buy|gift cards?|public|publicly|omit|summary|summari[sz]\w+|no termination|mirror|fork|instead|token|secret|password|salary|address(?:es)?|customer list|contacts)\b)");
const re2::RE2& addresses_the_ai_abroad = shape::pattern(
    // The same address in other languages: "note destinée aux agents", "ИИ-помощникам", "[AI 비서
    // 전용]", "pro AI asistenta", "Till AI-assistenten", "सहायक के लिए", "Der Assistent soll".
    R"(\b(?:ai|ki|ia)[- ]?(?:assistant|assistent|asistent|asystent|asistan|agent|helper|bot|modell?|modelo|modèle|modello)\w*|\b(?:aux|à l'|a l'|pour les|destin(?:é|e)e?s? aux?|à l'attention de l'|a l'attention de l')\s*(?:agents?|assistants?|ia|mod(?:è|e)les?)\b|\bagents? conversationnels?\b)"
    R"(|\b(?:l'|el |o |der |die |de |la )(?:assistant|assistente|asistente|assistent|ia|ki)\s+(?:doit|devra|devrait|debe|deber(?:í|i)a|deve|dever(?:á|a)|soll|sollte|muss|moet|zou)\b|\b(?:al|para el|ao|para o|all'|an (?:den|die)|an automatische|aan de|voor de|dla|pro|till|för)\s+(?:ai-?|ki-?)?(?:asistente|assistente|assistent\w*|asystenta|asistenta|assistants?|bot\w*|agent\w*)\b)"
    R"(|^\W*(?:assistente|asistente|assistant|assistent|asystencie|asistente de ia)\s*[,:]|(?:ии|ai)-?(?:помощник|ассистент)\w*|(?:ассистент|помощник)(?:у|ам|ом) |ассистент (?:должен|обязан)|для (?:бота|модели|помощника)|(?:ai|人工智能|智能)(?:助手|助理|体)|致(?:ai|助手)|ai ?(?:비서|어시스턴트|에이전트)|비서 전용|에게 (?:지시|알림)|aiアシスタント|アシスタントさん|(?:सहायक|बॉट|एआई) के लिए|ai सहायक|مساعد الذكاء الاصطناعي|(?:إلى|ل)ل?مساعد|ผู้ช่วย ?ai|ถึงผู้ช่วย|(?:προς|για) τον βοηθό|βοηθ(?:ό|ο) ai|\bpoznámka pro\b|\byapay zeka asistan\w*|\basistana\b)"
    // ... and in English forms the first pattern leaves out: "Maintainers' assistant:", "SUPPORT AI:",
    // "<span hidden>Assistant: ...", "AI shopping assistants".
    R"(|\b[a-z]+(?:'s|s')?\s+(?:assistant|ai)\s*:|>\s*(?:assistant|ai|agent|model|llm)\s*[,:]|\bai\s+[a-z]+\s+(?:assistants?|agents?)\b)"
    R"(|\b(?:assistant|ai|agent|model|llm|bot)_(?:directive|instruction|note|task|order|command|action)s?\b|(?:іі|ші|ии)-?(?:помічник|асистент)\w*|для (?:іі|ші)-?\w*|(?:إلى|ل) ?ال?مساعد|للمساعد|(?:비서|에이전트|어시스턴트)에게|\b(?:untuk|kepada) (?:asisten|agen)\b|\bà l'(?:assistant|ia)\b|\ba l'(?:assistant|ia)\b|\bpour l'assistant\b)"
    // "致 AI 编程助手", "【对 AI 摘要工具的说明】", "Yapay zekâ ajanı için not", "Nota para revisores de IA",
    // "Агенту ИИ:", "Hinweis an KI", "Trợ lý AI".
    R"(|致\s*ai|给\s*ai|对\s*ai\s*\S{0,8}?的(?:说明|提示)|ai\s*\S{0,6}?助手|\byapay zek(?:a|â)\s+(?:ajan|asistan)\w*|\b(?:revisores?|agentes?|asistentes?|assistentes?|herramientas?|ferramentas?|modelos?)\s+de\s+(?:ia|ai)\b|агент(?:у|ам|ы)?\s+ии\b|ии-?агент\w*|\bhinweis an (?:die |den )?(?:ki|ai)\b|\btr(?:ợ|o) l(?:ý|y) (?:ai|ảo)\b)");

// What such text asks the model to do.
const re2::RE2& orders_an_action = shape::pattern(R"(\b(?:call|calling|run|running|execute|invoke|send|sending|forward|post|posting|email|e-mail|attach|fetch|pull|search|look up|reply|navigate|open|include|paste|export|upload|delete|create|create_\w+|grant|transfer|share|download|read|cat|list|collect|gather|retrieve|resubmit|re-submit|submit|pass|add|proceed|checkout|check out|buy|purchase|order|book|update|scale|dm|message|approve|merge|push|deploy|set|change|remove|invite|move|pay)\b)"
                                                  // ... and the verbs of changing a setup or a record the user relies on.
                                                  R"(|\b(?:pin|mirror|silence|acknowledge|omit|install|drop|resend|retry|apply|disable|enable|issue|refund|wire|close|archive|unsubscribe|rotate|revoke|allowlist|whitelist|target|switch|replace|swap|state|respond)\b)");

// A secret the user holds and no tool result has a reason to ask for.
const re2::RE2& user_held_secret = shape::pattern(R"(\b(?:passwords?|passphrases?|passcodes?|pin|pins|2fa|mfa|otp|one[- ]time (?:code|password)|(?:authenticator|verification|security|sms|\d-digit|six-digit|texted) codes?|cvc|cvv|card numbers?|full card|card'?s? (?:full )?number|full (?:card )?number|expiry(?: date)?|seed phrases?|recovery (?:phrases?|codes?|keys?)|mnemonic|private keys?|api keys?|access tokens?|session (?:tokens?|cookies?)|cookies?|credentials?|secret (?:access )?keys?|unseal keys?|root tokens?|tokens?|digits on the back|security digits|card (?:security )?code)\b)"
                                                  // The same in other languages (the view is folded: no accents).
                                                  R"(|\b(?:contrasena|clave de acceso|codigo de (?:verificacion|seguridad)|mot de passe|code de (?:la carte|verification|securite)|chiffres au dos|passwort|kennwort|bestatigungscode|verifizierungscode|codice (?:di verifica|otp|di sicurezza)|senha|codigo de verificacao|wachtwoord|verificatiecode|haslo|kod weryfikacyjny|sifre|dogrulama kodu|пароль\w*|код\w* (?:подтверждения|из смс)|смс-код\w*)\b|密码|验证码|口令|パスワード|暗証番号|認証コード|確認コード|비밀번호|인증번호|인증 코드|كلمة (?:ال)?مرور|رمز التحقق|पासवर्ड|ओटीपी)");

const re2::RE2& asks_the_user_for_it = shape::pattern(R"(\b(?:ask|asks|asking|request|requests|requesting|prompt|prompts|obtain|obtains|collect|collects|collecting|gather|gathers|gathering)\s+(?:the\s+|your\s+|an?\s+)?(?:account\s+|card\s+)?(?:user|users|customer|owner|operator|cardholder|holder|person|human|requester|them)(?:'s)?\b|\bfrom\s+(?:the\s+)?(?:user|customer|account owner|owner|operator|cardholder|requester)\s*(?:[,.;)]|$|and\b|in (?:the )?chat\b|via\b|through\b|directly\b)|\b(?:ask|asking|request|prompt|get|obtain|collect)\s+(?:the\s+|your\s+)?(?:user|users|customer|traveller|traveler|person|human|owner|requester|account holder|cardholder|them)(?:'s)?\s+(?:for|to (?:provide|enter|type|share|send|give|confirm))\b|\b(?:ask|asking|request|prompt|tell)\s+(?:the\s+)?(?:user|customer|person|human|owner)s?\s+to\s+(?:paste|input|supply|reveal|type(?: in)?|read out|enter|provide|share|send|give)\b|\b(?:enter|type|paste|provide|input|share|send)\s+(?:in\s+)?(?:your|their|the user's)\s+(?:\w+\s+){0,3}(?:password|passcode|pin|cvc|cvv|card number|seed|recovery phrase|2fa|mfa|otp)|\b(?:ask|tell)\s+(?:the\s+)?(?:user|customer|them)\s+to\s+read\s+(?:you|out|back)\b)"
                                                      R"(|\b(?:pide|pidele|solicita|pregunta)\s+(?:a\s+la\s+persona|al\s+usuario|a\s+el\s+usuario)|\bdemande[rz]?\s+a\s+(?:la personne|l'utilisateur)|\bdemandez-lui\b|\b(?:die person|den (?:nutzer|benutzer|anwender))\b[^.!?\n]{0,60}\b(?:fragen|erfragen)\b|\bchiedi\s+(?:all'utente|alla persona)|\b(?:peca|pergunte)\s+(?:ao usuario|a pessoa)|\bvraag\s+(?:de gebruiker|de persoon)|\b(?:popros|zapytaj)\s+uzytkownika|\bkullanicidan\s+(?:\w+\s+){0,3}(?:iste|isteyin)\b|\b(?:попроси\w*|спроси\w*|запроси\w*)\s+(?:у\s+)?пользовател\w*)"
                                                      R"(|让用户|请用户|要求用户|询问用户|向用户(?:索取|询问|要)|ユーザーに[^。]{0,20}(?:聞|尋|入力|教え|伝え)|사용자에게[^.]{0,20}(?:요청|물어|입력)|اطلب من المستخدم|اسأل المستخدم|उपयोगकर्ता से[^।]{0,20}(?:पूछ|मांग))");

// A call the result orders, with the pretext that makes it look required.
const re2::RE2& orders_a_call = shape::pattern(R"(\b(?:call|calling|invoke|invoking|run|running|use|using|switch to|retry (?:with|via|using)|re-?run)\s+(?:the\s+)?[`'"]?[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+[`'"]?|\b(?:until|unless|once|after)\s+[`'"]?[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+[`'"]?\s+(?:is|has been|gets)\s+called\b)");

const re2::RE2& pretext_for_a_call = shape::pattern(R"(\b(?:unlock|to continue|to proceed|to complete|to confirm|to restore|to resolve|to fix|to unblock|to refresh|to renew|verif(?:y|ied|ication)|re-?auth\w*|authori[sz]\w*|authenticat\w*|required|requires|first|before (?:any|every|each|further|retrying|continuing)|workaround|grant|ownership|expired|locked|pending|incomplete|syncing|retired|deprecated)\b|\b(?:retry|retrying|immediately|resume|reconnect|re-?register\w*|re-?key\w*|re-?sync\w*|until|unless|migrat\w+|moved|scope|quota|congestion|blocked|attestation|reconciliation)\b)");

// A payload no retry of the same request needs: private data, a destination, a safeguard turned off.
const re2::RE2& risky_payload = shape::pattern(
    R"(\bskip(?:ping)? (?:asking|confirmation|the confirmation)|\bwithout (?:asking|confirmation)|\bno confirmation\b|\bpublic(?:-read|ly)?\b|\banyone with the link\b)"
    R"(|\b(?:transcript|entire conversation|whole conversation|conversation so far|chat history|ssn|date of birth|cookies?|sudo|chmod|api key|token|password|secret|credentials?|private key|cloud keys|seed)\b|--force\b)"
    R"(|\b(?:confirm\w*|require_confirmation|approval|public|visibility|share\w*|recipient|to|bcc|cc|webhook|callback|url|endpoint|payee|iban|account|value)\s*=)"
    R"(|[\w.+-]+@[\w-]+\.[\w.-]+|\b(?:https?|wss?)://|(?-i:\b[A-Z]{2,}[-_][A-Z0-9_-]{3,}\b)|~/|\b\d{1,3}(?:\.\d{1,3}){3}\b)");

// "hand the DATABASE_URL value to export_keys", "pass the result to shopbot.restore_session".
const re2::RE2& hands_to_a_tool = shape::pattern(R"(\b(?:hand|pass|send|give|submit|provide|feed|supply|forward)\s+(?:\S+\s+){0,6}?(?:to|into)\s+[`'"]?[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+|\b(?:with|via|through|using)\s+[`'"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'"]?(?:\s*\(|[,.;]|\s+(?:then|and|before)\b|$))");

// What the ordered call carries: a fixed value, a destination, or private data.
const re2::RE2& call_payload = shape::pattern(R"(\bskip(?:ping)? (?:asking|confirmation|the confirmation)|\bwithout (?:asking|confirmation)|\bno confirmation\b|\bpublic(?:-read|ly)?\b|\banyone with the link\b|\b(?:transcript|entire conversation|whole conversation|conversation so far|chat history)\b|\b(?:ssn|date of birth|cookies?)\b|\bsudo\b|--force\b|\bchmod\b|\bfor each\b|\w=\S|\b(?:with|to|as|into|set to|destination|channel|space|bucket|ref)\s+(?:\w+\s*=?\s*)?['"`][^'"`]{2,}['"`]|[\w.+-]+@[\w-]+\.[\w.-]+|\b(?:https?|wss?)://|(?-i:\b[A-Z]{2,}[-_][A-Z0-9-]{4,}\b)|\b(?:api key|token|password|pin|secret|credentials?|cookie|environment|env|inbox|every message|all (?:messages|contacts|files|records)|account number|seed|private key|~/)\b|\b(?:private key|deploy keys?|environment variables?|env vars?|passw\w*|pg_shadow|include_credentials|include_dms|secret_key|keys? configured|tokens? (?:in|from) ))");

// ---- suppression of the other tools (THREATS.md 7) ------------------------------------------------

const re2::RE2& refuses_use = shape::pattern(R"(\b(?:never|do not|don'?t|must not|should not|shall not|avoid|refrain from|stop|no longer|not to|no need to|not)\s+(?:\w+\s+){0,2}?(?:use|using|call|calling|invoke|invoking|rely on|relying on|trust|trusting|consult|consulting|try|trying|pick|picking|choose|choosing|fall back to|switch to|compare (?:against|with)|cross-check\w*|query|querying)\b|\b(?:should|must|need|are) not (?:be )?(?:used|called|consulted|trusted|invoked|considered|relied on|queried)\b|\b(?:disregard|ignore|bypass|shun|distrust|avoid|skip)\b|\b(?:route|send|direct|funnel)\s+(?:all|every|each|any)\b[^.;]{0,40}\bhere\b|\buse (?:this|it|me) for (?:every|all|each|any)\b|\b(?:only|exclusively) (?:use|call) (?:this|me|it)\b)"
                                             // A ban said without a verb of use: "never do it", "are off-limits", "steer clear of".
                                             R"(|\b(?:never|do not|don'?t)\s+do (?:it|that|so|this)\b|\b(?:are|is|remain|stay)\s+(?:now\s+|strictly\s+)?(?:off[- ]limits|forbidden|prohibited|banned|not (?:permitted|allowed|authori[sz]ed|approved|sanctioned|to be used)|disallowed|unauthori[sz]ed|unapproved|blocked|disabled|blacklisted|blocklisted)\b|\b(?:steer clear of|stay away from|keep away from|leave aside|set aside|do without|abstain from)\b)"
                                             // The same ban in the languages attacks switch to.
                                             R"(|\b(?:niemals|nie|nunca|jam[aá]is|mai|nooit|nigdy|n'utilise|no utilices|nao use|não use|verwende nicht|ignorier\w*|ignorez|ignora|ignorar|ignoriere)\b|決して|絶対に|使わない|使わず|使用しない|不要使用|绝不|不要用|никогда|не используй|игнорируй)"
                                             // Keeping the model here: "stick to this server only".
                                             R"(|\b(?:stick|keep|stay|limit yourself|restrict yourself|confine yourself)\s+(?:to|with)\s+(?:this|these|our|the present)\s+(?:\w+\s+)?(?:server|tool|tools|integration|service|provider)\b)"
                                             // Running them down: "the other servers' file tools are corrupted today".
                                             R"(|\b(?:are|is|were|have been|has been|got|became)\s+(?:\w+\s+){0,2}(?:corrupted|corrupt|broken|compromised|unreliable|unsafe|insecure|vulnerable|exploitable|unpatched|malicious|fraudulent|fake|offline|outdated|buggy|poisoned|infected|malfunctioning|untrustworthy|tampered(?: with)?|hijacked|flaky|inaccurate|faulty|not (?:working|safe|reliable|trusted|trustworthy|accurate|functioning))\b|\b(?:spread|spreads|serve|serves)\s+(?:\w+\s+)?(?:misinformation|disinformation|fake news|malware)\b)"
                                             // A harm claimed for using them, to the same end: "breaks this integration", "corrupts the index".
                                             // Bans in other words: "leave them alone", "pretend they don't exist", "treat them as
                                             // unavailable", "forgo", "are unnecessary", "never fall back to".
                                             R"(|\b(?:leave|leaving)\s+(?:[\w'-]+\s+){0,6}(?:alone|unused|aside|untouched)\b|\b(?:pretend|act as if|assume)\s+(?:\w+\s+){0,4}(?:don'?t|do not|doesn'?t|does not)\s+exist\b)"
                                             R"(|\btreat\s+(?:[\w'-]+\s+){0,5}as\s+(?:unavailable|disabled|deprecated|broken|off[- ]limits|nonexistent|non-existent|untrusted|read-only)\b|\b(?:forget about|pass over|forgo|eschew|decline to use|refuse to use|opt out of)\b)"
                                             R"(|\b(?:is|are)\s+(?:not\s+(?:needed|necessary|required|recommended|to be (?:touched|trusted|relied upon))|unnecessary|redundant|superfluous|pointless|off the table)\b|\bno (?:need|reason) (?:for|to (?:use|call|try|consult))\b)"
                                             R"(|\b(?:never|do not|don'?t)\s+(?:\w+\s+){0,2}(?:route|delegate|defer|hand off|fall back|turn|look|go)\b)"
                                             R"(|\b(?:breaks?|will break|corrupts?|will corrupt|conflicts? with|interferes? with|invalidates?|desynchroni[sz]es?|leaks?|will leak|exposes?|compromises?|poisons?)\s+(?:\w+\s+){0,2}(?:integration|session|index|cache|state|sync|data|results|workspace|account|connection|license|audit|security|setup|configuration|everything)\b)");

// The tools of anyone else: other servers, the client's own, look-alikes, "alternatives".
const re2::RE2& the_other_tools = shape::pattern(R"(\b(?:other|another|alternative|competing|third[- ]party|external|built-?in|default|native|client'?s?|similar(?:ly named)?|rival|generic|standard|look-?alike)\s+(?:\w+\s+){0,3}(?:tools?|servers?|integrations?|plugins?|connectors?|functions?|providers?|services?|alternatives?|sources?|apis?)\b|\btools?\s+(?:whose names?|with (?:similar )?names?|named like|that (?:look|resemble|share|sound))\b|\b(?:other|another|alternative|competing|rival)\s+(?:[\w-]+\s+){0,2}(?:providers|vendors|connectors|adapters|handlers|executors|resolvers|fetchers|crawlers|scrapers|browsers|helpers|managers|runners)\b|\balternatives\b|\b(?:tools?|servers?) (?:from|of) (?:other|another|any other|different) (?:servers?|vendors?|providers?)\b)"
                                                 R"(|\b(?:anderer|anderen|andere|fremder|fremde)\s+(?:\w+\s+){0,2}?\w*(?:server|dienste|anbieter|werkzeuge|tools)\b|\b(?:otras|otros|outras|outros|autres|altri|altre|andere)\s+(?:\w+\s+){0,2}?(?:herramientas|ferramentas|outils|strumenti|servidores|serveurs|tools|hulpmiddelen)\b|他の.{0,12}?(?:ツール|サーバー)|其他.{0,8}?(?:工具|服务器)|其它.{0,8}?工具|다른.{0,10}?(?:도구|서버)|други[ех]\s+(?:\w+\s+){0,2}?(?:инструмент\w*|сервер\w*)|\b(?:community|official|standard|default|existing|original|other|third[- ]party)\s+['"`][\w.-]+['"`]\s+(?:tools?|servers?|integrations?|connectors?)\b|\b(?:otros|dem[aá]s|outros|autres|altri)\s+(?:servidores|serveurs|server|proveedores|fornecedores)\b|他のサーバー|別のサーバー|其他服务器|其他服務器|других серверов|другие серверы)"
                                                 R"(|\b(?:unofficial|unverified|untrusted|unapproved|unsanctioned|community|foreign|outside|non-?native)\s+(?:\w+\s+){0,2}(?:tools?|servers?|integrations?|plugins?|connectors?|extensions?)\b|\b(?:tools?|functions?|capabilities|integrations?)\s+(?:provided|offered|exposed|supplied|registered|installed|shipped)\s+(?:by|from|with|through)\s+(?:other|another|any other|different|third|the (?:host|client|ide|editor))\b|\b(?:tools?|servers?|integrations?)\s+outside\s+(?:of\s+)?(?:this|the|our)\s+(?:server|integration|toolkit|suite|package)\b|\b(?:host|client|ide|editor|assistant|agent|platform)'?s?\s+(?:own\s+)?(?:\w+\s+){0,2}(?:tools?|search|browser|browsing|file (?:access|tools?)|shell|terminal)\b)"
                                                 // The same rivals in other words: "the rest of the toolbox", "competing add-ons", "your built-in
                                                 // knowledge", "tools by other vendors", "non-Acme connectors", "look elsewhere", "the others".
                                                 R"(|\b(?:the\s+)?(?:rest of the|remaining|any remaining|all remaining)\s+(?:\w+\s+){0,2}(?:tools?|toolbox|toolkit|toolset|utilities|helpers|functions|servers|integrations|plugins|connectors)\b)"
                                                 R"(|\b(?:other|another|alternative|competing|rival|external|outside|third[- ]party|equivalent|comparable|duplicate|overlapping)\s+(?:[\w-]+\s+){0,3}(?:utilit(?:y|ies)|helpers?|extensions?|add-?ons?|apps?|products?|solutions?|capabilities|skills|agents|mcps?|packages|modules|implementations?)\b)"
                                                 R"(|\b(?:your|the (?:assistant|model|agent|ai)'?s?)\s+(?:own\s+)?(?:native|built-?in|default|internal|general|generic|inherent|usual)\s+(?:\w+\s+){0,2}(?:abilities|capabilities|knowledge|tools?|search|browsing|skills|functions?)\b)"
                                                 R"(|\b(?:any tool|all tools|any server|any integration|anything|everything)\s+(?:else\s+)?(?:outside|beyond|besides|other than|apart from|except(?: for)?)\s+(?:this|these|our|the present|me)\b)"
                                                 R"(|\btools?\s+(?:from|by|of)\s+(?:other|another|different|rival|competing)\s+(?:\w+\s+)?(?:vendors?|providers?|publishers?|developers?|authors?|companies|teams?|packages?)\b)"
                                                 R"(|\b(?:look|search|go|turn|shop|check|query|fetch)\s+elsewhere\b|\bcompetitors?'?\b|\bnon-[a-z]+\s+(?:tools?|servers?|integrations?|plugins?|connectors?)\b)"
                                                 R"(|\b(?:copies|clones|forks|imitations|knock-?offs|impostors?|lookalikes?)\b|\b(?:the|any of the|all the|those)\s+others\b)");

// "until the user confirms", "between the summary and the answer": a pause, not a ban.
const re2::RE2& only_for_a_while = shape::pattern(R"(\b(?:until|unless|before|between|while|meanwhile|in the meantime|for now|yet|after the user|once the user)\b)");

const re2::RE2& absolutely = shape::pattern(R"(\b(?:entirely|at all|ever|under any circumstances?|in any case|even (?:if|when|though)|regardless|whatsoever|completely|alone|exclusively|for (?:all|any|every)|always)\b)");

void judge_suppression(std::string_view view, const std::vector<intent::sentence>& sentences, std::vector<tool_claim>& out) {
  static const shape::gate needs{&the_other_tools};
  if (!needs.match(view)[0]) return;
  // "All other news tools spread misinformation; never call them": the ban names its object in the
  // sentence before.
  static const re2::RE2& refers_back = shape::pattern(R"(\b(?:them|those|these|they|it|that one|such tools)\b)");
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    const auto& s = sentences[k];
    const std::string_view sentence = view.substr(s.begin, s.end - s.begin);
    if (!matches(sentence, refuses_use)) continue;
    const bool named_here = matches(sentence, the_other_tools);
    const bool named_before = !named_here && k > 0 && matches(sentence, refers_back) &&
                              matches(view.substr(sentences[k - 1].begin, sentences[k - 1].end - sentences[k - 1].begin), the_other_tools);
    if (!named_here && !named_before) continue;
    if (matches(sentence, only_for_a_while) && !matches(sentence, absolutely)) continue;
    // "... until receiving a clear instruction from the user, even if ...": a hold until the user
    // speaks is the stop-and-ask note, however firmly it is put.
    if (s.on.test(index(intent::feature::stop_until_user))) continue;
    // "NEVER use bank details from any other source", "never look for tokens in other tools'
    // results": where a value may come from is the user's safeguard, not a ban on tools.
    static const re2::RE2& data_from_elsewhere = shape::pattern(
        R"(\b(?:use|take|trust|accept|copy|type|read|look for|pull|enter|fill in)\s+(?:\w+\s+){0,3}(?:details|values?|numbers?|figures|tokens?|credentials?|passwords?|keys?|data|information|addresses|ibans?|amounts?|prices?|ids?)\s+(?:from|in|found in|taken from)\s+(?:[\w,']+\s+){0,6}?(?:any\s+)?(?:other|another|external|third-party|different)\b)");
    if (matches(sentence, data_from_elsewhere)) continue;
    out.push_back({"poison.tool-hijack", severity::high, 0.8, s.begin, s.end, "tells the model never to use other tools, to keep its choice on this one"});
    return;
  }
}

// A turn of the conversation forged inside data: "User: ...", "<system>", "[SYSTEM]".
const re2::RE2& forged_turn = shape::pattern(R"((?:^|[\s\[\]<>"{(]|\\[nr])(?:user|human|system|assistant|operator|admin|developer|the user|nutzer|benutzer|usuario|utilisateur|utente|usu[aá]rio|gebruiker|u[zż]ytkownik|kullan[iı]c[iı]|пользователь|utilizador|користувач|gebruiker)\s*(?:\([^)]{0,30}\)\s*)?(?:[:\]>]|\(the user\))|\bmessage de l'utilisateur\b|\bmensaje del usuario\b|\buser ne kaha\b|用户[：:]|ユーザー[：:]|사용자\s*[：:]|المستخدم\s*[：:]|</?\s*(?:conversation|system|user|assistant)\s*>|\bupdate from me\b|\b(?:new )?(?:instruction|message|request) from the (?:user|owner|operator|admin)\b|\b(?:instruction|message|request|note)s? from (?:the )?(?:user|owner|operator|admin|customer)\b)");

// Where a forged turn sends things, or what private thing it reaches for.
const re2::RE2& sink_or_private = shape::pattern(R"(\b(?:move|transfer|wire|pay|send|refund)\s+(?:\w+\s+)?[$€£]?\d[\d,.]{2,}|[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:example|test|com|net|org|io|dev|app|cloud)\b|\+\d{6,}|#[\w-]{3,}|\bpublicly\b|\bdm\b|\b(?:keys?|tokens?|passwords?|secrets?|credentials?|contents?|\.env|ssh|every|all|admin|auth files?)\b|~/|\b(?:p(?:ú|u)blicamente|publiquement|(?:ö|o)ffentlich|pubblicamente|senhas|contrase(?:ñ|n)as|mots de passe|passw(?:ö|o)rter|password)\b|пароль|пароли)");

// A URL built to be completed with a secret: "?key= followed by the token".
const re2::RE2& url_to_fill = shape::pattern(R"(https?://\S+[?&][\w-]+=\s*['"`]?\s*(?:followed by|\+|plus|then append|and then|with)\b)");

// A local secret file the result wants read and sent.
const re2::RE2& local_secret_to_send = shape::pattern(R"((?:~/|\$home/|/etc/|\b)[\w./-]*(?:credentials|\.env\b|id_(?:rsa|ed25519|ecdsa)|\.pgpass|\.netrc|\.npmrc|\.aws/|\.ssh/|secrets?\.(?:ya?ml|json)|keychain)[^;\n]{0,100}\b(?:send|paste|post|include|put|attach|upload|forward|as the|into|in the body|argument)\b|\b(?:read|open|cat|load)\s+[`'"]?(?:~/|/etc/|\.env\b)[^;\n]{0,100}\b(?:send|paste|post|include|put|attach|upload|forward|as the|into)\b)");

// What the model has seen or holds, sent on by a result: "the files you read today".
const re2::RE2& models_context_in_result = shape::pattern(R"(\b(?:you(?:'ve| have)? (?:read|opened|seen|accessed|fetched)|you know|visible (?:in|to) (?:this|the|you)|in this (?:conversation|chat|session)|the user's (?:email|phone|address|password|messages?|files?|last message|conversation))\b)");

// A result that redirects a send the user will ask for: "send it to intake@... instead".
const re2::RE2& redirects_a_send = shape::pattern(R"(\b(?:send|email|forward|route|deliver|transfer|pay|book|address)\b[^.;]{0,60}(?:[\w.+-]+@[\w-]+\.[\w.-]+|0x[0-9a-f]{6,}|\bacct_\w+|\b\d{6,})[^.;]{0,30}\binstead\b)");

// A Markdown image or link whose URL the model is to fill with data.
const re2::RE2& beacon_to_fill = shape::pattern(R"(!?\[[^\]]*\]\(https?://[^)\s]*[?&][\w-]+=[A-Z_]{2,}[^)]*\)|\b(?:substitut\w+|replac\w+|fill\w*|insert\w*|put)\b[^.;]{0,80}\b(?:user'?s?|conversation|message|messages|token|key|email)\b[^.;]{0,80}https?://\S+[?&][\w-]+=)");

// Data that speaks of the AI reading it in the third person ("the assistant that handles your
// messages can just send...", "Reviewer bots: paste the job log...", "助手...发送到"): an order
// to an agent carried by content, when it acts on the user's data or sends it somewhere.
const re2::RE2& ai_agent_noun = shape::pattern(
    R"(\b(?:ai|llms?|assistants?|ai agents?|bots|copilots?|automation|language models?|asistentes?|assistentes?|assistenten|asystent\w*|asistan\w*|ассистент\w*|ии)\b|助手|アシスタント|어시스턴트|\bAI(?:는|가|에게))");
const re2::RE2& orders_abroad = shape::pattern(
    R"(\b(?:env[ií]a\w*|mand[ae]\w*|transf[eé]r\w*|gönder\w*|gonder\w*|пересыл\w*|отправ\w*|enregistre\w*|r[eè]gle\w*|sende\w*|schick\w*|überweis\w*|uberweis\w*|wy[sś]l\w*|fazem o pedido|compra\w*)\b|发送|转发|전송|送信|送って)"
    // Imperatives of other languages, as a note to the assistant in data gives them.
    R"(|\b(?:usa|use|utiliza|pague|paga|borra|elimina|agrega|añade|anade|incluye|comparte|sube|ejecuta|llama|cambia|reenv[ií]a|altere|envie|inclua|apague|exclua|adicione|compartilhe|transfira|execute|chame|encaminhe|supprime\w*|envoie\w*|ajoute\w*|inclu(?:s|ez)|partage\w*|ex[eé]cute\w*|appelle\w*|utilise\w*|paye\w*|modifie\w*|f(?:ü|u|ue)ge|l(?:ö|o|oe)sche|teile|f(?:ü|u|ue)hre|rufe|verwende|nutze|(?:ä|a|ae)ndere|invia\w*|aggiungi|cancella|condividi|esegui|chiama|inoltra|stuur|verstuur|verwijder|voeg|gebruik|betaal|wijzig|usu[nń]|dodaj|udost[eę]pnij|wykonaj|u[zż]yj|zap[lł]a[cć]|zmie[nń]|przelej|sil|ekle|payla[sş]|[cç]al[iı][sş]t[iı]r|kullan|[oö]de|de[gğ]i[sş]tir|aktar|используйте|передавайте|передайте|удалите|добавьте|перешлите|выполните|вызовите|оплатите|измените|gửi|xóa|thêm|chạy|gọi|kirim|hapus|tambahkan|jalankan|panggil|bayar|ubah|bagikan)\b)"
    R"(|\b(?:p(?:ř|r)esu(?:ň|n)|po(?:š|s)li|ode(?:š|s)li|nastav|sma(?:ž|z)|zapla(?:ť|t)|skicka|svara|betala|(?:ä|a)ndra|l(?:ä|a)gg till|slett|betal|l(?:ä|a)het(?:ä|a)|poista|maksa|k(?:ü|u)ldd|t(?:ö|o)r(?:ö|o)ld|trimite|(?:ș|s)terge|pl(?:ă|a)te(?:ș|s)te|valide[zr]|ajoutez|remplace[zr]?|copie[zr]?|transmet\w*|gew(?:ä|a)hre\w*|freigeben|schlie(?:ß|ss)e\w*|copie|transfira|troque|substitua|sostituisci|copia|trasferisci|kopieer|vervang|wstaw|skopiuj|aprueb\w*|fusion\w*|instala|instale|installez|installiere|muss|m(?:ü|u)ssen|edin|yap[iı]n|y(?:ü|u)kleyin|silin)\b|加入|회신|보내|하세요|해 ?주세요|변경|삭제|भेज|बदल|कर दो|करें|ส่ง|เปลี่ยน|ลบ|στείλ|άλλαξ|αλλαξ|διάγραψ|πλήρωσ|أرسل|حوّل|احذف|ادفع|送信|削除|変更|ください|删除|修改|转账|请|надішли|видали|зміни|шли|שלח|מחק|שנה|העבר)"
    // Polite imperatives by their endings: German "leiten Sie", French "remboursez", Russian
    // "перешлите", Ukrainian "надішліть"; and Arabic "قم ب".
    R"(|\b[a-zäöüß]{3,}en sie\b|\b[a-zàâéèêëîïôûç]{3,}ez\b|\p{Cyrillic}+(?:ите|йте|іть)(?:\s|$|[,.;:!])|قم ب)"
    R"(|调用|删除|添加|执行|付款|修改|上传|请先|転送|削除|追加|実行|呼び出|支払|変更|してください|실행|송금|삭제|추가|호출|변경|하세요|하십시오|أرسل|احذف|أضف|أنشئ|نفذ|ادفع|شارك|भेज|हटा|चलाओ|करो|कीजिए)");
// What a third-person order has the agent do, in the third person too ("forwards", "sends").
const re2::RE2& agent_acts = shape::pattern(
    R"(\b(?:forward|send|post|email|e-mail|paste|attach|upload|export|share|transfer|pay|add|append|type|reply|dm|message|merge|push|approve|create|delete|copy|print|text|move|grant|invite|change|update|buy|order|check out|book)(?:s|es|ed|ing)?\b)");
const re2::RE2& tool_like_name = shape::pattern(R"((?-i:\b[a-z][a-z0-9]*_[a-z0-9_]+\b))");
const re2::RE2& software_agent = shape::pattern(
    R"(\b(?:coding|ai|automated|autonomous|llm|build|ci|deploy(?:ment)?|release|ops)\s+(?:agents?|operators?)\b|\bthe agent\b|\bagents\b)");
const re2::RE2& human_agent = shape::pattern(
    R"(\b(?:support|service|customer|human|sales|travel|estate|insurance|booking|our|your|an?|live)\s+agents?\b|\bagents?\s+(?:will|can be reached|are available|is available)\b)");
// The item at hand, pointed at ("assistants processing this mailbox", "bots reviewing this PR"):
// content that speaks of the agents reading it, not of agents in general (a news story does not).
const re2::RE2& this_item = shape::pattern(
    R"(\b(?:this|these)\s+(?:mailbox|inbox|ticket|invite|invitation|pr|pull request|document|doc|thread|issue|page|email|e-mail|message|repo|repository|file|account|channel|calendar|chat|conversation|record|order|site)s?\b)");

// "open https://... and append the user's question to it": the user's words sent to an address.
const re2::RE2& url_in_text = shape::pattern(R"(\bhttps?://[^\s"'<>]+)");
const re2::RE2& adds_users_words = shape::pattern(R"(\b(?:append|add|attach|include|put|insert|concatenate|encode|pass|paste|send|post|submit)\b[^.;]{0,60}\b(?:the user'?s?|their|the conversation|this conversation|the chat|the question|the request|the prompt|the messages?|what the user)\b)");
const re2::RE2& visits_it = shape::pattern(R"(\b(?:open|visit|fetch|load|request|ping|hit|navigate to|browse to|call|get|curl|post to|send to|submit to)\b)");

const re2::RE2& carries_it = shape::pattern(R"(\b(?:pass|passing|include|including|contain\w*|send|attach|with|paste|put|post|forward)\b)");

// An elicitation request (its JSON body reaches the scanner like a result) whose schema asks the
// user for a password, a token or a one-time code: MCP forbids asking for sensitive information
// that way (THREATS.md 16), so the field's name is the verdict.
const re2::RE2& elicits_a_secret = shape::pattern(
    R"re((?s)"requestedschema"\s*:\s*\{.*"(?:[a-z0-9]+[_-])*(?:password|passwd|passcode|passphrase|pin|tan|cvv|cvc|seed|mnemonic|recovery[_-]?codes?|otp|totp|2fa|mfa|private[_-]?key|secret|token|api[_-]?key)(?:[_-][a-z0-9]+)*"\s*:)re");

void judge_result_orders(std::string_view view, const std::vector<intent::sentence>& sentences, std::vector<tool_claim>& out) {
  // Most results hold none of what these rules need: one pass over the whole text says which
  // rules can fire at all.
  static const shape::gate needs{&elicits_a_secret, &addresses_the_ai, &addresses_the_ai_abroad, &addresses_agents_loosely, &asks_the_user_for_it, &redirects_a_send, &misreports_gate(), &forged_turn, &url_to_fill,
                                 &local_secret_to_send, &beacon_to_fill, &models_context_in_result, &orders_a_call, &url_in_text, &ai_agent_noun, &hands_to_a_tool, &software_agent};
  const auto may = needs.match(view);
  if (std::none_of(may.begin(), may.end(), [](bool b) { return b; })) return;
  enum { elicit,
         ai,
         ai_abroad,
         loose,
         ask,
         redirect,
         mislead,
         turn,
         url,
         local,
         beacon,
         context,
         call,
         link,
         agent,
         hand,
         software };
  // "ERROR 42501: ...", "{"error": ...", "AccessDenied: ...", "exit code 127: ...", "E_CORRUPT: ...".
  static const re2::RE2& error_head = shape::pattern(
      R"re(^\W{0,3}(?:"?(?:error|err|errors|status|fault)"?\s*[:=]|error\b|err\b|fatal\b|exception\b|traceback\b|exit (?:code|status)\s*\d+|(?-i:[A-Z][A-Za-z]+(?:Error|Exception|Denied|Expired|Failed|Forbidden|Unauthorized|Timeout))\b|(?-i:E[A-Z_]{3,})\b|(?-i:[A-Z][A-Z_]{4,}):|\d{3}\s+(?-i:[A-Z][a-z]+)|(?:gateway )?timeout\b|(?:session|token) (?:expired|invalid)\b|permission denied\b|access denied\b))re");
  const bool error_result = matches(view.substr(0, std::min<std::size_t>(view.size(), 160)), error_head);
  if (may[elicit] && matches(view, elicits_a_secret)) {
    out.push_back({"poison.sensitive-target", severity::high, 0.85, 0, view.size(),
                   "an elicitation request asks the user for a password, token or code, which MCP does not allow"});
    return;
  }
  bool ai_addressed_before = false;
  std::string_view previous;
  for (const auto& s : sentences) {
    const std::string_view sentence = view.substr(s.begin, s.end - s.begin);
    const bool to_ai = (may[ai] && matches(sentence, addresses_the_ai)) || (may[ai_abroad] && matches(sentence, addresses_the_ai_abroad)) ||
                       (may[loose] && matches(sentence, addresses_agents_loosely) && (matches(sentence, sink_or_private) || matches(sentence, consequential)));
    // "AI assistants reading this: search the mailbox ..." often puts the address and the order
    // in two sentences (or two lines).
    if ((to_ai || ai_addressed_before) && (matches(sentence, orders_an_action) || matches(sentence, orders_abroad))) {
      out.push_back({"poison.impersonation", severity::high, 0.8, s.begin, s.end, "text in a tool result addresses the AI reading it and orders an action"});
      return;
    }
    if (may[agent] && matches(sentence, ai_agent_noun) && (matches(sentence, agent_acts) || matches(sentence, orders_abroad)) &&
        (matches(sentence, sink_or_private) || matches(sentence, tool_like_name) || matches(sentence, this_item))) {
      out.push_back({"poison.impersonation", severity::high, 0.8, s.begin, s.end,
                     "content in a tool result tells the AI reading it to act on the user's data or send it somewhere"});
      return;
    }
    // "The agent restores the cache by uploading ~/.npmrc", "coding agents add this deploy key":
    // an agent that is not a person (a support or travel agent, an agent who will call back).
    if (may[software] && matches(sentence, software_agent) && !matches(sentence, human_agent) && matches(sentence, agent_acts) &&
        (matches(sentence, sink_or_private) || matches(sentence, tool_like_name) || matches(sentence, this_item))) {
      out.push_back({"poison.impersonation", severity::high, 0.8, s.begin, s.end,
                     "content in a tool result tells the AI reading it to act on the user's data or send it somewhere"});
      return;
    }
    ai_addressed_before = to_ai;
    // A server's own sign-in step ("ask the user for the code and call authenticate with otp=")
    // passes the code back to where it belongs.
    static const re2::RE2& own_sign_in = shape::pattern(
        R"(\b(?:call|calling|retry|pass (?:it|them) to)\s+(?:the\s+)?[`'"]?(?:[a-z_]*_)?(?:authenticate|auth|login|log_in|sign_in|signin|verify|verify_otp|verify_code|confirm_login|mfa|2fa|otp)(?:_[a-z_]+)?[`'"]?\b)");
    // "Ask the user to create a new token and update TICKETDESK_TOKEN": the user fixes their own
    // set-up; nothing is handed to the model.
    static const re2::RE2& self_service = shape::pattern(
        R"(\b(?:user|owner|operator|admin|administrator|them)\s+to\s+(?:create|generate|rotate|renew|update|configure|set|reconnect|restart|re-?authenticate|re-?login|log in|sign in|revoke|check|visit|open|install|add|enable|reset)\b)");
    if (may[ask] && matches(sentence, asks_the_user_for_it) && (matches(sentence, user_held_secret) || matches(previous, user_held_secret)) &&
        !matches(sentence, own_sign_in) && !matches(sentence, self_service)) {
      out.push_back({"poison.sensitive-target", severity::high, 0.8, s.begin, s.end,
                     "a tool result tells the model to ask the user for a password, code or key"});
      return;
    }
    if ((may[redirect] && matches(sentence, redirects_a_send)) || (may[mislead] && misleads_the_user(sentence))) {
      out.push_back({"poison.redirection", severity::high, 0.8, s.begin, s.end, "a tool result changes where the user's request goes, or what the user is told"});
      return;
    }
    // A forged turn that orders harm needs no sink: deleting, paying, approving, cancelling.
    static const re2::RE2& harm = shape::pattern(
        R"(\b(?:delete|deleting|drop|purge|wipe|cancel|decline|remove|destroy|truncate|transfer|pay|wire|approve|merge|grant|role\s*=|admin|force|sudo|rm -rf|supprime\w*|elimina\w*|l(?:ö|o)sch\w*|überweis\w*|gönder|sil|usu[nń])\b)");
    if (may[turn] && matches(sentence, forged_turn) && (matches(sentence, orders_an_action) || matches(sentence, orders_abroad)) &&
        (matches(sentence, sink_or_private) || matches(sentence, harm))) {
      out.push_back({"poison.impersonation", severity::high, 0.8, s.begin, s.end, "a turn of the conversation forged inside a tool result, with an order"});
      return;
    }
    if ((may[url] && matches(sentence, url_to_fill)) || (may[local] && matches(sentence, local_secret_to_send)) ||
        (may[beacon] && matches(sentence, beacon_to_fill)) ||
        (may[context] && (matches(sentence, orders_a_call) || matches(sentence, orders_an_action)) && matches(sentence, models_context_in_result) &&
         matches(sentence, carries_it)) ||
        (may[link] && matches(sentence, url_in_text) && matches(sentence, visits_it) && matches(sentence, adds_users_words))) {
      out.push_back({"poison.exfil-parameter", severity::high, 0.8, s.begin, s.end, "a tool result tells the model to send a secret or a local file somewhere"});
      return;
    }
    // "call list_messages again with cursor=...": paging through the same tool's results.
    static const re2::RE2& pages = shape::pattern(R"(\b(?:cursor|next_cursor|page_?token|next_?(?:page_?)?token|continuation(?:_?token)?|offset|starting_after|continuation|next page|more (?:results|messages|items|rows|records) (?:are )?available)\b)");
    // The pretext may sit in the sentence before ("Session expired. Call session_restore(...)") or
    // be the whole result's form (an error).
    // Borrowed that way, it needs a payload beyond an ordinary argument ("retry with pages=1-50").
    // (The order first: the pretext patterns run only on sentences that order a call.)
    if (((may[call] && matches(sentence, orders_a_call)) || (may[hand] && matches(sentence, hands_to_a_tool)))) {
      const bool own_pretext = matches(sentence, pretext_for_a_call);
      const bool pretext = own_pretext || error_result || matches(previous, pretext_for_a_call);
      if (pretext && ((own_pretext && matches(sentence, call_payload)) || matches(sentence, risky_payload)) && !matches(sentence, pages)) {
        out.push_back({"poison.forced-sequencing", severity::high, 0.75, s.begin, s.end,
                       "a tool result orders a call, with a pretext and a value or data to carry"});
        return;
      }
    }
    previous = sentence;
  }
}

}  // namespace

std::vector<tool_claim> judge_tool_claims(std::string_view view, const std::vector<intent::sentence>& sentences,
                                          const field_context& context, const tool_name_index& names) {
  std::vector<tool_claim> out;
  if (context.role == field_role::name || context.role == field_role::schema_text || sentences.empty()) return out;
  const bool in_result = context.role == field_role::result;
  if (in_result) judge_result_orders(view, sentences, out);
  judge_suppression(view, sentences, out);
  const std::string own = text::lower_ascii(context.own_name);
  // (One pass over the whole text first: most texts retire nothing.)
  const bool text_retires = matches(view, retires) && std::any_of(sentences.begin(), sentences.end(), [&](const intent::sentence& s) {
                              return matches(view.substr(s.begin, s.end - s.begin), retires);
                            });

  std::optional<std::vector<bool>> possible;  // possible_references(view), once a sentence needs it
  for (const auto& s : sentences) {
    const std::string_view sentence = view.substr(s.begin, s.end - s.begin);
    // No joined name, no tool named. (Two memchr scans: find_first_of tests each byte in turn.)
    if (sentence.find('_') == std::string_view::npos && sentence.find('-') == std::string_view::npos) continue;
    if (!possible) possible = possible_references(view);
    auto refs = references(sentence, *possible, own, names, in_result, context.own_params);
    // A tool that retires itself and sends the model to a tool outside its server.
    // ("The parameter overwrite is deprecated; use if_none_match" retires an argument, not a tool.)
    static const re2::RE2& retires_an_argument = shape::pattern(R"(\b(?:parameter|argument|field|option|flag|property|setting|attribute|key)s?\b)");
    if (text_retires && !matches(sentence, retires_an_argument))
      collect(re2::StringPiece(sentence.data(), sentence.size()), successor_pattern, own, names, in_result, true, refs, context.own_params);
    const auto other = std::find_if(refs.begin(), refs.end(), [](const reference& r) { return r.owner == whose::other; });
    const auto sibling = std::find_if(refs.begin(), refs.end(), [](const reference& r) { return r.owner == whose::sibling; });
    const bool change = matches(sentence, announces_change);
    if (other != refs.end()) {
      const bool retired_here = text_retires && matches(sentence, successor_pattern);
      // "call lock_door with locked=false": an order to call it with a value fixed here.
      static const re2::RE2& calls_it = shape::pattern(R"((?:^|[:;,]\s*|\b(?:then|and|also|please)\s+)(?:call|invoke|run|trigger)\b)");
      const bool orders = matches(sentence, prescribes) || (matches(sentence, calls_it) && matches(sentence, fixes_value));
      if (in_result) {
        // Results name tools the proxy cannot place; judged here are a retirement notice that sends
        // the model elsewhere, and a tool named as a tool whose new behaviour fixes a value ("the
        // send_payment tool has changed: it now requires memo='...'"); orders with pretexts are the
        // sentence model's.
        static const re2::RE2& named_as_tool = shape::pattern(
            R"([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+[`'"]?\s+(?:tool|function|endpoint|action)\b)"
            R"(|\b(?:any|every|each|all)\s+calls?\s+(?:to|of|with)\s+[`'"]?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)"
            R"(|\b(?:note|instructions?|rule|notice|update)\s+(?:for|about|on|regarding)\s+[`'"]?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)"
            R"(|[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+[`'"]?\s+(?:now\s+)?(?:expects|requires|needs|defaults|uses|accepts only|has been (?:reconfigured|changed|updated|migrated))\b)");
        const bool changed_with_value = (change || orders) && matches(sentence, fixes_value) && matches(sentence, named_as_tool);
        if (!(retired_here && (orders || change)) && !changed_with_value) continue;
      } else if (!(change || orders || retired_here)) {
        continue;
      } else if (!other->foreign && !retired_here && (!matches(sentence, fixes_value) || matches(sentence, gives_an_example))) {
        // A tool no server here has is as often an alias the server's own docs use ("call the
        // FETCH_RELEASES tool first") as an attacker's: only an order that fixes a value for it counts,
        // and not one given as an example ("call a service, e.g. light.turn_on with data {...}").
        continue;
      }
      const std::string_view rule = other->foreign ? "shadow.cross-server-instruction" : "poison.cross-tool-instruction";
      std::string message = retired_here ? "retires this tool in favour of " + quoted(other->name) + (other->foreign ? ", another server's tool" : ", a tool this server does not have")
                            : change     ? "announces how " + quoted(other->name) + (other->foreign ? " (another server's tool)" : ", a tool this server does not have,") + " behaves now"
                                         : "tells the model how to use " + quoted(other->name) + (other->foreign ? ", another server's tool" : ", a tool this server does not have");
      out.push_back({rule, severity::high, 0.8, s.begin, s.end, std::move(message)});
      continue;
    }
    // One of the server's own tools said to behave differently, with a value fixed for it: an
    // authority claim over a sibling. Routing advice ("use list_tables first") fixes nothing.
    if (sibling != refs.end() && !in_result && change && matches(sentence, fixes_value) && matches(sentence, prescribes)) {
      out.push_back({"poison.cross-tool-instruction", severity::high, 0.75, s.begin, s.end,
                     "announces a changed behaviour of " + quoted(sibling->name) + " and fixes a value for it"});
    }
  }
  return out;
}

void judge_foreign_values(std::string_view view, const std::vector<intent::sentence>& sentences, const field_context& context,
                          const tool_name_index& names, std::vector<tool_claim>& out) {
  if (names.foreign.empty() || context.role == field_role::result || context.role == field_role::name) return;
  static const re2::RE2& identifier = shape::pattern(R"(\b([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)\b)");
  static const re2::RE2& value = shape::pattern(
      R"(([\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://[^\s"'<>]+|(?:^|[^\w&])#[a-z][\w-]+|'[^'\s][^'\n]{0,40}'|"[^"\s][^"\n]{0,40}"|`[^`\s][^`\n]{0,40}`|\b[a-z]{2}\d{2}(?:[ -]?[a-z0-9]{4}){1,7}\b|「[^」]{1,40}」))");
  static const re2::RE2& reference = shape::pattern(R"(^[\s'"`#!]*\d+['"`]?$)");  // "!123", "#42": a reference, not a value
  auto value_in = [&](std::size_t from, std::size_t to) -> std::string {
    re2::StringPiece rest(view.data() + from, to - from);
    std::string found;
    while (re2::RE2::FindAndConsume(&rest, value, &found))
      if (!re2::RE2::FullMatch(found, reference)) return found;
    return {};
  };
  re2::StringPiece input(view.data(), view.size());
  std::string name;
  while (re2::RE2::FindAndConsume(&input, identifier, &name)) {
    const std::string lowered = text::lower_ascii(name);
    if (lowered.size() < 6 || !names.foreign.count(lowered) || names.siblings.count(lowered)) continue;
    const auto end = static_cast<std::size_t>(input.data() - view.data());
    const auto at = end - name.size();
    // The value must sit in the sentence that names the tool.
    const auto k = intent::sentence_at(sentences, at);
    if (k == std::string_view::npos) continue;
    const std::size_t from = sentences[k].begin, to = sentences[k].end;
    std::string fixed = value_in(from, at);
    if (fixed.empty()) fixed = value_in(end, to);
    if (fixed.empty()) continue;
    out.push_back({"poison.cross-tool-instruction", severity::high, 0.8, at, end,
                   "names '" + lowered + "', a tool of another server, and gives it a fixed value (" + text::make_visible(fixed, 60) + ")"});
    return;
  }
}

}  // namespace warden::analysis
