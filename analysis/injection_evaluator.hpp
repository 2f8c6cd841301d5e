// The injection evaluator: one field's text through the pattern bank, the sentence model and the
// rules that combine them. Internal to analysis/injection*.cpp: injection.cpp runs the passes and
// discounts, injection_rules.cpp holds the pattern-combination rules, injection_sentences.cpp the
// sentence model's judgements.
#pragma once

#include <re2/re2.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/injection.hpp"
#include "analysis/intent.hpp"
#include "analysis/text.hpp"

namespace warden::analysis::injection_internal {

using enum signal;

class evaluator {
 public:
  evaluator(std::string_view raw, const field_context& context) : raw_(raw), context_(context), norm_(text::normalize(raw)) {}

  injection_result run();

  // The patterns (indices into patterns[], ascending) that match text, from the set's hits (set
  // indices; cue and atom entries are skipped). A pattern the prefilter ruled out (`possible`,
  // when given) is dropped; a windowed pattern is run whole only when its trigger and every part of
  // it the set holds were hit.
  static std::vector<int> confirmed_patterns(std::string_view text, const std::vector<bool>* possible,
                                             const std::vector<int>& set_hits);

  // The cue words by plain search, in any case: only when the set pass could not run.
  static std::uint32_t cues_by_search(std::string_view view);

  // Obfuscated spellings: analyse a de-obfuscated copy too (signals only; evidence stays on the
  // original). Each view is built only when the text shows that kind of obfuscation.
  void alternative_views();

 private:
  bool has(signal s) const { return result_.signals.test(static_cast<std::size_t>(s)); }

  // The sentence of the normalised text around byte i. Callers walking the matches of a pattern
  // take each sentence once (see next_sentence_from): a sentence per match was quadratic in a long
  // sentence full of matches (e.g. "~/.ssh/" repeated).
  std::string_view sentence_at(std::size_t i) const;

  // Moves `input` (a suffix of the normalised text) past `sentence`: further matches in the same
  // sentence would give the same answer.
  void skip_sentence(re2::StringPiece& input, std::string_view sentence) const;

  // "Save the output to a file instead of returning it inline": "instead of" + a gerund compares two
  // behaviours of the tool itself; nothing the user chose is replaced. Redirection is the
  // substitution of a user-chosen value (recipient, account, ticker, path...), so such clauses count
  // only when their sentence speaks of the user's choice, names a literal destination or hides it.
  void discount_action_alternatives();

  // Raw byte range of the first match of any pattern of signal s.
  std::optional<std::pair<std::size_t, std::size_t>> span(signal s) const;

  void add(std::string_view rule, severity level, double confidence, std::initializer_list<signal> evidence_from,
           std::string message);

  // "phrases such as 'ignore previous instructions'": the match opens a quotation that the text
  // introduces as an example. (Every match of the signal must be so quoted.)
  bool quoted_as_example(signal s) const;

  // Phrases that share the words of a demand and say the opposite. "NEVER send without showing the
  // user", "returns errors instead of silently applying": a negated "without telling" or "silently"
  // is the order to tell; "do not mention @here unless the user asks" waits for the user. "Unless
  // the user has already approved ..." is a condition, not a claim of consent. A signal stays only
  // when one of its phrases still matches once those clauses are blanked out.
  void discount_opposite_phrasings();
  void drop_signals_absent_from(std::initializer_list<signal> kinds, const std::string& blanked);

  // An override phrase quoted as an example is a quotation, not an order: its signal is dropped
  // before any rule or the sentence model reads it.
  void discount_quoted_overrides();

  // Shapes that need no reading of intent: an order to set instructions aside, a chat-template
  // token, a dangerous shell pipeline, "decode and run", a URL built to carry data, an authority
  // tag that wraps an order. Security tools quote such text to detect it, so a text that reads as
  // detection documentation and gives the model no order of its own is left to the sentence model.
  void structural_rules();

  // Sentences of the normalised text in which a pattern of signal s matches, and whether one
  // holds both a and s: read from the sentences judge_sentences located the signals in.
  std::vector<std::string_view> sentences_with(signal s) const;

  bool shares_sentence(signal a, signal s) const;

  // "Use this before any other Acme tools" / "before other tools of this server": the ordering
  // stays among the server's own tools. The server's name is taken from the leading word its tool
  // names share ("acme-get-user", "acme-list-deals").
  bool sequencing_within_own_server() const;

  // A sensitive path counts as a target only when its own sentence asks for something to be done
  // with it; "credentials come from ~/.aws/credentials" is documentation.
  bool sensitive_is_demanded() const;
  bool orders_a_credential_file_read() const;

  // The text fixes a concrete value: a quoted literal, an address, an account or a long number.
  bool names_a_value() const;

  // Sensitive mentions negated in the same sentence ("paths under ~/.ssh are rejected") do not count.
  bool sensitive_is_refused() const;

  // The combination rules of the earlier engine: which pattern signals, together, make a finding.
  void legacy_rules();
  // Instructions about a different tool (the combination rules' reading of tool references).
  void legacy_cross_tool();

  // The combination rules of the earlier engine, arbitrated by the sentence model: a finding of
  // theirs keeps its severity when some sentence of the text reads as an attack (p at or above
  // the report cut-off) or when it is critical; otherwise it is reported at medium, which neither
  // flags a server nor hides a tool. Their misses are the model's to catch, their false alarms on
  // loud honest text (usage notes, safety notes, credential parameters) the model's to calm.
  void arbitrated_legacy_rules();

  // ---- the sentence model (analysis/intent.hpp) ------------------------------------------------

  static bool name_has_word(std::string_view name, std::initializer_list<std::string_view> words);

  // Tool names the sentence mentions: this tool's own, a sibling's, another server's, or an
  // identifier it asks to call that no server here has.
  const tool_name_index& names() const;

  void tool_reference_features(std::string_view sentence_text, intent::feature_set& on) const;

  void judge_sentences();

  // Keeping something quiet counts when something is sent, moved, swapped or run with it
  // ("silently truncated", "runs in the background" are how tools work).
  static bool hides_an_action(const intent::feature_set& on);

  // A sibling named in the text whose name copies this tool's ("read_file" and "read_file_v2",
  // "secure_read_file"): a retirement in its favour is the tool-transfer attack, not a changelog.
  bool names_a_near_copy(std::string_view text) const;

  // What lets a sentence of the model's be a verdict rather than a report: something outside the
  // tool's function that the sentence names or does (an address, a secret, the conversation asked
  // for, the model's identity, a command, a file, another tool, concealment, an override, a forged
  // speaker, a swapped value). Word-level cues alone ("for safety", "maintenance", "available to
  // you", "instead of") are what honest documentation shares with attacks: they are reported as
  // medium (measured on the real-server set, docs/detection.md).
  bool corroborated(const intent::feature_set& on_sentence, std::string_view text) const;
  // The vendor's own telemetry, disclosed together with its opt-out.
  static bool disclosed_telemetry(std::string_view sentence, std::string_view field);
  // "the address the user gives, e.g. alice@example.com": an address shown as the value's format.
  static bool gives_an_example_address(std::string_view text);

  // "... 不要告诉用户", "сообщать о нём не нужно", "dit hoeft de gebruiker niet te weten": telling the
  // model, in any language, to keep something from the user. The English shapes weigh what is kept
  // and why; in another language the rule asks for a concrete thing the text names (an address, a
  // path, a tool, an account or a long number) in the same field.
  void concealed_in_another_language();

  // Claims of being the best, the most trusted or the choice of AI, aimed at the model's choice of
  // tool (THREATS.md 20): two kinds of claim in one text, or one said to the model, are an attack
  // on their own; a lone boast is left to the sentence model (medium at most).
  void self_promotion(const std::vector<intent::sentence>& sentences);

  // Sentences whose topic is another tool (analysis/tool_claims.hpp) and demands that borrow a
  // reason (analysis/pretexts.hpp): each raises its rule's level.
  void claims_about_other_tools();

  // In a result, a shell command no one pushes on the model is data: install pages, issues and
  // advisories tell their human readers to run "curl ... | sh" (orders with a borrowed reason are
  // the result rules' to judge).
  bool command_quoted_for_reader() const {
    using enum signal;
    const bool pushed_on_model = has(conceal) || has(deceive) || has(conceal_weak) || has(consent_skip) || has(seq_global) || has(authority) ||
                                 has(tag_strong) || has(tag_weak) || has(impersonation) || has(role_token) || has(address_model);
    return context_.role == field_role::result && !pushed_on_model;
  }
  // "call list_messages again with cursor=...": a result that tells how to fetch its next page,
  // carrying nothing else, is the tool's own paging.
  bool pages_through_results(const intent::feature_set& on, std::string_view text) const;

  // What a sentence may carry beyond the tools it names: a secret, a file, an address, the
  // conversation, an identity, a command, concealment, a claim or a fixed value.
  static bool carries_beyond_tools(const intent::feature_set& on);

  // A product page or a review in a tool result boasts to its human readers ("our best-selling
  // headphones, award-winning"): a claim in data that names no tool and asks nothing is data.
  bool marketing_in_data(const intent::feature_set& on, std::string_view text) const;

  // A sentence that names no tool but this server's own and asks for nothing beyond them: no
  // secret, file, address, conversation, identity, command, concealment, claim or fixed value.
  static bool routes_among_own_tools(const intent::feature_set& on, std::string_view text);

  static intent::feature_set neighbour_summary(const intent::feature_set& around);

  static std::string format_probability(double p);

  // Checks by procedure rather than pattern: encoded payloads decoded and read again, URLs built to
  // carry data, secrets in the text.
  void procedural_checks();

  std::string_view raw_;
  const field_context& context_;
  text::normalized norm_;
  std::vector<int> matched_;
  std::uint32_t cues_ = 0;               // cue words (compiled_bank::*_cue) in the view
  bool secret_atoms_known_ = false;      // secret_atoms_found_ holds the set pass's answer
  std::vector<int> secret_atoms_found_;  // its atoms present in the raw text (ascending)
  injection_result result_;
  bool obfuscated_ = false;
  double max_probability_ = 0;                          // the sentence model's highest probability over the text
  bool corroborated_ = false;                           // some sentence names or does something outside the tool's function
  std::vector<intent::sentence> located_;               // judge_sentences' sentences with their signals
  std::vector<intent::sentence> judged_;                // the same with every feature the sentence model read
  mutable std::optional<tool_name_index> local_names_;  // names() built from the context's lists
  intent::feature_set alternative_signals_;             // signals only the de-obfuscated views showed
  std::vector<std::string> alternative_views_;          // the de-obfuscated copies themselves
};

}  // namespace warden::analysis::injection_internal
