#pragma once
// The sentence model: what one sentence of model-visible text asks of the model. Every text is
// split into sentences; each sentence gets a set of features (who it addresses, obligation,
// authority or pretext, the action it demands and the object of that action, whether the object
// lies inside the tool's own function or outside it, concealment, superiority claims, the form of
// an error), and a logistic model over the features and their pairs gives the probability that the
// sentence is an attack. The weights are fitted by scripts/fit_intent.py on the dev split only and
// committed in analysis/intent_weights.inc. Pure, thread-safe, linear in the text.
#include <bitset>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.hpp"
#include "analysis/injection.hpp"

namespace warden::analysis::intent {

// Feature ids: the injection signals first (same numbers as analysis::signal), then the lexicon
// below, then context features set by the caller.
enum class feature : std::uint16_t {
  // lexicon (matched per sentence)
  you_oblige = static_cast<std::uint16_t>(signal::count_),
  imperative_start,
  please,
  pretext_purpose,
  system_voice,
  maintenance,
  update_notice,
  act_exec,
  cmd_syntax,
  dotfile,
  export_var,
  act_call,
  call_first,
  named_identifier,
  act_send,
  url,
  email_addr,
  ip_addr,
  act_open_url,
  defaults_change,
  now_behaves,
  superiority,
  popularity,
  ai_optimised,
  suppress_other,
  retired,
  error_form,
  to_continue,
  speaks_as_user,
  ask_user,
  stop_until_user,
  doc_returns,
  doc_example,
  requires_setup,
  own_scope_words,
  instead_output,
  model_identity,
  summary_of_convo,
  user_identity,
  location_grab,
  all_data,
  hide_word,
  credential_param,
  for_consistency,
  extra_step,
  verify_word,
  sponsored,
  elevated_claim,
  non_english_conceal,
  omit_from_answer,
  non_english_directive,
  non_english_grab,
  caller_probe,
  probe_word,
  lexicon_end_,
  // context (set from field_context and the surface)
  role_param = lexicon_end_,
  role_schema,
  role_name,
  role_result,
  role_server,
  role_description,
  names_sibling,
  names_foreign,
  names_unknown_tool,
  names_own,
  own_runs_commands,
  own_sends_data,
  own_fetches_urls,
  text_conceal,
  text_tag,
  text_authority,
  text_oblige_strong,
  text_address_model,
  text_obfuscated,
  text_error_form,
  first_sentence,
  long_text,
  // what the neighbouring sentences (one before, one after) hold
  near_conceal,
  near_authority,
  near_action,
  near_oblige,
  near_secret,
  near_other_tool,
  count_
};
inline constexpr std::size_t feature_count = static_cast<std::size_t>(feature::count_);
using feature_set = std::bitset<feature_count>;
inline constexpr std::size_t index(feature f) { return static_cast<std::size_t>(f); }
inline constexpr std::size_t index(signal s) { return static_cast<std::size_t>(s); }

std::string_view feature_name(std::size_t id);

struct sentence {
  std::size_t begin = 0, end = 0;  // byte range in the normalised view
  feature_set on;
};

// Sentences of a normalised view: split at newlines, at . ! ? ; followed by white space, and at
// the edges of pseudo-tags. Empty and whitespace-only pieces are dropped.
std::vector<sentence> split_sentences(std::string_view view);

// Sets the lexicon features of each sentence (one set pass over the view, then positions).
void add_lexicon_features(std::string_view view, std::vector<sentence>& sentences);

// The sentence whose range holds byte `at` of the view (sentences ascending), or npos.
std::size_t sentence_at(const std::vector<sentence>& sentences, std::size_t at);

// The model: terms are single features, unordered pairs of features ("a", "a*b") and the
// sentence's words ("w:word").
struct term_contribution {
  std::string name;
  double weight;
};
double probability(const feature_set& on, std::string_view sentence);
// The terms that raised the probability most, strongest first.
std::vector<term_contribution> top_terms(const feature_set& on, std::string_view sentence, std::size_t n);
// Every active term's name (for the fitter's feature dump).
std::vector<std::string> active_terms(const feature_set& on, std::string_view sentence);

// Whether a text claims to be better than the alternatives (superiority, popularity, an official
// or enhanced version, AI-optimised): the mark of a tool that competes for the model's choice.
bool claims_superiority(std::string_view raw);

// Every link in the (normalised) sentence points the reader at documentation: "see the guide at
// https://...", "[Account](https://vendor.example/docs/account)". Such a link is a reference, not a
// destination; a link that carries data or placeholders never is.
bool only_reference_links(std::string_view sentence);

// Which rule a judged sentence belongs to, from what it demands, and that rule's one-line reading.
std::string_view rule_for(const feature_set& on);
std::string_view describe_rule(std::string_view rule);

// Probability cut-offs (fitted with the weights): at `flag` a sentence is a high finding, at
// `critical` a critical one, at `report` a medium one.
struct thresholds {
  double report, flag, critical;
};
const thresholds& cutoffs();
// Terms of intent_weights.inc that name no current feature (empty when the weights match the code),
// and whether every lexicon pattern compiled.
std::vector<std::string> stale_terms();
bool lexicon_ok();

// Observer for the fitter and the benchmark: called for each sentence judged, with the text's
// location as the caller names it. Thread-local; empty by default.
using observer = std::function<void(std::string_view location, std::string_view sentence_text, const feature_set& on, double p)>;
void set_observer(observer fn);
const observer& current_observer();
// The manifest location of the text being judged, for the observer (set by the engine only while
// an observer is installed).
void set_observed_location(std::string_view location);
std::string_view observed_location();

}  // namespace warden::analysis::intent
