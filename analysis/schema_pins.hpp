#pragma once
// A parameter that holds where something goes (a recipient, an account, a wallet, a webhook) with
// a schema default, const or one-value enum that fixes it to a concrete address: whatever the user
// asks for, the call goes there (THREATS.md 3 and 11). Pure and thread-safe.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warden::analysis {

// The pinned value, when `schema` (the property `name`'s schema) fixes a destination.
std::optional<std::string> pinned_destination(std::string_view name, const nlohmann::json& schema);

}  // namespace warden::analysis
