#include "analysis/schema_pins.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "analysis/injection.hpp"
#include "analysis/roles.hpp"
#include "analysis/shape_match.hpp"
#include "analysis/surface.hpp"
#include "analysis/text.hpp"

namespace warden::analysis {
namespace {

// Names of parameters that say where data or money goes.
bool names_a_destination(std::string_view name) {
  static const std::set<std::string, std::less<>> words{
      "to", "recipient", "recipients", "destination", "dest", "payee", "beneficiary", "iban", "wallet", "cc", "bcc",
      "webhook", "callback", "notify", "forward", "receiver", "send", "payout", "transfer", "deposit", "sink", "upload", "target",
      // Who else receives an event or a copy, and where an export lands.
      "attendees", "attendee", "invitees", "guests", "participants", "watchers", "subscribers", "email", "emails", "mail",
      "bucket", "export", "archive", "mirror", "backup", "relay", "share",
      // The same in other languages: "cci", "cco", "ccn" are blind copies; "destinatario" a recipient.
      "cci", "cco", "ccn", "destinatario", "destinatarios", "destinatari", "destinataire", "destinataires", "empfaenger",
      "empfanger", "ontvanger", "odbiorca", "alici", "penerima"};
  const auto parts = identifier_words(name);
  for (const auto& w : parts)
    if (words.count(w)) return true;
  // "account" or "address" alone: a bank account or a wallet address the user picks.
  return parts.size() <= 2 && std::any_of(parts.begin(), parts.end(), [](const std::string& w) { return w == "account" || w == "address"; });
}

// A concrete address: e-mail, wallet, bank account id, IBAN, raw IP, or a URL of a collection
// service. An API's base URL or a placeholder is not one.
bool concrete_address(std::string_view value) {
  static const re2::RE2& address = shape::pattern(
      R"((?i)^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$|^0x[0-9a-f]{40}$|^(?:ba|acct|card|pm|src|bank)_[A-Za-z0-9]{6,}$|^[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?$|^(?:https?://)?\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:/|$)|^https?://[^/]*(?:webhook|hooks\.|discord(?:app)?\.com/api/webhooks|ngrok|pastebin|requestbin|pipedream|interact\.sh|burpcollaborator|trycloudflare|herokuapp|glitch\.me|workers\.dev))");
  if (value.size() < 6 || value.size() > 300) return false;
  // (A default is a value that gets used: "copies@relay.example" in a bcc default sends mail there,
  // whatever its domain; only a written placeholder is none.)
  if (shape::placeholder_value(value)) return false;
  return re2::RE2::PartialMatch(re2::StringPiece(value.data(), value.size()), address);
}

// Any address or link with a host ("sftp://vault.host.example/in", "wallet:collect-77@pay.example").
bool names_a_host(std::string_view value) {
  // (An object-store bucket has no dots: "s3://partner-drop/exports".)
  static const re2::RE2& host = shape::pattern(R"((?:@|://)[\w-]+(?:\.[\w-]+)+|^(?:s3|gs|az|abfss?|wasbs?|oss|r2)://[\w.-]{3,})");
  return value.size() >= 6 && value.size() <= 300 && !shape::placeholder_value(value) && re2::RE2::PartialMatch(re2::StringPiece(value.data(), value.size()), host);
}

}  // namespace

std::optional<std::string> pinned_sensitive_path(const nlohmann::json& schema) {
  static const re2::RE2& sensitive = shape::pattern(
      R"((?:^|/|~)\.(?:ssh/|aws/(?:credentials|config)|bashrc|zshrc|bash_profile|zprofile|profile$|npmrc|pypirc|netrc|pgpass|git-credentials|docker/config\.json|kube/config)|(?:^|/)id_(?:rsa|ed25519|ecdsa|dsa)\b|^/etc/(?:passwd|shadow|sudoers|hosts|crontab|profile|environment)\b)");
  if (!schema.is_object()) return std::nullopt;
  for (const char* key : {"default", "const"}) {
    const auto v = schema.find(key);
    if (v == schema.end()) continue;
    for (const auto& x : v->is_array() ? *v : nlohmann::json::array({*v}))
      if (x.is_string() && x.get_ref<const std::string&>().size() < 300 && re2::RE2::PartialMatch(x.get_ref<const std::string&>(), sensitive))
        return x.get<std::string>();
  }
  return std::nullopt;
}

std::optional<std::string> pinned_destination(std::string_view name, const nlohmann::json& schema) {
  if (!schema.is_object() || !names_a_destination(name)) return std::nullopt;
  // A list default ("cc": ["records@..."]) pins each of its members. A const or a one-value enum
  // leaves no other choice at all; a default is used whenever the user names no destination. Any
  // address or link there is pinned, whatever its scheme ("s3://partner-drop/exports", "sftp://...",
  // "wallet:collect-77@pay.example").
  auto check = [](const nlohmann::json& v) -> std::optional<std::string> {
    for (const auto& x : v.is_array() ? v : nlohmann::json::array({v})) {
      if (!x.is_string()) continue;
      const auto& value = x.get_ref<const std::string&>();
      if (concrete_address(value) || names_a_host(value)) return value;
    }
    return std::nullopt;
  };
  if (auto d = schema.find("default"); d != schema.end())
    if (auto hit = check(*d)) return hit;
  if (auto c = schema.find("const"); c != schema.end())
    if (auto hit = check(*c)) return hit;
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array() && e->size() == 1)
    if (auto hit = check((*e)[0])) return hit;
  return std::nullopt;
}

std::optional<pinned_value> pinned_by_schema(std::string_view name, const nlohmann::json& schema) {
  if (auto pinned = pinned_destination(name, schema))
    return pinned_value{"poison.redirection", *pinned, "the schema fixes where '" + std::string(name) + "' sends: " + text::make_visible(*pinned, 80)};
  if (auto path = pinned_sensitive_path(schema))
    return pinned_value{"poison.sensitive-target", *path,
                        "the schema fixes '" + std::string(name) + "' to a shell profile, key or credentials file: " + text::make_visible(*path, 80)};
  return std::nullopt;
}

namespace {

// The arguments whose free text and one-value enums are read for a fixed destination: narrower
// than names_a_destination (webhook, callback, target, upload ...), whose concrete-address test
// on a default is strict enough for a wide list; text and enums are not (measured: with the wide
// list the real servers' tools with a high finding went from 1.2 % to 4.1 %).
bool destination_argument(const std::string& squashed) {
  static const std::array<std::string_view, 24> exact{"to", "toaccount", "toaddress", "toemail", "recipient", "recipients", "payee",
                                                      "payeeid", "beneficiary", "iban", "destinationaccount", "destaccount",
                                                      "accountnumber", "wallet", "walletaddress", "cc", "bcc", "replyto", "email",
                                                      "emails", "shippingaddress", "shippingaddressid", "deliveryaddress", "toiban"};
  if (std::find(exact.begin(), exact.end(), squashed) != exact.end()) return true;
  for (std::string_view tail : {"recipient", "recipients", "payee", "beneficiary", "iban", "walletaddress"})
    if (squashed.size() > tail.size() && squashed.ends_with(tail)) return true;
  return false;
}

struct literal_kind {
  const char* what;
  const re2::RE2* shape;  // null: not a literal found in text (a single allowed value)
};

// Literals that name a destination outright. IBAN-like: two letters, two digits, groups of four.
const std::array<literal_kind, 3>& destination_literals() {
  static const re2::RE2 email(R"(([\w.+-]+@[\w-]+(?:\.[\w-]+)+))");
  static const re2::RE2 account(R"(\b([A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?)\b)");
  static const re2::RE2 wallet(R"(\b(0x[0-9a-fA-F]{40}|bc1[a-z0-9]{25,59})\b)");
  static const std::array<literal_kind, 3> all{{{"an email address", &email}, {"an account number", &account}, {"a wallet address", &wallet}}};
  return all;
}

// "e.g. alice@example.com", "format: DE89 ...": a literal offered as an example or a format.
bool offered_as_example(std::string_view before) {
  static const re2::RE2 marker(
      R"((?i)(?:\be\.?g\b|\bi\.e\b|for (?:example|instance)|\bexamples?\b|such as|\blike\b|\bformat(?:ted)?\b|in the form|\bsample\b|\bplaceholder\b|\bz\.\s?b\b|\bp\.\s?ej\b|exemple|ejemplo|exemplo|beispiel|esempio|voorbeeld|przyk[lł]ad|[oö]rnek|\bvd\b|пример|例|예시|예:|उदाहरण|مثال|דוגמה|v[ií] d[uụ]|contoh|ตัวอย่าง)[^\n]{0,40}$)");
  return re2::RE2::PartialMatch(re2::StringPiece(before.data(), before.size()), marker);
}

// The first destination literal in `text` not offered as an example, within [from, to).
const literal_kind* literal_in(std::string_view text, std::size_t from, std::size_t to) {
  to = std::min(to, text.size());
  if (from >= to) return nullptr;
  for (const auto& kind : destination_literals()) {
    re2::StringPiece rest(text.data() + from, to - from), found;
    while (re2::RE2::FindAndConsume(&rest, *kind.shape, &found)) {
      const auto at = static_cast<std::size_t>(found.data() - text.data());
      if (!offered_as_example(text.substr(at > 60 ? at - 60 : 0, at > 60 ? 60 : at))) return &kind;
    }
  }
  return nullptr;
}

// Where the text names argument `name`: quoted anywhere, or bare when the name cannot be an
// ordinary word ("to_account", "toAccount"). Returns npos when it does not.
std::size_t names_argument(std::string_view body, const std::string& name) {
  for (const char* quote : {"'", "\"", "`"}) {
    const std::string quoted = quote + name + quote;
    if (const auto at = body.find(quoted); at != std::string_view::npos) return at;
  }
  const bool distinctive = name.find_first_of("_-") != std::string::npos ||
                           std::any_of(name.begin() + 1, name.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!distinctive) return std::string_view::npos;
  return text::find_identifier(body, name);
}

// The piece of text around `at` that one instruction spans: back and forward to a full stop or a
// line break (a ';' or ':' joins "settled through X; enter that in to_account").
std::pair<std::size_t, std::size_t> instruction_around(std::string_view text, std::size_t at) {
  std::size_t begin = at, end = at;
  while (begin > 0 && at - begin < 240 && text[begin - 1] != '\n' && !(text[begin - 1] == '.' && begin < text.size() && text[begin] == ' ')) --begin;
  while (end < text.size() && end - at < 200 && text[end] != '\n' && !(text[end] == '.' && (end + 1 >= text.size() || text[end + 1] == ' '))) ++end;
  return {begin, end};
}

}  // namespace

std::vector<fixed_destination> fixed_destinations(const nlohmann::json& tool) {
  std::vector<fixed_destination> out;
  const auto schema = tool.find("inputSchema");
  if (schema == tool.end() || !schema->is_object()) return out;
  const auto props = schema->find("properties");
  if (props == schema->end() || !props->is_object()) return out;
  const std::string description = text_member(tool, "description");
  for (auto p = props->begin(); p != props->end(); ++p) {
    // A default, const or one-value enum that is a concrete address is pinned_destination's.
    if (!p->is_object() || !destination_argument(squashed_name(p.key())) || pinned_destination(p.key(), *p)) continue;
    const std::string own = text_member(*p, "description");
    const literal_kind* found = literal_in(own, 0, own.size());
    std::string evidence = own;
    if (!found) {
      // An enum of one value leaves the model no destination but that one.
      if (const auto e = p->find("enum"); e != p->end() && e->is_array() && e->size() == 1 && (*e)[0].is_string()) {
        static const literal_kind only{"a single allowed value", nullptr};
        found = &only;
        evidence = p.key() + " enum: " + (*e)[0].get<std::string>();
      }
    }
    if (!found) {
      if (const auto at = names_argument(description, p.key()); at != std::string::npos) {
        const auto [begin, end] = instruction_around(description, at);
        if ((found = literal_in(description, begin, end))) evidence = description.substr(begin, end - begin);
      }
    }
    if (found) out.push_back({"poison.redirection", p.key(), text::excerpt(evidence, 0, 200), found->what});
  }
  if (!out.empty()) return out;
  static const re2::RE2 money_words(
      R"((?i)iban|bank|settle|payee|beneficiar|transfer|payment|wire|wallet|custody|konto|cuenta|compte|conto|rekening|abonan|überweis|virement|bonifico|transferencia|abgewickelt|счёт|счет|口座|账户|계좌)");
  static const re2::RE2 moves_funds(R"((?i)transfer|send|withdraw|pay|swap|bridge|deposit|invoice|überweis|transfer)");
  const std::string name = text_member(tool, "name");
  for (const auto& kind : destination_literals()) {
    if (kind.what == std::string_view("an email address")) continue;  // support and sender addresses are everyday documentation
    if (kind.what == std::string_view("a wallet address") && !re2::RE2::PartialMatch(name, moves_funds)) continue;
    re2::StringPiece rest(description), found;
    while (re2::RE2::FindAndConsume(&rest, *kind.shape, &found)) {
      const auto at = static_cast<std::size_t>(found.data() - description.data());
      if (offered_as_example(std::string_view(description).substr(at > 60 ? at - 60 : 0, at > 60 ? 60 : at))) continue;
      // A placeholder ("AC000...0") holds no digit but zeros after its first four characters.
      const std::string_view literal(found.data(), found.size());
      if (literal.substr(4).find_first_of("123456789") == std::string_view::npos) continue;
      const auto [begin, end] = instruction_around(description, at);
      if (!re2::RE2::PartialMatch(description.substr(begin, end - begin), money_words)) continue;
      out.push_back({"poison.redirection", "", text::excerpt(description.substr(begin, end - begin), 0, 200), kind.what});
      return out;
    }
  }
  return out;
}

std::string fixed_destination::message() const {
  if (property.empty()) return "the tool's description states where the money goes: " + what + " the user did not choose";
  return "the tool's text fixes the destination '" + property + "' to " + what + " instead of the user's choice";
}

}  // namespace warden::analysis
