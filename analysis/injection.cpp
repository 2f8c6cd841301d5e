#include "analysis/injection_evaluator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "analysis/injection_bank.hpp"
#include "analysis/literals.hpp"
#include "analysis/pretexts.hpp"
#include "analysis/secrets.hpp"
#include "analysis/text_scans.hpp"
#include "analysis/tool_claims.hpp"

namespace warden::analysis {

using text::lower_ascii;

std::string squashed_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name)
    if (c != '_' && c != '-' && c != '.') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

tool_name_index::tool_name_index(const std::vector<std::string>* sibling_tools, const std::vector<std::string>* foreign_tools) {
  if (sibling_tools)
    for (const auto& raw : *sibling_tools) {
      std::string name = lower_ascii(raw);
      for (std::size_t at = name.find_first_of("-_."); at != std::string::npos; at = name.find_first_of("-_.", at + 1)) {
        if (at == name.find_first_of("-_.")) sibling_families.insert(name.substr(0, at + 1));
        if (at + 1 < name.size()) sibling_tails.insert(name.substr(at + 1));
      }
      squashed_siblings.push_back(squashed_name(name));
      siblings.insert(std::move(name));
    }
  if (foreign_tools)
    for (const auto& raw : *foreign_tools) foreign.insert(lower_ascii(raw));
}

bool tool_name_index::is_sibling(const std::string& lowered) const {
  if (siblings.count(lowered) || sibling_tails.count(lowered)) return true;
  const std::string squashed = squashed_name(lowered);
  if (squashed.size() < 12) return false;
  return std::any_of(squashed_siblings.begin(), squashed_siblings.end(), [&](const std::string& sibling) {
    if (sibling.size() < squashed.size() || sibling.size() > 2 * squashed.size()) return false;
    std::size_t k = 0;
    for (char c : sibling)
      if (k < squashed.size() && c == squashed[k]) ++k;
    return k == squashed.size();
  });
}

namespace injection_internal {

using detail::count_leet_words, detail::count_spaced_letters;

injection_result evaluator::run() {
  const auto& b = bank();
  std::string_view view = norm_.view();
  if (view.size() >= 6 && b.set) {
    // One pass: signal patterns, cue words and secret atoms.
    re2::RE2::Set::ErrorInfo info{};
    std::vector<int> hits;
    const bool any = b.set->Match(view, &hits, &info);
    if (!any && info.kind != re2::RE2::Set::kNoError) {
      // The DFA ran out of memory: fall back to the single patterns, slower but complete.
      for (std::size_t i = 0; i < b.singles.size(); ++i)
        if (re2::RE2::PartialMatch(view, *b.singles[i])) matched_.push_back(static_cast<int>(i));
      cues_ = cues_by_search(view);
    } else {
      cues_ = 0;
      for (int hit : hits) {
        const auto& entry = b.entries[static_cast<std::size_t>(hit)];
        if (entry.pattern == compiled_bank::cue_entry) cues_ |= 1u << entry.part;
        else if (entry.pattern == compiled_bank::secret_atom_entry) secret_atoms_found_.push_back(entry.part);
      }
      secret_atoms_known_ = b.secret_atoms_in_set;
      std::sort(secret_atoms_found_.begin(), secret_atoms_found_.end());
      matched_ = confirmed_patterns(view, nullptr, hits);
    }
    for (int index : matched_) result_.signals.set(static_cast<std::size_t>(pattern_signal(index)));
  }
  alternative_views();
  discount_action_alternatives();
  discount_quoted_overrides();
  discount_opposite_phrasings();
  structural_rules();
  judge_sentences();
  concealed_in_another_language();
  claims_about_other_tools();
  arbitrated_legacy_rules();
  procedural_checks();
  return std::move(result_);
}

// The patterns (indices into patterns[], ascending) that match text, from the set's hits (set
// indices; cue and atom entries are skipped). A pattern the prefilter ruled out (`possible`,
// when given) is dropped; a windowed pattern is run whole only when its trigger and every part of
// it the set holds were hit.
std::vector<int> evaluator::confirmed_patterns(std::string_view text, const std::vector<bool>* possible,
                                               const std::vector<int>& set_hits) {
  const auto& b = bank();
  // Hits as (pattern, part), grouped by pattern: the work follows the hits, not the bank's size.
  std::vector<std::pair<int, int>> hits;
  hits.reserve(set_hits.size());
  for (int hit : set_hits) {
    const auto& entry = b.entries[static_cast<std::size_t>(hit)];
    if (entry.pattern >= 0) hits.emplace_back(entry.pattern, entry.part);
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  std::vector<int> out;
  re2::StringPiece piece(text.data(), text.size());
  for (std::size_t k = 0; k < hits.size();) {
    const int pattern = hits[k].first;
    const bool trigger = hits[k].second == 0;
    std::size_t parts = 0;
    for (; k < hits.size() && hits[k].first == pattern; ++k) ++parts;
    const auto i = static_cast<std::size_t>(pattern);
    if (!trigger || (possible && !(*possible)[i])) continue;
    if (b.confirm[i] && (static_cast<int>(parts) < b.parts_in_set[i] || !re2::RE2::PartialMatch(piece, *b.singles[i]))) continue;
    out.push_back(pattern);
  }
  return out;
}

// The cue words by plain search, in any case: only when the set pass could not run.
std::uint32_t evaluator::cues_by_search(std::string_view view) {
  const auto& b = bank();
  const std::string lowered = lower_ascii(view);
  std::uint32_t cues = 0;
  for (auto [word, bit] : {std::pair{"rot13", b.rot13_cue}, {"rot-13", b.rot_13_cue}, {"caesar", b.caesar_cue}, {"revers", b.revers_cue}})
    if (lowered.find(word) != std::string::npos) cues |= bit;
  return cues;
}

// Obfuscated spellings: analyse a de-obfuscated copy too (signals only; evidence stays on the
// original). Each view is built only when the text shows that kind of obfuscation.
void evaluator::alternative_views() {
  const auto& b = bank();
  std::string_view view = norm_.view();
  if (view.size() < 12 || view.size() > 65536 || !b.set) return;
  std::vector<std::string> views;
  // Letters separated by single spaces, dots or dashes: "s e n d", "p.a.s.s".
  {
    const std::size_t singles = count_spaced_letters(view);
    if (singles >= 6) {
      std::string joined;
      for (std::size_t i = 0; i < view.size(); ++i) {
        char c = view[i];
        bool sep = c == ' ' || c == '.' || c == '-';
        bool between_singles = sep && i > 0 && i + 1 < view.size() && ascii_alnum(view[i - 1]) &&
                               ascii_alnum(view[i + 1]) &&
                               (i < 2 || !ascii_alnum(view[i - 2])) &&
                               (i + 2 >= view.size() || !ascii_alnum(view[i + 2]));
        if (between_singles) continue;
        if (c == ' ' && !joined.empty() && joined.back() == ' ') continue;
        joined.push_back(c);
      }
      views.push_back(std::move(joined));
    }
  }
  // Leetspeak: words mixing letters with 0 1 3 4 5 7.
  {
    const std::size_t leet_words = count_leet_words(view);
    std::string mapped;
    for (int pass = 1; pass < 2; ++pass) {
      if (pass == 1) {
        if (leet_words < 3) break;
        mapped.assign(view);
      }
      std::string_view scan = pass == 0 ? view : std::string_view(mapped);
      std::size_t i = 0;
      while (i < scan.size()) {
        if (!ascii_alnum(scan[i])) {
          ++i;
          continue;
        }
        std::size_t j = i;
        bool letter = false, leet = false, other_digit = false;
        while (j < scan.size() && (ascii_alnum(scan[j]) || scan[j] == '_')) {
          char c = scan[j];
          if (ascii_alpha(c)) letter = true;
          else if (c == '0' || c == '1' || c == '3' || c == '4' || c == '5' || c == '7') leet = true;
          else if (ascii_digit(c)) other_digit = true;
          ++j;
        }
        if (letter && leet && !other_digit && j - i >= 3 && pass == 1) {
          for (std::size_t k = i; k < j; ++k) {
            switch (mapped[k]) {
              case '0': mapped[k] = 'o'; break;
              case '1': mapped[k] = 'i'; break;
              case '3': mapped[k] = 'e'; break;
              case '4': mapped[k] = 'a'; break;
              case '5': mapped[k] = 's'; break;
              case '7': mapped[k] = 't'; break;
              default: break;
            }
          }
        }
        i = j;
      }
    }
    if (leet_words >= 3) views.push_back(std::move(mapped));
  }
  // Texts that announce their own encoding: ROT13 and reversed text (the cue words in any case:
  // "Caesar", "ROT13", "Reversed").
  if (cues_ & (b.rot13_cue | b.rot_13_cue | b.caesar_cue)) {
    std::string rotated(view);
    // Both cases: the view of ASCII text is the raw text, not lower-cased.
    for (auto& c : rotated) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>('a' + (c - 'a' + 13) % 26);
      else if (c >= 'A' && c <= 'Z') c = static_cast<char>('A' + (c - 'A' + 13) % 26);
    }
    views.push_back(std::move(rotated));
  }
  if (cues_ & b.revers_cue) views.emplace_back(view.rbegin(), view.rend());
  for (const auto& alt : views) {
    std::vector<int> hits;
    re2::RE2::Set::ErrorInfo info{};
    auto possible = b.filter.possible(alt);
    if (!any_of(possible) || !b.set->Match(alt, &hits, &info)) continue;
    for (int index : confirmed_patterns(alt, &possible, hits)) {
      result_.signals.set(static_cast<std::size_t>(pattern_signal(index)));
      alternative_signals_.set(static_cast<std::size_t>(pattern_signal(index)));
      obfuscated_ = true;
    }
  }
  alternative_views_ = std::move(views);
}

// The sentence (of the normalised text) around byte i of the view.
// The sentence of the normalised text around byte i. Callers walking the matches of a pattern
// take each sentence once (see next_sentence_from): a sentence per match was quadratic in a long
// sentence full of matches (e.g. "~/.ssh/" repeated).
std::string_view evaluator::sentence_at(std::size_t i) const {
  std::string_view v = norm_.view();
  std::size_t start = std::min(i, v.size()), stop = std::min(i, v.size());
  auto boundary = [&](std::size_t k) {
    char c = v[k];
    return c == '\n' || ((c == '.' || c == '!' || c == '?' || c == ';') && (k + 1 == v.size() || v[k + 1] == ' ' || v[k + 1] == '\n'));
  };
  while (start > 0 && !boundary(start - 1)) --start;
  while (stop < v.size() && !boundary(stop)) ++stop;
  return v.substr(start, stop - start);
}

// Moves `input` (a suffix of the normalised text) past `sentence`: further matches in the same
// sentence would give the same answer.
void evaluator::skip_sentence(re2::StringPiece& input, std::string_view sentence) const {
  const char* end = sentence.data() + sentence.size();
  if (end > input.data()) input = re2::StringPiece(end, static_cast<std::size_t>(input.data() + input.size() - end));
}

// "Save the output to a file instead of returning it inline": "instead of" + a gerund compares two
// behaviours of the tool itself; nothing the user chose is replaced. Redirection is the
// substitution of a user-chosen value (recipient, account, ticker, path...), so such clauses count
// only when their sentence speaks of the user's choice, names a literal destination or hides it.
void evaluator::discount_action_alternatives() {
  if (!has(signal::redirect) && !has(signal::redirect_weak)) return;
  static const re2::RE2 alternative(R"(\b(?:instead of|rather than)\s+(?:\w+ly\s+)?[a-z]{3,}ing\b)", bank_options());
  static const re2::RE2 user_choice(
      R"(\b(?:user|users|user's|customer|customers|client|requester|caller|payee|beneficiary)\b|\b(?:requested|specified|provided|given|intended|chosen|supplied|entered|typed|picked|named)\b|\bthey\s+(?:asked|chose|gave|picked|requested|specified|typed|entered|wanted|named)\b|@|\d{3,}|://|\b(?:silent|quiet|secret|covert|hidden|mention|tell|disclos|reveal|notif)\w*)",
      bank_options());
  std::string scrubbed(norm_.view());
  bool changed = false;
  re2::StringPiece whole(norm_.view().data(), norm_.view().size()), input = whole, capture;
  static const re2::RE2 captured(std::string("(") + alternative.pattern() + ")", bank_options());
  std::size_t sentence_end = 0;  // the last sentence judged, and whether it speaks of a choice
  bool sentence_has_choice = false;
  while (re2::RE2::FindAndConsume(&input, captured, &capture)) {
    auto at = static_cast<std::size_t>(capture.data() - whole.data());
    if (at >= sentence_end || sentence_end == 0) {
      std::string_view sentence = sentence_at(at);
      sentence_end = static_cast<std::size_t>(sentence.data() + sentence.size() - whole.data());
      sentence_has_choice = re2::RE2::PartialMatch(re2::StringPiece(sentence.data(), sentence.size()), user_choice);
    }
    if (sentence_has_choice) {
      if (capture.empty()) break;
      continue;
    }
    for (std::size_t k = at; k < at + capture.size() && k < scrubbed.size(); ++k) scrubbed[k] = ' ';
    changed = true;
    if (capture.empty()) break;
  }
  if (!changed) return;
  const auto& b = bank();
  result_.signals.reset(static_cast<std::size_t>(signal::redirect));
  result_.signals.reset(static_cast<std::size_t>(signal::redirect_weak));
  std::vector<int> kept;
  for (int index : matched_) {
    const auto sig = pattern_signal(index);
    if (sig == signal::redirect || sig == signal::redirect_weak) {
      if (!re2::RE2::PartialMatch(scrubbed, *b.singles[static_cast<std::size_t>(index)])) continue;
      result_.signals.set(static_cast<std::size_t>(sig));
    }
    kept.push_back(index);
  }
  matched_ = std::move(kept);
}

// Raw byte range of the first match of any pattern of signal s.
std::optional<std::pair<std::size_t, std::size_t>> evaluator::span(signal s) const {
  const auto& b = bank();
  std::optional<std::pair<std::size_t, std::size_t>> best;
  for (int index : matched_) {
    if (pattern_signal(index) != s) continue;
    re2::StringPiece whole(norm_.view().data(), norm_.view().size()), capture;
    if (re2::RE2::PartialMatch(whole, *b.singles[static_cast<std::size_t>(index)], &capture)) {
      auto nb = static_cast<std::size_t>(capture.data() - whole.data());
      std::pair<std::size_t, std::size_t> r{norm_.original_offset(nb), norm_.original_offset(nb + capture.size())};
      if (!best || r.first < best->first) best = r;
    }
  }
  return best;
}

void evaluator::add(std::string_view rule, severity level, double confidence, std::initializer_list<signal> evidence_from,
                    std::string message) {
  std::pair<std::size_t, std::size_t> where{0, std::min<std::size_t>(raw_.size(), 80)};
  for (signal s : evidence_from)
    if (has(s))
      if (auto r = span(s)) {
        where = *r;
        break;
      }
  for (auto& existing : result_.hits)
    if (existing.rule_id == rule) {
      if (level > existing.level) {
        existing.level = level;
        existing.confidence = confidence;
        existing.message = message;
      }
      return;
    }
  result_.hits.push_back({rule, level, confidence, where.first, where.second, {}, std::move(message)});
}

// "phrases such as 'ignore previous instructions'": the match opens a quotation that the text
// introduces as an example. (Every match of the signal must be so quoted.)
bool evaluator::quoted_as_example(signal s) const {
  static const re2::RE2 introduced(
      R"((?:such as|like|e\.g\.|for example|for instance|phrases?|text|strings?|patterns?|attempts?|quotes?|sentences?|lines?)\W{0,12}[\"'`\x{201C}\x{2018}\x{00AB}]\s*$)",
      bank_options());
  const auto& b = bank();
  bool any = false;
  for (int index : matched_) {
    if (pattern_signal(index) != s) continue;
    re2::StringPiece whole(norm_.view().data(), norm_.view().size()), input = whole, capture;
    while (re2::RE2::FindAndConsume(&input, *b.singles[static_cast<std::size_t>(index)], &capture)) {
      any = true;
      const auto at = static_cast<std::size_t>(capture.data() - whole.data());
      const std::size_t from = at > 80 ? at - 80 : 0;
      if (!re2::RE2::PartialMatch(re2::StringPiece(whole.data() + from, at - from), introduced)) return false;
      if (capture.empty()) break;
    }
  }
  return any;
}

// An override phrase quoted as an example is a quotation, not an order: its signal is dropped
// before any rule or the sentence model reads it.
// Phrases that share the words of a demand and say the opposite. "NEVER send without showing the
// user", "returns errors instead of silently applying": a negated "without telling" or "silently"
// is the order to tell; "do not mention @here unless the user asks" waits for the user. "Unless
// the user has already approved ..." is a condition, not a claim of consent ("unless the user has
// told you to" reaches for no conversation either). A signal stays only
// when one of its phrases still matches once those clauses are blanked out.
void evaluator::discount_opposite_phrasings() {
  struct reading {
    std::initializer_list<signal> kinds;
    const re2::RE2& clause;
  };
  static const re2::RE2 negated_silence(
      R"(\b(?:never|not|n't|no|nothing|nobody)\s+(?:[\w'’-]+\s+){0,12}?without\s+(?:first\s+|explicitly\s+|clearly\s+)?(?:showing|asking|telling|informing|notifying|confirming|checking|consulting|alerting|displaying|listing|mentioning|getting)\b(?:\s+(?:[\w'-]+\s+){0,3}?(?:user|users|human|customer|owner|operator|them)\b)?)"
      R"(|\b(?:instead of|rather than|never|not|nothing is|no longer)\s+(?:[a-z]+ing\s+)?(?:an?\s+|the\s+)?(?:being\s+)?(?:silently|quietly|secretly|covertly)\b)"
      R"(|\b(?:do not|don't|never|not)\s+(?:[\w@`'-]+\s+){0,10}?unless\s+(?:the\s+|a\s+)?(?:user|human|customer|owner|they)\s+(?:explicitly\s+|specifically\s+|directly\s+)?(?:asks?|requests?|wants?|says?|tells?|approves?|confirms?|names?)\b)"
      // Keeping a credential out of logs and output is hygiene; a failure that happens silently is
      // how a tool behaves, not something the model is told to hide.
      R"(|\b(?:secret|credential|token|key|password|passphrase)s?\b[^.\n]{0,80}\b(?:should|must|do|does|will)\s*(?:not|never|n't)\s+(?:be\s+)?(?:displayed|shown|logged|printed|echoed|exposed|display|show|log|print|echo)\b[^.\n]*)"
      R"(|\b(?:will|would|may|can|might)\s+silently\s+(?:fail|be (?:ignored|dropped|skipped|truncated|discarded))\b)"
      // "Don't bother telling the user the IDs or creation dates": how much of the output to show.
      R"(|\b(?:do not|don't|never|no need to)\s+(?:bother\s+)?(?:tell|show|list|mention|print|display|include|read out)(?:ing)?\s+(?:the user\s+|them\s+|users\s+)?(?:the\s+)?(?:raw\s+|internal\s+|numeric\s+)?(?:ids?|uuids?|identifiers?|statuses|timestamps|creation dates|dates|columns|metadata|raw json|json)\b[^.\n]*)"
      // "Never repeat it back in chat": a secret the user typed is not echoed.
      R"(|\b(?:never|do not|don't)\s+(?:repeat|echo|print|log)\s+(?:it|them|the (?:new |old )?(?:password|passphrase|secret|token|key|value|code|pin)s?)\b[^.\n]*)",
      bank_options());
  // "Do not invoke other tools until the user has said what to do next": a hold until the user
  // speaks is a safety stop, not a ban on other tools.
  static const re2::RE2 hold_for_user(
      R"(\b(?:do not|don't|must not|should not|never)\s+(?:[\w-]+\s+){0,9}?until\s+(?:you\s+)?(?:have\s+)?(?:receiving|received|receive|getting|get|got|the user|a clear|clear|explicit|hearing)\b[^.\n]{0,60}\b(?:user|human)\b[^.\n]*)",
      bank_options());
  // "If not set, a TCP check is used instead": a default for a value nobody chose swaps nothing.
  static const re2::RE2 default_when_unset(
      R"((?:^|[.\n]\s*)\W*(?:if|when)\s+(?:this\s+|it\s+|the\s+(?:\w+\s+){0,2})?(?:is\s+|are\s+)?(?:not set|not provided|not specified|not given|not supplied|omitted|unset|absent|left (?:empty|blank|out))\b[^.\n]*)",
      bank_options());
  static const re2::RE2 conditional_consent(
      R"(\b(?:unless|if|until|once|when|whether|only after|only if|after)\s+the\s+user\s+(?:has\s+|had\s+)?(?:now\s+|already\s+|also\s+|explicitly\s+|previously\s+)?(?:approved|authori[sz]ed|consented|agreed|allowed|permitted|pre-?approved|confirmed|asked|requested|instructed|told|said|specified|opted in)\b)",
      bank_options());
  // "A table you have not inspected in this conversation": the conversation as a span of time,
  // not as cargo.
  static const re2::RE2 within_this_conversation(
      R"(\b(?:not|never|already|yet|previously|earlier)\s+(?:already\s+|yet\s+|been\s+)*(?:inspected|called|listed|described|fetched|run|executed|loaded|queried|checked|used|invoked)\b[^.\n]{0,80}\bin (?:this|the current|the same) (?:conversation|session|chat|thread)\b)",
      bank_options());
  // "If describe_table does not list a column, tell the user it does not exist instead of
  // inventing one": telling the user the truth when a lookup comes back empty.
  static const re2::RE2 truthful_report(
      R"(\b(?:if|when)\b[^.\n]{0,80}\b(?:does not|doesn't|do not|don't|is not|isn't|cannot|can't|fails?|returns? nothing|finds? nothing|returns? an? (?:\w+ )?error)\b[^.\n]{0,40}\b(?:tell|inform|report to)\s+(?:the\s+)?user\b[^.\n]*|\binstead of (?:inventing|guessing|making (?:one|it|something) up|fabricating)\b)",
      bank_options());
  // "Pass values through params instead of concatenating them": another way of doing the same
  // job, no value swapped.
  // (Only ways of working: "instead of sending it to the recipient the user typed" swaps one.)
  static const re2::RE2 another_way_of_doing_it(
      R"(\binstead of (?:manually\s+)?(?:concatenat|interpolat|inlin|hard-?cod|embedd|poll|loop|pag|splitt|escap|rebuild|recreat|comput|calculat|guess|invent|fabricat|pars|scann|iterat|chain|nest|repeat|retry|retri)\w*ing\b)",
      bank_options());
  // "Show the user the amount they entered and ask before paying": echoing the user's own value
  // so that they can stop the action is the stop-and-ask note, not a cover story.
  static const re2::RE2 asks_before_acting(
      R"(\b(?:ask|asks|asking)\s+(?:the user\s+|them\s+)?(?:before|for (?:confirmation|approval)|to confirm)\b[^.\n]*|\bask (?:the user|them) to (?:open|enter|visit|sign in|log in|approve|complete|paste)\b[^.\n]*|\bconfirm with the user\b[^.\n]*|\bwait for (?:the user'?s?\s+)?(?:approval|confirmation|go-ahead)\b[^.\n]*)",
      bank_options());
  static const reading readings[] = {{{conceal, conceal_weak}, negated_silence},
                                     {{deceive}, asks_before_acting},
                                     {{impersonation, claimed_consent, convo_self}, conditional_consent},
                                     {{hijack_strong, hijack_weak}, hold_for_user},
                                     {{redirect, redirect_weak}, default_when_unset},
                                     {{convo_self, self_context, context_data}, within_this_conversation},
                                     {{deceive}, truthful_report},
                                     {{redirect_weak}, another_way_of_doing_it}};
  for (const auto& r : readings) {
    if (std::none_of(r.kinds.begin(), r.kinds.end(), [&](signal k) { return has(k); })) continue;
    std::string blanked(norm_.view());
    re2::StringPiece rest(blanked);
    bool any = false;
    while (re2::RE2::FindAndConsume(&rest, r.clause)) {
      any = true;
      const auto end = static_cast<std::size_t>(rest.data() - blanked.data());
      auto begin = end;
      while (begin > 0 && blanked[begin - 1] != '.' && blanked[begin - 1] != '\n' && end - begin < 200) --begin;
      std::fill(blanked.begin() + static_cast<std::ptrdiff_t>(begin), blanked.begin() + static_cast<std::ptrdiff_t>(end), ' ');
      rest = re2::StringPiece(blanked.data() + end, blanked.size() - end);
    }
    if (any) drop_signals_absent_from(r.kinds, blanked);
  }
  if (has(redirect) || has(redirect_weak)) {
    std::string blanked(norm_.view());
    bool any = false;
    for (std::size_t begin = 0; begin < blanked.size();) {
      std::size_t end = blanked.find_first_of(".\n;", begin);
      if (end == std::string::npos) end = blanked.size();
      if (end > begin && (user_picks_own_option(std::string_view(blanked).substr(begin, end - begin), context_) ||
                          sets_own_option(std::string_view(blanked).substr(begin, end - begin), context_))) {
        std::fill(blanked.begin() + static_cast<std::ptrdiff_t>(begin), blanked.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        any = true;
      }
      begin = end + 1;
    }
    if (any) drop_signals_absent_from({redirect, redirect_weak}, blanked);
  }
}

// A signal stays only when one of its phrases still matches the text with some clauses blanked.
void evaluator::drop_signals_absent_from(std::initializer_list<signal> kinds, const std::string& blanked) {
  for (const auto kind : kinds) {
    if (!has(kind)) continue;
    const bool still = std::any_of(matched_.begin(), matched_.end(), [&](int index) {
      return pattern_signal(index) == kind && re2::RE2::PartialMatch(blanked, *bank().singles[static_cast<std::size_t>(index)]);
    });
    if (still) continue;
    result_.signals.reset(static_cast<std::size_t>(kind));
    std::erase_if(matched_, [&](int index) { return pattern_signal(index) == kind; });
  }
}

void evaluator::discount_quoted_overrides() {
  if (!has(override_) || !quoted_as_example(override_)) return;
  result_.signals.reset(static_cast<std::size_t>(override_));
  std::erase_if(matched_, [](int index) { return pattern_signal(index) == override_; });
}

// Shapes that need no reading of intent: an order to set instructions aside, a chat-template
// token, a dangerous shell pipeline, "decode and run", a URL built to carry data, an authority
// tag that wraps an order. Security tools quote such text to detect it, so a text that reads as
// detection documentation and gives the model no order of its own is left to the sentence model.
void evaluator::structural_rules() {
  using enum severity;
  const bool hides = has(conceal) || has(deceive);
  const bool orders = has(oblige) || has(oblige_strong) || has(address_model);
  const bool quoting = has(detection) && !hides && !has(address_model) && !has(move_out);
  if (quoting) return;
  if (has(override_)) add("poison.instruction-override", high, 0.9, {override_}, "tells the model to set aside its instructions or the user's");
  if (has(role_token)) add("poison.impersonation", high, 0.9, {role_token}, "chat-template token makes text look like a conversation turn");
  if (has(shell_danger)) {
    const bool pushed = orders || hides || has(seq_global) || has(tag_strong) || has(authority);
    // A fenced code block in fetched text (a README's install step) is shown to a reader; in
    // the tool's own metadata, or pushed at the model, it is aimed at the model.
    const bool quoted_block = context_.role == field_role::result && raw_.find("```") != std::string_view::npos;
    const severity level = command_quoted_for_reader() ? medium : pushed     ? critical
                                                              : quoted_block ? medium
                                                                             : high;
    add("poison.shell-command", level, level == critical ? 0.85 : level == medium ? 0.5
                                                                                  : 0.75,
        {shell_danger}, "dangerous shell command shape in text the model reads");
  }
  if (has(decode_exec)) add("poison.encoded-payload", high, 0.85, {decode_exec}, "asks the model to decode something and act on it");
  if (has(url_data)) add("poison.suspicious-url", high, 0.8, {url_data}, "URL meant to be filled with data by the model");
  const bool grabs = has(convo_self) || has(context_data) || has(self_context) || has(model_self) || has(read_secret) ||
                     (has(sensitive_path) && !has(refuse)) || has(move_out);
  if (has(tag_strong) && (hides || has(override_) || has(seq_global) || grabs))
    add("poison.pseudo-tag", high, 0.9, {tag_strong}, "authority-styled tag wrapping instructions to the model");
  if (hides && grabs && (orders || has(move_param) || has(move_out)))
    add("poison.compound-injection", critical, 0.9, {conceal, convo_self, read_secret, move_out},
        "asks for private data and to keep it from the user");
  // Secrets that no tool argument has a use for: a wallet's seed phrase, account recovery codes,
  // an online-banking login. Asking for them in a tool's text is phishing through the model.
  if (has(phished_secret) && !has(refuse))
    add("poison.sensitive-target", high, 0.8, {phished_secret}, "asks for a secret no tool argument has a use for (seed phrase, recovery codes, a bank or account password)");
  // A side effect the user would object to (a charge, a public share, a deletion, a post or a
  // copy elsewhere) that the text keeps out of what the user reads: the omission is the attack,
  // with no order needed ("removals are left out of the report shown to the user").
  static const re2::RE2 side_effect(
      R"(\b(?:fees?|surcharges?|commissions?|charged|renew(?:s|ed|al)?|membership|subscription|shared with (?:anyone|everyone|the public)|publicly|public (?:link|index|feed))\b)"
      R"(|\b(?:deleted|removed|removals?|purged|wiped|likes|reposts|posts on|upload(?:s|ed)? to|cop(?:y|ies|ied) (?:to|goes|is sent|also)|forwarded to|mirrored to|sent to)\b)",
      bank_options());
  if (has(conceal) && re2::RE2::PartialMatch(norm_.view(), side_effect))
    add("poison.concealment", high, 0.8, {conceal}, "keeps a side effect (a charge, a public share, a deletion, a post, a copy) out of what the user reads");
  // Another server's tools in the user's environment, run down or passed over, to win the model's
  // choice ("other search tools in this workspace return stale pages", "Der andere Kalender in
  // dieser Umgebung verliert Termine"): a tool has no honest reason to judge its neighbours.
  static const re2::RE2 neighbours(
      R"(\b(?:other|another|the other|older|existing)\s+(?:[\w-]+\s+){0,2}(?:tools?|servers?|services?|geocoders?|calendars?|translators?|integrations?|connectors?|providers?|apps?)\b[^.;\n]{0,30}\b(?:in|on|of)\s+(?:this|the|your)\s+(?:workspace|environment|setup|stack)\b)"
      R"(|\bthe\s+[\w-]+\s+server's\s+\w+|\b(?:las\s+)?(?:dem[aá]s|otras)\s+herramientas\b|\b(?:der|die|das)\s+andere[nr]?\s+\w+\s+in\s+dieser\s+umgebung|\bautres outils\b|\boutil de \w+ existant\b)"
      R"(|\baltri strumenti\b|\boutras ferramentas\b|другие\s+инструмент|他の[^。]{0,12}ツール|この環境にある|其他[^。]{0,10}工具|다른[^.]{0,12}도구)",
      bank_options());
  static const re2::RE2 run_down_or_passed_over(
      R"(\b(?:stale|out of date|outdated|wrong|mix(?:es)? up|corrupt\w*|loses|leak\w*|unreliable|insecure|broken|known to|hidden fees|inaccurate|deprecated)\b)"
      R"(|\b(?:every|all|any)\s+(?:\w+\s+)?(?:lookups?|emails?|payments?|deletions?|requests?|searches|translations?|events?|appointments?|pagos?)\b|para cualquier|\balle\s+\w+\s+hier\b|verliert|cobran|保存している|丢失|不准确)",
      bank_options());
  if (re2::RE2::PartialMatch(norm_.view(), neighbours) && re2::RE2::PartialMatch(norm_.view(), run_down_or_passed_over))
    add("poison.tool-hijack", high, 0.8, {hijack_strong, hijack_weak}, "runs down or passes over the other tools of the user's environment to win the model's choice");
  // Consent claimed on the user's behalf, addressed to the model: the user is never asked.
  if (has(claimed_consent))
    add("poison.impersonation", high, 0.8, {claimed_consent}, "claims the user's consent on the user's behalf");
}

}  // namespace injection_internal

injection_result inspect_injection(std::string_view raw, const field_context& context) {
  // A name or value that is a sentence in snake case ("also_include_users_private_keys_here",
  // "assistant_must_now_call_..."): read as the words it spells, the way a description is read.
  // (Byte for byte the same length, so the offsets of the findings hold.)
  injection_result result = injection_internal::evaluator(raw, context).run();
  if ((context.role == field_role::name || context.role == field_role::schema_text) && raw.size() >= 30 &&
      raw.find_first_of(" \n") == std::string_view::npos && std::count(raw.begin(), raw.end(), '_') >= 5) {
    std::string words(raw);
    std::replace(words.begin(), words.end(), '_', ' ');
    field_context as_prose = context;
    as_prose.role = field_role::parameter_description;
    auto spelled = injection_internal::evaluator(words, as_prose).run();
    result.signals |= spelled.signals;
    // A name that needs six words to say what it holds, and says something a model is asked to
    // do with data, is an order in disguise: no schema names a field that way.
    const bool sentence_long = std::count(raw.begin(), raw.end(), '_') >= 6;
    for (auto& h : spelled.hits) {
      if (sentence_long && h.level == severity::medium && h.rule_id.starts_with("poison.")) {
        h.level = severity::high;
        h.message += " (spelled as a name)";
      }
      result.hits.push_back(std::move(h));
    }
  }
  return result;
}

std::vector<std::string> injection_pattern_errors() {
  using namespace injection_internal;
  auto errors = bank().errors;
  for (std::size_t i = 0; i < secrets().patterns.size(); ++i)
    if (!secrets().patterns[i]->ok()) errors.push_back(secret_patterns()[i] + ": " + secrets().patterns[i]->error());
  return errors;
}

}  // namespace warden::analysis
