#pragma once
// Builds the confirmed surface from what the server really answered: the initialize result and
// complete list results (all pages of one listing). Pure: no I/O. Not thread-safe.
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/surface.hpp"

namespace warden::proxy {

enum class list_kind { tools,
                       prompts,
                       resources,
                       resource_templates };
inline constexpr std::array<list_kind, 4> all_list_kinds{list_kind::tools, list_kind::prompts,
                                                         list_kind::resources,
                                                         list_kind::resource_templates};

std::string_view list_method(list_kind kind);      // "tools/list", ...
std::string_view list_result_key(list_kind kind);  // "tools", ..., "resourceTemplates"
std::optional<list_kind> list_kind_of_method(std::string_view method);
// Which lists a `notifications/*/list_changed` invalidates (resources covers templates too).
std::optional<list_kind> list_kind_of_change(std::string_view notification_method);
// Whether the server's capabilities announce this list.
bool server_offers(const nlohmann::json& capabilities, list_kind kind);

// Who asked for a listing: mcp-warden itself or the client. Each has its own page accumulator so
// interleaved listings cannot mix pages.
enum class list_source { warden,
                         client };

class surface_recorder {
 public:
  void record_initialize(const nlohmann::json& result);
  bool initialized() const noexcept { return initialized_; }

  // Pages of one listing: start (first page requested without a cursor), add pages, and when the
  // last page (no nextCursor) arrives the listing replaces that part of the surface.
  // Returns true when this page completed the listing.
  void start_listing(list_kind kind, list_source source);
  bool add_page(list_kind kind, list_source source, const nlohmann::json& result);
  // The server answered a listing with an error: the listing ends, the surface keeps what it had,
  // and the kind counts as listed (refused() says so).
  void finish_listing_refused(list_kind kind, list_source source);
  bool refused(list_kind kind) const noexcept { return refused_[index(kind)]; }
  // Which listings have completed at least once.
  bool listed(list_kind kind) const noexcept { return listed_[index(kind)]; }
  std::size_t count(list_kind kind) const { return const_cast<surface_recorder*>(this)->target(kind).size(); }

  const analysis::server_surface& surface() const noexcept { return surface_; }
  analysis::server_surface& surface() noexcept { return surface_; }

 private:
  static std::size_t index(list_kind kind) { return static_cast<std::size_t>(kind); }
  nlohmann::json& target(list_kind kind);

  analysis::server_surface surface_;
  bool initialized_ = false;
  std::array<bool, 4> listed_{};
  std::array<bool, 4> refused_{};
  std::array<std::array<nlohmann::json, 2>, 4> pending_{};  // [kind][source] items so far
};

}  // namespace warden::proxy
