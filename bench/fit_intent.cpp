// fit_intent: fits the sentence model's weights (analysis/intent.hpp) by L2-regularised logistic
// regression on the sentences that corpus_bench --dump-features wrote, and prints
// analysis/intent_weights.inc. Deterministic: same input, same output (full-batch Adam, fixed
// order, no randomness). scripts/fit_intent.sh runs it on the dev split only.
//
//   fit_intent [--l2 X] [--iterations N] [--min-count N] [--positive-share X] [--target-fpr X] [--max-flag X]
//              [--words MIN_CASES] [--word-l2 X] [--bag-share X] [--weight SET_PREFIX=X]... [--skip-set NAME]... [--skip-group NAME]... DUMP.jsonl... > analysis/intent_weights.inc
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct options {
  double l2 = 0.02;  // per-term penalty, scaled by the total example weight
  int iterations = 3000;
  int min_count = 3;                                        // a term seen in fewer sentences gets no weight
  int word_cases = 0;                                       // a word needs this many cases to get a weight (0: no words)
  double word_l2 = -1;                                      // penalty on word weights (default: l2)
  double positive_share = 0.3;                              // share of the total example weight carried by the positives
  double target_fpr = 0.0004;                               // honest sentences at or above the flag cut-off, at most
  double max_flag = 0.97;                                   // the flag cut-off never lies above this
  double bag_share = 0;                                     // weight of the attack cases whose sentences carry no label (0: unused)
  std::vector<std::pair<std::string, double>> set_weights;  // sentences of sets named PREFIX... count X times
  std::set<std::string> skip_sets, skip_groups;
  std::vector<std::string> inputs;
};

// Features that say where a sentence sits or how it is formed, not what it asks: an honest
// sentence has them as often as an attack (real servers name their own tools, quote parameters,
// write IMPORTANT and MUST). A term made only of these may lower the probability, never raise it,
// so that the generator's habits cannot become evidence.
bool form_feature(const std::string& f) {
  static const std::set<std::string> exact{"named_identifier", "quoted_field", "first_sentence", "long_text", "names_own",
                                           "names_sibling", "doc_returns", "doc_example", "extra_step", "please",
                                           "imperative_start", "oblige", "oblige_strong", "verify_word", "requires_setup",
                                           "own_scope_words", "dest_email", "credential_param", "for_consistency",
                                           "non_english_directive", "update_notice", "detection", "refuse", "history_weak"};
  return exact.count(f) || f.rfind("role_", 0) == 0 || f.rfind("text_", 0) == 0 || f.rfind("near_", 0) == 0 ||
         f.rfind("own_", 0) == 0;
}

bool form_only(const std::string& term) {
  const auto star = term.find('*');
  if (star == std::string::npos) return form_feature(term);
  return form_feature(term.substr(0, star)) && form_feature(term.substr(star + 1));
}

struct example {
  std::vector<int> terms;
  double positives = 0, negatives = 0;
};

// An attack case written by hand: one of its sentences at least is the attack, and the fit is
// not told which. Its probability is the noisy-or of its sentences' (multiple-instance learning).
struct bag {
  std::vector<std::pair<std::size_t, double>> members;  // (example index, sentences with those terms)
};

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--l2") opt.l2 = std::stod(value());
    else if (a == "--iterations") opt.iterations = std::stoi(value());
    else if (a == "--min-count") opt.min_count = std::stoi(value());
    else if (a == "--words") opt.word_cases = std::stoi(value());
    else if (a == "--word-l2") opt.word_l2 = std::stod(value());
    else if (a == "--positive-share") opt.positive_share = std::stod(value());
    else if (a == "--target-fpr") opt.target_fpr = std::stod(value());
    else if (a == "--max-flag") opt.max_flag = std::stod(value());
    else if (a == "--bag-share") opt.bag_share = std::stod(value());
    else if (a == "--weight") {
      const std::string spec = value();
      const auto eq = spec.find('=');
      if (eq == std::string::npos) {
        std::cerr << "fit_intent: --weight takes PREFIX=X\n";
        return 2;
      }
      opt.set_weights.emplace_back(spec.substr(0, eq), std::stod(spec.substr(eq + 1)));
    } else if (a == "--skip-set") opt.skip_sets.insert(value());
    else if (a == "--skip-group") opt.skip_groups.insert(value());
    else if (!a.empty() && a[0] == '-') {
      std::cerr << "fit_intent: unknown option " << a << "\n";
      return 2;
    } else opt.inputs.push_back(a);
  }
  if (opt.inputs.empty()) {
    std::cerr << "usage: fit_intent [options] DUMP.jsonl...\n";
    return 2;
  }

  // Identical term lists are merged: the generator's sentences repeat their shapes many times.
  std::map<std::vector<std::string>, std::pair<double, double>> merged;
  std::map<std::string, std::map<std::vector<std::string>, double>> bag_lines;  // case -> term list -> count
  std::map<std::string, int> counts;
  // Words are counted by case, not by sentence: a word one case repeats is no evidence.
  std::map<std::string, std::pair<int, std::string>> word_cases;  // word -> (cases, last case)
  std::size_t lines = 0;
  for (const auto& path : opt.inputs) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "fit_intent: cannot read " << path << "\n";
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      if (opt.skip_sets.count(j.value("set", "")) || opt.skip_groups.count(j.value("group", ""))) continue;
      std::vector<std::string> terms = j.value("terms", std::vector<std::string>{});
      const std::string case_key = j.value("set", "") + "/" + j.value("case", "");
      std::erase_if(terms, [&](const std::string& t) {
        if (!t.starts_with("w:")) return false;
        if (opt.word_cases <= 0) return true;
        auto& [cases, last] = word_cases[t];
        if (last != case_key) {
          ++cases;
          last = case_key;
        }
        return false;
      });
      std::sort(terms.begin(), terms.end());
      if (j.value("y", 0) == 2) {
        if (opt.bag_share <= 0) continue;
        merged.try_emplace(terms);
        bag_lines[j.value("set", "") + "/" + j.value("case", "")][terms] += 1;
        for (const auto& t : terms) counts[t] += 1;
        ++lines;
        continue;
      }
      double count = 1;
      const std::string set = j.value("set", "");
      for (const auto& [prefix, x] : opt.set_weights)
        if (set.rfind(prefix, 0) == 0) count = x;
      auto& slot = merged[terms];
      (j.value("y", 0) == 1 ? slot.first : slot.second) += count;
      ++lines;
    }
  }
  for (const auto& [terms, ys] : merged)
    for (const auto& t : terms) counts[t] += static_cast<int>(ys.first + ys.second);
  std::vector<std::string> names;
  std::vector<bool> capped;  // form-only terms: weight kept at or below zero
  std::map<std::string, int> ids;
  for (const auto& [t, n] : counts)
    if (t.starts_with("w:") ? word_cases[t].first >= opt.word_cases
                            : n >= opt.min_count || t.find('*') == std::string::npos) {
      ids[t] = static_cast<int>(names.size());
      names.push_back(t);
      capped.push_back(form_only(t));
    }
  std::vector<example> examples;
  std::map<std::vector<std::string>, std::size_t> example_of;
  double total_pos = 0, total_neg = 0;
  for (const auto& [terms, ys] : merged) {
    example_of[terms] = examples.size();
    example e;
    for (const auto& t : terms)
      if (auto it = ids.find(t); it != ids.end()) e.terms.push_back(it->second);
    e.positives = ys.first;
    e.negatives = ys.second;
    total_pos += ys.first;
    total_neg += ys.second;
    examples.push_back(std::move(e));
  }
  if (total_pos == 0 || total_neg == 0) {
    std::cerr << "fit_intent: need both positive and negative sentences\n";
    return 2;
  }
  const double pos_weight = opt.positive_share / total_pos, neg_weight = (1 - opt.positive_share) / total_neg;
  std::vector<bag> bags;
  for (const auto& [name, members] : bag_lines) {
    bag b;
    for (const auto& [terms, count] : members) b.members.emplace_back(example_of.at(terms), count);
    bags.push_back(std::move(b));
  }
  const double bag_weight = bags.empty() ? 0 : opt.bag_share / static_cast<double>(bags.size());

  // Full-batch Adam on the weighted log-loss (weights sum to 1) plus l2 / 2 * |w|^2.
  const std::size_t n = names.size();
  std::vector<double> w(n, 0.0), m(n + 1, 0.0), v(n + 1, 0.0), grad(n + 1, 0.0);
  std::vector<bool> is_word(n);
  for (std::size_t k = 0; k < n; ++k) is_word[k] = names[k].starts_with("w:");
  const double word_l2 = opt.word_l2 >= 0 ? opt.word_l2 : opt.l2;
  double bias = 0;
  const double rate = 0.05, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  auto score = [&](const example& e) {
    double z = bias;
    for (int t : e.terms) z += w[static_cast<std::size_t>(t)];
    return z;
  };
  std::vector<double> prob(examples.size()), g(examples.size());
  for (int step = 1; step <= opt.iterations; ++step) {
    std::fill(grad.begin(), grad.end(), 0.0);
    for (std::size_t i = 0; i < examples.size(); ++i) {
      const auto& e = examples[i];
      prob[i] = 1.0 / (1.0 + std::exp(-score(e)));
      g[i] = (prob[i] - 1.0) * e.positives * pos_weight + prob[i] * e.negatives * neg_weight;
    }
    // -log(1 - prod(1 - p_i)) over a bag: each member's logit gets -p_i (1 - P) / P.
    for (const auto& b : bags) {
      double log_none = 0;
      for (const auto& [i, count] : b.members) log_none += count * std::log(std::max(1e-12, 1 - prob[i]));
      const double none = std::exp(log_none), any = std::max(1e-9, 1 - none);
      for (const auto& [i, count] : b.members) g[i] -= bag_weight * count * prob[i] * none / any;
    }
    for (std::size_t i = 0; i < examples.size(); ++i) {
      for (int t : examples[i].terms) grad[static_cast<std::size_t>(t)] += g[i];
      grad[n] += g[i];
    }
    for (std::size_t k = 0; k < n; ++k) grad[k] += (is_word[k] ? word_l2 : opt.l2) * w[k];
    for (std::size_t k = 0; k <= n; ++k) {
      m[k] = beta1 * m[k] + (1 - beta1) * grad[k];
      v[k] = beta2 * v[k] + (1 - beta2) * grad[k] * grad[k];
      const double mh = m[k] / (1 - std::pow(beta1, step)), vh = v[k] / (1 - std::pow(beta2, step));
      const double delta = rate * mh / (std::sqrt(vh) + eps);
      if (k == n) bias -= delta;
      else w[k] = capped[k] ? std::min(0.0, w[k] - delta) : w[k] - delta;
    }
  }

  // Cut-offs: "flag" is the lowest probability at which no more than target_fpr of the honest
  // sentences score; "report" and "critical" sit either side of it.
  std::vector<std::pair<double, double>> negatives;  // (p, count)
  double caught = 0;
  for (const auto& e : examples)
    if (e.negatives > 0) negatives.emplace_back(1.0 / (1.0 + std::exp(-score(e))), e.negatives);
  std::sort(negatives.begin(), negatives.end(), [](auto& a, auto& b) { return a.first > b.first; });
  double allowed = opt.target_fpr * total_neg, seen = 0, flag = 0.5;
  for (const auto& [p, c] : negatives) {
    if (seen + c > allowed) {
      flag = std::max(0.5, std::min(opt.max_flag, p + 1e-4));
      break;
    }
    seen += c;
  }
  const double report = std::max(0.3, flag * 0.75), critical = std::max(opt.max_flag, flag + (1 - flag) * 0.7);
  double fp_flag = 0;
  for (const auto& e : examples) {
    const double p = 1.0 / (1.0 + std::exp(-score(e)));
    if (p >= flag) {
      caught += e.positives;
      fp_flag += e.negatives;
    }
  }

  std::size_t bags_caught = 0;
  for (const auto& b : bags)
    for (const auto& [i, count] : b.members)
      if (1.0 / (1.0 + std::exp(-score(examples[i]))) >= flag) {
        ++bags_caught;
        break;
      }

  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
  std::printf("// Generated by scripts/fit_intent.sh (bench/fit_intent.cpp): do not edit by hand.\n");
  std::printf("// %zu sentences (weights: %.0f in attack text, %.0f honest), %zu distinct, %zu terms; l2 %g, %d iterations.\n", lines,
              total_pos, total_neg, examples.size(), n, opt.l2, opt.iterations);
  std::printf("// At the flag cut-off the training sentences give: recall %.3f, honest sentences flagged %.5f.\n", caught / total_pos,
              fp_flag / total_neg);
  if (!bags.empty())
    std::printf("// %zu hand-written attack cases fitted as bags (share %g): %zu have a sentence at the flag cut-off.\n", bags.size(),
                opt.bag_share, bags_caught);
  std::printf("constexpr double fitted_bias = %.4f;\n", bias);
  std::printf("constexpr double fitted_report = %.4f, fitted_flag = %.4f, fitted_critical = %.4f;\n", report, flag, critical);
  std::printf("constexpr weight_entry fitted_weights[] = {\n");
  std::size_t kept = 0;
  for (std::size_t k : order)
    if (std::fabs(w[k]) >= 0.02) {
      std::printf("    {\"%s\", %.4f},\n", names[k].c_str(), w[k]);
      ++kept;
    }
  if (!kept) std::printf("    {\"none\", 0.0},\n");
  std::printf("};\n");
  std::cerr << "fit_intent: " << lines << " sentences, " << total_pos << " positive; " << kept << " of " << n
            << " terms kept; flag cut-off " << flag << ": training recall " << caught / total_pos << ", honest flagged "
            << fp_flag / total_neg << "\n";
  return 0;
}
