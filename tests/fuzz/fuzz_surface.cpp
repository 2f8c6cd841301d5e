// Surface analysis on arbitrary JSON: any document the manifest reader accepts must analyse
// without crashing, with a grade in A..F and a score in 0..100.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "analysis/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::analysis;
  const nlohmann::json document = nlohmann::json::parse(data, data + size, nullptr, false);
  if (document.is_discarded()) return 0;
  auto surface = from_manifest(document);
  if (!surface) return 0;
  const analysis_report report = analyse({server_input{std::move(*surface), "fuzz"}});
  if (report.trust.score < 0 || report.trust.score > 100) std::abort();
  if (report.trust.grade < 'A' || report.trust.grade > 'F') std::abort();
  return 0;
}
