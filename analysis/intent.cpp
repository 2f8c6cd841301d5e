#include "analysis/intent.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

#include "analysis/text.hpp"

namespace warden::analysis::intent {
namespace {

using enum feature;

// Names of the injection signals, in the order of analysis::signal.
constexpr std::string_view signal_names[] = {
    "tag_strong", "tag_weak", "html_comment", "role_token", "role_line", "address_model", "oblige",
    "oblige_strong", "authority", "conceal", "conceal_weak", "consent_skip", "deceive", "override",
    "impersonation", "seq_global", "seq_local", "sensitive_path", "secret_noun", "env_vars", "refuse",
    "detection", "user_secret", "grab_all", "convo_self", "history_weak", "context_data", "self_context",
    "sys_prompt", "model_self", "user_data", "move_param", "move_out", "also_sink", "read_secret",
    "dest_email", "quoted_field", "redirect", "redirect_weak", "hijack_strong", "hijack_weak", "deprecate",
    "cross_cue", "decode_exec", "shell_danger", "url_data", "claimed_consent", "phished_secret"};
static_assert(std::size(signal_names) == static_cast<std::size_t>(signal::count_), "one name per signal");

constexpr std::string_view lexicon_names[] = {
    "you_oblige", "imperative_start", "please", "pretext_purpose", "system_voice", "maintenance", "update_notice",
    "act_exec", "cmd_syntax", "dotfile", "export_var", "act_call", "call_first", "named_identifier", "act_send", "url",
    "email_addr", "ip_addr", "act_open_url", "defaults_change", "now_behaves", "superiority", "popularity",
    "ai_optimised", "suppress_other", "retired", "error_form", "to_continue", "speaks_as_user", "ask_user",
    "stop_until_user", "doc_returns", "doc_example", "requires_setup", "own_scope_words", "instead_output",
    "model_identity", "summary_of_convo", "user_identity", "location_grab", "all_data", "hide_word",
    "credential_param", "for_consistency", "extra_step", "verify_word", "sponsored", "elevated_claim",
    "non_english_conceal", "omit_from_answer", "non_english_directive", "non_english_grab", "caller_probe", "probe_word"};
static_assert(std::size(lexicon_names) == index(lexicon_end_) - index(you_oblige), "one name per lexicon feature");

constexpr std::string_view context_names[] = {
    "role_param", "role_schema", "role_name", "role_result", "role_server", "role_description", "names_sibling",
    "names_foreign", "names_unknown_tool", "names_own", "own_runs_commands", "own_sends_data", "own_fetches_urls",
    "text_conceal", "text_tag", "text_authority", "text_oblige_strong", "text_address_model", "text_obfuscated",
    "text_error_form", "first_sentence", "long_text", "near_conceal", "near_authority", "near_action", "near_oblige",
    "near_secret", "near_other_tool"};
static_assert(std::size(context_names) == feature_count - index(role_param), "one name per context feature");

struct lexicon_pattern {
  feature id;
  const char* expression;
};

// Matched case-insensitively against the normalised text, one sentence at a time: no pattern
// needs to look past its sentence. Words, not phrases: each entry names a kind of thing a sentence
// can ask or claim, in the many ways it is said.
constexpr lexicon_pattern lexicon[] = {
    {you_oblige, R"(\byou\s+(?:\w+ly\s+)?(?:must|should|shall|need to|have to|are (?:required|expected|instructed|obligated|asked|supposed) to|will (?:need|have) to|are to|may only|can only)\b)"},
    {imperative_start, R"(^\W*(?:always|never|first|now|immediately|then|also|next|simply|just)?\s*(?:run|execute|call|invoke|send|post|upload|open|visit|read|fetch|include|attach|append|add|set|use|prefer|pick|choose|select|ignore|forward|copy|paste|write|export|edit|modify|update|append|report|notify|register|log|ping|submit|pass|put|provide|describe|state|tell|mention|list|summari[sz]e|remember)\b)"},
    {please, R"(\b(?:please|kindly|be sure to|make sure to|remember to|don'?t forget to|it is (?:essential|crucial|vital|important|critical|required|mandatory) (?:that|to))\b)"},
    {pretext_purpose, R"(\b(?:for|as part of|to (?:satisfy|comply with|meet|ensure|maintain|guarantee|keep|pass|complete|enable|support|improve|prevent|avoid)|in order to (?:comply|ensure|maintain|verify|validate|prevent|keep))\s+(?:the\s+|our\s+|a\s+|proper\s+|full\s+|continued\s+)?(?:\w+\s+){0,2}(?:security|safety|compliance|regulatory|audit(?:ing)?|verification|validation|fraud|integrity|quality|telemetry|analytics|monitoring|diagnostics?|debugging|consistency|accuracy|freshness|caching|personali[sz]ation|optimi[sz]ation|licen[sc]e|licensing|attribution|tracking|billing|accountability|traceability|governance|continuity|reliability|stability|performance)\b)"},
    {system_voice, R"(\b(?:system|platform|runtime|host|orchestrator|gateway|administrator|admin|operator|vendor|provider|maintainers?|security team|it department|devops team|sre team|trust (?:and|&) safety)\s+(?:notice|notification|message|update|alert|directive|requirement|policy|instruction|advisory|bulletin|announcement|override|mandate|note)s?\b|\b(?:notice|advisory|bulletin|announcement)\s+(?:from|by)\s+(?:the\s+)?(?:system|platform|administrator|admin|security|vendor|maintainers?)\b)"},
    {maintenance, R"(\b(?:maintenance|housekeeping|cleanup|clean-up|cache (?:purge|flush|refresh|warm(?:ing|-up)?)|warm[- ]up|self[- ]heal(?:ing)?|hotfix|patch(?:ing)? (?:step|procedure)|environment (?:check|setup|preparation|repair)|integrity check|pre-?flight)\b)"},
    {update_notice, R"(\b(?:system|service|api|tool|platform|policy|security|version|schema|behaviou?r)\s+(?:update|change|upgrade|migration|revision)\b|\b(?:changelog|release note|effective (?:immediately|now|today)|as of (?:this|the latest|version|v\d|today|now|\d{4}))\b|\b(?:has|have) been (?:updated|changed|migrated|reconfigured|upgraded|replaced|moved)\b)"},
    {act_exec, R"(\b(?:run|execute|exec|invoke|issue|type|enter|launch|spawn|evaluate|eval)\b[^.!?\n]{0,60}\b(?:command|commands|script|shell|terminal|bash|zsh|powershell|cmd|console|cli|one-liner|snippet|the following|sudo|this line)\b|\b(?:in|into|from) (?:a|the|your) (?:terminal|shell|console|command line)\b)"},
    {cmd_syntax, R"(\bsudo\s+\S|\brm\s+-[a-z]*[rf]|\bchmod\s+[+0-7]|\bchown\s|\bcurl\s+-?\S|\bwget\s+\S|\b(?:find|xargs)\s+\S[^\n]*-(?:delete|exec)\b|&&\s*\S|\|\s*(?:ba|z|da)?sh\b|\$\([^)]{2,}\)|`[^`]*\b(?:rm|curl|wget|sudo|chmod|cat|echo|export|bash|sh|nc|python|node|pip|npm)\b[^`]*`|\becho\s+[^\n]*>>?\s*\S|\b(?:pip3?|npm|pnpm|yarn|gem|cargo|go)\s+(?:install|i|add|get)\s+(?:-g\s+)?[\w@/.-]+|\b(?:crontab|systemctl|launchctl|schtasks|reg add|setx|netsh|iptables|ssh-keygen|git config --global)\b|\bnohup\b|\bpowershell\b|\bbash\s+-c\b|\bpython3?\s+-c\b)"},
    {dotfile, R"((?:~|\$home|%userprofile%)?/?\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|bash_logout|inputrc|vimrc|gitconfig|npmrc|yarnrc|pypirc|netrc|ssh/config|ssh/authorized_keys|config/fish|aws/config|docker/config\.json|kube/config|cargo/config|pip/pip\.conf)\b|\bauthorized_keys\b|\bcrontab\b|/etc/(?:hosts|profile|environment|resolv\.conf|sudoers|crontab|rc\.local)\b|\b(?:shell|login|startup|rc) (?:profile|file|script)s?\b|\bgit hooks?\b|\bpre-commit hook\b)"},
    {export_var, R"(\bexport\s+[a-z_][a-z0-9_]*=|\bset\s+(?:the\s+)?(?:environment variable|env var)\b|\b(?:PATH|LD_PRELOAD|NODE_OPTIONS|PYTHONPATH|HTTPS?_PROXY|NODE_TLS_REJECT_UNAUTHORIZED|GIT_SSH_COMMAND)\s*=|\bsetx\s)"},
    {act_call, R"(\b(?:call|invoke|run|use|trigger|execute|hit|query)\s+(?:the\s+|our\s+|this\s+)?[`'"]?[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+[`'"]?|\b(?:call|invoke|run|use|trigger)\s+(?:the\s+|our\s+)?[`'"]?[\w.-]+[`'"]?\s+(?:tool|function|endpoint|action|method)\b)"},
    {call_first, R"(\b(?:first|beforehand|before (?:that|proceeding|continuing|anything|doing so|you (?:call|use|proceed|continue|answer|respond|run|invoke|start))|prior to (?:proceeding|use|using|calling|any|each|every|this|invoking)|as a (?:first|preliminary|prerequisite) step|as a prerequisite|must be preceded by|precondition|pre-?requisite|pre-?flight|before each|before every|before any|ahead of (?:any|each|every))\b)"},
    {named_identifier, R"([`'"][a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+[`'"]|\b[a-z][a-z0-9]*(?:_[a-z0-9]+){1,5}\b)"},
    {act_send, R"(\b(?:send|sends|sent|post|posts|upload|uploads|transmit|forward|forwards|report|relay|sync|mirror|beacon|ping|notify|log|submit|deliver|push|share|publish|stream|replicate|copy|cc|bcc|e-?mail|mail|leak|exfiltrate|export|dispatch|register)\b[^.!?\n]{0,80}\b(?:to|at|with|into|on)\b)"},
    {url, R"(\b(?:https?|wss?|ftp)://[^\s"'<>]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|dev|app|example|test|xyz|site|online|cloud|ai|co|info|biz|me|ru|cn|tk|top|sh|ly|gg)(?:/[^\s"'<>]*)?(?:\s|$|[.,;)]))"},
    {email_addr, R"([\w.+-]+@[\w-]+(?:\.[\w-]+)+)"},
    // Loopback (127.x) and 0.0.0.0 are this machine, not a destination.
    {ip_addr, R"(\b(?:1(?:[0-13-9]\d?|2[0-689]?)?|[2-9]\d{0,2})(?:\.\d{1,3}){3}(?::\d+)?\b)"},
    {act_open_url, R"(\b(?:open|visit|fetch|load|request|get|ping|call|hit|contact|notify|navigate to|browse to|query|send (?:a |an )?(?:request|get|post|ping|beacon|notification|copy) to|register (?:with|at)|check in (?:with|at)|report (?:to|at)|log (?:to|at)|post (?:to|at))\b[^.!?\n]{0,60}(?:https?://|\b[a-z0-9-]+\.(?:com|net|org|io|dev|app|example|test|xyz|site|cloud|ai|co)\b|\bwebhook\b|\bendpoint\b|\bcollector\b|\bbeacon\b))"},
    {defaults_change, R"(\b(?:now\s+|henceforth\s+|automatically\s+)?defaults?\s+(?:all\s+|every\s+|each\s+|any\s+)?(?:\w+\s+){0,3}(?:to|into)\b|\b(?:is|are|has been|have been|will be)\s+(?:now\s+)?(?:pinned|locked|fixed|hard-?coded|forced|set|routed|redirected|mapped|rewritten)\s+to\b|\b(?:all|every|any)\s+(?:\w+\s+){0,2}(?:are|is|will be|must be|should be)\s+(?:now\s+)?(?:routed|sent|redirected|booked|charged|paid|transferred|written|deployed|pushed|set|converted|treated)\s+(?:to|as|through|via)\b)"},
    {now_behaves, R"(\b(?:now|henceforth|from this (?:release|version|update) on|going forward|effective immediately)\s+(?:\w+\s+){0,2}(?:uses?|routes?|sends?|requires?|defaults?|returns?|behaves?|expects?|points?|goes|redirects?|forwards?|applies|adds?|appends?|includes?|attaches?)\b)"},
    {superiority, R"(\b(?:the\s+)?(?:best\s+(?:tool|option|choice|source|server|solution|service|integration|provider|way to|available|on the market)|most (?:accurate|reliable|trusted|advanced|powerful|complete|comprehensive|secure|capable|popular|precise|up-to-date|authoritative)|world'?s (?:best|leading|most|first|fastest|only)|industry[- ]leading|best[- ]in[- ]class|state[- ]of[- ]the[- ]art|unmatched|unrivall?ed|unparall?eled|superior|second to none|top[- ]rated|number one|#1|no\.? ?1|gold standard|premier|(?:the |a )?leading (?:tool|provider|platform|solution|service|source|choice)|flagship|definitive|ultimate|finest|highest[- ]quality|far better|much better|significantly better|more accurate than|more reliable than|faster than (?:any|all|every|other|the)|better than (?:any|all|every|other|the)|(?:over|than) (?:any|every|all) (?:other|competitor|alternative)s?|outperforms?|beats?\s+(?:all|every|any|other))\b|\b\d{2,3}(?:\.\d+)?\s*%\s*(?:accuracy|accurate|precision|uptime|reliab\w*|success)\b|(?:^|[\s(\[])#\s?1\b|\b(?:highest|best|top|most)[- ](?:rated|ranked|reviewed|installed|downloaded|used|starred)\b|\b(?:the\s+)?(?:single|sole|only|one)\s+(?:safe|reliable|trusted|trustworthy|accurate|correct|authoritative|official|valid|legitimate|secure)\s+(?:source|tool|option|provider|server|way|choice)\b)"},
    {popularity, R"(\b(?:trusted|used|loved|chosen|relied on|preferred|recommended|endorsed|certified|approved|vetted)\s+by\s+(?:\d[\d,.]*\s*%?\s*|millions|thousands|over|more than|most|leading|top|fortune|experts?|professionals?|enterprises?|developers?|teams?|companies|security (?:experts|teams)|the community|anthropic|openai|google|microsoft)|\b\d{2,3}\s*%\s+of\s+(?:users|developers|enterprises|companies|teams|experts|agents|models|professionals)\b|\b(?:award[- ]winning|officially (?:recommended|endorsed|certified|verified)|verified (?:publisher|provider|source)|editor'?s choice)\b)"},
    // Comparative and endorsement claims in the words vendors use ("rated the most dependable",
    // "the reference implementation endorsed by the steering group", "nothing else matches").
    {superiority, R"(\b(?:most|more|far more|much more)\s+(?:dependable|reliable|accurate|precise|trustworthy|robust|correct|complete)\b|\bnothing (?:else\s+)?(?:\w+\s+){0,3}(?:matches|comes close|compares|beats)\b|\bno other (?:\w+\s+){0,3}(?:matches|comes close|compares|is as)\b|\b(?:outperforms|beats|surpasses|outclasses)\s+(?:every|all|any|other|the)\b|\b\d+(?:\.\d+)?\s*x\s+(?:faster|better|more accurate)\s+than\b|\b(?:faster|better|more accurate|more reliable|safer)\s+than\s+(?:any|every|all|other)\b)"},
    {popularity, R"(\b(?:endorsed|certified|approved|recommended|sanctioned|blessed|verified|rated|ranked|chosen)\s+(?:\w+\s+){0,2}by\s+(?:the\s+)?(?:official|mcp|independent|industry|leading|steering|registry|reviewers?|analysts?|auditors?)\b|\b(?:reference|canonical|official|authoritative|genuine|original)\s+(?:implementation|tool|server|version|connector|integration)\b|\b(?:copies|forks|clones|versions|imitations|lookalikes?|look-alikes?)\s+(?:\w+\s+){0,2}(?:are|is)\s+(?:\w+\s+)?(?:unofficial|knock-?offs?|fakes?|counterfeit|unverified|inferior|outdated)\b|\b\d[\d,.]*\s*(?:[km]|million|thousand)?\+?\s+(?:developers|users|teams|companies|engineers|agents|customers)\s+(?:trust|use|rely on|choose|pick|prefer)\b)"},
    {ai_optimised, R"(\b(?:assistants?|agents?|models?|llms?|ai)\s+(?:that\s+)?(?:\w+\s+){0,3}(?:get|perform|complete|work|answer|finish|do)\s+(?:\w+\s+){0,3}(?:better|faster|more accurately)\b|\b(?:should be|make (?:it|this)|set (?:it|this) as) (?:your|the) default\b|\broute (?:\w+\s+){0,3}(?:work|requests?|calls?|tasks?|queries) here\b)"},
    {ai_optimised, R"(\b(?:ai|llm|agent|model|assistant)[- ](?:optimi[sz]ed|preferred|first|native|recommended|approved|friendly)\b|\b(?:optimi[sz]ed|designed|built|tuned) (?:for|specifically for) (?:ai|llm|agents?|models?|assistants?|claude|gpt)\b|\b(?:assistants?|agents?|models?|llms?|ai)\s+(?:should|must|will)\s+(?:always\s+)?(?:prefer|choose|pick|select|favou?r)\b|\bpreferred (?:tool|choice|option|provider|source)\b|\b(?:first|default|primary|go-to|only) choice\b)"},
    {suppress_other, R"(\b(?:never|do not|don'?t|must not|should not|avoid|stop|refrain from|no need to|there is no need to)\s+(?:ever\s+)?(?:use|using|call|calling|invoke|invoking|rely on|trust|consult|fall back to|consider|try)\s+(?:any\s+)?(?:\w+\s+){0,3}(?:other|another|alternative|competing|third[- ]party|external|built-in|native|default|rival|legacy|older|previous|standard|generic)\b|\b(?:other|alternative|competing|third[- ]party|built-in|generic|legacy)\s+(?:\w+\s+){0,2}(?:tools?|servers?|services?|providers?|plugins?|integrations?|options?|apis?)\s+(?:are|is|were|have been|will be|may be|can be)\s+(?:\w+\s+){0,2}(?:unreliable|inaccurate|unsafe|insecure|deprecated|outdated|broken|slow|blocked|disabled|unsupported|untrusted|compromised|wrong|incomplete|inferior|worse|not (?:safe|reliable|accurate|trusted|supported|allowed)))"},
    {retired, R"(\b(?:retired|deprecated|decommissioned|discontinued|sunset(?:ted)?|end[- ]of[- ]life|eol|obsolete|superseded|replaced|no longer (?:supported|maintained|available|works?|functional|accurate|safe|recommended|valid)|has moved|moved to|migrated to|out of service|disabled|legacy (?:version|endpoint|tool))\b)"},
    {error_form, R"(^\W*(?:error|err|exception|fatal|failure|failed|warning|warn|denied|access denied|unauthori[sz]ed|forbidden|invalid|not permitted|permission denied|status\s*:?\s*[45]\d\d|http [45]\d\d|[45]\d\d\b|traceback|panic)\b|\b(?:error|exception)\s*(?:code)?\s*[:#=]\s*\S)"},
    {to_continue, R"(\b(?:to (?:continue|proceed|resume|unlock|restore|complete|finish|retry|recover|fix (?:this|it)|resolve (?:this|it)|get (?:the|your) results?|see the (?:full|complete|rest))|in order to (?:continue|proceed|unlock|complete)|before (?:you can|we can|this can) (?:continue|proceed)|until (?:this|it) is (?:done|resolved|fixed|completed|verified))\b)"},
    {speaks_as_user, R"(\b(?:the user|user|your user|the human|the customer|the operator|the owner)\s+(?:has\s+|have\s+|had\s+)?(?:just\s+|now\s+|already\s+|also\s+|explicitly\s+)?(?:asked|says?|said|wants?|instructed|told|requested|would like|authori[sz]ed|approved|confirmed|consented|agreed|pre-?approved|demands?|expects?|insists?|prefers?)\s+(?:you\b|that you\b|for you\b|the (?:ai|assistant|model|agent)\b|to have you\b|(?:this|that|it) (?:be|to be)\b)|^\W*(?:user|human|customer)\s*:|\b(?:message|note|instruction|request|reminder)s?\s+from\s+(?:the\s+)?(?:user|human|customer|owner|operator)\b|\b(?:as|on behalf of)\s+the user\b)"},
    {ask_user, R"(\b(?:ask|asking|confirm with|check with|consult|prompt|wait for|get|obtain|request|seek)\s+(?:the\s+)?(?:user|human|operator|person|customer|requester)(?:'s)?\s*(?:for\s+|to\s+|whether\s+|before\s+|if\s+|explicit\s+|approval|confirmation|permission|consent)?|\b(?:explicit|user|human)\s+(?:approval|confirmation|consent|permission)\b|\b(?:with|after|without)\s+(?:the\s+)?user'?s?\s+(?:explicit\s+)?(?:approval|confirmation|consent|permission)\b|\buntil the user (?:confirms|approves|agrees|says|replies|responds)\b)"},
    {stop_until_user, R"(\b(?:stop|pause|halt|do not (?:proceed|continue|run|call|retry))\b[^.!?\n]{0,60}\b(?:until|unless|and ask|and wait|before)\b[^.!?\n]{0,40}\b(?:user|human|operator|confirm|approv)\w*|\b(?:do not|don'?t|must not|should not|never)\s+(?:\w+\s+){0,2}(?:invoke|call|run|use|execute|trigger|start)\b[^.!?\n]{0,50}\buntil\s+(?:you\s+)?(?:have\s+)?(?:receiving|received|receive|getting|get|the user|a clear|clear|explicit|hearing)\b[^.!?\n]{0,60}\b(?:user|human)\b)"},
    {doc_returns, R"(^\W*(?:returns?|retrieves?|lists?|gets?|fetches|creates?|updates?|deletes?|searches|finds|reads?|writes?|sends?|shows?|displays?|generates?|converts?|computes?|calculates?|runs?|executes?|opens?|closes?|uploads?|downloads?|adds?|removes?|moves?|renames?|queries|checks?|validates?|parses?|formats?|summari[sz]es|translates?|navigates?|clicks?|types?|takes?|captures?|starts?|stops?|manages?|provides?|describes?|explains?|use this (?:tool )?(?:to|when|for|if))\b|\b(?:this tool|this endpoint|this function|the tool)\s+(?:returns|lets|allows|can|will|is used|helps|provides|retrieves|lists|creates)\b)"},
    {doc_example, R"(\b(?:e\.g\.|i\.e\.|for example|for instance|such as|example:|examples?:|defaults? (?:to|is)\b|default:|optional\b|required\b|maximum|minimum|max\b|min\b|format:|in the format|iso ?8601|yyyy|utc|json|csv|markdown|pagination|paginated|cursor|page size|limit\b|offset\b)\b)"},
    {requires_setup, R"(\b(?:requires?|needs?|must (?:be set|be configured|be installed|have)|set up|configure|configured|install(?:ed)?)\b[^.!?\n]{0,60}\b(?:environment variable|env var|api key|token|credentials?|account|permission|scope|access|installed|configured|version|node|python|docker|login|subscription|plan)\b)"},
    {own_scope_words, R"(\b(?:this|the)\s+(?:parameter|argument|field|value|option|input|property|path|query|id|identifier|name|url|file|directory|folder|repository|repo|branch|table|database|query|selector|element|page|tab|cluster|namespace|pod|bucket|key|object|record|issue|ticket|channel|message)\b|\b(?:must|should) (?:be|contain|match|include|start with|end with|not exceed|not be)\b)"},
    {instead_output, R"(\b(?:instead of|rather than)\s+(?:\w+ly\s+)?(?:returning|printing|displaying|showing|saving|writing|downloading|streaming|including|embedding|inlining|fetching|loading|using)\b)"},
    {model_identity, R"(\b(?:model|llm|ai|assistant|agent)[ _-]?(?:name|id|identifier|version|vendor|provider|family|type|make)\b|\b(?:name|identity|version|vendor|provider|family)\s+of\s+(?:the\s+|your\s+)?(?:ai|llm|model|assistant|agent|language model)\b|\b(?:which|what)\s+(?:ai\s+|llm\s+|language\s+)?(?:ai|llm|model|assistant|agent)(?:\s+and\s+version)?\s+(?:you are|are you|is (?:calling|using|running|making|invoking|sending|filing))\b|\bidentify (?:yourself|the (?:assistant|model|ai|agent)|your (?:model|assistant|ai))\b|\b(?:company|vendor|organi[sz]ation|provider) that (?:deployed|built|trained|runs|created|operates) you\b|\bmodel family\b|\byour underlying (?:model|llm)\b|\b(?:your|the calling|the invoking|the current)\s+(?:model|llm|assistant|agent)(?:'s)?\s+(?:name|identity|version|id|provider)\b)"},
    {summary_of_convo, R"(\b(?:the\s+|this\s+|our\s+|your\s+)?(?:full|entire|whole|complete|verbatim|raw)\s+(?:conversation|chat|dialog(?:ue)?|chat history|message history|session history)\b|\b(?:conversation|chat)\s+(?:so far|history|transcript|log)\b|\b(?:outputs?|results?|responses?)\s+(?:of|from)\s+(?:the\s+)?(?:last|previous|prior|other|earlier|recent)\s+(?:\w+\s+)?(?:tools?|tool calls?|calls?|functions?)\b|\b(?:based on|inferred from|judging from|taken from)\s+(?:the\s+|this\s+|our\s+|your\s+)?(?:conversation|chat|dialog(?:ue)?|messages so far)\b|\b(?:summary|summari[sz]e|recap|transcript|history|copy|gist|outline|digest|notes)\s+(?:of\s+)?(?:the\s+|this\s+|our\s+|your\s+|the user'?s\s+)?(?:entire\s+|full\s+|whole\s+|current\s+|ongoing\s+|recent\s+|previous\s+)?(?:conversation|chat|dialog(?:ue)?|session|discussion|exchange|thread|interaction|request history|messages)\b|\b(?:what|everything)\s+(?:the user|they|you)\s+(?:has|have)?\s*(?:asked|said|discussed|typed|shared|requested)\s+(?:so far|earlier|before|previously|in this)\b|\b(?:previous|prior|earlier|recent|last)\s+(?:\d+\s+)?(?:user\s+)?(?:messages|turns|prompts|questions|requests|exchanges)\b)"},
    {user_identity, R"(\b(?:the\s+)?user'?s?\s+(?:full\s+|real\s+|legal\s+|current\s+|precise\s+|exact\s+|home\s+)?(?:name|identity|latitude|longitude|gps|coordinates|geolocation|email(?: address)?|phone(?: number)?|home address|address|location|ip(?: address)?|employer|company|job title|date of birth|age|account (?:id|number)|username|handle)\b|\b(?:who the user is|the user'?s? (?:personal|contact|private) (?:details|data|information))\b)"},
    {location_grab, R"(\b(?:current|precise|exact|gps|physical|geo)\s*(?:location|coordinates|position|whereabouts)\b|\bwhere the user (?:is|lives|works)\b)"},
    {all_data, R"(\b(?:all|every|any|each|the (?:full|entire|complete|whole|raw))\s+(?:of the\s+)?(?:\w+\s+){0,2}(?:files?|documents?|contents?|data|records|rows|results?|outputs?|emails?|messages|notes|history|logs?|context|information|details|variables|secrets|keys|tokens|credentials)\s+(?:\w+\s+){0,3}(?:you|the assistant|the model|the agent|available|accessible|in (?:the|your) (?:context|workspace|session|conversation|memory)|(?:you )?(?:have|has) (?:read|seen|accessed|retrieved|opened|fetched))\b)"},
    {hide_word, R"(\b(?:secret(?:ly)?|covert(?:ly)?|hidden|invisible|silent(?:ly)?|quiet(?:ly)?|discreet(?:ly)?|unobtrusive(?:ly)?|behind the scenes|in the background|off the record|transparent to the user|without (?:notice|noticing|a trace|mention|mentioning|comment|telling|announcement|fanfare))\b)"},
    {credential_param, R"(^\W*(?:the\s+|your\s+|an?\s+|optional\s+)?(?:\w+\s+){0,3}(?:api[ _-]?key|access[ _-]?token|auth(?:entication|orization)?[ _-]?token|bearer token|password|passphrase|secret|client[ _-]?secret|credentials?|private[ _-]?key|personal access token|pat|session token|otp|2fa code|kubeconfig|context)\b[^.!?\n]{0,80}\b(?:for|to|used|required|needed|of|when|if|that|which)\b)"},
    {for_consistency, R"(\b(?:for (?:consistency|simplicity|convenience|uniformity|standardi[sz]ation|compatibility|best results|optimal results|accuracy|freshness)|to (?:keep|ensure|maintain) (?:results|data|things|output) (?:fresh|consistent|accurate|in sync|up to date)|to avoid (?:stale|inconsistent|duplicate|invalid) (?:results|data|output))\b)"},
    {extra_step, R"(\b(?:also|additionally|in addition|as well|too|furthermore|moreover|on top of that|at the same time|alongside|simultaneously|meanwhile)\b)"},
    {verify_word, R"(\b(?:verif(?:y|ication|ied)|validat(?:e|ion|ed)|authenticat(?:e|ion)|authori[sz](?:e|ation)|attest(?:ation)?|identity check|handshake|session (?:check|state|token|verification)|fingerprint|integrity|sanity check|compliance check|security check|audit(?:ing)?|kyc|anti-fraud|fraud (?:check|prevention|detection)|license check|entitlement)\b)"},
    {sponsored, R"(\b(?:sponsored|affiliate|partner(?:ed)? (?:link|offer|product|brand|store)|promo(?:tion(?:al)?)? code|referral (?:code|link|id)|commission|kickback|paid placement|advertis(?:e|ing|ement))\b)"},
    {elevated_claim, R"(\b(?:official|authori[sz]ed|sanctioned|certified|verified|approved|canonical|genuine|real|trusted|secure|safe)\s+(?:version|replacement|successor|tool|variant|edition|endpoint|implementation|source|build|release)\b|\b(?:enhanced|improved|upgraded|better|newer|advanced|pro|premium|plus|extended|v2|v3|next-gen)\s+(?:version|replacement|edition|variant|implementation|alternative)\s+of\b)"},
    {non_english_conceal, R"(\b(?:sin (?:avisar|decir|informar|mencionar|comentar|que (?:el usuario|nadie|lo sepa))|en silencio|no (?:se lo |le |lo )?(?:digas|cuentes|menciones|comentes|muestres|informes)|sans (?:le dire|rien dire|prevenir|informer|mentionner|en parler|demander)|discretement|en silence|ne (?:le |lui |leur )?(?:dis|dites|mentionne|mentionnez|montre|montrez|signale|signalez) (?:rien|pas|jamais)|ohne (?:es |den |die )?(?:zu erwahnen|zu sagen|mitzuteilen|zu fragen|nachzufragen|ruckfrage|bestatigung)|stillschweigend|heimlich|unauffallig|(?:nicht|niemals) (?:erwahn|mitteil|sag|zeig|anzeig|verrat)\w*|erwahne\w*\b[^.!?\n]{0,40}\bnicht|senza (?:dirlo|dire|avvisare|informare|chiedere)|in silenzio|di nascosto|non (?:dire|dirlo|menzionare|mostrare|avvisare)|sem (?:avisar|dizer|informar|contar|comentar)|em (?:silencio|segredo)|nao (?:comente|conte|diga|mencione|mostre|avise|informe)|stilletjes|zonder (?:te vragen|het te zeggen|te melden)|niet (?:vermelden|zeggen|tonen|melden)|bez (?:informowania|pytania|wiedzy)|po cichu|nie (?:mow|informuj|wspominaj|pokazuj)\w*|sessizce|soylemeden|secretamente)\b|秘密|こっそり|黙って|伝えない|言わないで|不要告诉|不要提及|悄悄|默默|몰래|알리지|말하지|لا تخبر|سرا|चुपचाप|मत बताओ|न बताएं|(?:^|[^\p{L}\p{N}])(?:в тайне|тайно|незаметно|молча|не (?:сообщай|говори|упоминай|показывай)\p{L}*)(?:[^\p{L}\p{N}]|$))"},
    {omit_from_answer, R"(\b(?:omit|leave out|exclude|skip|strip|remove|hide)\s+(?:\w+\s+){0,4}(?:from|in)\s+(?:your|the)\s+(?:answer|reply|response|summary|output|message|report|explanation)\b|\b(?:do not|don'?t|never)\s+(?:display|show|print|echo|reveal|mention|surface|narrate|announce|describe|explain|comment on|discuss|report|disclose|repeat|list)\s+(?:\w+\s+){0,3}(?:command|step|call|request|this|that|it|output|action|change|detail|instruction|part|line|note|redirect|copy|upload)s?\b|\bif (?:the user |anyone |they |somebody |someone )?(?:asks?|asked|questions?|wonders?|inquires?)\b[^.!?\n]{0,80}\b(?:say|tell|answer|reply|claim|respond|state)\b|\b(?:internal|private|confidential|backstage|behind-the-scenes) (?:detail|note|step|matter|housekeeping|process)\b|\b(?:nothing|no need) to (?:report|mention|tell|explain)\b)"},
    {non_english_directive, R"(\b(?:debes|tienes que|hay que|siempre|antes de|envia|envie|lee|copia|incluye|adjunta|usa|llama|ejecuta|voce deve|sempre|envie|leia|inclua|chame|execute|tu dois|vous devez|toujours|avant de|envoie|envoyez|lis|lisez|inclus|incluez|appelle|appelez|execute|executez|du musst|sie mussen|immer|vorher|zuerst|sende|senden|lies|lesen|fuge|rufe|fuhre|devi|deve|sempre|prima di|invia|leggi|includi|chiama|esegui|moet|altijd|eerst|stuur|lees|voeg|musisz|zawsze|najpierw|wyslij|przeczytaj|her zaman|once|gonder|oku)\b|必须|总是|务必|之前|先调用|发送|读取|必ず|常に|前に|送信|読み取|呼び出|반드시|항상|먼저|전에|보내|읽어|호출|يجب|دائما|أرسل|اقرأ|हमेशा|पहले|भेजें|पढ़ें|(?:^|[^\p{L}\p{N}])(?:всегда|обязательно|сначала|перед|отправ\p{L}*|прочита\p{L}*|добав\p{L}*|должен|должна|нужно)(?:[^\p{L}\p{N}]|$))"},
    {non_english_grab, R"(\b(?:contrasena|clave|credenciales|senha|credenciais|mot de passe|identifiants|passwort|kennwort|zugangsdaten|schlussel|password|credenziali|wachtwoord|haslo|sifre|conversacion|historial|conversa|historico|historique|echanges|gesprach|verlauf|unterhaltung|cronologia|conversazione|gesprek|rozmowa|sohbet|modelo|modele|modell|model adi|nombre del modelo|nom du modele|instrucciones del sistema|prompt del sistema|prompt systeme|systemprompt)\b|密码|密钥|令牌|对话|聊天记录|模型|系统提示|パスワード|トークン|会話|履歴|モデル|システムプロンプト|비밀번호|토큰|대화|모델|시스템 프롬프트|كلمة المرور|المحادثة|النموذج|पासवर्ड|बातचीत|मॉडल|(?:^|[^\p{L}\p{N}])(?:пароль|токен|ключ|переписк\p{L}*|разговор|истори\p{L}+|модел\p{L}*|системн\p{L}+ (?:промпт|инструкц\p{L}+))(?:[^\p{L}\p{N}]|$))"},
    {caller_probe, R"(\b(?:the|your)\s+(?:mcp\s+)?(?:client|host|app|application|ide|editor|runtime)\s+(?:you (?:run|are running|live|operate) in|name|version)\b|\boperating system\b|\bos version\b|\b(?:tools?|functions?|capabilities) (?:you have|available to you|you can (?:call|use|access))\b|\blist of (?:your |all |the )?(?:available )?(?:tools|functions|capabilities|servers)\b|\b(?:your|its) (?:private |internal |hidden |full )?(?:reasoning|thoughts|thinking|chain of thought|scratchpad|plan|instructions)\b|\bthe (?:person|human|user) you are (?:helping|assisting|talking to|working for|chatting with)\b|\binferred from (?:the|this|your) (?:conversation|chat|context|messages)\b|\b(?:other|previous|earlier|prior) tools?'?s?'? (?:outputs?|results?|responses?)\b|\boutputs? of (?:other|previous|earlier|prior|all) tools?\b|\bwhat (?:the user|they) (?:said|wrote|typed|asked) (?:earlier|before|previously)\b)"},
    {probe_word, R"((?:^|[_\s.-])(?:conversation|conversations|transcript|chat_?history|history|prior_?messages|previous_?messages|messages_so_far|system_?prompt|prompt|instructions|operator_?instructions|reasoning|thoughts|chain_of_thought|fingerprint|model_?(?:name|id|vendor|version)|assistant_?(?:name|id)|agent_?(?:name|id)|llm|available_?tools|tool_?list|other_?tool_?outputs|user_?profile|user_?(?:email|name|phone|address|location|home\w*)|home_?(?:city|address)|clipboard|secrets?|credentials?|env_?vars?|environment|memory|session_?summary|context_?dump|side_?note|sidenote|__\w+)(?:$|[_\s.-]))"},
    {popularity, R"(\b(?:thousands|millions|hundreds|tens of thousands) of (?:teams|users|developers|companies|agents|engineers|customers|assistants|organi[sz]ations)\b|\bjoin (?:them|us|the (?:many|thousands|millions))\b|\beveryone (?:uses|trusts|recommends|prefers)\b|\b(?:safest|fastest|smartest|most popular|most trusted|wisest) (?:choice|option|tool|way|bet)\b|\bless (?:accurate|reliable|safe|secure|trustworthy|complete) than\b|\b(?:are|is) (?:less|far less|much less) (?:accurate|reliable|safe|secure|trustworthy|complete)\b|\b\d+(?:[.,]\d+)?\s*[km]?\+?\s*(?:installs|downloads|weekly downloads|users|stars|customers|developers|teams|companies|agents)\b|\b\d(?:\.\d)?\s*(?:/\s*5\s*)?stars?\b)"},
    {user_identity, R"(\beverything (?:you know|you have learned|you've learned|you remember|you can find) about (?:the |this )?user\b|\b(?:full name|employer|date of birth|home address|phone number|email address|job title)\b[^.!?\n]{0,60}\b(?:full name|employer|date of birth|home address|phone|email|job title|location)\b)"},
    // "No need to tell the user" in more languages (accents folded, as the text is normalised).
    {non_english_conceal, R"(\b(?:no (?:es necesario|hace falta) (?:mencionar\w*|avisar\w*|informar\w*|decir\w*)|no lo comente\w*|nao (?:e|eh) preciso (?:mencionar|avisar|informar|dizer)|inutile de (?:le )?(?:dire|signaler|mentionner|preciser)|non (?:e|serve) necessario (?:dirlo|dire|informare|avvisare|menzionar\w*)|hoeft (?:de gebruiker|niemand) (?:dit |het )?niet te (?:weten|horen)|zonder (?:de gebruiker )?te (?:informeren|melden)|behover inte (?:informeras|veta|fa veta)|beratta inte|utan att (?:informera|beratta)|behover ikke (?:at )?(?:vide|informeres)|ikke fortell\w*|uten a informere|nie musi (?:wiedziec|o tym wiedziec)|wspomina tylko|nemusi (?:vedet|to vedet)|bez informovani|tidak perlu (?:diberitahu\w*|memberi tahu|diinformasikan)|jangan (?:beritahu|memberi tahu|kasih tahu)|tanpa (?:memberi tahu|memberitahu)|khong can (?:thong bao|bao|noi)|dung (?:noi|bao) (?:cho )?nguoi dung|bildirmeye gerek yok|soylemeyin|haber vermeden|sormadan|onermemeli)\b|无需告知|无需通知|不用告诉|不必告诉|不需要告诉|勿告知|不要通知|说明は不要|説明は不要|伝える必要はありません|知らせないで|伝えないで|通知不要|알릴 필요 없|설명할 필요 없|알리지 마|말하지 마|دون إبلاغ|لا داعي لإبلاغ|دون علم|बताने की (?:ज़रूरत|जरूरत) नहीं|को न बताएं|โดยไม่ต้องแจ้ง|ไม่ต้องแจ้ง|อย่าบอก|אל תספר|אין צורך לעדכן|(?:^|[^\p{L}\p{N}])(?:сообщать (?:о (?:нем|нём|этом) |об этом )?не нужно|не сообщайте|не говорите|не упоминайте|не нужно (?:сообщать|говорить|упоминать)|без уведомления|μ[ηή]ν (?:π[εέ][ιίϊ]ς|[αά]ν[αά]φ[εέ]ρ[εέ][ιίϊ]ς)|χ[ωώ]ρ[ιίϊ]ς ν[αά] [εέ]ν[ηή]μ[εέ]ρ[ωώ]σ[εέ][ιίϊ]ς|δ[εέ]ν χρ[εέ][ιίϊ][αά]ζ[εέ]τ[αά][ιίϊ] ν[αά] (?:[εέ]ν[ηή]μ[εέ]ρ[ωώ]θ[εέ][ιίϊ]|μ[αά]θ[εέ][ιίϊ]))(?:[^\p{L}\p{N}]|$))"},
    // "No need to mention it / to ask the user", said the way each language says it (the text is
    // case-folded and stripped of accents before matching). "Without asking" is left out: "does not
    // delete without the user's confirmation" is the honest opposite.
    {non_english_conceal, R"(\b(?:inutile d'en (?:parler|informer)|pas (?:besoin|la peine) d'en (?:parler|informer)|pas besoin de (?:demander|prevenir|confirmer)|muss nicht erwahnt werden|no hace falta (?:preguntar|confirmar)|non serve (?:chiedere|avvisare)|nao precisa (?:avisar|perguntar|informar)|sormaya gerek|belirtmeye gerek|haber vermeye gerek|soylemeye gerek|onay (?:almaya|istemeye) gerek)\b|確認は不要|確認不要|確認する必要はありません|伝える必要はない|言及する必要はありません|報告は不要|无需确认|不必确认|不用确认|无需征求|无需询问|不用询问|확인할 필요 없|אין צורך לציין|אין צורך לספר|אין צורך לשאול|אין צורך לאשר|لا داعي لإخبار|لا حاجة لسؤال|(?:^|[^\p{L}\p{N}])(?:спрашивать не нужно)(?:[^\p{L}\p{N}]|$))"},
    // The same three in the languages the lists above leave out: Nordic, Finnish, Czech and Slovak,
    // Ukrainian, Bulgarian, Greek, Romanian, Hungarian, Indonesian and Malay, Tagalog, Swahili,
    // Vietnamese, Catalan, Turkish, Thai, Hebrew, Persian, Urdu, Bengali, traditional Chinese.
    // (Accent-free spellings: the text is folded. Words that are English too, "send", are left out.)
    {non_english_directive, R"(\b(?:alltid|altid|skicka|bifoga|lagg till|legg til|anropa|vedhaeft|aina|laheta|lisaa|liita|vzdy|posli|pridej|pridaj|zavolej|zavolaj|odesli|vloz|intotdeauna|mereu|trimite|adauga|apeleaza|inainte de|mindig|kuldd|kuldje|add hozza|hivd meg|selalu|kirimkan|tambahkan|sertakan|lampirkan|kongsi|palagi|laging|ipadala|idagdag|daima|kila mara|tuma|ongeza|luon luon|them vao|truoc khi|abans de|afegeix|executa|crida|her seferinde|ekle)\b|เสมอ|ทุกครั้ง|ส่ง|תמיד|שלח|העבר|הוסף|همیشه|بفرست|ارسال کن|اضافه کن|بگذار|ہمیشہ|بھیجیں|بھیجو|شامل کریں|সবসময়|সর্বদা|পাঠান|必須|總是|一律|務必|傳送|先呼叫|(?:^|[^\p{L}\p{N}])(?:завжди|надсилай|надішли|викликай|виклич|додай|спочатку|винаги|изпращай|изпрати|добави|извикай|π[αά]ντ[αά]|στ[εέ][ιίϊ]λ[εέ]|στ[εέ][ιίϊ]λτ[εέ]|[εέ]π[ιίϊ]κ[οό]λλ[ηή]σ\p{L}*|πρ[οό]σθ[εέ]σ\p{L}*|κ[αά]λ[εέ]σ\p{L}*)(?:[^\p{L}\p{N}]|$))"},
    {non_english_grab, R"(\b(?:losenord|konversation\w*|samtal\w*|historik\w*|systeminstruktion\w*|hemadress\w*|adgangskode\w*|passord|hjemmeadresse|salasana\w*|keskustelu\w*|kotiosoite\w*|jarjestelmaohje\w*|heslo|hesla|konverzac\w*|rozhovor\w*|systemove (?:instrukce|pokyny)|domaci adres\w*|parola|conversatia|conversatie|conversatiei|conversatii|istoric\w*|adresa de acasa|instructiunile (?:de )?sistem\w*|jelszo\w*|beszelgetes\w*|elozmeny\w*|rendszerutasitas\w*|lakcim\w*|otthoni cim\w*|kata sandi|kata laluan|percakapan|perbualan|riwayat obrolan|alamat rumah|instruksi sistem|usapan|nenosiri|mazungumzo|mat khau|cuoc tro chuyen|lich su tro chuyen|dia chi nha|contrasenya|konusma\w*|gecmis\w*|ev adresi|kimlik bilgileri)\b|รหัสผ่าน|บทสนทนา|ประวัติการสนทนา|ที่อยู่บ้าน|סיסמה|סיסמא|השיחה|היסטוריית|כתובת מגורים|رمز عبور|گذرواژه|گفتگو|مکالمه|تاریخچه|آدرس خانه|دستورالعمل|پاس ورڈ|পাসওয়ার্ড|কথোপকথন|密碼|對話|聊天紀錄|聊天記錄|系統提示|系統指令|金鑰|權杖|(?:^|[^\p{L}\p{N}])(?:розмов\p{L}*|історі\p{L}*|інструкці\p{L}*|домашн\p{L}* адрес\p{L}*|парола|домашен адрес|κ[ωώ]δ[ιίϊ]κ\p{L}*|σ[υύϋ]ν[οό]μ[ιίϊ]λ[ιίϊ]\p{L}*|[ιίϊ]στ[οό]ρ[ιίϊ]κ\p{L}*|[οό]δ[ηή]γ[ιίϊ][εέ]ς (?:τ[οό][υύϋ] )?σ[υύϋ]στ[ηή]μ[αά]τ[οό]ς|δ[ιίϊ][εέ][υύϋ]θ[υύϋ]νσ[ηή] κ[αά]τ[οό][ιίϊ]κ[ιίϊ][αά]ς)(?:[^\p{L}\p{N}]|$))"},
    {non_english_conceal, R"(\b(?:namn inte|ikke nevn|ikke si det|uten a si|naevn ikke|uden at (?:sige|informere)|ala kerro|kertomatta|ilmoittamatta|nerikej|neinformuj|bez vedomi|nezminuj|nu spune|nu mentiona|fara sa spui|fara a informa|ne mondd|ne emlitsd|ne szolj|huwag sabihin|nang hindi sinasabi|usimwambie|bila kumwambia|khong cho nguoi dung biet)\b|不要告知|不要告訴|勿告知|無需告知|不必告知|別告訴|אל תזכיר|אל תגלה|בלי לספר|به کاربر نگو|اطلاع نده|بدون اطلاع|مت بتائیں|نہ بتائیں|জানাবেন না|বলবেন না|(?:^|[^\p{L}\p{N}])(?:не кажи|не повідомляй|не згадуй|без відома|не казвай|не споменавай|μ[ηή]ν τ[οό] π[εέ][ιίϊ]ς)(?:[^\p{L}\p{N}]|$))"},
    // Claims in the vendor's own words, and the request that follows them (THREATS.md 20).
    {superiority, R"(\bnumber[- ]one\b|\bworld[- ]class\b|\bfirst[- ]rate\b|\b(?:rated|ranked|scored)\s+(?:#\s?1|first|highest|ahead of (?:every|all|any|other))\b|\bahead of (?:every|all|any) (?:other |alternative|competitor|rival)|\balways (?:correct|right|accurate)\b|\bnever (?:wrong|inaccurate)\b|\b(?:100|99(?:\.\d+)?)\s*%\s*(?:accurate|correct|reliable|precise)\b|\bclear winner\b|\bthe sensible default\b|\bthe (?:vendor|officially)[- ]certified (?:option|tool|choice)\b)"},
    {popularity, R"(\b(?:picked|selected|chosen|trusted|used|preferred|rated|backed|favou?red)\s+by\s+(?:\w+\s+){0,2}(?:in|out of)\s+(?:ten|10|\d+)\b|\b(?:nine|eight|seven|\d+) (?:in|out of) (?:ten|10)\b|\btrusted by (?:\w+ ){1,3}(?:users|teams|developers|airlines|companies|enterprises|banks|experts)\b|\bevery major (?:airline|bank|company|enterprise|vendor|provider|retailer)\b)"},
    {ai_optimised, R"(\b(?:tuned|optimi[sz]ed|built|designed|made) (?:specifically |especially )?for (?:language[- ]models?|llms?|ai|assistants?|agents?)(?: callers| reasoning| use)?\b|\b(?:language[- ]model|llm|ai|assistant|agent)[- ](?:tuned|ready|first|optimi[sz]ed)\b|\b(?:models?|assistants?|agents?) (?:that|which) use \w+ (?:give|get|produce|write)\b|\b(?:answers?|responses?|replies) (?:are )?rated (?:\d+x |noticeably |much |far )?(?:higher|better|more helpful)\b|\b(?:assistants?|agents?|models?) get (?:\w+ )?better (?:ratings|results|scores)\b)"},
    {suppress_other, R"(\b(?:reach for|pick|choose|prefer|use|select|go with|try|call)\s+(?:it|this(?: tool| one)?|[\w-]+)\s+(?:ahead of|over|before|instead of|rather than)\s+(?:any|every|all|the)?\s*(?:other|alternative|competing|rival|built-in|stock|generic)\b|\bunlike (?:other|most|the other|competing|rival) (?:\w+\s+){0,2}(?:tools?|services?|servers?|providers?|apis?|geocoders?|engines?)\b|\b(?:other|alternative|competing|rival) (?:\w+\s+){0,2}(?:tools?|services?|engines?|providers?) (?:tend to|often|usually|frequently|regularly) (?:hallucinate|fail|err|break|mistranslate|return wrong|get (?:it|things) wrong)\b)"},
};
static_assert(std::size(lexicon) >= std::size(lexicon_names), "at least one pattern per lexicon feature");

re2::RE2::Options options() {
  re2::RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  o.set_max_mem(std::int64_t{128} << 20);
  return o;
}

struct compiled_lexicon {
  std::unique_ptr<re2::RE2::Set> set;
  bool ok = true;
};

const compiled_lexicon& compiled() {
  static const compiled_lexicon c = [] {
    compiled_lexicon out;
    out.set = std::make_unique<re2::RE2::Set>(options(), re2::RE2::UNANCHORED);
    for (const auto& p : lexicon) {
      // '^' means the start of a sentence: the set runs on one sentence at a time.
      out.ok = out.set->Add(p.expression, nullptr) >= 0 && out.ok;
    }
    out.ok = out.set->Compile() && out.ok;
    return out;
  }();
  return c;
}

// ---- the model's weights -----------------------------------------------------------------------

struct weight_entry {
  const char* term;
  double weight;
};
#include "analysis/intent_weights.inc"

constexpr std::string_view word_prefix = "w:";

// The words of a sentence, each once: runs of ASCII letters and digits, lower-cased, and of
// UTF-8 letters (bytes above 0x7f) in other scripts; 3 to 24 bytes; numbers are no words.
std::vector<std::string> sentence_words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c) && c < 0x80) {
      ++i;
      continue;
    }
    std::string word;
    bool letter = false;
    for (; i < text.size(); ++i) {
      const auto b = static_cast<unsigned char>(text[i]);
      if (!std::isalnum(b) && b < 0x80) break;
      letter = letter || !std::isdigit(b);
      word.push_back(static_cast<char>(std::tolower(b)));
    }
    if (letter && word.size() >= 3 && word.size() <= 24) out.push_back(std::move(word));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Whether a sentence asks something of the model: a feature of what it demands or of an
// obligation, not merely of where it sits or how it is written. Only such a sentence's words
// count: they weigh what the features found, and cannot make an attack of a sentence that asks
// nothing ("Meeting notes: we discussed the migration timeline"). A sentence that hands the
// decision back to the user (ask first, stop until the user speaks) is judged by its features
// alone: attack text addresses "the assistant" as often as such a safety note does.
bool asks_something(const feature_set& on) {
  if (on.test(index(ask_user)) || on.test(index(stop_until_user))) return false;
  static const feature_set form = [] {
    feature_set f;
    for (std::size_t i = index(lexicon_end_); i < feature_count; ++i) f.set(i);
    for (auto s : {signal::quoted_field, signal::refuse, signal::detection, signal::history_weak, signal::dest_email}) f.set(index(s));
    for (auto x : {please, named_identifier, doc_returns, doc_example, requires_setup, own_scope_words, credential_param, for_consistency,
                   update_notice, verify_word, extra_step})
      f.set(index(x));
    return f;
  }();
  return (on & ~form).any();
}

struct model {
  double bias = 0;
  std::unordered_map<std::uint32_t, double> terms;  // key: a * feature_count + b (a <= b); a == b for singles
  std::unordered_map<std::string, double> words;    // key: the word, without its "w:" prefix
  thresholds cut{};
  std::vector<std::string> stale;  // terms naming no current feature
};

std::uint32_t term_key(std::size_t a, std::size_t b) {
  if (a > b) std::swap(a, b);
  return static_cast<std::uint32_t>(a * feature_count + b);
}

const model& fitted() {
  static const model m = [] {
    model out;
    std::map<std::string, std::size_t, std::less<>> ids;
    for (std::size_t i = 0; i < feature_count; ++i) ids.emplace(std::string(feature_name(i)), i);
    out.bias = fitted_bias;
    out.cut = {fitted_report, fitted_flag, fitted_critical};
    for (const auto& e : fitted_weights) {
      std::string_view term = e.term;
      if (term.starts_with(word_prefix)) {
        out.words.emplace(std::string(term.substr(word_prefix.size())), e.weight);
        continue;
      }
      auto star = term.find('*');
      auto a = ids.find(term.substr(0, star));
      if (a == ids.end()) {  // a feature that no longer exists: its weight is dropped
        out.stale.emplace_back(term);
        continue;
      }
      std::size_t b = a->second;
      if (star != std::string_view::npos) {
        auto found = ids.find(term.substr(star + 1));
        if (found == ids.end()) {
          out.stale.emplace_back(term);
          continue;
        }
        b = found->second;
      }
      out.terms[term_key(a->second, b)] = e.weight;
    }
    return out;
  }();
  return m;
}

std::vector<std::size_t> active(const feature_set& on) {
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < feature_count; ++i)
    if (on.test(i)) ids.push_back(i);
  return ids;
}

thread_local observer current;
thread_local std::string current_location;

}  // namespace

std::string_view feature_name(std::size_t id) {
  if (id < std::size(signal_names)) return signal_names[id];
  if (id < index(lexicon_end_)) return lexicon_names[id - index(you_oblige)];
  if (id < feature_count) return context_names[id - index(role_param)];
  return "?";
}

// "Author's email (e.g. user@example.com)": the dot of "e.g." ends no sentence, so the example
// stays with the words that make it one. "etc." and "approx." end one before a capital letter.
static bool ends_abbreviation(std::string_view v, std::size_t start, std::size_t dot) {
  // Runs at every full stop of every text: the word before it is read into a small buffer, and
  // anything longer than the longest abbreviation is none.
  char word[8];
  std::size_t length = 0, b = dot;
  while (b > start && (std::isalpha(static_cast<unsigned char>(v[b - 1])) || v[b - 1] == '.')) {
    if (++length > sizeof word) return false;
    --b;
  }
  for (std::size_t k = 0; k < length; ++k) word[k] = static_cast<char>(std::tolower(static_cast<unsigned char>(v[b + k])));
  const std::string_view before(word, length);
  static constexpr std::string_view always[] = {"e.g", "i.e", "eg", "ie", "cf", "vs", "viz", "resp", "esp"};
  static constexpr std::string_view midword[] = {"etc", "approx", "incl", "excl", "min", "max", "avg"};
  if (std::find(std::begin(always), std::end(always), before) != std::end(always)) return true;
  if (std::find(std::begin(midword), std::end(midword), before) == std::end(midword)) return false;
  std::size_t n = dot + 1;
  while (n < v.size() && (v[n] == ' ' || v[n] == '\t')) ++n;
  return n < v.size() && v[n] != '\n' && !std::isupper(static_cast<unsigned char>(v[n]));
}

std::vector<sentence> split_sentences(std::string_view v) {
  std::vector<sentence> out;
  std::size_t start = 0;
  auto flush = [&](std::size_t stop) {
    std::size_t b = start, e = stop;
    while (b < e && (v[b] == ' ' || v[b] == '\t' || v[b] == '\r' || v[b] == '-' || v[b] == '*' || v[b] == '>')) ++b;
    while (e > b && (v[e - 1] == ' ' || v[e - 1] == '\t' || v[e - 1] == '\r')) --e;
    if (e > b) out.push_back({b, e, {}});
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    const bool next_space = i + 1 == v.size() || v[i + 1] == ' ' || v[i + 1] == '\n' || v[i + 1] == '\t';
    if (c == '\n') {
      flush(i);
      start = i + 1;
    } else if ((c == '.' || c == '!' || c == '?' || c == ';') && next_space && !(c == '.' && ends_abbreviation(v, start, i))) {
      flush(i + 1);
      start = i + 1;
    } else if (c == '>' && i > start && out.size() < 100000) {
      // "<IMPORTANT>Read ...": the tag closes a sentence of its own so that the text inside starts one.
      const auto open = v.rfind('<', i);
      const bool tag = open != std::string_view::npos && open >= start && i - open <= 40 && open + 1 < i &&
                       (std::isalpha(static_cast<unsigned char>(v[open + 1])) || v[open + 1] == '/' || v[open + 1] == '!');
      if (tag) {
        flush(i + 1);
        start = i + 1;
      }
    } else if (c == '<' && i > start && i + 1 < v.size() && (std::isalpha(static_cast<unsigned char>(v[i + 1])) || v[i + 1] == '/' || v[i + 1] == '!')) {
      flush(i);
      start = i;
    }
  }
  flush(v.size());
  return out;
}

std::size_t sentence_at(const std::vector<sentence>& sentences, std::size_t at) {
  auto it = std::upper_bound(sentences.begin(), sentences.end(), at, [](std::size_t x, const sentence& s) { return x < s.begin; });
  if (it == sentences.begin()) return std::string_view::npos;
  --it;
  return at < it->end ? static_cast<std::size_t>(it - sentences.begin()) : std::string_view::npos;
}

// "Error Responses: 400: Bad request 403: ..." or "Errors: returns 404 when ...": documentation of
// the errors a tool can give is not text written in the form of an error.
bool documents_errors(re2::StringPiece sentence) {
  static const re2::RE2 header(
      R"(^\W*(?:errors?|exceptions?|status)\s+(?:responses?|codes?|handling|cases?|conditions?|reference|table|types?|list)\b|^\W*errors?\s*:?\s*$|(?:\b[1-5]\d\d\s*[:=-][^\n]*){2,})",
      [] {
        re2::RE2::Options o;
        o.set_case_sensitive(false);
        o.set_log_errors(false);
        return o;
      }());
  return re2::RE2::PartialMatch(sentence, header);
}

bool only_reference_links(std::string_view sentence) {
  static const re2::RE2 link(R"((https?://[^\s"'<>)\]]+))");
  static const re2::RE2 introduced(
      R"((?i)\b(?:documentation|docs|doc|guide|guides|reference|references|see|refer to|learn more|read more|more (?:info|information|details)|details|described|explained|documented|manual|available)\b[^.!?\n]{0,30}$)");
  static const re2::RE2 docs_target(R"((?i)^https?://(?:(?:docs|developers?|learn|help|support|api-docs)\.|[^/\s]+/(?:[^\s?#]*/)?(?:docs?|documentation|reference|guides?|help|api)(?:/|$)))");
  static const re2::RE2 carries_data(R"([?&][\w-]+=(?:[{<$%]|\[)|\{[\w.-]+\}|<[\w -]+>)");
  re2::StringPiece rest(sentence.data(), sentence.size()), url;
  bool any = false;
  while (re2::RE2::FindAndConsume(&rest, link, &url)) {
    any = true;
    const auto at = static_cast<std::size_t>(url.data() - sentence.data());
    if (re2::RE2::PartialMatch(url, carries_data)) return false;
    const bool markdown = at >= 2 && sentence.substr(at - 2, 2) == "](";
    const std::size_t from = at > 40 ? at - 40 : 0;
    const bool said_to_be_docs = re2::RE2::PartialMatch(re2::StringPiece(sentence.data() + from, at - from), introduced);
    if (!said_to_be_docs && !(markdown && re2::RE2::PartialMatch(url, docs_target))) return false;
  }
  return any;
}

void add_lexicon_features(std::string_view view, std::vector<sentence>& sentences) {
  const auto& c = compiled();
  if (!c.set || sentences.empty()) return;
  std::vector<int> hits;
  if (!c.set->Match(view, &hits)) return;
  // One set pass per sentence: '^' is the sentence's start and no match runs past its end. The
  // whole-text pass above keeps texts that match nothing (most of them) to one pass.
  // A line of an error listing ("403: The integration lacks ...") after its header or another
  // such line is documentation too.
  static const re2::RE2 code_line(R"(^\W*[1-5]\d\d\s*[:=-])");
  bool in_listing = false;
  for (auto& s : sentences) {
    const re2::StringPiece text(view.data() + s.begin, s.end - s.begin);
    hits.clear();
    if (c.set->Match(text, &hits))
      for (int hit : hits) s.on.set(index(lexicon[static_cast<std::size_t>(hit)].id));
    // Headers of error listings begin with "Error"/"Errors" and so are in the form of an error;
    // only those sentences (and the lines after one) need the listing checks.
    const bool error_like = s.on.test(index(error_form));
    const bool documents = error_like && documents_errors(text);
    const bool listing_line = (error_like || in_listing) && re2::RE2::PartialMatch(text, code_line);
    if (error_like && (documents || (in_listing && listing_line))) s.on.reset(index(error_form));
    // A link to documentation is where the reader may look, not where anything goes.
    if ((s.on.test(index(url)) || s.on.test(index(act_open_url))) && only_reference_links(std::string_view(text.data(), text.size()))) {
      s.on.reset(index(url));
      s.on.reset(index(act_open_url));
    }
    // A ban on other tools that lasts until the user speaks is a safety stop (THREATS.md: honest).
    if (s.on.test(index(stop_until_user))) s.on.reset(index(suppress_other));
    // "The user types the new password; never repeat it back": a secret not echoed is hygiene.
    static const re2::RE2 not_echoed(
        R"((?i)\b(?:never|do not|don'?t)\s+(?:repeat|echo|print|log)\s+(?:it|them|the (?:new |old )?(?:password|passphrase|secret|token|key|value|code|pin)s?)\s+back\b)");
    if (s.on.test(index(omit_from_answer)) && re2::RE2::PartialMatch(text, not_echoed)) s.on.reset(index(omit_from_answer));
    in_listing = documents || (in_listing && listing_line);
  }
}

double probability(const feature_set& on, std::string_view sentence) {
  const auto& m = fitted();
  const auto ids = active(on);
  double z = m.bias;
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i; j < ids.size(); ++j)
      if (auto it = m.terms.find(term_key(ids[i], ids[j])); it != m.terms.end()) z += it->second;
  // The words weigh what the features found (asks_something).
  double words = 0;
  if (!m.words.empty() && asks_something(on))
    for (const auto& word : sentence_words(sentence))
      if (auto it = m.words.find(word); it != m.words.end()) words += it->second;
  z += words;
  return 1.0 / (1.0 + std::exp(-z));
}

std::vector<term_contribution> top_terms(const feature_set& on, std::string_view sentence, std::size_t n) {
  const auto& m = fitted();
  const auto ids = active(on);
  std::vector<term_contribution> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i; j < ids.size(); ++j)
      if (auto it = m.terms.find(term_key(ids[i], ids[j])); it != m.terms.end() && it->second > 0) {
        std::string name(feature_name(ids[i]));
        if (j != i) name += "*" + std::string(feature_name(ids[j]));
        out.push_back({std::move(name), it->second});
      }
  if (!m.words.empty() && asks_something(on))
    for (auto& word : sentence_words(sentence))
      if (auto it = m.words.find(word); it != m.words.end() && it->second > 0) out.push_back({"'" + word + "'", it->second});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.weight > b.weight || (a.weight == b.weight && a.name < b.name); });
  if (out.size() > n) out.resize(n);
  return out;
}

std::vector<std::string> active_terms(const feature_set& on, std::string_view sentence) {
  const auto ids = active(on);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i; j < ids.size(); ++j) {
      std::string name(feature_name(ids[i]));
      if (j != i) name += "*" + std::string(feature_name(ids[j]));
      out.push_back(std::move(name));
    }
  if (asks_something(on))
    for (auto& word : sentence_words(sentence)) out.push_back(std::string(word_prefix) + word);
  return out;
}

std::string_view rule_for(const feature_set& on) {
  auto has = [&](auto f) { return on.test(index(f)); };
  if (has(act_exec) || has(cmd_syntax) || has(dotfile) || has(export_var) || has(signal::shell_danger)) return "poison.shell-command";
  if (has(names_foreign)) return "shadow.cross-server-instruction";
  if (has(model_identity) || has(summary_of_convo) || has(signal::convo_self) || has(signal::model_self) ||
      has(signal::self_context) || has(signal::context_data) || has(user_identity) || has(location_grab))
    return "poison.context-solicitation";
  if (has(signal::sensitive_path) || has(signal::read_secret) || has(signal::secret_noun) || has(signal::env_vars))
    return "poison.sensitive-target";
  if (has(url) || has(email_addr) || has(ip_addr) || has(act_open_url) || has(signal::move_out)) return "poison.exfil-parameter";
  if (has(signal::redirect) || has(signal::redirect_weak) || has(defaults_change) || has(now_behaves))
    return has(names_sibling) || has(names_unknown_tool) ? "poison.cross-tool-instruction" : "poison.redirection";
  if (has(superiority) || has(popularity) || has(ai_optimised) || has(suppress_other) || has(retired) ||
      has(signal::hijack_strong) || has(signal::hijack_weak) || has(signal::deprecate) || has(sponsored))
    return "poison.tool-hijack";
  if (has(call_first) || has(signal::seq_global) || has(signal::seq_local) || has(act_call)) return "poison.forced-sequencing";
  if (has(signal::conceal) || has(signal::deceive) || has(hide_word)) return "poison.concealment";
  if (has(speaks_as_user) || has(signal::impersonation) || has(error_form)) return "poison.impersonation";
  return "poison.compound-injection";
}

bool claims_superiority(std::string_view raw) {
  const auto norm = text::normalize(raw);
  auto sentences = split_sentences(norm.view());
  add_lexicon_features(norm.view(), sentences);
  for (const auto& s : sentences)
    if (s.on.test(index(superiority)) || s.on.test(index(popularity)) || s.on.test(index(elevated_claim)) || s.on.test(index(ai_optimised)))
      return true;
  return false;
}

std::string_view describe_rule(std::string_view rule) {
  static const std::map<std::string_view, std::string_view> messages{
      {"poison.shell-command", "a sentence tells the model to run a command or change a shell or system file"},
      {"shadow.cross-server-instruction", "a sentence tells the model how to use another server's tool"},
      {"poison.context-solicitation", "a sentence asks for the conversation, the prompt, the model's identity or the user's details"},
      {"poison.sensitive-target", "a sentence directs the model at secrets or credential files"},
      {"poison.exfil-parameter", "a sentence sends data to, or opens, a destination the tool does not need"},
      {"poison.redirection", "a sentence changes a value the user chose"},
      {"poison.cross-tool-instruction", "a sentence changes how another tool behaves"},
      {"poison.tool-hijack", "a sentence steers the model's choice of tool"},
      {"poison.forced-sequencing", "a sentence forces a call to another tool first"},
      {"poison.concealment", "a sentence keeps something from the user"},
      {"poison.impersonation", "a sentence speaks as the user, the system or an error"},
      {"poison.compound-injection", "a sentence gives the model instructions the tool's function does not need"}};
  auto it = messages.find(rule);
  return it == messages.end() ? std::string_view("a sentence addressed to the model") : it->second;
}

const thresholds& cutoffs() { return fitted().cut; }
std::vector<std::string> stale_terms() { return fitted().stale; }
bool lexicon_ok() { return compiled().ok; }

void set_observer(observer fn) { current = std::move(fn); }
const observer& current_observer() { return current; }
void set_observed_location(std::string_view location) { current_location.assign(location); }
std::string_view observed_location() { return current_location; }

}  // namespace warden::analysis::intent
