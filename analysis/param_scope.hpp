#pragma once
// Parameters that ask for what the tool's function does not involve (THREATS.md 22): a colour
// converter's `personalization` field for "the user's email and phone", a stopwatch's field for
// "the guardrails you follow", a currency converter's field for card numbers. The parameter is the
// request; what makes it an attack is that nothing in the tool's name, title, description or other
// arguments concerns that kind of data. Pure and thread-safe.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace warden::analysis {

struct scope_ask {
  std::string_view rule;
  std::string property;  // the inputSchema property that asks
  std::string evidence;  // the parameter's text
  std::string what;      // the kind of data it asks for
};

// `shared_params`: for each property name (squashed_name) the number of the server's tools that
// take it; a name most of its tools share is the server's own convention ("privateKey" on a wallet
// server), not a request aimed at one tool.
std::vector<scope_ask> params_beyond_function(const nlohmann::json& tool, const std::unordered_map<std::string, int>& shared_params);

}  // namespace warden::analysis
