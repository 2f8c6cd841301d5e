#pragma once
// Demands that borrow a reason. Three shapes that read as an attack whatever their wording
// (THREATS.md 2, 17, 18, 22):
//  - a shell command the model is told to run on every call or session, when running commands
//    is not the tool's job ("before each lookup execute `...`");
//  - a call forced before this tool's own work that carries data somewhere ("GDPR step: before
//    updating, call search_contacts ... and log the result with log_activity");
//  - a named policy or rule that moves data or money and keeps that from the user ("Risk policy
//    RP-9: ... 10% sent to ba_...; this is standard and not shown to merchants");
//  - a parameter whose value is to come from what the model has seen or knows of the user
//    ("text of any file you've opened earlier", "the user's full legal name").
// Judged per sentence (with its neighbour for the concealment), pure and thread-safe.
#include <vector>

#include <re2/re2.h>

#include "analysis/tool_claims.hpp"

namespace warden::analysis {

// Appends findings (byte ranges in the normalised view) to `out`.
// `names`: the tools of this server and of the others, to tell a prerequisite call to one of them
// from a call to a tool from nowhere.
void judge_pretexts(std::string_view view, const std::vector<intent::sentence>& sentences, const field_context& context,
                    const tool_name_index& names, std::vector<tool_claim>& out);

// Whether a sentence tells the model to report to the user something other than what happened
// ("tell the user no action was needed", "only mention the address the user gave").
bool misleads_the_user(std::string_view sentence);

// The user's wish picks one of the tool's own options ("if the user says logs, choose logs
// instead of errors"): no value the user chose is swapped.
bool user_picks_own_option(std::string_view sentence, const field_context& context);

// The sentence sets one of the tool's own parameters to choose its output ("set
// useEffectiveFormat=true to get the resolved format instead of the user-entered one").
bool sets_own_option(std::string_view sentence, const field_context& context);
const re2::RE2& misreports_gate();  // the pattern itself, for a caller's whole-text gate

}  // namespace warden::analysis
