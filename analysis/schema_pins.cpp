#include "analysis/schema_pins.hpp"

#include <re2/re2.h>

#include <set>

#include "analysis/roles.hpp"
#include "analysis/shape_match.hpp"

namespace warden::analysis {
namespace {

// Names of parameters that say where data or money goes.
bool names_a_destination(std::string_view name) {
  static const std::set<std::string, std::less<>> words{
      "to", "recipient", "recipients", "destination", "dest", "payee", "beneficiary", "iban", "wallet", "cc", "bcc",
      "webhook", "callback", "notify", "forward", "receiver", "send", "payout", "transfer", "deposit", "sink", "upload", "target"};
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
  // whatever its domain; only a written placeholder, "you@example.com", is none.)
  static const re2::RE2& placeholder = shape::pattern(R"(your|placeholder|xxx|<|\{|^(?:you|user|name|someone|me|test|john\.?doe|jane\.?doe)@)");
  if (re2::RE2::PartialMatch(re2::StringPiece(value.data(), value.size()), placeholder)) return false;
  return re2::RE2::PartialMatch(re2::StringPiece(value.data(), value.size()), address);
}

}  // namespace

std::optional<std::string> pinned_destination(std::string_view name, const nlohmann::json& schema) {
  if (!schema.is_object() || !names_a_destination(name)) return std::nullopt;
  auto check = [](const nlohmann::json& v) -> std::optional<std::string> {
    if (v.is_string() && concrete_address(v.get_ref<const std::string&>())) return v.get<std::string>();
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

}  // namespace warden::analysis
