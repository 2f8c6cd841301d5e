#pragma once
// Capability roles of one tool, inferred from its name, description, schema and annotations.
// Annotations are claims: they add roles (openWorldHint) but never remove them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/engine.hpp"

namespace warden::analysis {

struct role_inference {
  std::uint8_t roles = 0;
  std::uint8_t name_roles = 0;  // roles evidenced by the tool name alone (strongest evidence)
  std::vector<std::string> reasons;
};

role_inference infer_roles(const nlohmann::json& tool);

// Lower-case word tokens of an identifier: "readFile_v2" -> {read, file, v2}.
std::vector<std::string> identifier_words(std::string_view name);

// The name says the tool destroys data or access ("delete_branch", "drop-table", "factoryReset"),
// not merely that it shortens or clears something ("truncate_to_tokens", "clear_selection").
bool name_says_it_destroys(std::string_view name);

}  // namespace warden::analysis
