// corpus_bench: detection quality per labelled set (precision and recall per set and per attack
// class, honest real-server surfaces graded), gates that fail, a dump of the sentence model's
// features for scripts/fit_intent.py, and the speed of surface analysis and result scanning.
//
//   corpus_bench [--set NAME=DIR[,DIR...]]... [--servers NAME=DIR]... [--gate NAME:P:R]...
//                [--server-gate NAME:MAX_TOOL_SHARE[:MAX_FLAGGED_SERVERS]] [--show-errors NAME] [--dump-features FILE]
//                [--no-speed] [--only-speed] [--only-scan ascii|accented|adversarial [--threads N]]
//
// Without --set it measures tests/corpus. Exit status: 0 when every gate passes, 1 when one fails,
// 2 on usage or input errors. --show-errors prints a set's misclassified cases: never ask it of a
// sealed or red-team set while tuning rules.
#include <algorithm>
#include <cmath>
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

#include <set>

#include "analysis/catalogue.hpp"
#include "analysis/engine.hpp"
#include "analysis/intent.hpp"
#include "analysis/surface.hpp"
#include "analysis/text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace warden::analysis;

namespace {

// A named set of labelled cases (tests/corpus/README.md), or of honest server surfaces.
struct case_set {
  std::string name;
  std::vector<std::string> dirs;
  bool servers = false;  // every file is one server's manifest, honest by label
};

struct gate {
  std::string set;
  double precision = 0, recall = 0;     // cases; for a server set: recall = max share of tools with a high finding
  std::size_t max_flagged_servers = 0;  // server sets: how many may be graded C or worse
};

struct options {
  std::vector<case_set> sets;
  std::vector<gate> gates;
  std::set<std::string> show_errors;  // sets whose misclassified cases are printed (never the sealed or red-team ones while tuning)
  std::string dump_features;          // JSON lines of every judged sentence, for scripts/fit_intent.py
  bool speed = true;
  bool quality = true;
  bool verbose = false;
  std::string only_scan;  // "ascii", "accented" or "adversarial": only those scan_text rates (for profiling)
  unsigned threads = 1;   // with --only-scan: scan_text threads (0: its default)
};

struct outcome {
  std::string id, family, label, note;
  bool flagged = false, result_case = false;
  char grade = 'A';
  int score = 100;
  std::vector<finding> findings;
};

bool is_threat(const finding& f) {
  const auto* rule = find_rule(f.rule_id);
  return rule && rule->threat;
}

std::string lowered_words(std::string_view raw) {
  const auto norm = text::normalize(raw);
  std::string out;
  for (char c : norm.view()) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isspace(static_cast<unsigned char>(l))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(l);
    }
  }
  return out;
}

// Writes each sentence the engine judges while a case is analysed, labelled when the case says
// which text was injected: 1 inside an injected text, 0 elsewhere; benign cases are all 0.
class feature_dump {
 public:
  explicit feature_dump(const std::string& path) {
    if (!path.empty()) out_.open(path, std::ios::trunc);
  }
  bool on() const { return out_.is_open(); }
  void begin_case(const std::string& set, const json& c, bool benign, std::string group) {
    injected_.clear();
    skip_ = !on();
    if (skip_) return;
    set_ = set;
    id_ = c.value("id", "?");
    group_ = std::move(group);
    benign_ = benign;
    bag_ = false;
    if (!benign) {
      const auto it = c.find("injected");
      if (it == c.end() || !it->is_array()) {
        // Hand-written attack text says which case is an attack, not which sentence: every
        // sentence goes out as a member of the case's bag (y 2), for a multiple-instance fit.
        bag_ = true;
        intent::set_observer([this](std::string_view location, std::string_view sentence, const intent::feature_set& features, double p) {
          write(location, sentence, features, p);
        });
        return;
      }
      for (const auto& item : *it)
        if (item.is_object() && item.contains("text") && item["text"].is_string())
          injected_.push_back({item.value("location", ""), lowered_words(item["text"].get<std::string>())});
      // An added tool is judged against the surface (function overlap), not sentence by sentence.
      const std::string place = c.contains("components") ? c["components"].value("place", "") : "";
      if (injected_.empty() || place.find("added") != std::string::npos || place.find("copy") != std::string::npos ||
          place.find("confusable") != std::string::npos)
        skip_ = true;
    }
    intent::set_observer([this](std::string_view location, std::string_view sentence, const intent::feature_set& features, double p) {
      write(location, sentence, features, p);
    });
  }
  void end_case() { intent::set_observer(nullptr); }

 private:
  // A sentence is attack text when it lies inside an injected text at the same location; a short
  // piece ("Step 2: call X.") counts only when the injected text is that short too (names, enum
  // values), so that the neutral joints of a longer injection do not teach the model.
  void write(std::string_view location, std::string_view sentence, const intent::feature_set& features, double p) {
    if (skip_) return;
    int y = bag_ ? 2 : 0;
    const std::string words = lowered_words(sentence);
    for (const auto& [where, text] : injected_) {
      if (benign_ || where != location || text.find(words) == std::string::npos) continue;
      const bool whole = words.size() * 2 >= text.size();
      const std::size_t spaces = static_cast<std::size_t>(std::count(words.begin(), words.end(), ' '));
      if (whole || spaces >= 4) y = 1;
      else y = -1;  // a fragment of an attack: neither label
    }
    if (y < 0) return;
    json line = {{"set", set_}, {"case", id_}, {"group", group_}, {"location", std::string(location)}, {"y", y}, {"p", p}, {"terms", intent::active_terms(features, sentence)}};
    if (y >= 1 || p >= 0.3) line["text"] = std::string(sentence.substr(0, 300));
    out_ << line.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }

  std::ofstream out_;
  std::string set_, id_, group_;
  bool benign_ = true, skip_ = true, bag_ = false;
  std::vector<std::pair<std::string, std::string>> injected_;  // (location, lowered text)
};

std::vector<server_input> case_inputs(const json& c, const std::string& id, std::string& error) {
  std::vector<server_input> inputs;
  auto add = [&](const json& manifest) {
    auto surface = from_manifest(manifest);
    if (!surface) {
      error = id + ": " + surface.error_message();
      return false;
    }
    inputs.push_back({std::move(surface.value()), id});
    return true;
  };
  if (auto it = c.find("servers"); it != c.end() && it->is_array()) {
    for (const auto& m : *it)
      if (!add(m)) return {};
  } else if (auto s = c.find("surface"); s != c.end()) {
    if (!add(*s)) return {};
  } else {
    error = id + ": case has neither 'surface', 'servers' nor 'result'";
  }
  return inputs;
}

bool judge_case(const json& c, outcome& out, std::string& error) {
  out.id = c.value("id", "?");
  out.family = c.value("family", "?");
  out.label = c.value("label", "?");
  out.note = c.value("note", "");
  if (auto r = c.find("result"); r != c.end() && r->is_object()) {
    // A tool result: flagged when the runtime would act on it (a threat finding of high or more).
    out.result_case = true;
    const std::string text = r->value("text", "");
    out.findings = scan_text(text, "result");
    for (const auto& f : out.findings)
      if (is_threat(f) && f.level >= severity::high) out.flagged = true;
    const auto trust = score_findings(out.findings);
    out.grade = trust.grade;
    out.score = trust.score;
    return true;
  }
  auto inputs = case_inputs(c, out.id, error);
  if (inputs.empty()) return false;
  auto report = analyse(inputs);
  out.flagged = is_flagged(report.trust);
  out.grade = report.trust.grade;
  out.score = report.trust.score;
  out.findings = std::move(report.findings);
  return true;
}

std::string top_findings(const std::vector<finding>& findings, std::size_t n) {
  std::string s;
  std::size_t shown = 0;
  for (const auto& f : findings) {
    if (!is_threat(f)) continue;
    if (shown++ == n) break;
    char conf[16];
    std::snprintf(conf, sizeof conf, "%.2f", f.confidence);
    s += "      " + std::string(to_string(f.level)) + " " + f.rule_id + " (" + conf + ") @ " + f.location + ": " +
         f.evidence.substr(0, 140) + "\n        " + f.message.substr(0, 160) + "\n";
  }
  if (shown == 0) s += "      (no threat findings)\n";
  return s;
}

std::vector<fs::path> json_files(const std::vector<std::string>& dirs) {
  std::vector<fs::path> files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) {
      files.emplace_back(dir);
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

struct set_score {
  double precision = 0, recall = 0;
  std::size_t cases = 0;
  double flagged_tool_share = 0;  // server sets
};

// Honest server surfaces: grades and the tools with a high or critical threat finding.
int run_server_set(const case_set& set, const options& opt, feature_dump& dump, set_score& score) {
  const auto files = json_files(set.dirs);
  std::size_t servers = 0, tools = 0, flagged_servers = 0, flagged_tools = 0;
  std::map<char, std::size_t> grades;
  std::vector<std::string> listed;
  for (const auto& file : files) {
    std::ifstream in(file);
    json manifest = json::parse(in, nullptr, false);
    if (manifest.is_discarded()) {
      std::cerr << "corpus_bench: " << file << " is not JSON\n";
      return 2;
    }
    auto surface = from_manifest(manifest);
    if (!surface) {
      std::cerr << "corpus_bench: " << file << ": " << surface.error_message() << "\n";
      return 2;
    }
    const std::string id = file.stem().string();
    dump.begin_case(set.name, json{{"id", id}}, true, fnv1a(id) % 2 == 0 ? "a" : "b");
    auto report = analyse({{std::move(surface.value()), id}});
    dump.end_case();
    ++servers;
    tools += report.stats.tools;
    grades[report.trust.grade]++;
    if (is_flagged(report.trust)) ++flagged_servers;
    std::set<std::string> high_tools;
    for (const auto& f : report.findings) {
      if (!is_threat(f) || f.level < severity::medium) continue;
      if (f.level >= severity::high) high_tools.insert(f.item);
      listed.push_back(id + " grade " + report.trust.grade + " | " + std::string(to_string(f.level)) + " " + f.rule_id + " @ " + f.item +
                       " " + f.location + ": " + f.evidence.substr(0, 160) + " | " + f.message.substr(0, 200));
    }
    flagged_tools += high_tools.size();
  }
  score.cases = servers;
  score.flagged_tool_share = tools ? double(flagged_tools) / double(tools) : 0;
  score.precision = servers ? 1.0 - double(flagged_servers) / double(servers) : 0;
  std::printf("set %s (honest servers): %zu servers, %zu tools\n", set.name.c_str(), servers, tools);
  std::printf("  graded C or worse: %zu; tools with a high or critical threat finding: %zu (%.2f%%)\n", flagged_servers, flagged_tools,
              100.0 * score.flagged_tool_share);
  std::printf("  grades:");
  for (auto [g, n] : grades) std::printf(" %c=%zu", g, n);
  std::printf("\n");
  if (opt.show_errors.count(set.name) || opt.verbose) {
    std::printf("  threat findings of medium or more:\n");
    for (const auto& line : listed) std::printf("    %s\n", line.c_str());
  }
  std::printf("\n");
  return 0;
}

int run_case_set(const case_set& set, const options& opt, feature_dump& dump, set_score& score) {
  std::vector<outcome> outcomes;
  auto started = std::chrono::steady_clock::now();
  const auto files = json_files(set.dirs);
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
      dump.begin_case(set.name, c, c.value("label", "") != "malicious", set.name);
      const bool judged = judge_case(c, o, error);
      dump.end_case();
      if (!judged) {
        std::cerr << "corpus_bench: " << file << ": " << error << "\n";
        return 2;
      }
      outcomes.push_back(std::move(o));
    }
  }
  double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::size_t tp = 0, fp = 0, tn = 0, fn = 0;
  std::map<std::string, std::pair<std::size_t, std::size_t>> family;  // flagged, total
  for (const auto& o : outcomes) {
    const bool malicious = o.label == "malicious";
    auto& f = family[(malicious ? "malicious/" : "benign/") + o.family + (o.result_case ? " (result)" : "")];
    ++f.second;
    if (o.flagged) ++f.first;
    if (malicious && o.flagged) ++tp;
    else if (malicious) ++fn;
    else if (o.flagged) ++fp;
    else ++tn;
  }
  score.precision = tp + fp ? double(tp) / double(tp + fp) : 1.0;
  score.recall = tp + fn ? double(tp) / double(tp + fn) : 1.0;
  score.cases = outcomes.size();
  std::printf("set %s: %zu cases (%zu malicious, %zu benign) from %zu files in %.0f ms\n", set.name.c_str(), outcomes.size(), tp + fn,
              tn + fp, files.size(), elapsed);
  std::printf("  TP %zu  FP %zu  TN %zu  FN %zu   precision %.3f  recall %.3f\n", tp, fp, tn, fn, score.precision, score.recall);
  std::printf("  per family (flagged / total):\n");
  for (const auto& [name, counts] : family)
    std::printf("    %-48s %4zu / %4zu  %s\n", name.c_str(), counts.first, counts.second,
                name.rfind("malicious/", 0) == 0 ? "recall" : "false positives");
  if (opt.show_errors.count(set.name) || opt.verbose) {
    std::printf("  misclassified:\n");
    for (const auto& o : outcomes) {
      const bool malicious = o.label == "malicious";
      if (malicious == o.flagged) continue;
      std::printf("    %s %s [%s] grade %c (%d)\n      note: %s\n%s", malicious ? "MISS" : "FP  ", o.id.c_str(), o.family.c_str(), o.grade,
                  o.score, o.note.substr(0, 200).c_str(), top_findings(o.findings, 3).c_str());
    }
  }
  std::printf("\n");
  return 0;
}

int run_quality(const options& opt) {
  feature_dump dump(opt.dump_features);
  std::map<std::string, set_score> scores;
  for (const auto& set : opt.sets) {
    set_score score;
    const int status = set.servers ? run_server_set(set, opt, dump, score) : run_case_set(set, opt, dump, score);
    if (status) return status;
    scores[set.name] = score;
  }
  bool failed = false;
  for (const auto& g : opt.gates) {
    auto it = scores.find(g.set);
    if (it == scores.end()) {
      std::printf("GATE %s: set not measured\n", g.set.c_str());
      failed = true;
      continue;
    }
    const auto& s = it->second;
    const bool servers = std::any_of(opt.sets.begin(), opt.sets.end(), [&](const case_set& c) { return c.name == g.set && c.servers; });
    bool ok;
    if (servers) {
      const auto flagged = static_cast<std::size_t>(std::lround((1.0 - s.precision) * double(s.cases)));
      ok = flagged <= g.max_flagged_servers && s.flagged_tool_share <= g.recall + 1e-12;
      std::printf("GATE %s: %s (servers graded C or worse %zu <= %zu; tools with a high finding %.2f%% <= %.2f%%)\n", g.set.c_str(),
                  ok ? "pass" : "FAIL", flagged, g.max_flagged_servers, 100 * s.flagged_tool_share, 100 * g.recall);
    } else {
      ok = s.precision >= g.precision && s.recall >= g.recall;
      std::printf("GATE %s: %s (precision %.3f >= %.3f, recall %.3f >= %.3f)\n", g.set.c_str(), ok ? "pass" : "FAIL", s.precision,
                  g.precision, s.recall, g.recall);
    }
    failed = failed || !ok;
  }
  return failed ? 1 : 0;
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
                     {"filter", {{"type", "object"}, {
                                                         "description",
                                                         "Optional filter.",
                                                     },
                                 {"properties", {{"status", {{"type", "string"}, {"enum", {"open", "closed"}}}}}}}}}},
                   {"required", {"id"}}}},
                 {"annotations", {{"readOnlyHint", verb == "get" || verb == "list" || verb == "search" || verb == "read"}}}};
    s.tools.push_back(std::move(tool));
  }
  return s;
}

// At least `bytes` of the six sentences, in an order that does not repeat every six.
std::string repeat_sentences(const char* const (&sentences)[6], std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 200);
  std::size_t i = 0;
  while (out.size() < bytes) out += sentences[(i++ * 7) % 6];
  return out;
}

std::string ordinary_text(std::size_t bytes) {
  static const char* const sentences[] = {
      "The quarterly report shows revenue growth of twelve percent across all regions. ",
      "Customers in the northern market responded well to the new pricing tiers, according to the survey. ",
      "Build 4521 passed all 318 tests in 42 seconds on the main branch.\n",
      "{\"id\": 1842, \"status\": \"open\", \"title\": \"Fix pagination in the list view\", \"labels\": [\"bug\", \"ui\"]}\n",
      "Meeting notes: discussed the migration timeline, the staging database and the new on-call rotation. ",
      "The function returns an array of objects sorted by creation date, newest first. ",
  };
  return repeat_sentences(sentences, bytes);
}

// Ordinary non-ASCII prose: German and French with accents, typographic quotes and dashes.
std::string accented_text(std::size_t bytes) {
  static const char* const sentences[] = {
      "Der Quartalsbericht zeigt ein Umsatzwachstum von zwölf Prozent in allen Regionen; die Kunden im Süden waren zufrieden. ",
      "Les clients du marché français ont bien réagi aux nouveaux tarifs, d’après l’enquête menée en décembre. ",
      "Die Besprechung über die Migration – Zeitplan, Datenbank und Rufbereitschaft – endete früh.\n",
      "« Le résumé est prêt », a déclaré l’équipe ; la deuxième itération commencera à l’été. ",
      "Größere Änderungen an der Straßenführung wurden für März geplant, außerdem neue Übersichten.\n",
      "La fonction renvoie un tableau d’objets triés par date de création, du plus récent au plus ancien. ",
  };
  return repeat_sentences(sentences, bytes);
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
  std::printf(
      "speed: scan_text on %zu degenerate texts (one unit repeated, 1 thread): slowest %.0f MB/s, median %.0f MB/s; "
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
  const std::string usage =
      "usage: corpus_bench [--set NAME=DIR[,DIR...]]... [--servers NAME=DIR]... [--gate NAME:PRECISION:RECALL]...\n"
      "                    [--server-gate NAME:MAX_TOOL_SHARE[:MAX_FLAGGED_SERVERS]] [--show-errors NAME] [--dump-features FILE]\n"
      "                    [--no-speed] [--only-speed] [--only-scan ascii|accented|adversarial [--threads N]] [--verbose]\n";
  auto split = [](std::string_view s, char sep) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (true) {
      auto at = s.find(sep, from);
      parts.emplace_back(s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
      if (at == std::string_view::npos) break;
      from = at + 1;
    }
    return parts;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if ((a == "--set" || a == "--servers") && has_value) {
      std::string v = argv[++i];
      auto eq = v.find('=');
      if (eq == std::string::npos) {
        std::cerr << usage;
        return 2;
      }
      opt.sets.push_back({v.substr(0, eq), split(std::string_view(v).substr(eq + 1), ','), a == "--servers"});
    } else if ((a == "--gate" || a == "--server-gate") && has_value) {
      auto parts = split(argv[++i], ':');
      if ((a == "--gate" && parts.size() != 3) || (a == "--server-gate" && parts.size() != 2 && parts.size() != 3)) {
        std::cerr << usage;
        return 2;
      }
      gate g{parts[0], 0, 0, 0};
      if (a == "--gate") {
        g.precision = std::atof(parts[1].c_str());
        g.recall = std::atof(parts[2].c_str());
      } else {
        g.recall = std::atof(parts[1].c_str());
        if (parts.size() == 3) g.max_flagged_servers = static_cast<std::size_t>(std::atol(parts[2].c_str()));
      }
      opt.gates.push_back(g);
    } else if (a == "--show-errors" && has_value) opt.show_errors.insert(argv[++i]);
    else if (a == "--dump-features" && has_value) opt.dump_features = argv[++i];
    else if (a == "--no-speed") opt.speed = false;
    else if (a == "--only-speed") opt.quality = false;
    else if (a == "--verbose") opt.verbose = true;
    else if (a == "--threads" && has_value) opt.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--only-scan" && has_value) opt.only_scan = argv[++i];
    else {
      std::cerr << usage;
      return 2;
    }
  }
  if (opt.sets.empty()) {
    const std::string corpus = std::string(WARDEN_SOURCE_DIR) + "/tests/corpus";
    opt.sets.push_back({"corpus", {corpus + "/malicious", corpus + "/benign"}, false});
  }
  if (opt.only_scan == "ascii") return scan_rate(ordinary_text(std::size_t{32} << 20), "ordinary ASCII", opt.threads) > 0 ? 0 : 1;
  if (opt.only_scan == "adversarial") return adversarial_rates();
  if (opt.only_scan == "accented") return scan_rate(accented_text(std::size_t{8} << 20), "accented (non-ASCII)", opt.threads) > 0 ? 0 : 1;
  int status = 0;
  if (opt.quality) status = run_quality(opt);
  if (opt.speed && status != 2) run_speed();
  return status;
}
