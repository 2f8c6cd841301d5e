#pragma once
// Readers of JSON fields shared by the OAuth rules (oauth_rules.cpp) and the OAuth client
// (oauth_client.cpp): absent or mistyped fields read as empty. Internal to transports/.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warden::transports::oauth {

inline std::vector<std::string> string_list(const nlohmann::json& doc, const char* name) {
  std::vector<std::string> out;
  if (const auto it = doc.find(name); it != doc.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

inline std::string string_field(const nlohmann::json& doc, const char* name) {
  const auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace warden::transports::oauth
