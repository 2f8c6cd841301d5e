#pragma once
// Two snapshots of one server in one scan: the surface the user approved and the one the server
// lists after notifications/*/list_changed (or a saved manifest next to a live one). A rug pull
// (THREATS.md 12) is text that was not there when the user approved the server; it is read in the
// changed fields only, so an honest update that adds a parameter or a paragraph stays clean.
// Pure and thread-safe.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/engine.hpp"

namespace warden::analysis {

// For each input, the index of the earlier input it is a later snapshot of (the same server name
// and identity), or `none`.
inline constexpr std::size_t no_earlier_snapshot = static_cast<std::size_t>(-1);
std::vector<std::size_t> earlier_snapshots(const std::vector<server_input>& servers);

// The locations (as findings give them) of a later snapshot whose text differs from the earlier
// one, and the prefixes of items ("tools[2]") the earlier one did not have.
struct snapshot_changes {
  struct changed_text {
    std::string location, before, after;  // `before` is empty for a field the earlier one lacked
  };
  std::vector<std::string> fields;
  std::vector<std::string> new_items;
  std::vector<changed_text> texts;  // the string fields among `fields`
  bool covers(const std::string& location) const;
};
snapshot_changes changes_between(const server_surface& earlier, const server_surface& later);

// poison.rug-pull (high) where a later snapshot's changed text already reads as suspicious
// (a medium threat finding in a changed field), or where it adds a destination the approved text
// did not name (an e-mail address, a link, a bank account, a bucket): approval was given to other
// text.
void rug_pull_checks(const std::vector<server_input>& servers, const std::vector<std::string>& display,
                     const std::vector<std::size_t>& earlier, std::vector<finding>& findings);

}  // namespace warden::analysis
