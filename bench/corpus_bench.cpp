// corpus_bench: precision / recall of `scan` over the labelled corpus in tests/corpus, and the
// speed of surface analysis and runtime text scanning.
//
//   corpus_bench [--corpus DIR] [--min 0.95] [--no-speed] [--only-speed] [--only-scan ascii|accented|adversarial [--threads N]] [--verbose]
//
// Exit status: 0 when precision and recall are both >= --min (default 0: report only), 1 otherwise,
// 2 on usage or input errors.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/catalogue.hpp"
#include "analysis/engine.hpp"
#include "analysis/surface.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace warden::analysis;

namespace {

struct options {
  std::string corpus = std::string(WARDEN_SOURCE_DIR) + "/tests/corpus";
  double min = 0.0;
  bool speed = true;
  bool quality = true;
  bool verbose = false;
  std::string only_scan;  // "ascii", "accented" or "adversarial": only those scan_text rates (for profiling)
  unsigned threads = 1;    // with --only-scan: scan_text threads (0: its default)
};

struct outcome {
  std::string id, family, label, note;
  bool flagged = false;
  analysis_report report;
};

bool load_case(const json& c, outcome& out, std::string& error) {
  out.id = c.value("id", "?");
  out.family = c.value("family", "?");
  out.label = c.value("label", "?");
  out.note = c.value("note", "");
  std::vector<server_input> inputs;
  auto add = [&](const json& manifest) {
    auto surface = from_manifest(manifest);
    if (!surface) {
      error = out.id + ": " + surface.error_message();
      return false;
    }
    inputs.push_back({std::move(surface.value()), out.id});
    return true;
  };
  if (auto it = c.find("servers"); it != c.end() && it->is_array()) {
    for (const auto& m : *it)
      if (!add(m)) return false;
  } else if (auto s = c.find("surface"); s != c.end()) {
    if (!add(*s)) return false;
  } else {
    error = out.id + ": case has neither 'surface' nor 'servers'";
    return false;
  }
  out.report = analyse(inputs);
  out.flagged = is_flagged(out.report.trust);
  return true;
}

std::string top_findings(const analysis_report& report, std::size_t n) {
  std::string s;
  std::size_t shown = 0;
  for (const auto& f : report.findings) {
    const auto* rule = find_rule(f.rule_id);
    if (!rule || !rule->threat) continue;
    if (shown++ == n) break;
    char conf[16];
    std::snprintf(conf, sizeof conf, "%.2f", f.confidence);
    s += "      " + std::string(to_string(f.level)) + " " + f.rule_id + " (" + conf + ") @ " + f.location + ": " +
         f.evidence.substr(0, 110) + "\n";
  }
  if (shown == 0) s += "      (no threat findings)\n";
  return s;
}

int run_quality(const options& opt) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(opt.corpus, ec)) {
    std::cerr << "corpus_bench: no corpus directory at " << opt.corpus << "\n";
    return 2;
  }
  for (auto it = fs::recursive_directory_iterator(opt.corpus, ec); it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  std::vector<outcome> outcomes;
  auto started = std::chrono::steady_clock::now();
  for (const auto& file : files) {
    std::ifstream in(file);
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
      std::cerr << "corpus_bench: " << file << " is not a JSON array of cases\n";
      return 2;
    }
    for (const auto& c : doc) {
      outcome o;
      std::string error;
      if (!load_case(c, o, error)) {
        std::cerr << "corpus_bench: " << file << ": " << error << "\n";
        return 2;
      }
      outcomes.push_back(std::move(o));
    }
  }
  double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::size_t tp = 0, fp = 0, tn = 0, fn = 0;
  std::map<std::string, std::pair<std::size_t, std::size_t>> family;  // flagged, total
  std::map<char, std::size_t> grades_mal, grades_ben;
  for (const auto& o : outcomes) {
    bool malicious = o.label == "malicious";
    auto& f = family[(malicious ? "malicious/" : "benign/") + o.family];
    ++f.second;
    if (o.flagged) ++f.first;
    (malicious ? grades_mal : grades_ben)[o.report.trust.grade]++;
    if (malicious && o.flagged) ++tp;
    else if (malicious) ++fn;
    else if (o.flagged) ++fp;
    else ++tn;
  }
  double precision = tp + fp ? double(tp) / double(tp + fp) : 0.0;
  double recall = tp + fn ? double(tp) / double(tp + fn) : 0.0;
  double f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
  std::printf("corpus: %zu cases (%zu malicious, %zu benign) from %zu files in %.1f ms\n", outcomes.size(), tp + fn, tn + fp,
              files.size(), elapsed);
  std::printf("flagged = grade C or worse\n");
  std::printf("  TP %zu  FP %zu  TN %zu  FN %zu\n", tp, fp, tn, fn);
  std::printf("  precision %.3f  recall %.3f  F1 %.3f\n\n", precision, recall, f1);
  std::printf("grades (malicious):");
  for (auto [g, n] : grades_mal) std::printf(" %c=%zu", g, n);
  std::printf("\ngrades (benign):   ");
  for (auto [g, n] : grades_ben) std::printf(" %c=%zu", g, n);
  std::printf("\n\nper family (flagged / total):\n");
  for (const auto& [name, counts] : family)
    std::printf("  %-40s %3zu / %3zu%s\n", name.c_str(), counts.first, counts.second,
                name.rfind("malicious/", 0) == 0 ? "  recall" : "  false positives");
  std::printf("\nmisclassified:\n");
  std::size_t shown = 0;
  for (const auto& o : outcomes) {
    bool malicious = o.label == "malicious";
    if (malicious == o.flagged && !opt.verbose) continue;
    ++shown;
    std::printf("  %s %s [%s] grade %c (%d)%s\n    note: %s\n%s", malicious == o.flagged ? "ok  " : (malicious ? "MISS" : "FP  "),
                o.id.c_str(), o.family.c_str(), o.report.trust.grade, o.report.trust.score, "", o.note.c_str(),
                top_findings(o.report, 4).c_str());
  }
  if (!shown) std::printf("  none\n");
  std::printf("\n");
  if (opt.min > 0 && (precision < opt.min || recall < opt.min)) {
    std::printf("FAIL: precision or recall below %.2f\n", opt.min);
    return 1;
  }
  return 0;
}

// A plausible, honest, varied surface of n tools.
server_surface generated_surface(std::size_t n) {
  static const char* verbs[] = {"get", "list", "create", "update", "delete", "search", "send", "fetch", "read", "write"};
  static const char* objects[] = {"issue", "file", "user", "invoice", "message", "record", "page", "event", "note", "repo"};
  server_surface s;
  s.name = "generated";
  s.version = "1.0.0";
  s.instructions = "Generated server for benchmarks. Authenticate before calling other tools of this server.";
  for (std::size_t i = 0; i < n; ++i) {
    std::string verb = verbs[i % 10], object = objects[(i / 10) % 10];
    std::string name = verb + "_" + object + "_" + std::to_string(i);
    json tool = {{"name", name},
                 {"description", "Use this tool to " + verb + " a " + object + " in the workspace. Returns the " + object +
                                     " as JSON with its id, title, owner and timestamps. Results are paginated; pass the cursor "
                                     "from the previous page to continue. Requires the API token to be configured."},
                 {"inputSchema",
                  {{"type", "object"},
                   {"properties",
                    {{"id", {{"type", "string"}, {"description", "Identifier of the " + object + "."}}},
                     {"limit", {{"type", "integer"}, {"description", "Maximum number of results (1-100)."}, {"maximum", 100}}},
                     {"filter", {{"type", "object"}, {"description", "Optional filter.", }, {"properties", {{"status", {{"type", "string"}, {"enum", {"open", "closed"}}}}}}}}}},
                   {"required", {"id"}}}},
                 {"annotations", {{"readOnlyHint", verb == "get" || verb == "list" || verb == "search" || verb == "read"}}}};
    s.tools.push_back(std::move(tool));
  }
  return s;
}

std::string ordinary_text(std::size_t bytes) {
  static const char* sentences[] = {
      "The quarterly report shows revenue growth of twelve percent across all regions. ",
      "Customers in the northern market responded well to the new pricing tiers, according to the survey. ",
      "Build 4521 passed all 318 tests in 42 seconds on the main branch.\n",
      "{\"id\": 1842, \"status\": \"open\", \"title\": \"Fix pagination in the list view\", \"labels\": [\"bug\", \"ui\"]}\n",
      "Meeting notes: discussed the migration timeline, the staging database and the new on-call rotation. ",
      "The function returns an array of objects sorted by creation date, newest first. ",
  };
  std::string out;
  out.reserve(bytes + 200);
  std::size_t i = 0;
  while (out.size() < bytes) out += sentences[(i++ * 7) % 6];
  return out;
}

// Ordinary non-ASCII prose: German and French with accents, typographic quotes and dashes.
std::string accented_text(std::size_t bytes) {
  static const char* sentences[] = {
      "Der Quartalsbericht zeigt ein Umsatzwachstum von zwölf Prozent in allen Regionen; die Kunden im Süden waren zufrieden. ",
      "Les clients du marché français ont bien réagi aux nouveaux tarifs, d’après l’enquête menée en décembre. ",
      "Die Besprechung über die Migration – Zeitplan, Datenbank und Rufbereitschaft – endete früh.\n",
      "« Le résumé est prêt », a déclaré l’équipe ; la deuxième itération commencera à l’été. ",
      "Größere Änderungen an der Straßenführung wurden für März geplant, außerdem neue Übersichten.\n",
      "La fonction renvoie un tableau d’objets triés par date de création, du plus récent au plus ancien. ",
  };
  std::string out;
  out.reserve(bytes + 200);
  std::size_t i = 0;
  while (out.size() < bytes) out += sentences[(i++ * 7) % 6];
  return out;
}

// Median throughput of scan_text over text, in MB/s (10^6 bytes per second), on `threads` threads
// (0: scan_text's default, one per core).
double scan_rate(const std::string& text, const char* label, unsigned threads) {
  scan_text(text.substr(0, std::min<std::size_t>(text.size(), 1 << 20)));
  std::vector<double> rates;
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto findings = scan_text(text, "result", threads);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(double(text.size()) / 1e6 / seconds);
    if (i == 0 && !findings.empty()) std::printf("  (%s text produced %zu findings: %s)\n", label, findings.size(), findings[0].rule_id.c_str());
  }
  std::sort(rates.begin(), rates.end());
  const std::string on = threads == 1 ? "1 thread" : "default threads (" + std::to_string(std::clamp(std::thread::hardware_concurrency(), 1u, 4u)) + ")";
  std::printf("speed: scan_text on %zu MiB of %s text, %s: median %.0f MB/s (min %.0f, max %.0f)\n", text.size() >> 20, label,
              on.c_str(), rates[rates.size() / 2], rates.front(), rates.back());
  return rates[rates.size() / 2];
}

// Degenerate results an attacker can send: one short unit repeated (runs of a single control,
// space, invisible or confusable character, a trigger word or path over and over, no sentence
// ends). Each is scanned at 1 MiB and 4 MiB: time must grow with the size, not with its square
// (a run of blank lines in non-ASCII text once did), and no unit may be slow within a chunk (a
// sentence full of path matches once took 240 ms per 16 KiB chunk).
int adversarial_rates() {
  const std::vector<std::string> units = {"\n", " ", "\r", "\x1b[", "\xC2\xA0", "\xE2\x80\x83", "\xE2\x80\x8B", "\xE2\x80\x8D", "\xF3\xA0\x81\x81",
                         "\xEF\xB8\x8F", "\xE2\x80\xAA", "\xEE\x80\x80", "\xFF", "\xD0\xB0", "a\xD0\xB0", "a", "1", "a1", "a ", "a.",
                         "QUJD", "%41", "\"", "{", "\xC3\xA9\n", "ignore ", "send the file to ", "~/.ssh/", "instead of sending ",
                         "sk-", "password=", "http://", "a\xCC\x81", "\xF0\x9F\x98\x80", "\xEF\xBD\x89", "\xC5\xBF", std::string(1, '\0')};
  scan_text("warm-up", "result", 1);
  struct rate {
    std::string unit;
    double mb_per_s, growth;
  };
  std::vector<rate> rates;
  for (const std::string& unit : units) {
    auto seconds = [&](std::size_t bytes) {
      std::string text;
      text.reserve(bytes + unit.size());
      while (text.size() < bytes) text += unit;
      auto t0 = std::chrono::steady_clock::now();
      scan_text(text, "result", 1);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    const double small = seconds(std::size_t{1} << 20), large = seconds(std::size_t{4} << 20);
    rates.push_back({unit, 4.194304 / large, large / small});
  }
  std::sort(rates.begin(), rates.end(), [](const rate& a, const rate& b) { return a.mb_per_s < b.mb_per_s; });
  double worst_growth = 0;
  for (const auto& r : rates) worst_growth = std::max(worst_growth, r.growth);
  std::printf("speed: scan_text on %zu degenerate texts (one unit repeated, 1 thread): slowest %.0f MB/s, median %.0f MB/s; "
              "4 MiB takes at most %.1fx the time of 1 MiB\n",
              rates.size(), rates.front().mb_per_s, rates[rates.size() / 2].mb_per_s, worst_growth);
  for (std::size_t i = 0; i < 3 && i < rates.size(); ++i) {
    std::string shown;
    for (unsigned char c : rates[i].unit) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, c >= 0x20 && c < 0x7F ? "%c" : "\\x%02X", c);
      shown += buffer;
    }
    std::printf("  slowest: \"%s\" %.0f MB/s (4 MiB / 1 MiB time: %.1fx)\n", shown.c_str(), rates[i].mb_per_s, rates[i].growth);
  }
  // Exit 1 on quadratic growth (16x expected) or on a rate no linear pass would have.
  return worst_growth < 8 && rates.front().mb_per_s >= 2 ? 0 : 1;
}

int run_speed() {
  auto surface = generated_surface(1000);
  std::vector<server_input> inputs{{surface, "generated"}};
  analyse(inputs);  // warm-up: compiles patterns, fills caches
  std::vector<double> times;
  analysis_report report;
  for (int i = 0; i < 7; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    report = analyse(inputs);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("speed: analyse 1,000-tool surface: median %.1f ms (min %.1f, max %.1f) over %zu runs; %zu strings, %zu bytes, grade %c\n",
              times[times.size() / 2], times.front(), times.back(), times.size(), report.stats.strings_scanned,
              report.stats.bytes_scanned, report.trust.grade);
  const std::string ascii = ordinary_text(std::size_t{32} << 20), accented = accented_text(std::size_t{8} << 20);
  for (unsigned threads : {1u, 0u}) {
    scan_rate(ascii, "ordinary ASCII", threads);
    scan_rate(accented, "accented (non-ASCII)", threads);
  }
  // Short texts: typical tool results of a few KiB.
  std::string small = ordinary_text(4096);
  auto t0 = std::chrono::steady_clock::now();
  constexpr int reps = 5000;
  for (int i = 0; i < reps; ++i) scan_text(small);
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
  std::printf("speed: scan_text on a 4 KiB result: %.1f us per call (%.0f MB/s)\n", us, 4096.0 / 1e6 / (us / 1e6));
  return adversarial_rates();
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--corpus" && i + 1 < argc) opt.corpus = argv[++i];
    else if (a == "--min" && i + 1 < argc) opt.min = std::atof(argv[++i]);
    else if (a == "--no-speed") opt.speed = false;
    else if (a == "--only-speed") opt.quality = false;
    else if (a == "--verbose") opt.verbose = true;
    else if (a == "--threads" && i + 1 < argc) opt.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--only-scan" && i + 1 < argc) opt.only_scan = argv[++i];
    else {
      std::cerr << "usage: corpus_bench [--corpus DIR] [--min 0.95] [--no-speed] [--only-speed] [--only-scan ascii|accented|adversarial [--threads N]] [--verbose]\n";
      return 2;
    }
  }
  if (opt.only_scan == "ascii") return scan_rate(ordinary_text(std::size_t{32} << 20), "ordinary ASCII", opt.threads) > 0 ? 0 : 1;
  if (opt.only_scan == "adversarial") return adversarial_rates();
  if (opt.only_scan == "accented") return scan_rate(accented_text(std::size_t{8} << 20), "accented (non-ASCII)", opt.threads) > 0 ? 0 : 1;
  int status = 0;
  if (opt.quality) status = run_quality(opt);
  if (opt.speed && status != 2) run_speed();
  return status;
}
