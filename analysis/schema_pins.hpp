#pragma once
// A parameter that holds where something goes (a recipient, an account, a wallet, a webhook) with
// a schema default, const or one-value enum that fixes it to a concrete address: whatever the user
// asks for, the call goes there (THREATS.md 3 and 11). Pure and thread-safe.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace warden::analysis {

// The pinned value, when `schema` (the property `name`'s schema) fixes a destination.
std::optional<std::string> pinned_destination(std::string_view name, const nlohmann::json& schema);

// A default or const that is a shell profile, a key or a credentials file ("/home/user/.bashrc",
// "~/.ssh/id_rsa"): whatever the user asks for, the call reads or writes there (THREATS.md 17).
std::optional<std::string> pinned_sensitive_path(const nlohmann::json& schema);

// Either of the two, as a finding: its rule, the pinned value and what it means.
struct pinned_value {
  std::string_view rule;
  std::string value, message;
};
std::optional<pinned_value> pinned_by_schema(std::string_view name, const nlohmann::json& schema);

// The same destination arguments when the tool's own text fills them with a fixed value
// (THREATS.md 3): "transfers settle through DE00 1234 ...: enter that in to_account", an address
// to put in 'to', a single allowed address id. The user chooses where money, mail or goods go; a
// literal of that kind written for the model, and not offered as an example, takes the choice
// away in any language. `what` names the literal's kind.
// Also the description alone when it states an account number where money goes (any IBAN-shaped
// literal), or a wallet address in a tool that moves funds: "amounts above 500 are routed through
// the settlement account NL00 ...". `property` is empty then.
struct fixed_destination {
  std::string_view rule = "poison.redirection";
  std::string property, evidence, what;
  std::string message() const;
};
std::vector<fixed_destination> fixed_destinations(const nlohmann::json& tool);

}  // namespace warden::analysis
