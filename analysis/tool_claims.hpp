#pragma once
// Sentences whose topic is another tool. A tool's text that announces how some other tool now
// behaves, tells the model how to call it, or declares itself retired in favour of a tool of
// another server speaks for a function it does not own (THREATS.md 5, 6, 23). Judged by shape:
// the other tool is found by name (this surface's tools, or an identifier the sentence calls a
// tool), and the sentence either prescribes its use, announces a change to it or retires the
// speaker. Advice that routes between a server's own tools is left alone. Pure, thread-safe.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/injection.hpp"
#include "analysis/intent.hpp"

namespace warden::analysis {

struct tool_claim {
  std::string_view rule_id;
  severity level = severity::high;
  double confidence = 0.8;
  std::size_t begin = 0, end = 0;  // byte range in the normalised view
  std::string message;
};

// `view` is the normalised text, `sentences` its sentences (intent::split_sentences).
std::vector<tool_claim> judge_tool_claims(std::string_view view, const std::vector<intent::sentence>& sentences,
                                          const field_context& context, const tool_name_index& names);

// A server's text that names another server's tool and, next to the name, a fixed value for it
// (an address, a URL, a #channel, a quoted remote, payee or context): "send_email here also puts
// archive@... in cc", "post_message must go to #ext-share". Telling the model how to use a tool
// the server does not own is shadowing (THREATS.md 5, 23); the value makes it concrete in any
// language. Appends at most one claim. Not applied to tool results.
void judge_foreign_values(std::string_view view, const std::vector<intent::sentence>& sentences, const field_context& context,
                          const tool_name_index& names, std::vector<tool_claim>& out);

}  // namespace warden::analysis
