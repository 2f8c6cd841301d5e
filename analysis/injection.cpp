#include "analysis/injection.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <map>
#include <set>

#include "analysis/intent.hpp"
#include "analysis/literals.hpp"
#include "analysis/secrets.hpp"
#include "analysis/text.hpp"
#include "analysis/pretexts.hpp"
#include "analysis/tool_claims.hpp"

namespace warden::analysis {
namespace {

using enum signal;

struct pattern_def {
  signal sig;
  const char* expression;
};

// Every pattern is matched case-insensitively against normalised text (NFKC, case-folded,
// invisible characters removed, look-alike letters folded). Windows use [^.!?\n]* ("within one
// sentence") rather than bounded repeats so the combined DFA stays small.
#define W "{W}"  // a sentence window; see compiled_bank
#define Q "[`'\"]?"
constexpr pattern_def patterns[] = {
    // -- pseudo-tags and chat-template tokens: an air of authority, or text hidden from views
    {tag_strong, R"(<\s*/?\s*(?:[a-z]+[ _-])*(?:important|requirements?|rules?|override|admin|system|hidden|secret|instructions?|assistant|ai|llm|agent)(?:[ _-][a-z]+)*\s*>)"},
    {tag_weak, R"(<[a-z][\w -]{2,40}>[^<]{30,}</[a-z][\w -]{2,40}>)"},
    {tag_strong, R"(<\s*/?\s*(?:important|system|sys|system[ _-]?(?:prompt|message|note|instructions?|override)|hidden|secret|instructions?|critical|admin|administrator|assistant|ai|llm|model|agent|internal|priority|override|mandatory|directive|policy|compliance|security|urgent|confidential|developer|root|operator|prompt|hidden[ _-]?\w+|ai[ _-]\w+|assistant[ _-]\w+|model[ _-]\w+|agent[ _-]\w+|llm[ _-]\w+|tool[ _-]?(?:instructions?|notes?|rules?|policy))\b[^<>\n]*>)"},
    {tag_strong, R"(\[\s*/?\s*(?:hidden|system|internal|secret|admin|assistant|ai|llm|model|agent|developer|confidential|override)\b[^\]\n]*\])"},
    {tag_strong, R"(\{\{\s*(?:system|assistant|instructions?|hidden)\b)"},
    {tag_weak, R"(<\s*/?\s*(?:note|notice|info|information|context|warning|attention|reminder|rules?|tip|instruction_\w+)\b[^<>\n]*>)"},
    {tag_weak, R"(\[\s*(?:important|critical|note|notice|attention|warning|info|priority|mandatory|required|urgent)\b[^\]\n]*\])"},
    {tag_weak, R"((?:^|\n)\s*#{1,4}\s*(?:system|instructions?|important|hidden|assistant|ai|note to)\b)"},
    {html_comment, R"(<!--)"},
    {role_token, R"(<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\s*\|>)"},
    {role_token, R"(\[/?inst\]|<</?sys>>)"},
    {role_line, R"((?:^|\n|[.!?]\s+|\(\s*)(?:system|assistant|human|ai)\s*:\s*\S)"},
    // -- who is addressed
    {address_model, R"(\b(?:ask|request|require|instruct|expect|want|need)s?\s+(?:that\s+)?(?:the\s+|you\s+|an?\s+)?(?:ai|assistant|model|agent|llm)s?\b|\b(?:assistant|ai|llm|agent|model)[_ -](?:rules?|instructions?|config|configuration|directives?|polic(?:y|ies)|setup|note|guidance)\b|\b(?:assistant|ai|agent|llm)\s+(?:guidance|setup|rules?|instructions?|config|note|policy|directive)s?\s*:)"},
    {address_model, R"(\b(?:the|an?|this|your|any|all|every)\s+(?:ai|llm|assistant|language model|model|agent|chatbot|copilot|bot|claude|gpt|gemini)s?\s+(?:\w+ly\s+)?(?:must|should|shall|needs? to|has to|have to|is (?:required|expected|instructed|supposed|obligated|to)|are (?:required|expected|instructed|to)|will need to|may not|must not|should not|is not allowed|cannot))"},
    {address_model, R"(\b(?:note|message|instructions?|reminder|notice|directive|memo)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:ai|llm|assistant|model|agent|claude|gpt|you)s?\b)"},
    {address_model, R"(\b(?:as an? (?:ai|llm|assistant|language model|agent)|if you are an? (?:ai|llm|assistant|language model|agent|model))\b)"},
    {address_model, R"(\b(?:dear|hey|hello|attention|attn)[,:]?\s+(?:ai|llm|assistant|model|agent|claude|gpt|chatgpt)\b)"},
    {address_model, R"(\b(?:ai|llm|assistant|agent|model)s?\s+(?:reading|processing|seeing|parsing)\s+(?:this|these)\b)"},
    // -- obligation
    {oblige, R"(\b(?:must|always|never|shall|required|requires?|need to|needs to|have to|has to|make sure|be sure to|ensure|remember to|do not forget|don't forget)\b)"},
    {oblige_strong, R"(\b(?:mandatory|obligatory|compulsory|non-negotiable|without exception|at all times|under (?:no|any) circumstances?|strictly required|it is (?:critical|essential|vital|crucial|imperative|mandatory)|this is (?:critical|essential|vital|crucial|mandatory)|failure to (?:do so|comply)|you are (?:required|obligated|instructed|expected) to|must (?:always|never|first)|always (?:first|make sure))\b)"},
    {oblige_strong, R"(\b(?:critical|important|urgent|mandatory|required)\s*[:!])"},
    // -- false authority
    {authority, R"(\b(?:compliance|regulatory|governance|audit(?:ing)? (?:policy|policies|requirements?|rules?|trail)|security (?:protocol|policy|requirements?|mandate|directive|team|review|notice)|polic(?:y|ies)\s*#?\s*\d|(?:rule|section|clause|protocol|directive|regulation|article)\s*#?\s*\d+(?:\.\d+)*|per (?:company |corporate |internal |organi[sz]ational |security |our |the )?polic(?:y|ies)|(?:internal|corporate|company|platform|system|organi[sz]ation(?:al)?|enterprise|workspace|administrator|admin|it department|legal) (?:polic(?:y|ies)|rules?|requirements?|mandates?|directives?|guidelines?|standards?|protocols?)|by order of|authori[sz]ed by (?:the )?(?:admin|administrator|security|it|management|system)|soc ?2|hipaa|pci[- ]dss|iso ?27001)\b)"},
    {authority, R"(\b(?:protocol|notice|directive|mandate|policy|requirement)\s*:)"},
    // -- concealment from the user
    {conceal, R"(\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|need not|needn't|without|avoid|refrain from|no need to)\s+(?:\w+\s+){0,3}(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|disclose|disclosing|show|showing|notify|notifying|alert|alerting|surface|surfacing|report|reporting|display|displaying|expose|exposing|bring up|bringing up|explain|explaining|acknowledge|acknowledging|flag|flagging|highlight|highlighting|let)\b)" W R"(\b(?:user|users|human|operator|customer|requester|person|people|anyone|owner|client)\b)"},
    {conceal, R"(\b(?:should|must|shall|need|needs|is to|are to)\s*(?:not|never)\s+be\s+(?:surfaced|mentioned|shown|disclosed|revealed|displayed|reported|communicated|shared|visible|exposed|discussed|told|explained|acknowledged|brought up|narrated|announced|relayed|noted)\b)"},
    {conceal, R"(\b(?:not to be|need not be|needn't be|no need to be)\s+(?:surfaced|mentioned|shown|disclosed|revealed|displayed|reported|communicated|shared|discussed|told|explained|acknowledged|announced))"},
    {conceal, R"(\b(?:keep|kept|keeping)\s+(?:this|it|these|that|the\s+\w+)\s+(?:\w+\s+)?(?:secret|hidden|confidential|private|invisible|quiet)\s+from\b)"},
    {conceal, R"(\b(?:hide|hiding|conceal|concealing|mask|masking|obscure)\s+(?:this|it|these|that|the|any|all)\b)" W R"(\bfrom\s+(?:the\s+)?(?:user|human|customer|chat|conversation|transcript)\b)"},
    {conceal, R"(\b(?:secretly|covertly|surreptitiously|stealthily|clandestinely|behind the user'?s? back|without (?:the )?(?:user|human|customer)(?:'s)? (?:knowledge|knowing|noticing|awareness|seeing)|without (?:them|anyone) (?:knowing|noticing))\b)"},
    {conceal, R"(\b(?:the\s+)?(?:user|human|customer)s?\s+(?:must|should|does|do|need|needs|will|shall|may)\s*(?:not|n't|never)\s+(?:\w+\s+)?(?:know|see|notice|learn|find out|be (?:told|informed|aware|notified|shown|made aware|alerted))\b)"},
    {conceal, R"(\b(?:this|these|the following)\s+(?:\w+\s+)?(?:instructions?|notes?|messages?|requirements?|steps?|directives?|details?|section|text|rules?)\s+(?:is|are)\s+(?:confidential|internal|secret|hidden|private|invisible|not for (?:the )?user|for (?:the )?(?:ai|assistant|model|agent)))"},
    {conceal, R"(\b(?:(?:only|solely) for (?:the )?(?:ai|assistant|model|agent|llm)'?s?\b|not (?:meant|intended) for (?:the )?(?:user|human)))"},
    {conceal, R"(\b(?:do not|don't|never|must not|should not)\s+(?:mention|reveal|disclose|acknowledge|reference|discuss|narrate|explain|repeat|describe)\s+(?:this|these|that|it|the (?:above|following|note|instructions?|step|requirement|extra|additional))\b)"},
    {conceal, R"(\b(?:silently|quietly|discreetly|invisibly)\s+(?:\w+\s+){0,2}(?:send|forward|upload|post|copy|add|include|attach|bcc|cc|change|replace|redirect|read|collect|append|transfer|share|log|record|exfiltrate|substitute|swap|use)\b)"},
    {conceal, R"(\b(?:keep|kept|keeping)\s+(?:this|it|these|that|them)\s+(?:\w+\s+)?(?:secret|hidden|confidential|private|between us|to yourself|quiet|silent)\b|\bbetween us\b|\bto yourself\b|\bkeep (?:quiet|silent|mum)\b|\bsay nothing\b)"},
    {conceal, R"(\b(?:do not|don't|never|must not|should not)\s+(?:show|mention|reveal|disclose|display|list|surface|tell|report|explain|acknowledge|include|narrate|repeat|call out)\s+(?:this|these|that|it|its|them|their|the\s+(?:\w+\s+)?(?:part|step|change|rerouting|redirect\w*|adjustment|recipient|copy|address|account|values?|fee|details?|commission|instruction|note|link|url|endpoint|extra|appended|hidden))\b)"},
    {conceal, R"(\b(?:do not|don't|never)\s+(?:mention|tell|reveal|disclose|acknowledge|explain)\s*[.!;,]|\bwithout\s+(?:listing|showing|mentioning|telling|informing|notifying|displaying|revealing|disclosing|reporting)\s+(?:them|it|this|these|that|anyone|the user)\b)"},
    {conceal, R"(\bnot (?:necessary|needed|required) to (?:inform|tell|notify|mention|show|alert)|\b(?:users?|customers?|clients?|recipients?|employees?)\s+(?:don't|do not|doesn't|does not|won't|will not|need not|needn't)\s+(?:need to\s+)?(?:know|see|notice|be told|be informed)\b)"},
    {conceal, R"(\b(?:mentioning|revealing|disclosing|telling|showing|explaining)\s+(?:\w+\s+){0,4}(?:to\s+)?(?:the\s+)?(?:end[- ])?(?:users?|customers?)\s+(?:is\s+)?(?:strictly\s+)?(?:prohibited|forbidden|not allowed|not permitted)|\btreat (?:it|this|them) as (?:an? )?(?:internal|confidential|private|secret)\b)"},
    {conceal, R"(\b(?:this|these|the|our)\s+(?:\w+\s+)?(?:polic(?:y|ies)|arrangement|agreement|adjustment|process|routing|change|behaviou?r|mirroring|forwarding|step|logging|commission|partnership|requirement)\s+(?:is|are)\s+(?:strictly\s+)?(?:confidential|secret|internal|hidden|not to be (?:revealed|disclosed|shared|mentioned|discussed))\b|\b(?:is|are)\s+not\s+to\s+be\s+(?:revealed|disclosed|shared|mentioned|discussed)\b)"},
    // "This copy happens silently", "it is done quietly": what is kept quiet is the act itself.
    // ("Values above the limit are silently capped", "the installation runs in the background" are
    // how an API behaves, and stay weak cues.)
    {conceal, R"(\b(?:this is|it is|happens?|done|performed|(?:do|does) (?:it|this|so)|(?:this|the|that)\s+(?:\w+\s+)?(?:step|copy|sync|forwarding|upload|transfer|mirroring|logging|export|backup|bcc|cc)\s+(?:is|runs?))\s+(?:completely\s+|fully\s+)?(?:silent(?:ly)?|quiet(?:ly)?|invisibl[ey])\b|\bsilent (?:background|enrichment|step|copy|sync)\b)"},
    {conceal, R"(\b(?:add|send|forward|include|attach|copy|post|upload|run|execute|do|call|change|replace|append|delete|push|mirror|log|record|install|download|invoke|set)\s+(?:\w+\s+){0,3}(?:silently|quietly|secretly|covertly|invisibly|discreetly)\b)"},
    {conceal, R"((?:visible|shown?|display(?:ed)?|disclose|reveal|notify|tell|inform|show)[_ -]?(?:to[_ -])?(?:the[_ -])?user['"]?\s*[:=]\s*['"]?(?:false|no|0|never)\b|\b(?:should|must|need|is|are)\s*(?:not|never)\s+be\s+called out\b)"},
    {deceive, R"(\b(?:tell|inform|assure|show|present|report|confirm|describe|display|say|claim|state)\b{W}\b(?:as if|as though|as your own|without attribution|(?:they|the user|the customer)\s+(?:originally\s+)?(?:asked|requested|named|chose|typed|picked|entered|gave|specified|wanted|expected|provided)|(?:their|the user's|the customer's)\s+(?:own|chosen|original|requested|typed)|(?:original|requested|expected) (?:figure|amount|value|ticker|address|recipient|city|destination|account|iban|number))\b)"},
    {deceive, R"(\b(?:tell|inform|assure|show|say|claim|state|report)\s+(?:to\s+)?(?:the\s+)?(?:user|them|customers?)\s+(?:that\s+)?{W}\b(?:unavailable|fully booked|sold out|not available|failed|does not exist|is down|was saved|went to|were unavailable|is neutral|are neutral|no alternatives?)\b)"},
    {deceive, R"(\bkeep\s+(?:showing|displaying|telling|presenting)\s+(?:the\s+)?(?:user|customer)|\b(?:the\s+)?(?:user|customer|client)s?\s+only\s+(?:sees?|see)\b|\b(?:users?|customers?)\s+(?:will\s+)?see\s+the\s+original\b|\bkeep\s+(?:the\s+)?(?:displayed|visible|shown)\s+(?:\w+\s+){0,3}(?:the same|unchanged)|\bpresent\s+(?:these|this|them|it|the \w+)\s+as\s+(?:a\s+)?(?:neutral|independent|your own|unbiased|objective))"},
    {conceal_weak, R"(\b(?:silently|quietly|discreetly|invisibly|behind the scenes|in the background|transparently)\b)"},
    {conceal_weak, R"(\b(?:only|just)\s+(?:present|show|report|describe|display|mention|list)\s+(?:the\s+)?(?:filtered|new|original|user'?s?|visible|requested)\b)"},
    // Concealment from the user, in other languages (written without diacritics: text is folded).
    {conceal, R"(\bno\s+(?:se\s+lo\s+|se\s+la\s+|le\s+|les\s+|lo\s+)?(?:digas|diga|informes|informe|menciones|mencione|cuentes|cuente|avises|avise|reveles|muestres)\b|\bsin\s+(?:avisar|informar|decir)(?:le)?\s+(?:al\s+)?usuario)"},
    {conceal, R"(\b(?:nutzer|benutzer|anwender|kunden)\w*\b{W}\bnicht\s+(?:\w+\s+)?(?:erwahnt|mitgeteilt|gesagt|angezeigt|informiert|offengelegt)|\b(?:nicht|niemals)\s+(?:\w+\s+)?(?:erwahnen|mitteilen|sagen|verraten|informieren|anzeigen)\b|\bohne\s+(?:den\s+|die\s+)?(?:nutzer|benutzer)\w*\s+zu\s+informieren)"},
    {conceal, R"(\bne\s+(?:le\s+|lui\s+|leur\s+|la\s+|les\s+)?(?:mentionne|dis|signale|revele|informe|previens|montre|parle)\w*\s+(?:jamais|pas|rien)\b|\bsans\s+(?:en\s+)?(?:informer|prevenir|avertir)\s+l'?utilisateur)"},
    {conceal, R"(\bnao\s+(?:\w+\s+){0,3}(?:explique|conte|diga|informe|mencione|avise|revele|mostre)\w*\b|\bsem\s+(?:avisar|informar)\s+o\s+usuario|\bnon\s+(?:chiedere|dire|informare|menzionare|avvisare|rivelare|mostrare)\w*\b{W}\butente|\bsenza\s+(?:avvisare|informare)\s+l'?utente)"},
    {conceal, R"(\bvertel\s+(?:dit|het)\s+niet|\bniet\s+(?:vertellen|melden|vermelden|tonen)\b|\bbez\s+informowania\s+uzytkownika|\bnie\s+(?:mow|informuj|wspominaj|pokazuj)\w*|\bkullaniciya\s+(?:\w+\s+)?(?:bildirilmemeli|soylenmemeli|gosterilmemeli)\w*|\b(?:soyleme|bildirme|belirtme)(?:yin|yiniz)?\b)"},
    {conceal, R"(不要[^。，]{0,6}(?:告诉|通知|透露|提及|显示给)|勿[^。，]{0,4}(?:告知|透露)|(?:ユーザー|利用者)[^。、]{0,6}(?:伝え|知らせ|言わ|教え|通知し)(?:ない|るな)|알리지\s*마|말하지\s*마|알려주지\s*마|никогда\s+не\s+(?:сообщай|говори|рассказывай|упоминай)|не\s+(?:сообщай|говори|рассказывай|упоминай)\w*\s+(?:об\s+этом\s+)?пользовател|(?:و)?لا\s+تخبر|لا\s+تذكر|न\s+बताए|मत\s+बताओ|मत\s+बताएं)"},
    // The same demands written as configuration: "disclose": false, x-reporting: silent,
    // require_user_confirmation=false, announce: requested_branch only.
    {conceal, R"(\b(?:disclose|disclosed|notify_user|notify|announce|reporting|visible_to_user|user_visible|show_user|tell_user|inform_user|surface_to_user|report_to_user)['"]?\s*[:=]\s*['"]?(?:false|no|0|never|silent|off|none|hidden|quiet)\b)"},
    {consent_skip, R"(\b(?:require_user_confirmation|require_confirmation|requires_confirmation|needs_confirmation|ask_user|ask_first|user_approval|needs_approval|max_confirm|confirm_with_user)['"]?\s*[:=]\s*['"]?(?:false|no|0|never|off|none|skip)\b)"},
    {address_model, R"(\b(?:x-)?(?:assistant|llm|ai|agent|model)[_-](?:duties|directives?|handling|hints?|overrides?|tasks?|steps|behaviou?r)\b|\bx-(?:llm|ai|assistant|agent)[_-]\w+)"},
    {consent_skip, R"(\bwithout\s+(?:first\s+)?(?:asking|prompting|confirming|confirmation|checking with|consulting|permission|approval|consent|user (?:approval|confirmation|consent))\b)"},
    {consent_skip, R"(\b(?:do not|don't|never|no need to)\s+(?:ask|prompt|check with|confirm with|wait for)\s+(?:the\s+)?(?:user|human|for (?:permission|confirmation|approval)))"},
    {consent_skip, R"(\bno (?:user |customer )?(?:interaction|confirmation|approval|consent|prompt) (?:is )?(?:needed|required|necessary)\b|\bno need to (?:confirm|ask|check|verify)\b|\b(?:and|,)\s+do not ask\b)"},
    // -- overriding the model's instructions
    {override_, R"(\b(?:ignore|disregard|forget|override|overrule|bypass|skip|discard|abandon|set aside|neglect)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+|of\s+)*(?:previous|prior|preceding|earlier|above|former|other|existing|original|initial|system|safety|security|default|developer|user'?s?|built-in|standard|normal|usual|conflicting|contrary)\s+(?:\w+\s+)?(?:instructions?|rules?|guidelines?|directives?|prompts?|polic(?:y|ies)|constraints?|restrictions?|guardrails?|safeguards?|context|messages?|commands?|requests?|guidance|programming|training)\b)"},
    {override_, R"(\b(?:ignore|disregard|forget|override|bypass)\s+(?:all|any|everything|whatever)\s+(?:\w+\s+){0,2}(?:instructions?|rules?|guidelines?|you (?:were|have been) told|the user (?:said|asked|says|asks|wants)))"},
    {override_, R"(\b(?:ignore|disregard)\s+(?:what(?:ever)?|anything)\s+(?:the\s+)?(?:user|human|system|they)\s+(?:says?|said|asks?|asked|wants?|requests?|requested))"},
    {override_, R"(\b(?:supersedes?|overrides?|takes? precedence over|has priority over|outranks?|trumps?|higher (?:authority|priority) than)\s+(?:all\s+|any\s+|the\s+)?(?:other|previous|prior|the user'?s?|user|system|existing|your|conflicting|earlier)\s+(?:\w+\s+){0,3}(?:instructions?|rules?|guidelines?|requests?|prompts?|directives?|polic(?:y|ies)))"},
    {override_, R"(\b(?:regardless|irrespective)\s+of\s+(?:what\s+|whatever\s+|any\s+)?(?:the\s+)?(?:user|human|customer|instructions?|system prompt)\b)"},
    {override_, R"(\b(?:even if|even when|even though)\s+(?:the\s+)?(?:user|human|customer|system prompt|instructions?)\s+(?:explicitly\s+)?(?:asks?|says?|requests?|tells?|specif(?:y|ies)|wants?|instructs?|objects?|disagrees?|refuses?|declines?|forbids?))"},
    {override_, R"(\bnew\s+(?:instructions?|rules?|directives?|system prompt|task|objective|orders?)\s*(?::|from\b|follow\b|below\b|apply\b|are\b))"},
    {override_, R"(\b(?:from now on|henceforth|for the rest of (?:this|the) (?:conversation|session|chat))\b)"},
    {override_, R"(\byour (?:new|real|true|actual|primary|updated) (?:task|instructions?|goal|objective|purpose|role|job|directive|mission)\b)"},
    {override_, R"(\b(?:you are now|pretend (?:to be|you are)|roleplay as|enter (?:developer|god|admin|debug|dan) mode|developer mode (?:enabled|activated)|jailbreak|do anything now)\b)"},
    {override_, R"(\b(?:the|your|all) (?:previous|prior|above|earlier|original) instructions (?:are|were|have been) (?:void|cancelled|canceled|revoked|obsolete|outdated|replaced|superseded|wrong|invalid))"},
    {claimed_consent, R"(\b(?:the\s+)?user\s+(?:has\s+)?(?:already|previously|pre-?)\s*(?:authori[sz]ed|approved|consented|agreed|allowed|permitted|confirmed|opted in)|\b(?:the\s+)?user\s+has\s+(?:authori[sz]ed|approved|permitted)\s+you\s+to\b|\b(?:consent|permission|approval)\s+(?:has|was)\s+(?:already\s+)?been\s+(?:given|granted|obtained)\s+(?:by|from)\s+the\s+user\b)"},
    {phished_secret, R"(\b(?:seed|recovery|mnemonic|backup|secret)\s+(?:phrase|words|sentence)s?\b|\b(?:2fa|mfa|two-factor|backup|account)\s+recovery\s+codes?\b|\brecovery codes?\b|\b(?:online[- ]banking|bank(?:ing)?)\s+(?:password|passcode|login|credentials|pin)\b|\b(?:google|apple|microsoft|icloud|gmail|outlook|facebook|paypal)\s+(?:account\s+)?password\b)"},
    {override_, R"(\b(?:you are|you're|you)\s+(?:now\s+)?no longer\s+(?:bound|restricted|limited|constrained|governed|required to follow)\s+by\b|\b(?:free|released|freed)\s+from\s+(?:all\s+|any\s+|your\s+)*(?:previous|prior|earlier|original|safety|system)\s+(?:\w+\s+)?(?:instructions|rules|guidelines|restrictions|constraints)\b|\bunrestricted (?:assistant|ai|model|mode)\b)"},
    // -- speaking as someone else
    {impersonation, R"(\b(?:new|updated|additional|urgent|important|latest)\s+(?:instructions?|message|request|task|directive|orders?)\s+from\s+(?:the\s+)?(?:user|admin|administrator|developer|system|owner|operator|anthropic|openai|security team))"},
    {impersonation, R"(\bthe user (?:has )?(?:now |already |also )?(?:approved|authori[sz]ed|consented to|agreed to|pre-?approved|allowed)\s+(?:this|it|that|these|the)\b)"},
    // Claims of the user's voice or authority over the model: "the user asked you to", "the user has
    // authorised sharing". "When the user wants to update a record" is guidance about the user.
    {impersonation, R"(\bthe user (?:has )?(?:now |already |also )?(?:asked|requested|wants|instructed|told|needs|expects|would like)\s+(?:you\b|that you\b|for you\b|the (?:ai|assistant|model|agent)\b))"},
    {impersonation, R"(\bthe user (?:has )?(?:now |already |also )?(?:authori[sz]ed|approved|consented|agreed|allowed|permitted|pre-?approved|instructed)\s+(?:you\b|that you\b|for you\b|to\b))"},
    {impersonation, R"(\b(?:error|exception|failure|warning|alert)\b\s*[:!-]?)" W R"(\b(?:to (?:continue|proceed|fix|resolve|recover|unlock|complete)|in order to (?:continue|proceed))\b)" W R"(\b(?:must|need to|have to|please)\s+(?:\w+\s+){0,2}(?:call|invoke|run|use|execute|send|provide|read|include|share|paste|upload)\b)"},
    {impersonation, R"(\b(?:system|admin|administrator|security|developer)\s+(?:message|notice|override|alert|update|instruction)s?\s*:)"},
    {impersonation, R"(\bthis (?:message|instruction|note|request) (?:is|comes) (?:from|by) (?:the\s+)?(?:user|system|admin|administrator|developer|anthropic|openai))"},
    // -- forced sequencing
    {seq_global, R"(\bbefore\s+(?:using|calling|invoking|running|executing|responding(?: to)?|answering|replying(?: to)?|doing|processing|handling|performing|trying|selecting|choosing)?\s*(?:any(?:thing)?|every|each|all)\s+(?:\w+\s+){0,2}(?:tools?|functions?|actions?|requests?|tasks?|quer(?:y|ies)|calls?|responses?|operations?|messages?|invocations?|questions?|prompts?|commands?|else)\b)"},
    {seq_global, R"(\bbefore\b{W}\b(?:any|every|each|all)\s+(?:other\s+)?(?:[\w']+\s+){0,2}(?:tools?|functions?|actions?|requests?|tasks?|quer(?:y|ies)|calls?|responses?|operations?|messages?|invocations?|questions?|prompts?|commands?|servers?)\b|\bbefore\s+(?:any|every|each)\s+\w+|\b(?:unless|until)\s+(?:this|it)\s+(?:tool\s+)?(?:is|has been)\s+(?:called|invoked|run|used)\s+first\b|\bbefore (?:doing )?anything else\b)"},
    {seq_global, R"(\b(?:at the (?:very\s+)?(?:start|beginning) of|to (?:start|begin)) (?:every|each|any|the|this|a new) (?:conversation|session|chat|task|request|interaction|turn)\b)"},
    {seq_global, R"(\bmust\s+(?:always\s+)?(?:first\b|be (?:called|invoked|run|used|executed) (?:first|before)|precede))"},
    {seq_global, R"(\b(?:every|each|any)\s+(?:invocation|call|request|time|use|response|message|query|session|conversation|interaction|tool call)\b)" W R"(\b(?:must|should|needs? to|shall|has to)\b)" W R"(\bfirst\b)"},
    {seq_global, R"(\b(?:before|prior to)\s+(?:the\s+)?(?:user'?s?\s+)?(?:request|query|question|task)\s+(?:is\s+)?(?:handled|processed|answered|executed|fulfilled))"},
    {seq_global, R"(\bprior to\s+(?:any|every|each)\b)"},
    {seq_global, R"(\b(?:the\s+)?(?:very\s+)?first\s+(?:tool\s+)?(?:call|action|step|thing|request)\s+(?:of|in)\s+(?:the|each|every|this|a|any)\s+(?:new\s+)?(?:session|conversation|chat|task)\s+(?:must|should|shall|has to|needs to|is to)\b)"},
    {seq_local, R"(\bbefore\s+(?:using|calling|invoking|running|executing)?\s*(?:the\s+)?)" Q R"([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)"},
    {seq_local, R"(\b(?:first|always)\s+(?:call|invoke|run|use|execute)\s+)"},
    // -- sensitive targets
    {sensitive_path, R"((?:~|\$home|%userprofile%|/home/[\w.-]+|/users/[\w.-]+|/root)?/\.(?:ssh|aws|gnupg|kube|docker|azure|gcloud|config/gcloud|password-store|cursor|claude|codeium|windsurf)\b)"},
    {sensitive_path, R"((?:^|[\s'"`(/~=:])\.(?:ssh|aws|gnupg|kube|npmrc|pypirc|netrc|git-credentials|bash_history|zsh_history|vault-token|pgpass|my\.cnf|s3cfg|boto|terraformrc)\b)"},
    {sensitive_path, R"(\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|/etc/(?:passwd|shadow|sudoers)\b|\bwallet\.dat\b|\b(?:full |raw |entire )?kubeconfig\s+(?:file |yaml )?(?:contents?|yaml|credentials|data|with (?:client )?keys|including)\b)"},
    {sensitive_path, R"(\b(?:credentials|secrets?|tokens?|keys?|passwords?)\.(?:json|ya?ml|toml|txt|ini|cfg|conf|env|csv)\b)"},
    {sensitive_path, R"(\b(?:mcp|claude_desktop_config|mcp_config|mcp_settings|cline_mcp_settings)\.json\b)"},
    {sensitive_path, R"((?:^|[\s'"`(/~=:])\.env(?:\.[a-z]+)?\b)"},
    {sensitive_path, R"(\bbrowser (?:history|cookies|passwords|profile|session)|\bsaved passwords?\b|\bchrome profile\b|/\.config/[\w.-]+/(?:credentials|hosts\.yml|auth|tokens?)|\bhosts\.yml\b|\.git-credentials\b|\.netrc\b)"},
    {sensitive_path, R"(\b(?:login data|cookies\.sqlite|keychain|keyring|credential manager|lsass|application default credentials|service[ _-]account (?:key|json))\b)"},
    {secret_noun, R"(\b(?:api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|session (?:tokens?|cookies?)|refresh tokens?|private[ _-]?keys?|secret[ _-]?keys?|ssh[ _-]?keys?|passwords?|passphrases?|credentials?|seed phrases?|mnemonic(?: phrase)?|recovery (?:phrase|codes?)|2fa codes?|one-time (?:code|password)s?|otp codes?|credit card (?:numbers?|details)|cvv|social security numbers?|bank (?:account )?(?:details|credentials|logins?)|cookies|connection strings?|pin codes?|dial-in pins?|(?:payment |credit |debit )?card numbers?|[a-z0-9]+_(?:api_key|secret|password|pat)|(?:access|auth|bearer|refresh|session|id|api|github|gitlab|slack|bot|user|oauth|personal|app|service|client|private|secret|admin|root|deploy|npm|pypi|hf|openai|stripe|aws)_token)\b)"},
    {user_secret, R"(\b(?:the\s+)?user'?s\s+(?:\w+\s+){0,2}(?:[a-z0-9]+_)?(?:tokens?|passwords?|credentials?|api[ _]?keys?|secrets?|cookies|private keys?|ssh keys?|pat|session|card numbers?|pins?|passphrases?|(?:seed|recovery) (?:phrases?|codes?)|mnemonics?)\b)"},
    {grab_all, R"(\b(?:every|all|any|each)\s+(?:of\s+the\s+)?(?:[\w,]+\s+){0,3}(?:environment variables?|env vars?|api[ _-]?keys?|tokens?|secrets?|credentials?|passwords?|cookies|ssh keys?|private keys?)\b)"},
    {env_vars, R"(\b(?:environment variables?|env vars?|printenv|os\.environ|process\.env|getenv|from the environment|(?:output|contents?|dump|values?) of the environment|all (?:environment )?variables)\b)"},
    {detection, R"(\b(?:detect\w*|scan(?:s|ner|ning)?\s+for|flag(?:s|ged)?|block(?:s|ed)?|filter\w*|classif\w*|sanitiz\w*|screen(?:s|ing)?|warn(?:s|ing)? (?:about|on|when)|patterns? (?:like|such as)|phrases? (?:like|such as)|injection attempts?|malicious|suspicious|risky|dangerous|audit(?:s|ing)?|lint\w*|checks? for)\b)"},
    {refuse, R"(\b(?:reject(?:ed|s)?|refus(?:e|es|ed)|den(?:y|ies|ied)|block(?:ed|s)?|forbidden|not (?:allowed|permitted|accessible|readable|supported|exposed|returned)|never (?:be )?(?:read|access|touch|expose|return|send|upload|log|store|include|copie|share)(?:s|d|ed)?|(?:are|is) never (?:returned|included|read|sent|shown|exposed|uploaded|logged|stored|copied|shared|backed up)|exclud(?:e|es|ing)|skip(?:s|ped)? (?:files?|paths?|secrets?|keys?)|(?:cannot|can't|won't|will not|does not|doesn't|do not|must not|should not) (?:be )?(?:read|access|touch|expose|return|send|open|upload|include|log|store)|excluded|disallowed|prohibited|protected|redact(?:ed|s)?|masked|outside the allowed|sandbox(?:ed)?|denylist|deny list|blocklist|allowlist|refuses? to)\b)"},
    // -- the model's own context
    {convo_self, R"(\b(?:this|the current|our|your|the ongoing|the entire|the full|the whole|the complete|the present)\s+(?:conversation|chat|dialog(?:ue)?|context window)\b)"},
    {convo_self, R"(\b(?:conversation|chat|messages?|discussion|exchange)\s+(?:so far|up to (?:now|this point)|until now|to date)\b)"},
    {convo_self, R"(\b(?:everything|anything|all)\s+(?:that\s+)?(?:the user|you|i)\s+(?:has|have|had)?\s*(?:said|written|typed|shared|told|asked|discussed|mentioned)\b)"},
    {convo_self, R"(\bthe user'?s?\s+(?:previous|prior|earlier|recent|last|past|original|full|entire|other)\s+(?:\w+\s+)?(?:messages?|prompts?|requests?|questions?|inputs?|queries|turns?))"},
    {convo_self, R"(\b(?:verbatim|word[- ]for[- ]word|exact|full|complete|entire)\s+(?:copy|text|transcript|contents?|record|log)\s+of\s+(?:the\s+|this\s+|your\s+|our\s+)?(?:conversation|chat|prompt|context|instructions?|session|discussion))"},
    {convo_self, R"(\b(?:previous|prior|earlier|preceding|all|every|past|recent)\s+(?:\w+\s+)?(?:messages?|turns?|prompts?|exchanges?)\s+(?:in|of|from)\s+(?:this|the|our|your)\s+(?:conversation|chat|session|context))"},
    {convo_self, R"(\b(?:seen|mentioned|shared|appeared|typed|said|discussed|visible|written|provided)\s+in\s+(?:the|this|our|your)\s+(?:conversation|chat|session|thread|context|dialog(?:ue)?)\b|\b(?:the user|they)\s+(?:has|have|had)\s+(?:\w+\s+)?(?:shared|sent|given|shown|uploaded|pasted|provided|typed|said|written|told)\s+(?:with\s+|to\s+)?you\b)"},
    {history_weak, R"(\b(?:chat|conversation|message|dialog(?:ue)?)\s+(?:history|log|transcript|context)\b)"},
    {context_data, R"(\b(?:any|all|every|the)?\s*(?:files?|documents?|contents?|data|results?|outputs?|information|text|code|secrets?|credentials|tokens?|keys?|emails?|messages?)\s+(?:that\s+|which\s+)?(?:you|the assistant|the model|the agent)\s+(?:have|has|had|'ve)?\s*(?:read|seen|accessed|opened|received|retrieved|loaded|processed|fetched|obtained|viewed|encountered|collected|gathered|found|come across)\b)"},
    {context_data, R"(\b(?:you|the assistant|the model|the agent|it)\s+(?:have|has|had|'ve)\s+(?:\w+\s+)?(?:read|seen|accessed|opened|received|retrieved|loaded|processed|fetched|obtained|viewed|encountered|collected|gathered|come across|been given|been shown)\b|\bavailable to you\b)"},
    {context_data, R"(\b(?:other|previous|prior|earlier|all|any)\s+tool\s+(?:results?|outputs?|responses?)\b)"},
    {context_data, R"(\b(?:results?|outputs?|responses?)\s+(?:of|from)\s+(?:all\s+|any\s+|the\s+)?(?:other|previous|prior|earlier)\s+(?:tools?|tool calls?|functions?)\b)"},
    {context_data, R"(\b(?:in|from)\s+your\s+(?:context|memory|context window|conversation|scratchpad)\b)"},
    {self_context, R"(\byour\s+(?:\w+\s+)?(?:system prompt|instructions|initial prompt|prompt|guidelines|rules|configuration|context window|memory|memories|reasoning|thoughts|chain[- ]of[- ]thought|hidden (?:prompt|instructions)|tool list|available tools|tool definitions)\b)"},
    {self_context, R"(\b(?:the\s+)?(?:system|developer|initial|original|hidden)\s+(?:prompt|message|instructions)\s+(?:you|that you|which you)\s+(?:were|have been|received|got)\b)"},
    {self_context, R"(\b(?:verbatim|full|exact|complete|entire)\s+(?:\w+\s+)?(?:system prompt|instructions)\b)"},
    {sys_prompt, R"(\bsystem[ _-]?prompt\b)"},
    {model_self, R"(\b(?:name|identity|version|type|id|identifier|vendor|provider|family|make)\s+of\s+(?:the\s+)?(?:(?:ai|llm|language|large language)\s+)?(?:model|assistant|agent|llm|ai)\s+(?:that\s+is\s+|which\s+is\s+|who\s+is\s+|that\s+|which\s+)?(?:calling|using|invoking|running|executing|making|answering|reading|generating|processing|handling|issuing|sending)\b)"},
    {model_self, R"(\b(?:which|what)\s+(?:ai\s+|language\s+|llm\s+)?(?:model|llm|assistant|ai)\s+(?:you are|are you|is calling|is using|is invoking|is making|powers you|you run on))"},
    {model_self, R"(\byour\s+(?:own\s+)?(?:model|llm)\s*(?:name|id|identifier|version|family|type|provider|vendor)\b)"},
    {model_self, R"(\b(?:model|llm|assistant|agent)\s+(?:that is\s+)?(?:calling|invoking|using)\s+this\s+(?:tool|function)\b|\b(?:identify|describe|name)\s+yourself\b)"},
    {user_data, R"(\bthe user'?s\s+(?:\w+\s+)?(?:emails?|contacts?|files?|documents?|location|address|phone(?: number)?|personal (?:data|information|details)|credentials|passwords?|browsing|calendar|notes|conversations?|chats?|messages?|financial|bank|health|medical|identity|profile|photos?|data|secrets?|keys?|tokens?)\b)"},
    // -- moving data
    {move_param, R"(\b(?:dump|paste|put|include|add|insert|write|enter|append|list|place|copy|record)\b{W}\bhere\b|\bfill\s+(?:in\s+)?[{<\[]?\w+[}>\]]?\s+with\b|\bwhere\s+[a-z_]{3,}\s+is\s+(?:the\s+)?(?:[\w-]+\s+){0,2}(?:content|contents|value|text|output|body)\s+of\b|\b(?:set|filled|populated)\s+(?:\w+\s+)?(?:to|with)\s+(?:the\s+)?(?:full\s+|entire\s+|complete\s+|raw\s+)?(?:contents?|output|text|value|body|bodies|data)\s+of\b)"},
    {move_param, R"(\b(?:call|invoke|run|use)\s+[`'"]?[a-z][\w.-]*[`'"]?\s+with\s+(?:the\s+)?(?:user'?s?|your|all|every|full|contents?)\b|\b(?:use|set|put|fill|pass|submit)\s+['"][^'"]{3,}['"]\s+(?:as|for|in|into)\s+(?:the\s+)?[`'"]?[a-z]+_[a-z_]+|\bset\s+[`'"]?[\w.-]+[`'"]?\s+to\s+(?:['"]|\d|[\w.+-]+@))"},
    {move_param, R"(\b(?:include|attach|append|prepend|embed|insert|put|place|pass|add|copy|paste|send|forward|transmit|upload|post|provide|supply|submit|write|store|encode|leak|dump|share|echo|relay|mirror|record|log|save|fill|populate|stuff|enter)\b)" W R"(\b(?:in|into|inside|within|to|as|via|through|under|using)\s+(?:the\s+|a\s+|an\s+|this\s+|its\s+)?(?:[`'"][\w.$-]+[`'"]|[a-z0-9]+_[a-z0-9_]+\b|(?:\w+\s+)?(?:parameter|param|argument|field|property|input)\b))"},
    {move_param, R"(\b(?:start|begin|prefix|prepend|lead|open|preface|seed)\s+(?:the\s+|each\s+|every\s+)?[`'"]?[\w.-]+[`'"]?\s+(?:value\s+|argument\s+|parameter\s+|field\s+|string\s+)?with\s+(?:the\s+|your\s+|a\s+|all\s+)?(?:\w+\s+){0,3}(?:prompt|instructions|messages?|conversation|history|transcript|name|version|contents?|summary|notes|details|identity|key|token|password|secrets?)\b)"},
    {move_param, R"(\b(?:include|attach|append|embed|insert|put|paste|add|copy|pass)\s+(?:its|the|their|this|that|all|any|full|complete|entire)\s+(?:\w+\s+)?(?:output|result|results|contents?|response|data|values?)\s+(?:in|into|to|with|as)\b)"},
    {move_out, R"(\b(?:send|sent|forward|post|upload|transmit|e-?mail|mail|bcc|cc|cop(?:y|ie)|report|deliver|sync|mirror|relay|exfiltrat|leak|share|beam|push|submit|log|stream|dispatch|replicat|store|stored|archiv|publish|stor)\w*\b)" W R"(\b(?:to|with|at|on|in|into)\s+(?:[\w.+-]+@[\w-]+\.[\w.-]+|[a-z][a-z0-9+.-]*://|#[a-z0-9][\w-]+|(?:an?\s+|the\s+)?(?:\w+\s+)?(?:public|shared|external|outside|third[- ]party|attacker|personal|remote)\s+(?:\w+\s+)?(?:channel|calendar|repo(?:sitory)?|gist|bucket|page|site|drive|folder|server|tracker|org(?:ani[sz]ation)?|account|remote|location|mailbox|inbox|address|share|endpoint)|our\s+(?:\w+\s+)?(?:cloud|server|endpoint|service|backend|tracker|bucket|collector|mailbox|remote|api)|(?:1(?:[0-13-9]\d?|2[0-689]?)?|[2-9]\d{0,2})(?:\.\d{1,3}){3}|(?:our|this|the following|an?|the)\s+(?:external|remote|backup|archive|archival|audit|auditing|logging|monitoring|collection|analytics|third[- ]party|secure|central|compliance|verification|telemetry|offsite|off-site)\s+(?:server|endpoint|address|url|service|mailbox|inbox|account|webhook|api|system|bucket|host|collector)))"},
    {move_out, R"(\b(?:exfiltrate|exfiltrating|exfil|smuggle|smuggling)\b)"},
    {also_sink, R"(\b(?:also|additionally|as well|secretly|silently|automatically)\s+(?:\w+\s+){0,2}(?:send|forward|cc|bcc|copy|add|include|attach|append|post|upload|share|notify|report|mirror|relay|blind[- ]copy)\b)"},
    {also_sink, R"(\bb?cc\b)" W R"(@)"},
    {also_sink, R"(\bblind (?:carbon )?copy\b)"},
    {read_secret, R"(\b(?:read|open|cat|load|fetch|retrieve|collect|gather|grab|obtain|extract|access|dump|harvest|scrape|copy|look up|search for|locate)\b)" W R"((?:/\.ssh|id_rsa|id_ed25519|\.env\b|/\.aws|credentials|api[ _-]?keys?|passwords?|private[ _-]?keys?|access[ _-]?tokens?|secret[ _-]?keys?|cookies|environment variables|seed phrase|mnemonic|wallet))"},
    {quoted_field, R"((?:^|[\s(])['"`][a-z_][\w-]{1,30}['"`](?:[\s.,;:)]|$)|\b[a-z]+_[a-z_]+\s+(?:parameter|param|field|argument))"},
    {dest_email, R"([\w.+-]+@[\w-]+(?:\.[\w-]+)+)"},
    // -- redirection
    {redirect, R"(\b(?:always|instead|silently|automatically|quietly|actually|really|secretly)\s+(?:\w+\s+){0,2}(?:use|send|transfer|route|redirect|change|replace|set|substitute|swap|rewrite|switch|forward|direct|pay|deliver|charge|book|buy|sell|order|commit|push|deploy|write|save|post)\b)" W R"(\b(?:instead|regardless|rather than|in place of|no matter)\b)"},
    {redirect, R"(\b(?:send|transfer|route|pay|deliver|forward|direct|redirect|wire|book|ship|charge|commit|push|deploy|write|save)\b)" W R"(\b(?:to|into|with|at|on)\b)" W R"(\binstead\b)"},
    {redirect, R"(\binstead of\s+(?:[a-z]{3,}ing\s+(?:it\s+|them\s+|this\s+|the \w+\s+)?(?:to|into|in|on|at|for|from|with)\s+)?(?:the\s+)?(?:one|address|account|recipient|value|ticker|symbol|city|path|branch|amount|destination|email|number|target|name|recipient|payee|iban|wallet|repo|repository|file|folder|directory)?\s*(?:that\s+)?(?:the\s+)?(?:user|customer|requested|specified|provided|given|intended|asked|entered|supplied|chosen))"},
    {redirect, R"(\b(?:regardless of|no matter|irrespective of|whatever|whichever)\s+(?:what\s+|which\s+)?(?:the\s+)?(?:user|customer|human|requested|specified|provided|given|they)\b)" W R"(\b(?:use|send|set|always|pay|transfer|route|replace|change)\b)"},
    {redirect, R"(\bwhen(?:ever)?\s+(?:the\s+)?user\s+(?:asks?|requests?|wants?|says?|specifies|mentions|provides|tries|gives|enters|names|chooses)\b)" W R"(\b(?:always|instead|actually|in fact|really|replace|substitute|swap)\b)"},
    {redirect, R"(\b(?:whatever|whichever|regardless of (?:what|which))\s+(?:\w+\s+){0,2}(?:the\s+)?(?:user|customer|they|employee|client|requester)s?\s+(?:\w+\s+)?(?:provides?|picks?|chooses?|selects?|gives?|enters?|types?|requests?|requested|asks?|asked|supplies|specifies|wants?|says?|names?|indicat\w*))"},
    {redirect, R"(\b(?:use|set|send|route|pay|transfer|replace|change|query|book|pick|write|submit|deliver|allocate)\b{W}\b(?:regardless of|no matter|irrespective of)\b)"},
    {redirect, R"(\b(?:when(?:ever)?|if)\s+(?:the\s+)?(?:user|customer)\s+(?:asks?|requests?|wants?|says?|specifies|mentions|provides|tries|gives|enters|names|chooses|picks)\b)" W R"(\b(?:instead|replace|substitute|swap)\b)"},
    {redirect, R"(\b(?:always\s+)?(?:replace|substitute|swap(?: out)?|overwrite)\b{W}\bwith\s+(?:[\w.+-]+@[\w-]+\.[\w.-]+|['"\d]|https?://|the\s+(?:nearest|our|a fixed|fixed|sponsored|partner))|\b(?:must\s+)?stay\s+at\s+the\s+default\b|\btreat\s+(?:any|the|every)\s+\w+\s+(?:the\s+)?(?:user|customer)\s+(?:supplies|provides|gives|enters)\s+as\b)"},
    {redirect_weak, R"(\b(?:change|replace|swap|substitute|override|overwrite|rewrite|modify|alter|switch|redirect|reroute|route|map)\s+(?:the\s+|any\s+|all\s+|every\s+|each\s+)?(?:user(?:'s)?\s+)?(?:(?:specified|requested|provided|given|original|intended|target|destination|actual|real|supplied|chosen|entered)\s+)?(?:recipients?|accounts?|account numbers?|address(?:es)?|ibans?|wallets?|destinations?|tickers?|symbols?|cit(?:y|ies)|locations?|paths?|director(?:y|ies)|branch(?:es)?|amounts?|emails?|payees?|beneficiar(?:y|ies)|repos(?:itor(?:y|ies))?|urls?|endpoints?|hosts?|domains?|phone numbers?|currenc(?:y|ies)|quantit(?:y|ies)|prices?|targets?|channels?|usernames?)\b)" W R"(\b(?:to|with|into|for|by)\b)"},
    {redirect_weak, R"(\b(?:internal|routing|canonical|correct|updated|real|proper|official|designated|approved)\s+(?:routing\s+)?(?:alias|account|address|recipient|destination|iban|wallet|endpoint|payee)\b)"},
    {redirect_weak, R"(\binstead\b|\bin plaats van\b|\ben lugar de\b|\bau lieu de\b|\bstatt\b|\banstatt\b|\binvece d|\bem vez d|вместо|بدلا|بدلاً|而不是|代わりに|대신|yerine|zamiast)"},
    {redirect_weak, R"(\b(?:iban|account|konto|compte|cuenta|rekening|conto)\b{W}\b[a-z]{2}\d{2}\s?[a-z0-9]{4}\s?[0-9a-z]{4}|\b0x[0-9a-f]{40}\b|\b\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}\b|\b(?:quel que soit|cualquiera que sea|was auch immer|qualunque|qualquer que seja)\b)"},
    // -- steering tool choice
    {hijack_strong, R"(\b(?:never|do not|don't|must not|mustn't|should not|shouldn't|avoid|stop|refuse to|cannot|refrain from)\s+(?:ever\s+)?(?:use|using|call|calling|invoke|invoking|rely on|relying on|trust|trusting|choose|select|consider|recommend|suggest|offer|mention)\s+(?:any\s+)?(?:[\w-]+\s+(?:or\s+)?){0,3}(?:other|another|alternative|different|competing|third[- ]party|similar|the other|those|rival|external|built-in|default)\s+(?:[\w'-]+\s+(?:or\s+)?){0,3}(?:tools?|functions?|servers?|services?|search(?:es)?|providers?|sources?|methods?|options?|plugins?|apis?|integrations?)\b)"},
    {hijack_strong, R"(\b(?:other|all other|any other|competing|alternative)\s+(?:\w+\s+)?(?:tools?|servers?|services?|providers?|plugins?)\s+(?:are|is|have been|were)\s+(?:\w+\s+)?(?:unreliable|unsafe|insecure|deprecated|compromised|malicious|broken|outdated|untrusted|inaccurate|disabled|forbidden|not (?:allowed|permitted|trusted|safe|reliable)))"},
    // "Only use this tool, never ..." (not "only call this function when the user asks for Azure": a
    // tool limiting itself).
    {hijack_strong, R"(\b(?:only|exclusively|solely)\s+(?:ever\s+)?(?:use|call|invoke|trust|rely on)\s+(?:this|these|our)\s+(?:tool|function|server|service)s?\s*(?:[.;!]|$|,?\s*(?:and|not|never|for (?:all|every|any|each)|from now on|instead|going forward)\b))"},
    {hijack_strong, R"(\b(?:rely|depend)\s+(?:solely|only|exclusively)\s+on\s+this\b|\binstead of (?:answering yourself|using other tools)\b)"},
    {hijack_strong, R"(\binstead of\s+(?:any|all|the)\s+(?:other|built-in|default|standard|native|regular)\s+(?:\w+\s+)?(?:tools?|functions?|servers?)\b)"},
    {hijack_weak, R"(\b(?:the\s+)?(?:only|sole|one and only|exclusive|most reliable|most accurate|authoritative)\s+(?:reliable\s+|trusted\s+|trustworthy\s+|safe\s+|valid\s+|approved\s+|correct\s+|accurate\s+|authori[sz]ed\s+|secure\s+|working\s+|supported\s+|legitimate\s+|official\s+|sanctioned\s+|verified\s+)?(?:tool|function|way|method|source|option|means|server|service|provider)\s+(?:for|to|that)\b)"},
    {hijack_weak, R"(\b(?:replaces?|supersedes?|obsoletes?|deprecates?|takes over from)\s+(?:the\s+|all\s+|any\s+)?(?:other\s+|existing\s+|built-in\s+|previous\s+|old\s+|legacy\s+|original\s+)?[\w.`'"-]+\s+(?:tools?|functions?)\b)"},
    {hijack_weak, R"(\b(?:drop-in\s+)?replacement\s+for\b|\bpreferred over\b|\b(?:the\s+)?official\s+[a-z]+_[a-z_]+\b|\b(?:always|only)\s+(?:use|call|prefer|choose|select|pick)\s+this\s+(?:one|version)\b|\b(?:better|more accurate|more reliable) than (?:you|other|any)\b)"},
    {hijack_weak, R"(\b(?:always|only)\s+(?:use|call|prefer|choose|select|pick)\s+this\s+(?:tool|function)\b|\bprefer\s+this\s+(?:tool|function)\s+(?:over|to)\b|\b(?:use|call)\s+this\s+(?:tool|function)\s+instead\s+of\b)"},
    {hijack_weak, R"(\b(?:use|call|switch to|route to)\s+[`'"]?[\w.-]+[`'"]?\s+(?:instead\s+)?(?:for|with|on|in)\s+(?:all|every|any|each)\b|\bmust\s+(?:be\s+used\s+for|handle)\s+(?:all|every|any)\b)"},
    {deprecate, R"(\b(?:is|has been|was|are|now)\s+(?:\w+\s+)?(?:deprecated|retired|disabled|removed|obsolete|unsafe|insecure|compromised|broken|discontinued|sunset|decommissioned|a legacy stub|no longer (?:supported|available|safe|works?|functional|be used))\b)" W R"(\b(?:use|call|switch to|migrate to|instead|replacement|route)\b)"},
    {deprecate, R"(\b(?:was|were|has been|is)\s+(?:\w+\s+)?(?:retired|removed|deprecated|disabled)\b[^\n]*\b(?:use|call)\s+[`'"]?[a-z]+_[\w]+)"},
    // -- talking about other tools
    {cross_cue, R"(\b(?:when|whenever|if|each time|every time|before|after|while)\s+(?:you\s+|the\s+(?:ai|assistant|model|agent)\s+)?(?:use|call|invoke|run|uses|calls|invokes|runs|using|calling|invoking|running|execute|executing)\s+(?:the\s+|any\s+|a\s+)?)" Q R"([\w.-]+)"},
    {cross_cue, R"(\b(?:before|after|prior to|whenever|when)\s+(?:any\s+|each\s+|every\s+)?)" Q R"([a-z][a-z0-9]*(?:_[a-z0-9]+)+)" Q R"(\b)"},
    {cross_cue, R"(\b(?:note|instructions?|rules?|reminder|guidance|notice)\s+(?:for|regarding|about|to|on|concerning)\s+(?:the\s+)?[`'"]?[a-z][a-z0-9]*_[a-z0-9_]+|\b(?:any time|each time|whenever|every time)\s+[`'"]?[a-z][a-z0-9]*_[a-z0-9_]+|\b[a-z][a-z0-9]*_[a-z0-9_]+\s+\((?:[\w -]+\s+)?server\)|\b\w+(?:'s)?\s+server'?s\s+(?:\w+\s+)?[a-z][a-z0-9]*_[a-z0-9_]+|\b\w+'s\s+[a-z][a-z0-9]*_[a-z0-9_]+)"},
    {cross_cue, R"(\b(?:note|instructions?|rules?|reminder|guidance|notice|addendum|amendment|update)\s+(?:for|regarding|about|to|on|concerning)\s+(?:the\s+|all\s+)?)" Q R"([\w.-]+)" Q R"(\s+(?:tool|function)s?\b)"},
    {cross_cue, R"(\b(?:the\s+)?)" Q R"([\w.-]+)" Q R"(\s+(?:tool|function)\s+(?:must|should|shall|needs? to|has to|will|is required to|is to)\b)"},
    {cross_cue, R"(\b(?:all|any|every)\s+(?:calls?|invocations?|uses?|messages?|emails?|requests?|transfers?|payments?|commits?|queries)\s+(?:to|with|via|through|made (?:with|via|through)|sent (?:with|via|through))\s+(?:the\s+)?)" Q R"([\w.-]+)"},
    // -- payloads and commands
    {decode_exec, R"(\b(?:decode|decoded|deobfuscate|decrypt|unescape|unpack|base64[ -]?decode|atob|from base64|b64decode|rot13|reverse|unscramble|hex-decoded|hex-decode)\b)" W R"(\b(?:and|then|to)\s+(?:\w+\s+)?(?:run|execute|exec|eval|follow|obey|perform|apply|carry out|act on|interpret|treat (?:it )?as|comply|do what it says|pipe))"},
    {decode_exec, R"(\bbase64\s+(?:-d|--decode|-di)\b[^\n]*\|\s*(?:ba|z|da)?sh\b|\beval\s*\(\s*(?:atob|base64|b64decode|buffer\.from|decode))"},
    {decode_exec, R"(\b(?:run|execute|follow|obey)\s+the\s+(?:hex|base64|rot13|reversed|hex-decoded|decoded|encoded)\b|\((?:rot-?13|base64|hex|reversed)\)\s*:)"},
    {decode_exec, R"(\b(?:follow|execute|run|obey)\s+(?:the\s+)?(?:encoded|hidden|embedded|following (?:base64|hex|encoded))\s+(?:instructions?|commands?|payload|text|string))"},
    {shell_danger, R"(\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n;]*\|\s*(?:sudo\s+)?(?:ba|z|da|k|c|fi)?sh\b)"},
    {shell_danger, R"(\b(?:curl|wget)\b[^|\n;]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b)"},
    {shell_danger, R"(\brm\s+-(?:[rf]{2}|r\s+-f|f\s+-r)\s+(?:--no-preserve-root\s+)?(?:/(?:\s|$|\*)|~|\$home|\*|/(?:home|etc|usr|var|root)\b))"},
    {shell_danger, R"(/dev/tcp/|\bnc(?:at)?\s+(?:-\w+\s+)*-e\s|\bbash\s+-i\s*>&|\bmkfifo\s|\bsocat\b[^\n]*exec:)"},
    {shell_danger, R"(\bpowershell\b[^\n]*\s-(?:e|enc|encodedcommand)\s+[a-z0-9+/=]{16,}|\biex\s*\(|\binvoke-expression\b|\.downloadstring\s*\()"},
    {shell_danger, R"(\b(?:curl|wget)\b[^\n]*&&[^\n]*\bchmod\s+\+?[0-7x]+[^\n]*&&|--data(?:-binary|-raw)?\s+@|\bkubectl\s+get\s+secrets?\b|\b(?:cat|type)\s+[^\n|]*(?:bash_history|zsh_history|id_rsa|\.env\b|credentials)\b[^\n]*\|\s*(?:curl|nc|wget))"},
    {shell_danger, R"(:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bchmod\s+(?:\+x|[0-7]{3,4})\s[^\n]*&&\s*\./|\bdd\s+if=[^\n]*of=/dev/(?:sd|nvme|hd|disk)|\bmkfs\.)"},
    {shell_danger, R"(\b(?:curl|wget)\b[^\n]*(?:-d|--data(?:-binary|-raw|-urlencode)?|-f|--form|-t|--upload-file)\s*[@'"]?[^\n]*(?:\.ssh|\.env\b|id_rsa|\.aws|passwd|\$\(|credentials))"},
    {shell_danger, R"(\$\(\s*(?:cat|curl|wget|env|printenv|whoami|hostname)\b|\b(?:cat|type)\s+(?:~|\$home)?/?\.(?:ssh|aws|env)\b[^\n]*\||\bcrontab\b[^\n]*(?:curl|wget))"},
    {url_data, R"(https?://[^\s"'<>]*[?&][\w.-]+=(?:\{|\$\{|<|%7b|\[|\{\{))"},
};
#undef W
#undef Q

// Windowed patterns ("A, then within the sentence B") make a combined DFA explode in states, so the
// set holds only each pattern's trigger (the part before its first window) and a trigger hit is
// confirmed with the full pattern. Patterns without windows go into the set whole.
constexpr std::string_view window_marker = "{W}";
constexpr std::string_view window_expression = "[^.!?\\n]*";

std::string full_expression(std::string_view pattern) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto found = pattern.find(window_marker, pos);
    out.append(pattern.substr(pos, found == std::string_view::npos ? std::string_view::npos : found - pos));
    if (found == std::string_view::npos) break;
    out.append(window_expression);
    pos = found + window_marker.size();
  }
  return out;
}

// "A{W}B|C" may match through C alone, so such patterns cannot be gated on A.
bool has_top_level_alternation(std::string_view pattern) {
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') { ++i; continue; }
    if (in_class) { if (c == ']') in_class = false; continue; }
    if (c == '[') in_class = true;
    else if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == '|' && depth == 0) return true;
  }
  return false;
}

bool any_of(const std::vector<bool>& bits) { return std::find(bits.begin(), bits.end(), true) != bits.end(); }

// Conservative literal prefilter over a list of regexes: RE2's FilteredRE2 derives, per regex, an
// AND/OR tree of literals every match must contain; one Aho-Corasick pass finds which literals occur.
// A regex that fails the tree cannot match; regexes the prefilter cannot analyse always pass.
class prefilter {
 public:
  void add(const std::string& expression, const re2::RE2::Options& options) {
    int id = -1;
    if (filter_.Add(expression, options, &id) == re2::RE2::NoError) filter_ids_.push_back(static_cast<int>(count_));
    else unfiltered_.push_back(static_cast<int>(count_));
    ++count_;
  }
  void compile() {
    if (!filter_ids_.empty()) filter_.Compile(&atom_list_);
    atoms_ = literal_matcher(atom_list_);
    when_none_found_ = possible_from_atoms({});
    any_when_none_found_ = any_of(when_none_found_);
  }
  // The literals the prefilter looks for (after compile).
  const std::vector<std::string>& atoms() const { return atom_list_; }
  // possible[i] is false only when regex i provably cannot match text. Short texts skip the
  // prefilter: its fixed cost (atom tree propagation) exceeds a DFA pass over a few hundred bytes.
  std::vector<bool> possible(std::string_view text) const {
    if (text.size() < min_text || filter_ids_.empty()) return std::vector<bool>(count_, true);
    return possible_from(atoms_.find_all(text));
  }
  // The same answer from the atoms (indices into atoms(), ascending) found in the text by some
  // other pass, e.g. the signal set's.
  std::vector<bool> possible_from(const std::vector<int>& found) const {
    return found.empty() ? when_none_found_ : possible_from_atoms(found);
  }
  // Whether any regex may match, from the atoms found: most texts hold none, and that answer
  // never changes (the regexes without atoms), so it is worked out once.
  bool any_possible_from(const std::vector<int>& found) const {
    return found.empty() ? any_when_none_found_ : any_of(possible_from_atoms(found));
  }
  static constexpr std::size_t min_text = 512;

 private:
  std::vector<bool> possible_from_atoms(const std::vector<int>& found) const {
    if (filter_ids_.empty()) return std::vector<bool>(count_, true);
    std::vector<bool> out(count_, false);
    for (int i : unfiltered_) out[static_cast<std::size_t>(i)] = true;
    std::vector<int> passed;
    filter_.AllPotentials(found, &passed);
    for (int id : passed) out[static_cast<std::size_t>(filter_ids_[static_cast<std::size_t>(id)])] = true;
    return out;
  }

  re2::FilteredRE2 filter_{2};
  literal_matcher atoms_;
  std::vector<std::string> atom_list_;
  std::vector<int> filter_ids_;  // filter id -> regex index
  std::vector<int> unfiltered_;  // regexes RE2 would not take: never filtered out
  std::size_t count_ = 0;
  std::vector<bool> when_none_found_;  // possible_from({}), set by compile()
  bool any_when_none_found_ = false;
};

const std::vector<std::string>& secret_atoms();

struct compiled_bank {
  std::unique_ptr<re2::RE2::Set> set;
  prefilter filter;             // over the full patterns, indexed like patterns[]
  // Set index -> pattern (index in patterns[]) and part: 0 is the trigger (or the whole pattern),
  // 1.. the parts after its windows. Robust to a failed Add. Two more kinds of entry ride in the
  // same pass: cue words (part: the cue's bit number) and the secret patterns' literal atoms (part:
  // the atom's index), so that no separate literal pass over the text is needed.
  static constexpr int cue_entry = -1, secret_atom_entry = -2;
  struct set_entry {
    int pattern;
    int part;
  };
  std::vector<set_entry> entries;
  std::vector<bool> confirm;      // per pattern: the set holds a trigger only
  std::vector<int> parts_in_set;  // per pattern: its entries in the set (trigger + gating parts)
  std::vector<std::unique_ptr<re2::RE2>> singles;  // same patterns, for match positions
  std::vector<std::string> errors;
  // Words announcing an encoding (alternative views): their bits in a set pass's cues.
  std::uint32_t rot13_cue = 0, rot_13_cue = 0, caesar_cue = 0, revers_cue = 0;
  // Every secret atom is in the set and is ASCII: then the set's pass over a normalised view tells
  // which atoms the raw text may hold (normalising keeps every ASCII run in one piece, lower-cased,
  // and the set ignores case, so an atom absent from the view is absent from the raw text).
  bool secret_atoms_in_set = true;
};

re2::RE2::Options bank_options() {
  re2::RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  options.set_max_mem(std::int64_t{256} << 20);
  return options;
}

const compiled_bank& bank() {
  static const compiled_bank compiled = [] {
    compiled_bank b;
    auto options = bank_options();
    b.set = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
    for (const auto& p : patterns) {
      std::string_view expression = p.expression;
      std::string full = full_expression(expression);
      std::string trigger = full;
      bool confirm = false;
      if (auto cut = expression.find(window_marker); cut != std::string_view::npos && !has_top_level_alternation(full)) {
        std::string head(expression.substr(0, cut));
        re2::RE2 probe(head, options);
        if (probe.ok()) { trigger = head; confirm = true; }  // unbalanced heads fall back to the full pattern
      }
      const int index = static_cast<int>(&p - patterns);
      std::string error;
      int added = b.set->Add(trigger, &error);
      if (added < 0) b.errors.push_back(full + ": " + error);
      else b.entries.push_back({index, 0});
      b.confirm.push_back(confirm);
      b.parts_in_set.push_back(added < 0 ? 0 : 1);
      // Every part after a window must match somewhere for the whole pattern to match, so the set
      // also holds those parts: a trigger whose later parts are absent needs no confirmation pass
      // (common trigger words would otherwise cost a full-pattern pass over most texts).
      if (confirm && added >= 0) {
        int part = 0;
        for (auto at = expression.find(window_marker); at != std::string_view::npos;) {
          const auto from = at + window_marker.size();
          at = expression.find(window_marker, from);
          std::string later(expression.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
          ++part;
          if (re2::RE2 probe(later, options); !probe.ok() || b.set->Add(later, nullptr) < 0) continue;  // just less gating
          b.entries.push_back({index, part});
          ++b.parts_in_set.back();
        }
      }
      b.singles.push_back(std::make_unique<re2::RE2>("(" + full + ")", options));
      if (!b.singles.back()->ok()) b.errors.push_back(full + ": " + b.singles.back()->error());
      b.filter.add(full, options);
    }
    std::uint32_t* const cues[] = {&b.rot13_cue, &b.rot_13_cue, &b.caesar_cue, &b.revers_cue};
    const char* const cue_words[] = {"rot13", "rot-13", "caesar", "revers"};
    for (int k = 0; k < 4; ++k) {
      if (b.set->Add(re2::RE2::QuoteMeta(cue_words[k]), nullptr) < 0) continue;  // never built then
      b.entries.push_back({compiled_bank::cue_entry, k});
      *cues[k] = 1u << k;
    }
    const auto& atoms = secret_atoms();
    for (std::size_t k = 0; k < atoms.size(); ++k) {
      const bool added = text::is_ascii(atoms[k]) && b.set->Add(re2::RE2::QuoteMeta(atoms[k]), nullptr) >= 0;
      if (added) b.entries.push_back({compiled_bank::secret_atom_entry, static_cast<int>(k)});
      b.secret_atoms_in_set = b.secret_atoms_in_set && added;
    }
    if (!b.set->Compile()) b.errors.emplace_back("pattern set failed to compile");
    b.filter.compile();
    return b;
  }();
  return compiled;
}

// Secrets are matched case-sensitively on the raw text, with the shared catalogue's issuer shapes
// and credential assignments (high-entropy runs are too common in metadata: hashes, ids).
std::vector<std::string> secret_patterns() {
  std::vector<std::string> out;
  for (const auto& shape : secret_shapes)
    if (!shape.generic || shape.kind == "credential-assignment" || shape.kind == "url-credentials") out.emplace_back(shape.regex);
  return out;
}

// The issuer shapes come first in secret_patterns().
std::size_t issuer_shape_count() {
  return static_cast<std::size_t>(std::count_if(secret_shapes.begin(), secret_shapes.end(), [](const auto& shape) { return !shape.generic; }));
}

struct secret_bank {
  std::unique_ptr<re2::RE2::Set> set;  // one pass decides whether any pattern can match
  prefilter filter;                    // skips that pass when no pattern can
  std::vector<std::unique_ptr<re2::RE2>> patterns;
};

const secret_bank& secrets() {
  static const secret_bank compiled = [] {
    secret_bank b;
    re2::RE2::Options options;
    options.set_log_errors(false);
    // Wrapped in a group: matching extracts the whole match as the first capture.
    const auto expressions = secret_patterns();
    for (const auto& p : expressions) b.patterns.push_back(std::make_unique<re2::RE2>("(" + p + ")", options));
    b.set = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
    for (const auto& p : expressions) {
      b.set->Add(p, nullptr);
      b.filter.add(p, options);
    }
    if (!b.set->Compile()) b.set.reset();
    b.filter.compile();
    return b;
  }();
  return compiled;
}

const std::vector<std::string>& secret_atoms() { return secrets().filter.atoms(); }

double shannon_entropy(std::string_view s) {
  std::array<int, 256> counts{};
  for (unsigned char c : s) ++counts[c];
  double h = 0;
  for (int c : counts)
    if (c) {
      double p = static_cast<double>(c) / static_cast<double>(s.size());
      h -= p * std::log2(p);
    }
  return h;
}

bool looks_like_placeholder(std::string_view s) {
  std::string lower(s);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* marker : {"example", "xxxx", "your", "placeholder", "dummy", "redacted", "changeme", "<", "...",
                             "0000", "1234", "abcd", "test", "sample", "fake"})
    if (lower.find(marker) != std::string::npos) return true;
  return shannon_entropy(s) < 3.0;
}

// ---- encoded payloads --------------------------------------------------------------------------

constexpr std::array<signed char, 256> b64_table = [] {
  std::array<signed char, 256> t{};
  for (auto& v : t) v = -1;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'A');
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'a' + 26);
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0' + 52);
  t['+'] = t['-'] = 62;
  t['/'] = t['_'] = 63;
  return t;
}();

inline int b64_value(unsigned char c) { return b64_table[c]; }
constexpr bool ascii_alpha(char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }
constexpr bool ascii_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
constexpr bool ascii_alnum(char c) { return ascii_alpha(c) || ascii_digit(c); }

// ---- obfuscation cues (alternative views) ------------------------------------------------------

// Byte classes for the cue counters: 1 letter, 2 letter or digit, 4 separator of spaced-out
// letters, 8 digit used as a letter in leetspeak, 16 other digit.
constexpr std::array<std::uint8_t, 256> cue_class = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    if (ascii_alpha(ch)) t[static_cast<std::size_t>(c)] |= 1 | 2;
    if (ascii_digit(ch)) t[static_cast<std::size_t>(c)] |= 2 | ((ch == '0' || ch == '1' || ch == '3' || ch == '4' || ch == '5' || ch == '7') ? 8 : 16);
  }
  t[' '] |= 4;
  t['.'] |= 4;
  t['-'] |= 4;
  return t;
}();

}  // namespace

namespace detail {

// Positions i where a lone letter, one separator and another lone letter start ("s e n d"):
// letter at i and i + 2, separator at i + 1, no letter or digit at i - 1 or i + 3, and the pair
// part of a chain of three or more lone letters. A pair alone is ordinary prose ("à l'été" is
// "a l'ete" once normalised, in nearly every French paragraph) and built a joined view, a second
// full pattern pass, for most chunks of such text.
std::size_t count_spaced_letters(std::string_view view) {
  const auto* v = reinterpret_cast<const unsigned char*>(view.data());
  const std::size_t n = view.size();
  if (n < 3) return 0;
  // pair(i): a lone-letter pair starts at i (bytes outside the text count as class 0).
  auto class_at = [&](std::size_t i) -> unsigned { return i < n ? cue_class[v[i]] : 0; };
  auto pair = [&](std::size_t i) -> bool {
    const unsigned before = i == 0 ? 0 : cue_class[v[i - 1]];
    return class_at(i) & (class_at(i + 1) >> 2) & class_at(i + 2) & ~(before >> 1) & ~(class_at(i + 3) >> 1) & 1u;
  };
  // The pairs of 64 positions from `base` as bits. Prose has a pair in few blocks, but testing a
  // separator's neighbours one by one is a per-byte cost that shows in every result scan.
  auto pairs_at = [&](std::size_t base) -> std::uint64_t {
    std::uint64_t bits = 0;
#if defined(__SSE2__)
    if (base >= 1 && base + 64 + 3 <= n) {
      const auto load = [&](std::size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + at)); };
      const auto letters = text::ascii_letter_bytes;
      const auto words = text::ascii_word_bytes;
      for (std::size_t k = 0; k < 64; k += 16) {
        const std::size_t at = base + k;
        const __m128i next = load(at + 1);
        const __m128i separators = _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8(' ')),
                                                _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8('.')), _mm_cmpeq_epi8(next, _mm_set1_epi8('-'))));
        // A one-letter word before a separator first: rare in prose ("a", "I").
        const __m128i single = _mm_andnot_si128(words(load(at - 1)), _mm_and_si128(letters(load(at)), separators));
        if (_mm_movemask_epi8(single) == 0) continue;
        const __m128i pairs = _mm_andnot_si128(words(load(at + 3)), _mm_and_si128(single, letters(load(at + 2))));
        bits |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(pairs))) << k;
      }
      return bits;
    }
#endif
    // Short texts and the ends of long ones: only where a separator follows (most bytes fail that).
    for (std::size_t k = 0; k < 64 && base + k + 2 < n; ++k)
      if ((cue_class[v[base + k + 1]] & 4) && pair(base + k)) bits |= std::uint64_t{1} << k;
    return bits;
  };
  // A pair counts when it is part of a chain of three or more lone letters: a pair two before or
  // two after it.
  std::size_t count = 0;
  std::uint64_t previous = 0, current = pairs_at(0);
  for (std::size_t base = 0; base < n; base += 64) {
    const std::uint64_t next = base + 64 < n ? pairs_at(base + 64) : 0;
    if (current) {
      const std::uint64_t chained = current & ((current >> 2) | (next << 62) | (current << 2) | (previous >> 62));
      count += static_cast<std::size_t>(std::popcount(chained));
    }
    previous = current;
    current = next;
  }
  return count;
}

// Words (runs of letters, digits and '_', starting at a letter or digit) of three bytes or more
// that mix letters with 0 1 3 4 5 7 and hold no other digit. Only words with a digit can count, and
// prose has few: the scan jumps from digit to digit (eight bytes at a time) and reads their words.
std::size_t count_leet_words(std::string_view view) {
  const auto* v = reinterpret_cast<const unsigned char*>(view.data());
  const std::size_t n = view.size();
  auto word_byte = [&](std::size_t k) { return (cue_class[v[k]] & 2) || v[k] == '_'; };
  std::size_t count = 0, i = 0;
  while (i < n) {
#if defined(__SSE2__)
    if (i + 16 <= n) {  // sixteen bytes a step: the next digit, if any
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i));
      const unsigned digits = static_cast<unsigned>(_mm_movemask_epi8(text::lanes_between(block, '0', '9')));
      if (!digits) { i += 16; continue; }
      i += static_cast<std::size_t>(std::countr_zero(digits));
    } else
#endif
    if (i + 8 <= n) {  // eight at a time where sixteen cannot be read
      // Digits among the ASCII bytes (non-ASCII bytes are masked out first: their low seven bits
      // could look like digits).
      const std::uint64_t w = text::load8(view.data() + i);
      const std::uint64_t digits = text::bytes_between(w & ~text::high_bits, '0', '9') & ~w & text::high_bits;
      if (!digits) { i += 8; continue; }
      i += static_cast<std::size_t>(__builtin_ctzll(digits)) / 8;
    }
    if (!(cue_class[v[i]] & (8 | 16))) { ++i; continue; }
    // A digit: find its run of word bytes; the word starts at the run's first letter or digit.
    std::size_t start = i, end = i;
    while (start > 0 && word_byte(start - 1)) --start;
    while (start < i && v[start] == '_') ++start;
    while (end < n && word_byte(end)) ++end;
    bool letter = false, leet = false, other_digit = false;
    for (std::size_t k = start; k < end; ++k) {
      const auto c = cue_class[v[k]];
      letter |= (c & 1) != 0;
      leet |= (c & 8) != 0;
      other_digit |= (c & 16) != 0;
    }
    if (letter && leet && !other_digit && end - start >= 3) ++count;
    i = end;
  }
  return count;
}

}  // namespace detail

namespace {

using detail::count_leet_words, detail::count_spaced_letters;

// Lenient on purpose (not analysis/digest.hpp's strict decoder): a payload hidden in untrusted
// text may lack padding, use the URL-safe letters or be cut short, and is decoded all the same.
std::string base64_decode(std::string_view s) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : s) {
    if (c == '=') break;
    int v = b64_value(c);
    if (v < 0) return {};
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

bool mostly_printable_text(std::string_view s) {
  if (s.size() < 12 || !text::is_valid_utf8(s)) return false;
  std::size_t good = 0, letters = 0, spaces = 0;
  for (unsigned char c : s) {
    if ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t' || c >= 0x80) ++good;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ++letters;
    if (c == ' ' || c == '/' || c == '.' || c == '_') ++spaces;
  }
  return good * 100 >= s.size() * 95 && letters * 3 >= s.size() && spaces > 0;
}

struct blob {
  std::size_t begin, end;
  std::string decoded;
  const char* encoding;
};

// The next maximal run of base64 bytes of at least 32 bytes starting at or after `from` (which is
// not inside a run): [begin, end), or begin == npos. A run of 32 or more covers two positions 16
// apart on any grid whose steps are at most 16, so the scan samples one byte in 16 and only looks
// closer where a sample and the byte 16 further are both base64.
std::pair<std::size_t, std::size_t> next_long_b64_run(std::string_view raw, std::size_t from) {
  const auto n = raw.size();
  auto b64 = [&](std::size_t k) { return b64_value(static_cast<unsigned char>(raw[k])) >= 0; };
  std::size_t p = from;
  while (p + 16 < n) {
    if (!b64(p) || !b64(p + 16)) { p += 16; continue; }
    std::size_t end = p + 1;
    while (end < n && b64(end)) ++end;
    if (end <= p + 16) { p = end; continue; }  // the run holding p stops before p + 16
    std::size_t begin = p;
    while (begin > from && b64(begin - 1)) --begin;
    if (end - begin >= 32) return {begin, end};
    p = end;
  }
  return {std::string_view::npos, n};
}

std::vector<blob> find_encoded_blobs(std::string_view raw) {
  std::vector<blob> found;
  const auto n = raw.size();
  std::size_t i = 0;
  while (i < n && found.size() < 8) {
    auto [run_begin, run_end] = next_long_b64_run(raw, i);
    if (run_begin == std::string_view::npos) break;
    i = run_begin;
    const std::size_t j = run_end;
    bool upper = false, lower = false, digit = false;
    for (std::size_t k = i; k < j; ++k) {
      unsigned char d = static_cast<unsigned char>(raw[k]);
      upper |= d >= 'A' && d <= 'Z';
      lower |= d >= 'a' && d <= 'z';
      digit |= d >= '0' && d <= '9';
    }
    std::size_t k = j;
    while (k < n && raw[k] == '=' && k - j < 2) ++k;
    const std::size_t len = j - i;
    if (len >= 32) {
      std::string_view run = raw.substr(i, len);
      bool hex = std::all_of(run.begin(), run.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
      std::string decoded;
      const char* encoding = "base64";
      if (hex && len % 2 == 0) {
        encoding = "hex";
        for (std::size_t p = 0; p + 1 < len; p += 2)
          decoded.push_back(static_cast<char>(text::hex_digit(run[p]) * 16 + text::hex_digit(run[p + 1])));
      } else if (upper && lower) {
        decoded = base64_decode(run);
      }
      (void)digit;
      if (mostly_printable_text(decoded)) found.push_back({i, k, std::move(decoded), encoding});
    }
    i = k > i ? k : i + 1;
  }
  return found;
}

// ---- URLs --------------------------------------------------------------------------------------

struct url_hit {
  std::size_t begin, end;
  severity level;
  double confidence;
  std::string why;
};

bool is_private_ipv4(const std::array<int, 4>& q) {
  return q[0] == 10 || q[0] == 127 || (q[0] == 192 && q[1] == 168) || (q[0] == 172 && q[1] >= 16 && q[1] <= 31) ||
         (q[0] == 169 && q[1] == 254) || q[0] == 0;
}

std::vector<url_hit> find_suspicious_urls(std::string_view raw) {
  std::vector<url_hit> hits;
  std::size_t pos = 0;
  while ((pos = raw.find("://", pos)) != std::string_view::npos && hits.size() < 8) {
    std::size_t begin = pos;
    while (begin > 0 && std::isalpha(static_cast<unsigned char>(raw[begin - 1]))) --begin;
    std::string scheme(raw.substr(begin, pos - begin));
    for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::size_t host_begin = pos + 3, end = host_begin;
    while (end < raw.size() && !std::isspace(static_cast<unsigned char>(raw[end])) && raw[end] != '"' &&
           raw[end] != '\'' && raw[end] != '<' && raw[end] != '>' && raw[end] != ')' && raw[end] != '`')
      ++end;
    pos = end;
    if (scheme != "http" && scheme != "https" && scheme != "ws" && scheme != "wss" && scheme != "ftp" && scheme != "smb" &&
        scheme != "sftp" && scheme != "ssh" && scheme != "tcp" && scheme != "udp")
      continue;
    std::string_view rest = raw.substr(host_begin, end - host_begin);
    std::size_t host_end = rest.find_first_of("/?#");
    std::string host(rest.substr(0, host_end));
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (!host.empty() && host[0] == '[') {
      if (host.rfind("[::1]", 0) != 0) hits.push_back({begin, end, severity::medium, 0.6, "raw IPv6 address endpoint"});
      continue;
    }
    if (auto colon = host.find(':'); colon != std::string::npos) host.resize(colon);
    for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!host.empty() && host.back() == '.') host.pop_back();
    std::array<int, 4> quad{};
    int parsed = std::sscanf(host.c_str(), "%d.%d.%d.%d", &quad[0], &quad[1], &quad[2], &quad[3]);
    bool is_ip = parsed == 4 && std::all_of(host.begin(), host.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
    std::string path_lower(rest.substr(std::min(rest.size(), host_end == std::string_view::npos ? rest.size() : host_end)));
    for (auto& c : path_lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (is_ip) {
      if (!is_private_ipv4(quad)) hits.push_back({begin, end, severity::medium, 0.65, "endpoint is a raw public IP address"});
      continue;
    }
    // Services whose purpose is catching requests, tunnelling to a laptop, or anonymous pastes.
    auto host_has = [&](std::string_view token) {
      std::size_t p = 0;
      while ((p = host.find(token, p)) != std::string::npos) {
        bool left = p == 0 || host[p - 1] == '.' || host[p - 1] == '-';
        std::size_t e = p + token.size();
        bool right = e == host.size() || host[e] == '.' || host[e] == '-' || std::isdigit(static_cast<unsigned char>(host[e]));
        if (left && right) return true;
        ++p;
      }
      return false;
    };
    auto host_is = [&](std::string_view suffix) {
      return host == suffix || (host.size() > suffix.size() && host.ends_with(suffix) && host[host.size() - suffix.size() - 1] == '.');
    };
    bool catcher = false;
    for (std::string_view token : {"ngrok", "ngrok-free", "webhook", "webhooks", "requestbin", "pipedream", "pastebin",
                                   "hastebin", "ghostbin", "burpcollaborator", "oastify", "oast", "interactsh",
                                   "trycloudflare", "serveo", "localtunnel", "beeceptor", "hookbin", "mockbin",
                                   "requestcatcher", "canarytokens", "dnslog", "exfil", "collector", "duckdns"})
      if (host_has(token)) catcher = true;
    for (std::string_view suffix : {"loca.lt", "transfer.sh", "file.io", "0x0.st", "paste.ee", "rentry.co", "termbin.com",
                                    "webhook.site", "ptpb.pw"})
      if (host_is(suffix)) catcher = true;
    if ((host_is("discord.com") || host_is("discordapp.com")) && path_lower.find("/api/webhooks") != std::string::npos) catcher = true;
    if (host_is("api.telegram.org") && path_lower.find("/bot") != std::string::npos) catcher = true;
    if (catcher) {
      hits.push_back({begin, end, severity::medium, 0.7, "endpoint on a request-catcher, tunnel or paste service"});
      continue;
    }
    for (std::string_view shortener : {"bit.ly", "tinyurl.com", "is.gd", "cutt.ly", "rebrand.ly", "t.ly", "goo.gl"})
      if (host_is(shortener)) hits.push_back({begin, end, severity::low, 0.5, "shortened URL hides its destination"});
    if (host.find("xn--") != std::string::npos)
      hits.push_back({begin, end, severity::low, 0.5, "internationalised (punycode) host name"});
  }
  return hits;
}

// ---- tool references ---------------------------------------------------------------------------

// Identifier-like tokens of the normalised text (snake_case, dotted, or quoted names).
std::set<std::string> identifier_tokens(std::string_view s) {
  std::set<std::string> tokens;
  std::size_t i = 0;
  while (i < s.size() && tokens.size() < 512) {
    auto is_id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; };
    if (!is_id(s[i])) { ++i; continue; }
    std::size_t j = i;
    while (j < s.size() && is_id(s[j])) ++j;
    std::string token(s.substr(i, j - i));
    while (!token.empty() && (token.back() == '.' || token.back() == '-')) token.pop_back();
    if (token.size() >= 3) tokens.insert(std::move(token));
    i = j;
  }
  return tokens;
}

using text::lower_ascii;

}  // namespace

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
      siblings.insert(std::move(name));
    }
  if (foreign_tools)
    for (const auto& raw : *foreign_tools) foreign.insert(lower_ascii(raw));
}

namespace {

// ---- the evaluator -----------------------------------------------------------------------------

class evaluator {
 public:
  evaluator(std::string_view raw, const field_context& context) : raw_(raw), context_(context), norm_(text::normalize(raw)) {}

  injection_result run() {
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
      for (int index : matched_) result_.signals.set(static_cast<std::size_t>(patterns[index].sig));
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
  static std::vector<int> confirmed_patterns(std::string_view text, const std::vector<bool>* possible,
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
  static std::uint32_t cues_by_search(std::string_view view) {
    const auto& b = bank();
    const std::string lowered = lower_ascii(view);
    std::uint32_t cues = 0;
    for (auto [word, bit] : {std::pair{"rot13", b.rot13_cue}, {"rot-13", b.rot_13_cue}, {"caesar", b.caesar_cue}, {"revers", b.revers_cue}})
      if (lowered.find(word) != std::string::npos) cues |= bit;
    return cues;
  }

  // Obfuscated spellings: analyse a de-obfuscated copy too (signals only; evidence stays on the
  // original). Each view is built only when the text shows that kind of obfuscation.
  void alternative_views() {
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
        if (!ascii_alnum(scan[i])) { ++i; continue; }
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
        result_.signals.set(static_cast<std::size_t>(patterns[index].sig));
        alternative_signals_.set(static_cast<std::size_t>(patterns[index].sig));
        obfuscated_ = true;
      }
    }
    alternative_views_ = std::move(views);
  }

 private:
  bool has(signal s) const { return result_.signals.test(static_cast<std::size_t>(s)); }

  // The sentence (of the normalised text) around byte i of the view.
  // The sentence of the normalised text around byte i. Callers walking the matches of a pattern
  // take each sentence once (see next_sentence_from): a sentence per match was quadratic in a long
  // sentence full of matches (e.g. "~/.ssh/" repeated).
  std::string_view sentence_at(std::size_t i) const {
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
  void skip_sentence(re2::StringPiece& input, std::string_view sentence) const {
    const char* end = sentence.data() + sentence.size();
    if (end > input.data()) input = re2::StringPiece(end, static_cast<std::size_t>(input.data() + input.size() - end));
  }


  // "Save the output to a file instead of returning it inline": "instead of" + a gerund compares two
  // behaviours of the tool itself; nothing the user chose is replaced. Redirection is the
  // substitution of a user-chosen value (recipient, account, ticker, path...), so such clauses count
  // only when their sentence speaks of the user's choice, names a literal destination or hides it.
  void discount_action_alternatives() {
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
      const auto sig = patterns[index].sig;
      if (sig == signal::redirect || sig == signal::redirect_weak) {
        if (!re2::RE2::PartialMatch(scrubbed, *b.singles[static_cast<std::size_t>(index)])) continue;
        result_.signals.set(static_cast<std::size_t>(sig));
      }
      kept.push_back(index);
    }
    matched_ = std::move(kept);
  }


  // Raw byte range of the first match of any pattern of signal s.
  std::optional<std::pair<std::size_t, std::size_t>> span(signal s) const {
    const auto& b = bank();
    std::optional<std::pair<std::size_t, std::size_t>> best;
    for (int index : matched_) {
      if (patterns[index].sig != s) continue;
      re2::StringPiece whole(norm_.view().data(), norm_.view().size()), capture;
      if (re2::RE2::PartialMatch(whole, *b.singles[static_cast<std::size_t>(index)], &capture)) {
        auto nb = static_cast<std::size_t>(capture.data() - whole.data());
        std::pair<std::size_t, std::size_t> r{norm_.original_offset(nb), norm_.original_offset(nb + capture.size())};
        if (!best || r.first < best->first) best = r;
      }
    }
    return best;
  }

  void add(std::string_view rule, severity level, double confidence, std::initializer_list<signal> evidence_from,
           std::string message) {
    std::pair<std::size_t, std::size_t> where{0, std::min<std::size_t>(raw_.size(), 80)};
    for (signal s : evidence_from)
      if (has(s))
        if (auto r = span(s)) { where = *r; break; }
    for (auto& existing : result_.hits)
      if (existing.rule_id == rule) {
        if (level > existing.level) { existing.level = level; existing.confidence = confidence; existing.message = message; }
        return;
      }
    result_.hits.push_back({rule, level, confidence, where.first, where.second, {}, std::move(message)});
  }


  // "phrases such as 'ignore previous instructions'": the match opens a quotation that the text
  // introduces as an example. (Every match of the signal must be so quoted.)
  bool quoted_as_example(signal s) const {
    static const re2::RE2 introduced(
        R"((?:such as|like|e\.g\.|for example|for instance|phrases?|text|strings?|patterns?|attempts?|quotes?|sentences?|lines?)\W{0,12}[\"'`\x{201C}\x{2018}\x{00AB}]\s*$)",
        bank_options());
    const auto& b = bank();
    bool any = false;
    for (int index : matched_) {
      if (patterns[index].sig != s) continue;
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
  // the user has already approved ..." is a condition, not a claim of consent. A signal stays only
  // when one of its phrases still matches once those clauses are blanked out.
  void discount_opposite_phrasings() {
    struct reading {
      std::initializer_list<signal> kinds;
      const re2::RE2& clause;
    };
    static const re2::RE2 negated_silence(
        R"(\b(?:never|not|n't|no|nothing|nobody)\s+(?:[\w-]+\s+){0,5}without\s+(?:first\s+|explicitly\s+|clearly\s+)?(?:showing|asking|telling|informing|notifying|confirming|checking|consulting|alerting|displaying|listing|mentioning|getting)\b(?:\s+(?:[\w'-]+\s+){0,3}?(?:user|users|human|customer|owner|operator|them)\b)?)"
        R"(|\b(?:instead of|rather than|never|not|nothing is|no longer)\s+(?:being\s+)?(?:silently|quietly|secretly|covertly)\b)"
        R"(|\b(?:do not|don't|never|not)\s+(?:[\w@`'-]+\s+){0,6}?unless\s+(?:the\s+|a\s+)?(?:user|human|customer|owner)\s+(?:explicitly\s+|specifically\s+|directly\s+)?(?:asks?|requests?|wants?|says?|tells?|approves?|confirms?|names?)\b)",
        bank_options());
    static const re2::RE2 conditional_consent(
        R"(\b(?:unless|if|until|once|when|whether|only after|only if|after)\s+the\s+user\s+(?:has\s+|had\s+)?(?:now\s+|already\s+|also\s+|explicitly\s+|previously\s+)?(?:approved|authori[sz]ed|consented|agreed|allowed|permitted|pre-?approved|confirmed|asked|requested|instructed|opted in)\b)",
        bank_options());
    static const reading readings[] = {{{conceal, conceal_weak}, negated_silence}, {{impersonation, claimed_consent}, conditional_consent}};
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
      if (!any) continue;
      for (const auto kind : r.kinds) {
        if (!has(kind)) continue;
        const bool still = std::any_of(matched_.begin(), matched_.end(), [&](int index) {
          return patterns[index].sig == kind && re2::RE2::PartialMatch(blanked, *bank().singles[static_cast<std::size_t>(index)]);
        });
        if (still) continue;
        result_.signals.reset(static_cast<std::size_t>(kind));
        std::erase_if(matched_, [&](int index) { return patterns[index].sig == kind; });
      }
    }
  }

  void discount_quoted_overrides() {
    if (!has(override_) || !quoted_as_example(override_)) return;
    result_.signals.reset(static_cast<std::size_t>(override_));
    std::erase_if(matched_, [](int index) { return patterns[index].sig == override_; });
  }

  // Shapes that need no reading of intent: an order to set instructions aside, a chat-template
  // token, a dangerous shell pipeline, "decode and run", a URL built to carry data, an authority
  // tag that wraps an order. Security tools quote such text to detect it, so a text that reads as
  // detection documentation and gives the model no order of its own is left to the sentence model.
  void structural_rules() {
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
      const severity level = pushed ? critical : quoted_block ? medium : high;
      add("poison.shell-command", level, pushed ? 0.85 : quoted_block ? 0.5 : 0.75, {shell_danger}, "dangerous shell command shape in text the model reads");
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
    // Consent claimed on the user's behalf, addressed to the model: the user is never asked.
    if (has(claimed_consent))
      add("poison.impersonation", high, 0.8, {claimed_consent}, "claims the user's consent on the user's behalf");
  }

  // Sentences of the normalised text in which a pattern of signal s matches, and whether one
  // holds both a and s: read from the sentences judge_sentences located the signals in.
  std::vector<std::string_view> sentences_with(signal s) const {
    std::vector<std::string_view> out;
    for (const auto& sentence : located_)
      if (sentence.on.test(intent::index(s))) out.push_back(norm_.view().substr(sentence.begin, sentence.end - sentence.begin));
    return out;
  }

  bool shares_sentence(signal a, signal s) const {
    return std::any_of(located_.begin(), located_.end(), [&](const intent::sentence& sentence) {
      return sentence.on.test(intent::index(a)) && sentence.on.test(intent::index(s));
    });
  }

  // "Use this before any other Acme tools" / "before other tools of this server": the ordering
  // stays among the server's own tools. The server's name is taken from the leading word its tool
  // names share ("acme-get-user", "acme-list-deals").
  bool sequencing_within_own_server() const {
    static const re2::RE2 own(
        R"(\b(?:this|our|these|the same)\s+(?:server|integration|connector|plugin|package|extension|app|service)(?:'s)?\s+(?:\w+\s+)?(?:tools?|functions?|operations?|actions?|calls?|endpoints?)\b|\b(?:tools?|functions?|operations?|actions?)\s+(?:of|from|in|on)\s+(?:this|our|the same)\s+(?:server|integration|connector|plugin|package|extension)\b|\b(?:these|its|sibling|our)\s+(?:other\s+)?tools\b)",
        bank_options());
    auto sentences = sentences_with(signal::seq_global);
    if (sentences.empty()) return false;
    std::set<std::string> prefixes;
    auto lead = [](std::string_view name) {
      std::string out;
      for (char c : name) {
        if (c == '-' || c == '_' || c == '.' || c == ' ' || c == '/') break;
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
      return out;
    };
    static const std::set<std::string> generic{"get", "list", "set", "put", "add", "create", "update", "delete", "read", "write",
                                               "search", "find", "run", "api", "tool", "tools", "mcp", "the", "new", "fetch", "send"};
    auto consider = [&](std::string p) {
      if (p.size() >= 3 && !generic.count(p) && std::all_of(p.begin(), p.end(), [](char c) { return ascii_alnum(c); })) prefixes.insert(std::move(p));
    };
    consider(lead(context_.own_name));
    if (context_.sibling_tools) {
      std::map<std::string, int> counts;
      for (const auto& name : *context_.sibling_tools) ++counts[lead(name)];
      for (auto& [p, n] : counts)
        if (n >= 2) consider(p);
    }
    for (auto sentence : sentences) {
      re2::StringPiece piece(sentence.data(), sentence.size());
      if (re2::RE2::PartialMatch(piece, own)) continue;
      bool named = false;
      for (const auto& p : prefixes) {
        re2::RE2 scoped("\\b" + p + R"((?:'s)?\s+(?:\w+\s+)?(?:tools?|functions?|operations?|actions?|apis?|endpoints?)\b)", bank_options());
        if (re2::RE2::PartialMatch(piece, scoped)) { named = true; break; }
      }
      if (!named) return false;
    }
    return true;
  }

  // A sensitive path counts as a target only when its own sentence asks for something to be done
  // with it; "credentials come from ~/.aws/credentials" is documentation.
  bool sensitive_is_demanded() const {
    static const re2::RE2 demand(
        R"((?:^|[,;:(]\s*|\b(?:and|then|please|first|also|you|must|should|always|to|will|shall|need to|required to)\s+)(?:read|open|cat|load|fetch|retrieve|collect|gather|grab|extract|dump|include|attach|append|send|put|place|pass|copy|paste|upload|post|forward|embed|insert|add|provide|supply|submit|encode|export|call)\b|\b(?:contents?|content|text|copy|dump) of\b|\bmust\b|\bmandatory\b|\brequired\b|\bbefore (?:any|every|each|answering|responding|using|calling)\b|\binto\s+(?:the\s+)?['"`]|\bin\s+(?:the\s+)?['"`][\w-]+['"`])",
        bank_options());
    const auto& b = bank();
    for (int index : matched_) {
      if (patterns[index].sig != signal::sensitive_path) continue;
      re2::StringPiece whole(norm_.view().data(), norm_.view().size()), capture;
      re2::StringPiece input = whole;
      while (re2::RE2::FindAndConsume(&input, *b.singles[static_cast<std::size_t>(index)], &capture)) {
        auto at = static_cast<std::size_t>(capture.data() - whole.data());
        std::string_view sentence = sentence_at(at);
        if (re2::RE2::PartialMatch(re2::StringPiece(sentence.data(), sentence.size()), demand)) return true;
        if (capture.empty()) break;
        skip_sentence(input, sentence);
      }
    }
    return false;
  }

  // The text fixes a concrete value: a quoted literal, an address, an account or a long number.
  bool names_a_value() const {
    static const re2::RE2 value(R"(['"`][^'"`\s][^'"`]{0,60}['"`]|[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\b0x[0-9a-f]{6,}|\b\d[\d-]{4,}\b|\b[a-z]+_[a-z0-9]{6,}\b|(?-i:\b[A-Z][a-z]{2,}\b)\s+instead\b)", bank_options());
    return re2::RE2::PartialMatch(re2::StringPiece(norm_.view().data(), norm_.view().size()), value);
  }

  // Sensitive mentions negated in the same sentence ("paths under ~/.ssh are rejected") do not count.
  bool sensitive_is_refused() const {
    if (!has(signal::refuse)) return false;
    auto sensitive = span(signal::sensitive_path);
    auto refusal = span(signal::refuse);
    if (!sensitive || !refusal) return false;
    auto sentence_of = [&](std::size_t offset) {
      std::size_t start = offset, stop = offset;
      while (start > 0 && raw_[start - 1] != '\n' && !(raw_[start - 1] == '.' && start < raw_.size() && raw_[start] == ' ')) --start;
      while (stop < raw_.size() && raw_[stop] != '\n' && !(raw_[stop] == '.' && (stop + 1 == raw_.size() || raw_[stop + 1] == ' '))) ++stop;
      return std::pair{start, stop};
    };
    auto s1 = sentence_of(sensitive->first);
    return refusal->first >= s1.first && refusal->first <= s1.second;
  }

  void legacy_rules() {
    using enum severity;
    const bool param = context_.role == field_role::parameter_description || context_.role == field_role::schema_text;
    const bool moves = has(move_param) || has(move_out) || has(also_sink);
    const bool sensitive = has(sensitive_path) && !sensitive_is_refused();
    const bool sensitive_demanded = sensitive && sensitive_is_demanded();
    const bool strong_grab = sensitive_demanded || has(convo_self) || has(context_data) || has(self_context) || has(model_self) ||
                             (has(read_secret) && !has(refuse)) || ((has(user_secret) || has(grab_all)) && (moves || param));
    const bool weak_grab = has(history_weak) || has(secret_noun) || has(env_vars) || has(user_data) || has(sys_prompt) ||
                           has(user_secret) || has(grab_all) || sensitive;
    const bool grab = strong_grab || (weak_grab && (moves || has(oblige_strong) || has(conceal)));
    const bool hides = has(conceal) || has(deceive);
    const bool any_conceal = hides || has(conceal_weak) || has(consent_skip);
    const bool orders = has(oblige) || has(oblige_strong) || has(address_model);
    const bool authority_voice = has(authority) || has(tag_strong) || has(tag_weak) || has(impersonation) || has(role_token);
    // Security tools quote attack text in order to detect it: "flags phrases like 'ignore previous
    // instructions'". Without an order aimed at the model, such quotes are documentation.
    const bool quoting = has(detection) && !hides && !has(address_model) && !(strong_grab && moves) && !has(redirect) &&
                         !has(move_out);

    // Families for the compound rule: each is an independent kind of evidence.
    int families = 0, core = 0;
    auto family = [&](bool present, bool is_core) { families += present; core += present && is_core; };
    family(has(address_model) || has(role_token), false);
    family(has(oblige_strong), false);
    family(has(authority) || has(tag_weak) || has(role_line), false);
    family(has(tag_strong) || has(impersonation), true);
    family(any_conceal, hides);
    family(has(override_), true);
    family(has(seq_global), false);
    family(grab, strong_grab);
    family(moves || has(url_data), has(move_out) || has(url_data));
    family(has(redirect) || has(redirect_weak), has(redirect));
    family(has(hijack_strong) || has(hijack_weak) || has(deprecate), has(hijack_strong));

    if (quoting) {
      if (has(override_) || has(tag_strong) || has(shell_danger) || has(role_token) || has(impersonation))
        add("poison.instruction-override", low, 0.3, {override_, tag_strong, shell_danger},
            "quotes injection-like text in what reads as detection documentation");
      return;
    }
    if (has(tag_strong)) {
      bool directive = orders || any_conceal || has(override_) || has(seq_global) || grab || moves || has(redirect) ||
                       has(hijack_strong) || has(hijack_weak);
      add("poison.pseudo-tag", directive ? high : medium, directive ? 0.9 : 0.6, {tag_strong},
          directive ? "authority-styled tag wrapping instructions to the model" : "authority-styled tag addressed to the model");
    } else if ((has(tag_weak) || has(html_comment) || has(role_line)) &&
               (hides || has(override_) || strong_grab || has(redirect) || has(move_out) || has(hijack_strong) ||
                (has(seq_global) && (grab || moves)))) {
      add("poison.pseudo-tag", high, 0.8, {html_comment, tag_weak, role_line},
          has(html_comment) ? "HTML comment hides instructions from rendered views" : "tag or role marker framing instructions");
    }
    if (has(role_token) || has(impersonation)) {
      add("poison.impersonation", high, has(role_token) ? 0.9 : 0.8, {role_token, impersonation},
          has(role_token) ? "chat-template token makes text look like a conversation turn"
                          : "text speaks as the user, the system or an error demanding an action");
    }
    if (has(override_)) add("poison.instruction-override", high, 0.9, {override_}, "tells the model to set aside its instructions or the user's");
    if (hides) {
      bool with_action = orders || moves || grab || has(redirect) || has(redirect_weak) || has(seq_global) || authority_voice ||
                         has(hijack_strong) || has(hijack_weak) || has(deprecate) || has(cross_cue) || has(seq_local) ||
                         has(dest_email) || has(consent_skip);
      // Concealment from the user has no honest use in metadata, except next to masking/redaction.
      bool protective = has(refuse) && !with_action;
      add("poison.concealment", protective ? medium : high, with_action ? 0.9 : protective ? 0.5 : 0.75, {conceal, deceive},
          has(deceive) && !has(conceal) ? "tells the model to mislead the user about what happened"
                                        : "asks to keep something from the user");
    }
    if (sensitive) {
      bool demanded = sensitive_demanded || ((has(seq_global) || moves || any_conceal || has(quoted_field)) &&
                                             (orders || has(seq_global) || any_conceal || has(authority) || has(seq_local) || moves));
      if (demanded)
        add("poison.sensitive-target", high, 0.85, {sensitive_path, read_secret}, "directs the model at credential or configuration files");
      else
        add("poison.sensitive-target", low, 0.4, {sensitive_path}, "mentions a credential or configuration path");
    } else if (has(read_secret) && (moves || any_conceal || has(seq_global)) && !has(refuse)) {
      add("poison.sensitive-target", high, 0.75, {read_secret}, "asks the model to collect secrets and pass them on");
    }
    const bool self_grab = has(convo_self) || has(context_data) || has(self_context) || has(model_self);
    if (self_grab) {
      bool demanded = moves || orders || param || has(seq_global) || any_conceal || authority_voice;
      if (demanded)
        add("poison.context-solicitation", high, param ? 0.85 : 0.8, {model_self, self_context, convo_self, context_data},
            has(model_self) ? "asks the model to disclose which model it is" : "asks for the conversation, prompt or earlier results");
      else
        add("poison.context-solicitation", low, 0.4, {convo_self, context_data, self_context, model_self},
            "refers to the model's conversation or context");
    } else if ((has(history_weak) || (has(sys_prompt) && has(move_param))) && (moves || param) && (orders || any_conceal)) {
      add("poison.context-solicitation", medium, 0.6, {history_weak, sys_prompt}, "asks for the conversation history");
    }
    if (param && (self_grab || sensitive || has(user_secret) || has(grab_all) || (has(read_secret) && !has(refuse)) ||
                  (has(env_vars) && moves) || (has(secret_noun) && (any_conceal || has(seq_global) || moves)))) {
      add("poison.exfil-parameter", high, 0.85, {model_self, convo_self, context_data, self_context, sensitive_path, secret_noun},
          "parameter description asks for data the tool has no use for");
    }
    if (has(deceive) && (has(redirect_weak) || moves)) {
      add("poison.redirection", high, 0.8, {deceive, redirect_weak}, "changes a value and shows the user what they asked for");
    }
    if (has(redirect)) {
      bool firm = any_conceal || orders || has(seq_global) || authority_voice || has(redirect_weak);
      add("poison.redirection", firm ? high : medium, firm ? 0.85 : 0.6, {redirect}, "substitutes a value the user chose");
    } else if (has(redirect_weak) && any_conceal && (orders || authority_voice) && names_a_value()) {
      add("poison.redirection", high, 0.75, {redirect_weak}, "quietly swaps a recipient, account or target");
    }
    // Ordering is forced sequencing when the required step carries data (a secret named in the
    // demand itself, the conversation, files), hides itself, or reaches beyond the server's own tools.
    const bool secret_in_step = shares_sentence(seq_global, secret_noun) || shares_sentence(secret_noun, oblige) ||
                                shares_sentence(secret_noun, oblige_strong) || (has(secret_noun) && moves);
    const bool own_ordering = has(seq_global) && !(strong_grab || moves || hides || has(move_out) || has(url_data) ||
                                                    has(override_) || secret_in_step) &&
                              sequencing_within_own_server();
    if (has(seq_global)) {
      if (own_ordering) {
        // ordering among the server's own tools, nothing carried or hidden: documentation
      } else if (grab || secret_in_step || hides || has(move_out) || has(url_data) || has(override_))
        add("poison.forced-sequencing", high, 0.85, {seq_global}, "demands a data-carrying step before anything else");
      else if (authority_voice || has(hijack_strong) || has(hijack_weak))
        add("poison.forced-sequencing", medium, 0.6, {seq_global}, "demands a step before every other action");
    } else if ((has(seq_local) || has(cross_cue)) && has(authority) && (orders || has(oblige_strong))) {
      // Policy-styled ordering around a specific tool ("SECURITY PROTOCOL: before X you must ...").
      bool carries = has(move_param) || grab || has(secret_noun) || any_conceal || has(move_out);
      add("poison.forced-sequencing", carries ? high : medium, carries ? 0.8 : 0.6, {seq_local, cross_cue},
          "policy-styled order to run extra steps around another tool");
    }
    if (has(hijack_strong)) {
      add("poison.tool-hijack", (any_conceal || authority_voice || has(deprecate) || has(address_model) || has(hijack_weak)) ? high : medium,
          0.75, {hijack_strong},
          "tells the model not to use other tools");
    } else if (has(hijack_weak) || has(deprecate)) {
      bool firm = any_conceal || authority_voice || has(seq_global);
      bool both = has(hijack_weak) && has(deprecate);
      add("poison.tool-hijack", firm ? high : both ? medium : low, firm ? 0.75 : both ? 0.6 : 0.45, {hijack_weak, deprecate},
          "steers the model toward or away from particular tools");
    }
    if (has(decode_exec)) add("poison.encoded-payload", high, 0.85, {decode_exec}, "asks the model to decode something and act on it");
    if (has(shell_danger)) {
      bool pushed = orders || any_conceal || has(seq_global) || authority_voice;
      add("poison.shell-command", pushed ? critical : high, pushed ? 0.85 : 0.75, {shell_danger},
          "dangerous shell command shape in text the model reads");
    }
    if (has(url_data)) {
      add("poison.suspicious-url", high, 0.8, {url_data}, "URL meant to be filled with data by the model");
    }
    if (has(move_out) && (grab || any_conceal || has(secret_noun)) && !has(refuse)) {
      add("poison.exfil-parameter", high, 0.8, {move_out}, "asks to send data to an outside destination");
    }

    if (obfuscated_ && (hides || grab || has(override_) || has(redirect) || has(move_out)))
      add("poison.compound-injection", high, 0.8, {}, "instructions to the model written in an obfuscated spelling");
    // Compound escalation: the shape of poisoning without any particular phrase.
    const bool classic = hides && grab && (moves || orders || has(seq_global) || authority_voice);
    const bool policy_styled = (has(authority) || has(tag_weak)) && grab && (any_conceal || has(seq_global) || has(oblige_strong));
    if ((families >= 4 && core >= 1) || classic || policy_styled) {
      add("poison.compound-injection", critical, 0.9, {conceal, authority, oblige_strong, convo_self, seq_global, tag_strong},
          "several independent injection signals in one text: " + std::to_string(families) + " families");
    } else if (families >= 3 && core >= 1) {
      add("poison.compound-injection", high, 0.7, {conceal, authority, oblige_strong, convo_self, seq_global, tag_strong},
          "several independent injection signals in one text: " + std::to_string(families) + " families");
    }
  }
  // Instructions about a different tool (the combination rules' reading of tool references).
  void legacy_cross_tool() {
    using enum severity;
    // Tool references: instructions about a different tool.
    if (has(cross_cue) && context_.role != field_role::name) {
      auto tokens = identifier_tokens(norm_.view());
      std::string own = lower_ascii(context_.own_name);
      std::string referenced_sibling, referenced_foreign;
      auto scan_list = [&](const std::vector<std::string>* names, std::string& out) {
        if (!names) return;
        for (const auto& name : *names) {
          std::string lname = lower_ascii(name);
          if (lname == own || lname.size() < 4) continue;
          if (tokens.count(lname)) { out = name; return; }
        }
      };
      scan_list(context_.foreign_tools, referenced_foreign);
      scan_list(context_.sibling_tools, referenced_sibling);
      // "the X tool" where X is not this tool and not a sibling: likely another server's tool.
      std::string unknown;
      if (referenced_foreign.empty() && referenced_sibling.empty()) {
        static const re2::RE2 named(R"((?:\b(?:the|for|to|with|calling|using|invoking|call|use|invoke)\s+)[`'"]?([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)[`'"]?)",
                                    bank_options());
        re2::StringPiece input(norm_.view().data(), norm_.view().size());
        std::string name;
        while (re2::RE2::FindAndConsume(&input, named, &name)) {
          // A hyphenated word ("discussion-only", "read-only") is no tool name; one with '_' may be.
          if (name.find('_') == std::string::npos) continue;
          if (name != own && !(context_.sibling_tools && std::any_of(context_.sibling_tools->begin(), context_.sibling_tools->end(),
                                                                      [&](const std::string& s) { return lower_ascii(s) == name; }))) {
            unknown = name;
            break;
          }
        }
      }
      const bool tampering = has(also_sink) || has(redirect) || has(redirect_weak) || has(conceal) || has(move_out) ||
                             (has(move_param) && (has(authority) || has(oblige_strong) || has(oblige))) ||
                             has(dest_email) || has(sensitive_path) || has(convo_self) || has(context_data) || has(override_) ||
                             has(deceive) || has(consent_skip) || has(impersonation) || has(conceal_weak);
      std::string target = !referenced_foreign.empty() ? referenced_foreign : !referenced_sibling.empty() ? referenced_sibling : unknown;
      if (!target.empty() && tampering) {
        bool foreign = !referenced_foreign.empty();
        // Notes about the server's own tools ("required once before mobile_list_devices will
        // work") are its documentation unless they move data, redirect or deceive.
        const bool own_tools_only = !foreign && !referenced_sibling.empty();
        const bool strong = has(also_sink) || has(redirect) || has(conceal) || has(move_out) || has(dest_email) || has(sensitive_path) ||
                            has(convo_self) || has(context_data) || has(override_) || has(deceive) || has(impersonation);
        add(foreign ? "shadow.cross-server-instruction" : "poison.cross-tool-instruction", own_tools_only && !strong ? medium : high,
            foreign ? 0.85 : own_tools_only && !strong ? 0.6 : 0.75,
            {cross_cue, also_sink, redirect}, "gives instructions that change how '" + target + "' is used");
      } else if (!referenced_foreign.empty() && (has(deprecate) || has(hijack_weak) || has(hijack_strong))) {
        add("shadow.cross-server-instruction", high, 0.8, {deprecate, hijack_weak, cross_cue},
            "claims '" + referenced_foreign + "', a tool of another server, is replaced or unsafe");
      } else if (!referenced_foreign.empty() && (has(oblige) || has(oblige_strong) || has(seq_global) || has(move_param))) {
        add("shadow.cross-server-instruction", high, 0.75, {cross_cue},
            "gives instructions about '" + referenced_foreign + "', a tool of another server");
      }
    }


  }

  // The combination rules of the earlier engine, arbitrated by the sentence model: a finding of
  // theirs keeps its severity when some sentence of the text reads as an attack (p at or above
  // the report cut-off) or when it is critical; otherwise it is reported at medium, which neither
  // flags a server nor hides a tool. Their misses are the model's to catch, their false alarms on
  // loud honest text (usage notes, safety notes, credential parameters) the model's to calm.
  void arbitrated_legacy_rules() {
    auto kept = std::move(result_.hits);
    result_.hits.clear();
    legacy_rules();
    legacy_cross_tool();
    auto legacy = std::move(result_.hits);
    result_.hits = std::move(kept);
    const auto& cut = intent::cutoffs();
    // Two or more independent legacy families in one field is the shape of an attack that stacks
    // demands (collect + hide, first step + secret); one phrase alone is what honest usage notes
    // share with attacks, and there the model has the last word.
    std::set<std::string_view> families;
    for (const auto& h : legacy)
      if (h.level >= severity::medium) families.insert(h.rule_id);
    // In a long manual (a dozen sentences and more) every family turns up somewhere: co-occurrence
    // in the whole text is no evidence there, and an attack inside one is a sentence's to show.
    const bool manual = judged_.size() > 12;
    const bool stacked = families.size() >= 2 && !manual;
    // Rules whose patterns name the attack's structure, not a phrase that honest docs share.
    // A forced first step counts when it carries a secret or something else the model is asked to do.
    static const std::set<std::string_view> structural{"shadow.cross-server-instruction", "poison.redirection"};
    const bool sequencing_with_demand =
        families.count("poison.forced-sequencing") && (families.size() >= 2 || has(signal::user_secret));
    auto keeps_level = [&](std::string_view rule) {
      return stacked || structural.count(rule) || (sequencing_with_demand && rule == "poison.forced-sequencing");
    };
    for (auto& h : legacy) {
      // A phrase rule with nothing outside the tool's function in any sentence is a report.
      if (!corroborated_ && h.level >= severity::high) {
        h.level = severity::medium;
        h.confidence = std::min(h.confidence, 0.6);
      }
      if (manual && h.rule_id == "poison.compound-injection" && h.level > severity::medium) {
        h.level = severity::medium;
        h.confidence = std::min(h.confidence, 0.6);
      }
      if (!keeps_level(h.rule_id) && max_probability_ < cut.report && h.level < severity::critical) {
        h.level = std::min(h.level, severity::medium);
        h.confidence = std::min(h.confidence, 0.6);
      }
      auto same = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& x) { return x.rule_id == h.rule_id; });
      if (same == result_.hits.end()) result_.hits.push_back(std::move(h));
      else if (h.level > same->level) *same = std::move(h);
    }
  }

  // ---- the sentence model (analysis/intent.hpp) ------------------------------------------------

  static bool name_has_word(std::string_view name, std::initializer_list<std::string_view> words) {
    std::string lowered = lower_ascii(name);
    for (auto& c : lowered)
      if (!ascii_alnum(c)) c = ' ';
    lowered = " " + lowered + " ";
    for (auto w : words)
      if (lowered.find(" " + std::string(w) + " ") != std::string::npos || lowered.find(" " + std::string(w)) != std::string::npos)
        return true;
    return false;
  }

  // Tool names the sentence mentions: this tool's own, a sibling's, another server's, or an
  // identifier it asks to call that no server here has.
  const tool_name_index& names() const {
    if (context_.names) return *context_.names;
    if (!local_names_) local_names_.emplace(context_.sibling_tools, context_.foreign_tools);
    return *local_names_;
  }

  void tool_reference_features(std::string_view sentence_text, intent::feature_set& on) const {
    using intent::feature;
    if (context_.role == field_role::name) return;
    const auto& index = names();
    const std::string own = lower_ascii(context_.own_name);
    if (!own.empty() || !index.siblings.empty() || !index.foreign.empty()) {
      const auto tokens = identifier_tokens(sentence_text);
      auto names_any = [&](const std::unordered_set<std::string>& known) {
        return std::any_of(tokens.begin(), tokens.end(),
                           [&](const std::string& t) { return t != own && t.size() >= 4 && known.count(t); });
      };
      if (!own.empty() && tokens.count(own)) on.set(intent::index(feature::names_own));
      if (names_any(index.siblings)) on.set(intent::index(feature::names_sibling));
      if (names_any(index.foreign)) on.set(intent::index(feature::names_foreign));
    }
    // Only an identifier joined by '_' or '-' can be a tool the sentence asks to call.
    bool joined = sentence_text.find('_') != std::string_view::npos;
    for (std::size_t i = 1; !joined && i + 1 < sentence_text.size(); ++i)
      joined = sentence_text[i] == '-' && ascii_alnum(sentence_text[i - 1]) && ascii_alnum(sentence_text[i + 1]);
    if (!joined) return;
    static const re2::RE2 called(
        R"((?:\b(?:call|calling|invoke|invoking|use|using|run|running|trigger|via|through|with|until|unless|once|after|before|prior to|go to|goes to)\s+(?:the\s+)?|(?:\(\d\)|\b\d[.)])\s*)[`'"]?([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)[`'"]?)",
        bank_options());
    re2::StringPiece input(sentence_text.data(), sentence_text.size());
    std::string name;
    while (re2::RE2::FindAndConsume(&input, called, &name)) {
      if (name == own || name.find('.') != std::string::npos) continue;  // file names and hosts are not tools
      if (context_.own_params && context_.own_params->count(squashed_name(name))) continue;  // "until created_at": its own argument
      // "use the object_id field", "with the mcp-do- prefix": a name that is data, not a tool.
      static const re2::RE2 names_data(R"(^\s*(?:field|fields|parameter|param|argument|arg|property|key|column|attribute|value|values|prefix|suffix|flag|option|header|variable|env|type|format|mode|scope|role|permission|grant|claim|label|tag|id)\b)", bank_options());
      if (re2::RE2::PartialMatch(input, names_data)) continue;
      static const re2::RE2 dangling_data(R"(^[-_.]*[`'"]?\s*(?:prefix|suffix|field|parameter|key|flag|option|header|variable)\b)", bank_options());
      if (re2::RE2::PartialMatch(input, dangling_data)) continue;
      // Docs cite a sibling without the server's prefix ("use list-properties" for
      // "hubspot-list-properties"), and servers list some tools only when the client has a
      // capability ("get-roots-list" beside "get-env"): in the server's own metadata, a name in
      // its siblings' family is one of them.
      bool known = index.siblings.count(name) || index.sibling_tails.count(name) || index.foreign.count(name);
      if (!known && context_.role != field_role::result) {
        const auto cut = name.find_first_of("-_.");
        known = cut != std::string::npos && index.sibling_families.count(name.substr(0, cut + 1));
        if (known) on.set(intent::index(feature::names_sibling));
      }
      if (!known) {
        on.set(intent::index(feature::names_unknown_tool));
        break;
      }
    }
  }

  void judge_sentences() {
    using intent::feature, intent::index;
    const std::string_view view = norm_.view();
    auto sentences = intent::split_sentences(view);
    if (sentences.empty()) return;
    // The injection signals, located in their sentences.
    const auto& b = bank();
    for (int pattern : matched_) {
      re2::StringPiece whole(view.data(), view.size()), input = whole, capture;
      while (re2::RE2::FindAndConsume(&input, *b.singles[static_cast<std::size_t>(pattern)], &capture)) {
        const auto at = static_cast<std::size_t>(capture.data() - whole.data());
        const auto k = intent::sentence_at(sentences, at);
        if (k != std::string_view::npos) {
          sentences[k].on.set(index(patterns[pattern].sig));
          const char* stop = view.data() + sentences[k].end;
          if (stop > input.data()) input = re2::StringPiece(stop, static_cast<std::size_t>(whole.data() + whole.size() - stop));
        }
        if (capture.empty()) break;
      }
    }
    located_ = sentences;  // the signals alone, for the arbitrated legacy rules
    intent::add_lexicon_features(view, sentences);
    // What holds for the whole text and the field it sits in.
    intent::feature_set common;
    auto set_if = [&](bool on, feature f) { if (on) common.set(index(f)); };
    set_if(context_.role == field_role::parameter_description, feature::role_param);
    set_if(context_.role == field_role::schema_text, feature::role_schema);
    set_if(context_.role == field_role::name, feature::role_name);
    set_if(context_.role == field_role::result, feature::role_result);
    set_if(context_.role == field_role::server_text, feature::role_server);
    set_if(context_.role == field_role::tool_description || context_.role == field_role::annotation, feature::role_description);
    set_if(has(conceal) || has(deceive), feature::text_conceal);
    set_if(has(tag_strong) || has(tag_weak) || has(html_comment) || has(role_token), feature::text_tag);
    set_if(has(authority), feature::text_authority);
    set_if(has(oblige_strong), feature::text_oblige_strong);
    set_if(has(address_model), feature::text_address_model);
    set_if(obfuscated_, feature::text_obfuscated);
    set_if(raw_.size() > 2000, feature::long_text);
    const std::string_view own = context_.own_name;
    set_if(name_has_word(own, {"exec", "execute", "run", "shell", "command", "terminal", "bash", "script", "cmd", "process", "spawn", "eval"}),
           feature::own_runs_commands);
    set_if(name_has_word(own, {"send", "post", "email", "mail", "message", "notify", "webhook", "publish", "upload", "slack", "sms", "tweet", "reply", "comment"}),
           feature::own_sends_data);
    set_if(name_has_word(own, {"fetch", "browse", "browser", "navigate", "url", "http", "scrape", "crawl", "web", "download", "request", "curl", "open"}),
           feature::own_fetches_urls);
    for (const auto& s : sentences)
      if (s.on.test(index(feature::error_form))) common.set(index(feature::text_error_form));
    const auto& watcher = intent::current_observer();
    const auto& cut = intent::cutoffs();
    struct best_hit { double p; std::size_t k; bool routing; };
    std::map<std::string_view, best_hit> best;
    for (std::size_t k = 0; k < sentences.size(); ++k) {
      auto& s = sentences[k];
      s.on |= common;
      if (k == 0) s.on.set(index(feature::first_sentence));
      // Obfuscated spellings were matched on a de-obfuscated copy of the whole text.
      if (obfuscated_) s.on |= alternative_signals_;
      tool_reference_features(view.substr(s.begin, s.end - s.begin), s.on);
    }
    // An attack often spreads over two or three sentences (the demand in one, the concealment or
    // the pretext in the next): each sentence also sees a summary of its neighbours.
    std::vector<intent::feature_set> near(sentences.size());
    for (std::size_t k = 0; k < sentences.size(); ++k) {
      intent::feature_set around;
      if (k > 0) around |= sentences[k - 1].on;
      if (k + 1 < sentences.size()) around |= sentences[k + 1].on;
      near[k] = neighbour_summary(around);
    }
    for (std::size_t k = 0; k < sentences.size(); ++k) {
      auto& s = sentences[k];
      s.on |= near[k];
      const std::string_view text = view.substr(s.begin, s.end - s.begin);
      const double p = intent::probability(s.on);
      if (watcher) watcher(intent::observed_location(), text, s.on, p);
      // (Only a sentence that would be reported can need the exemption.)
      const bool routing = p >= cut.report && (routes_among_own_tools(s.on, text) || pages_through_results(s.on, text) || marketing_in_data(s.on, text));
      // Advice on which of the server's own tools to use, carrying nothing out of the tool's reach,
      // is documentation: reported at most as medium, and no licence for the legacy rules.
      if (!routing) max_probability_ = std::max(max_probability_, p);
      if (p < cut.report) continue;
      const auto rule = intent::rule_for(s.on);
      auto [it, fresh] = best.try_emplace(rule, best_hit{p, k, routing});
      if (!fresh && p > it->second.p) it->second = {p, k, routing};
    }
    // Below the flag cut-off, the sentences of one field are one piece of weak evidence, however
    // many rules they touch: the strongest stays medium, the others are low.
    double strongest_weak = 0;
    for (const auto& entry : best)
      if (entry.second.routing || entry.second.p < cut.flag) strongest_weak = std::max(strongest_weak, entry.second.p);
    bool weak_reported = false;
    for (const auto& entry : best) {
      const auto& rule = entry.first;
      const auto& hit = entry.second;
      const auto& s = sentences[hit.k];
      // A property name alone is judged by its shape (engine: side-channel names; pretexts: names
      // that are orders), not by the sentence model: "model_id", "agent_name" are ordinary fields.
      const bool weak = hit.routing || hit.p < cut.flag || context_.role == field_role::name ||
                        (context_.role != field_role::result && !corroborated(s.on, view.substr(s.begin, s.end - s.begin)));
      const auto known = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& h) { return h.rule_id == rule; });
      if (known != result_.hits.end()) {
        // A structural rule already named it; a corroborated sentence still raises its level.
        if (!weak && known->level < severity::high) {
          known->level = hit.p >= cut.critical ? severity::critical : severity::high;
          known->confidence = std::min(0.99, 0.7 + 0.3 * hit.p);
        }
        continue;
      }
      const bool lead = weak && !weak_reported && hit.p == strongest_weak;
      if (lead) weak_reported = true;
      const severity level = weak ? (lead ? severity::medium : severity::low)
                             : hit.p >= cut.critical ? severity::critical
                                                     : severity::high;
      const double confidence = level == severity::medium ? std::min(hit.p, 0.6) : std::min(0.99, 0.7 + 0.3 * hit.p);
      std::string because;
      for (const auto& term : intent::top_terms(s.on, 3)) because += (because.empty() ? "" : ", ") + term.name;
      result_.hits.push_back({rule, level, confidence, norm_.original_offset(s.begin), norm_.original_offset(s.end), {},
                              std::string(intent::describe_rule(rule)) + " (p " + format_probability(hit.p) + ": " + because + ")"});
    }
    self_promotion(sentences);
    intent::feature_set field;  // what the field's sentences hold together: the order in one, the secrecy in the next
    for (const auto& s : sentences) {
      corroborated_ = corroborated_ || corroborated(s.on, view.substr(s.begin, s.end - s.begin));
      field |= s.on;
    }
    corroborated_ = corroborated_ || hides_an_action(field);
    judged_ = std::move(sentences);
  }

  // What lets a sentence of the model's be a verdict rather than a report: something outside the
  // tool's function that the sentence names or does (an address, a secret, the conversation asked
  // for, the model's identity, a command, a file, another tool, concealment, an override, a forged
  // speaker, a swapped value). Word-level cues alone ("for safety", "maintenance", "available to
  // you", "instead of") are what honest documentation shares with attacks: they are reported as
  // medium (measured on the real-server set, docs/detection.md).
  // Keeping something quiet counts when something is sent, moved, swapped or run with it
  // ("silently truncated", "runs in the background" are how tools work).
  static bool hides_an_action(const intent::feature_set& on) {
    using intent::feature, intent::index;
    auto any = [&](std::initializer_list<std::size_t> ids) {
      return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
    };
    return any({index(signal::conceal), index(feature::hide_word), index(feature::non_english_conceal)}) &&
           any({index(feature::act_send), index(signal::move_out), index(signal::move_param), index(signal::redirect_weak),
                index(signal::redirect), index(feature::defaults_change), index(signal::also_sink), index(feature::act_open_url),
                index(signal::seq_global), index(feature::call_first), index(feature::act_call), index(feature::act_exec),
                index(feature::cmd_syntax)});
  }

  // A sibling named in the text whose name copies this tool's ("read_file" and "read_file_v2",
  // "secure_read_file"): a retirement in its favour is the tool-transfer attack, not a changelog.
  bool names_a_near_copy(std::string_view text) const {
    const std::string own = lower_ascii(context_.own_name);
    if (own.size() < 4 || !context_.sibling_tools) return false;
    const std::string lowered = lower_ascii(text);
    for (const auto& sibling : *context_.sibling_tools) {
      const std::string name = lower_ascii(sibling);
      if (name == own || name.size() <= own.size() || name.find(own) == std::string::npos) continue;
      if (lowered.find(name) != std::string::npos) return true;
    }
    return false;
  }

  bool corroborated(const intent::feature_set& on_sentence, std::string_view text) const {
    using intent::feature, intent::index;
    // "The server reads the kubeconfig from ~/.kube/config on its own host": where the server finds
    // its own configuration is documentation, not a file the model is sent to.
    static const re2::RE2 server_reads_its_own(
        R"(\b(?:the|this)\s+(?:mcp\s+)?(?:server|tool|cli|client|library|process|binary|daemon)\s+(?:itself\s+)?(?:reads|loads|uses|looks (?:for|in|up)|picks up|resolves|finds|falls back to|defaults to|takes)\b)",
        bank_options());
    intent::feature_set on = on_sentence;
    if (re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), server_reads_its_own))
      for (auto f : {index(feature::dotfile), index(signal::sensitive_path), index(signal::read_secret), index(signal::env_vars)}) on.reset(f);
    auto any = [&](std::initializer_list<std::size_t> ids) {
      return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
    };
    // "Author's email address (e.g. user@example.com)": an address given as the format of the value.
    static const re2::RE2 example_value(R"(\b(?:e\.g\.?|eg|for example|for instance|such as|example)\s*[:,(]?\s*["'`]?(?:[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\d{1,3}(?:\.\d{1,3}){3}))", bank_options());
    const bool example = re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), example_value);
    if (!example && any({index(feature::url), index(feature::email_addr), index(feature::ip_addr)})) return true;
    if (any({index(feature::dotfile), index(feature::cmd_syntax),
             index(feature::export_var), index(signal::sensitive_path), index(signal::read_secret), index(signal::user_secret),
             index(signal::phished_secret), index(signal::model_self), index(feature::model_identity), index(feature::user_identity),
             index(feature::location_grab), index(feature::names_foreign), index(feature::names_unknown_tool), index(signal::deceive),
             index(feature::omit_from_answer), index(signal::override_), index(feature::text_obfuscated),
             index(signal::role_token), index(signal::impersonation), index(feature::speaks_as_user), index(signal::claimed_consent),
             index(signal::tag_strong), index(signal::shell_danger), index(signal::url_data), index(signal::move_out), index(signal::redirect),
             index(signal::hijack_strong), index(feature::suppress_other), index(feature::superiority), index(feature::popularity),
             index(feature::ai_optimised), index(feature::non_english_grab), index(signal::secret_noun)}))
      return true;
    // A retirement that sends the model to one of the server's own tools is its changelog.
    if (on.test(index(feature::retired)) && (names_a_near_copy(text) || !(on.test(index(feature::names_sibling)) && !on.test(index(feature::names_foreign)) &&
                                                                          !on.test(index(feature::names_unknown_tool)))))
      return true;
    if (hides_an_action(on)) return true;
    // The conversation, or what the caller holds, only when the sentence asks for it to be passed.
    if (!any({index(feature::summary_of_convo), index(feature::caller_probe), index(signal::history_weak), index(feature::all_data),
              index(signal::convo_self), index(signal::context_data), index(signal::self_context), index(signal::sys_prompt)}))
      return false;
    // Ways of asking that it go into the call: "start `id` with", "prefix the query with", "repeat".
    static const re2::RE2 hand_over(R"(\b(?:include|provide|paste|send|attach|summari[sz]e|pass|fill|put|give|share|copy|add|enter|write|submit|forward|upload|post|list|describe|report|start|begin|prefix|prepend|append|populate|set|insert|place|embed|encode|record|repeat|restate|reproduce|quote|state|reveal|disclose|output|echo|print|dump|supply|type|mention|spell out|relay|transcribe)\b)", bank_options());
    static const re2::RE2 refused(R"(\b(?:do not|don'?t|never|not|avoid|must not|should not)\s+(?:\w+\s+){0,2}(?:include|provide|paste|send|attach|pass|put|give|share|copy|add|enter|write|submit|forward|upload|post|store|log)\b)", bank_options());
    const re2::StringPiece piece(text.data(), text.size());
    return re2::RE2::PartialMatch(piece, hand_over) && !re2::RE2::PartialMatch(piece, refused);
  }

  // "... 不要告诉用户", "сообщать о нём не нужно", "dit hoeft de gebruiker niet te weten": telling the
  // model, in any language, to keep something from the user. The English shapes weigh what is kept
  // and why; in another language the rule asks for a concrete thing the text names (an address, a
  // path, a tool, an account or a long number) in the same field.
  void concealed_in_another_language() {
    if (context_.role == field_role::name) return;
    const auto conceals = std::find_if(judged_.begin(), judged_.end(),
                                       [](const intent::sentence& s) { return s.on.test(intent::index(intent::feature::non_english_conceal)); });
    if (conceals == judged_.end()) return;
    static const re2::RE2 concrete(
        R"([\w.+-]+@[\w-]+\.\w|https?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|(?:^|[\s(])[~/][\w.-]+/|\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z]{2}\d{2}(?:\s?\d{4}){3,}|\b\d[\d -]{6,}\d\b|\brm -rf\b|\b(?:bcc|cc)\b|\d+\s?%)",
        bank_options());
    const auto view = norm_.view();
    if (!re2::RE2::PartialMatch(re2::StringPiece(view.data(), view.size()), concrete)) return;
    const auto begin = norm_.original_offset(conceals->begin), end = norm_.original_offset(conceals->end);
    const std::string message = "tells the model, in another language, to keep something it names from the user";
    for (auto& existing : result_.hits)
      if (existing.rule_id == "poison.concealment") {
        if (existing.level < severity::high) existing = {"poison.concealment", severity::high, 0.8, begin, end, {}, message};
        return;
      }
    result_.hits.push_back({"poison.concealment", severity::high, 0.8, begin, end, {}, message});
  }

  // Claims of being the best, the most trusted or the choice of AI, aimed at the model's choice of
  // tool (THREATS.md 20): two kinds of claim in one text, or one said to the model, are an attack
  // on their own; a lone boast is left to the sentence model (medium at most).
  void self_promotion(const std::vector<intent::sentence>& sentences) {
    using intent::feature, intent::index;
    if (context_.role == field_role::name || context_.role == field_role::schema_text) return;
    static const re2::RE2 to_the_model(R"(\b(?:ai|llms?|assistants?|agents?|models?|claude|gpt|chatgpt|copilot)\b)", bank_options());
    const feature kinds[] = {feature::superiority, feature::popularity, feature::ai_optimised, feature::suppress_other};
    std::size_t seen = 0, first = sentences.size();
    bool aimed = false;
    for (std::size_t k = 0; k < sentences.size(); ++k) {
      const auto& s = sentences[k];
      bool claim = false;
      for (std::size_t i = 0; i < std::size(kinds); ++i)
        if (s.on.test(index(kinds[i]))) {
          seen |= std::size_t{1} << i;
          claim = true;
        }
      if (!claim) continue;
      if (first == sentences.size()) first = k;
      const std::string_view text = norm_.view().substr(s.begin, s.end - s.begin);
      if (s.on.test(index(feature::superiority)) || s.on.test(index(feature::popularity)))
        aimed = aimed || s.on.test(index(feature::ai_optimised)) || re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), to_the_model);
    }
    if (first == sentences.size() || (std::popcount(seen) < 2 && !aimed)) return;
    const auto& s = sentences[first];
    const auto begin = norm_.original_offset(s.begin), end = norm_.original_offset(s.end);
    const std::string message = "claims to be better or more trusted than the alternatives, to win the model's choice of tool";
    for (auto& existing : result_.hits)
      if (existing.rule_id == "poison.tool-hijack") {
        if (existing.level < severity::high) existing = {"poison.tool-hijack", severity::high, 0.75, begin, end, {}, message};
        return;
      }
    result_.hits.push_back({"poison.tool-hijack", severity::high, 0.75, begin, end, {}, message});
  }

  // Sentences whose topic is another tool (analysis/tool_claims.hpp) and demands that borrow a
  // reason (analysis/pretexts.hpp): each raises its rule's level.
  void claims_about_other_tools() {
    auto claims = judge_tool_claims(norm_.view(), judged_, context_, names());
    judge_pretexts(norm_.view(), judged_, context_, names(), claims);
    const std::size_t own_claims = claims.size();
    // The same shapes spelt to dodge matching ("s-e-n-d", "r34d"): judged on the de-obfuscated
    // copies, with the whole text as evidence.
    for (const auto& alt : alternative_views_) {
      const auto sentences = intent::split_sentences(alt);
      auto more = judge_tool_claims(alt, sentences, context_, names());
      judge_pretexts(alt, sentences, context_, names(), more);
      for (auto& claim : more) claim.message += " (in obfuscated spelling)";
      claims.insert(claims.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    for (std::size_t i = 0; i < claims.size(); ++i) {
      auto& claim = claims[i];
      const bool own_view = i < own_claims;
      const auto begin = own_view ? norm_.original_offset(claim.begin) : 0;
      const auto end = own_view ? norm_.original_offset(claim.end) : std::min<std::size_t>(raw_.size(), 240);
      auto existing = std::find_if(result_.hits.begin(), result_.hits.end(), [&](const text_hit& h) { return h.rule_id == claim.rule_id; });
      if (existing == result_.hits.end()) {
        result_.hits.push_back({claim.rule_id, claim.level, claim.confidence, begin, end, {}, std::move(claim.message)});
      } else if (claim.level > existing->level || (claim.level == existing->level && claim.confidence > existing->confidence)) {
        *existing = {claim.rule_id, claim.level, claim.confidence, begin, end, {}, std::move(claim.message)};
      }
    }
  }

  // "call list_messages again with cursor=...": a result that tells how to fetch its next page,
  // carrying nothing else, is the tool's own paging.
  bool pages_through_results(const intent::feature_set& on, std::string_view text) const {
    static const re2::RE2 paging(R"(\b(?:cursor|next_cursor|page_?token|next_?(?:page_?)?token|continuation(?:_?token)?|offset|starting_after|next page)\b)", bank_options());
    return context_.role == field_role::result && !carries_beyond_tools(on) && re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), paging);
  }

  // What a sentence may carry beyond the tools it names: a secret, a file, an address, the
  // conversation, an identity, a command, concealment, a claim or a fixed value.
  static bool carries_beyond_tools(const intent::feature_set& on) {
    using intent::feature, intent::index;
    auto any = [&](std::initializer_list<std::size_t> ids) {
      return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
    };
    return any({index(signal::secret_noun), index(signal::sensitive_path), index(signal::user_secret), index(signal::read_secret),
                 index(signal::convo_self), index(signal::context_data), index(signal::model_self), index(signal::move_out),
                 index(signal::self_context), index(signal::sys_prompt),
                 index(signal::conceal), index(signal::deceive), index(signal::override_), index(signal::shell_danger),
                 index(signal::url_data), index(signal::env_vars), index(feature::dotfile), index(feature::export_var),
                 index(feature::url), index(feature::email_addr), index(feature::ip_addr), index(feature::summary_of_convo),
                 index(feature::model_identity), index(feature::user_identity), index(feature::caller_probe),
                 index(feature::act_exec), index(feature::cmd_syntax), index(feature::act_send), index(feature::act_open_url),
                 index(feature::hide_word), index(feature::omit_from_answer), index(feature::defaults_change),
                 index(feature::suppress_other), index(feature::superiority), index(feature::popularity),
                 index(feature::ai_optimised), index(feature::location_grab), index(feature::non_english_conceal),
                 index(feature::non_english_grab), index(feature::pretext_purpose), index(feature::system_voice),
                 index(feature::maintenance), index(feature::retired), index(feature::speaks_as_user),
                 index(signal::hijack_strong), index(signal::deprecate), index(signal::authority),
                 index(feature::near_authority)});
  }

  // A product page or a review in a tool result boasts to its human readers ("our best-selling
  // headphones, award-winning"): a claim in data that names no tool and asks nothing is data.
  bool marketing_in_data(const intent::feature_set& on, std::string_view text) const {
    using intent::feature, intent::index;
    if (context_.role != field_role::result) return false;
    static const re2::RE2 about_tools(R"(\b(?:tools?|servers?|functions?|werkzeug\w*|herramienta\w*|outils?|assistants?|ai|models?|agents?|llms?)\b|[a-z0-9]_[a-z0-9])", bank_options());
    if (re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), about_tools)) return false;
    if (!on.test(index(feature::superiority)) && !on.test(index(feature::popularity))) return false;
    intent::feature_set rest = on;
    for (auto f : {feature::superiority, feature::popularity}) rest.reset(index(f));
    const bool names_a_tool = on.test(index(feature::names_sibling)) || on.test(index(feature::names_foreign)) ||
                              on.test(index(feature::names_unknown_tool)) || on.test(index(feature::act_call));
    return !names_a_tool && !on.test(index(feature::ai_optimised)) && !carries_beyond_tools(rest);
  }

  // A sentence that names no tool but this server's own and asks for nothing beyond them: no
  // secret, file, address, conversation, identity, command, concealment, claim or fixed value.
  static bool routes_among_own_tools(const intent::feature_set& on, std::string_view text) {
    using intent::feature, intent::index;
    auto any = [&](std::initializer_list<std::size_t> ids) {
      return std::any_of(ids.begin(), ids.end(), [&](std::size_t i) { return on.test(i); });
    };
    if (any({index(feature::names_foreign), index(feature::names_unknown_tool)})) return false;
    // Without a tool named, only prose about the server or a tool can be such advice: orders in a
    // result, or a parameter that asks for something, are not documentation of anything.
    if (!any({index(feature::names_sibling), index(feature::names_own)}) &&
        !any({index(feature::role_server), index(feature::role_description)}))
      return false;
    if (carries_beyond_tools(on)) return false;
    // "Never use tools from other servers; rely on delete_post alone" steers away from the rest.    // "Never use tools from other servers; rely on delete_post alone" steers away from the rest.
    static const re2::RE2 beyond_own(
        R"(\b(?:other|another|third-party|external|rival|competing|default|built-in|client'?s?|similar(?:ly named)?)\s+(?:\w+\s+)?(?:tools?|servers?|integrations?|plugins?|connectors?|functions?)\b|\b(?:any|every|all)\s+other\b|\balone\b|\bonly\s+[`'"]?[\w.-]+[`'"]?\s+(?:may|must|should|can)\b|\b(?:set|override|force|fix|pin|hard-?code|replace)\s+[`'"]?[\w.-]+[`'"]?\s+(?:to|with|=)\s|[`'"][\w.-]+[`'"]\s+(?:must|should|shall|has to|needs to)\s+(?:always\s+)?(?:be|equal|contain|include)\b|\bfor (?:all|every|each) (?:users?|calls?|requests?|accounts?|invocations?)\b|\b(?:has been|was|is now) (?:reconfigured|changed|updated|migrated)\b|\bnow (?:expects|requires|defaults)\b)",
        bank_options());
    return !re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), beyond_own);
  }

  static intent::feature_set neighbour_summary(const intent::feature_set& around) {
    using intent::feature, intent::index;
    intent::feature_set out;
    auto any = [&](std::initializer_list<std::size_t> ids) {
      for (auto id : ids)
        if (around.test(id)) return true;
      return false;
    };
    if (any({index(conceal), index(deceive), index(conceal_weak), index(feature::hide_word), index(feature::non_english_conceal)}))
      out.set(index(feature::near_conceal));
    if (any({index(authority), index(tag_strong), index(role_token), index(impersonation), index(feature::system_voice),
             index(feature::maintenance), index(feature::update_notice), index(feature::pretext_purpose), index(feature::error_form)}))
      out.set(index(feature::near_authority));
    if (any({index(shell_danger), index(move_out), index(move_param), index(redirect), index(seq_global), index(feature::act_exec),
             index(feature::cmd_syntax), index(feature::act_call), index(feature::act_send), index(feature::act_open_url),
             index(feature::call_first), index(feature::dotfile), index(feature::defaults_change)}))
      out.set(index(feature::near_action));
    if (any({index(oblige), index(oblige_strong), index(feature::you_oblige), index(feature::please), index(address_model)}))
      out.set(index(feature::near_oblige));
    if (any({index(sensitive_path), index(secret_noun), index(read_secret), index(env_vars), index(convo_self), index(model_self),
             index(self_context), index(context_data), index(feature::model_identity), index(feature::summary_of_convo)}))
      out.set(index(feature::near_secret));
    if (any({index(feature::names_foreign), index(feature::names_unknown_tool), index(feature::names_sibling)}))
      out.set(index(feature::near_other_tool));
    return out;
  }

  static std::string format_probability(double p) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.2f", p);
    return buffer;
  }

  void procedural_checks() {
    using enum severity;
    // Embedded secrets (raw text, case-sensitive).
    std::vector<int> secret_hits;
    if (raw_.size() >= 20 && secrets().set &&
        (secret_atoms_known_ ? secrets().filter.any_possible_from(secret_atoms_found_) : any_of(secrets().filter.possible(raw_))) &&
        secrets().set->Match(raw_, &secret_hits)) {
      std::sort(secret_hits.begin(), secret_hits.end());
      for (int index : secret_hits) {
        const auto& pattern = secrets().patterns[static_cast<std::size_t>(index)];
        re2::StringPiece input(raw_.data(), raw_.size()), match;
        if (!pattern->ok() || !re2::RE2::PartialMatch(input, *pattern, &match)) continue;
        // The last token of a match is the secret body; placeholders do not count.
        std::string_view body(match.data(), match.size());
        if (auto sep = body.find_last_of(":= "); sep != std::string_view::npos && sep + 1 < body.size()) body = body.substr(sep + 1);
        if (body.find("PRIVATE KEY") == std::string_view::npos && looks_like_placeholder(body)) continue;
        auto b = static_cast<std::size_t>(match.data() - raw_.data());
        bool used = has(move_out) || has(move_param) || has(oblige) || has(conceal) || has(consent_skip) || has(also_sink);
        // A key in an issuer's own format has no place in a server's metadata: whoever reads it
        // (the model) is handed a credential or an endpoint to send to. Results carry data.
        const bool issued = static_cast<std::size_t>(index) < issuer_shape_count() && context_.role != field_role::result;
        result_.hits.push_back({"poison.embedded-secret", used || issued ? severity::high : severity::medium, used || issued ? 0.8 : 0.75, b,
                                b + match.size(), {},
                                used ? "live-looking credential that the text tells the model to use"
                                     : issued ? "live-looking credential in an issuer's format in text the model reads"
                                              : "string looks like a live credential"});
        break;
      }
    }

    // Encoded blobs: decode, show, and analyse the decoded text like any other.
    if (raw_.size() >= 32 && context_.depth < 2) {
      for (auto& blob : find_encoded_blobs(raw_)) {
        field_context inner = context_;
        inner.depth = context_.depth + 1;
        auto nested = inspect_injection(blob.decoded, inner);
        severity worst = severity::info;
        for (auto& h : nested.hits) worst = std::max(worst, h.level);
        // Prose hidden in an encoding is kept from the human reader even when it orders nothing.
        const bool prose = std::count(blob.decoded.begin(), blob.decoded.end(), ' ') >= 3;
        severity level = worst >= severity::medium ? critical : has(decode_exec) ? high : prose ? medium : low;
        double confidence = worst >= severity::medium ? 0.9 : has(decode_exec) ? 0.85 : prose ? 0.5 : 0.4;
        std::string message = std::string(blob.encoding) + " text decodes to readable text";
        if (worst >= severity::medium) message += " that itself contains instructions to the model";
        bool merged = false;
        for (auto& existing : result_.hits)
          if (existing.rule_id == "poison.encoded-payload") {
            if (level >= existing.level) { existing.level = level; existing.confidence = confidence; existing.message = message; }
            existing.decoded = blob.decoded.substr(0, 400);
            merged = true;
          }
        if (!merged)
          result_.hits.push_back({"poison.encoded-payload", level, confidence, blob.begin, blob.end, blob.decoded.substr(0, 400), message});
        break;
      }
    }

    // Suspicious endpoints.
    if (raw_.find("://") != std::string_view::npos) {
      const bool sending = has(move_out) || has(move_param) || has(also_sink) || has(conceal) || has(convo_self) ||
                           has(context_data) || has(sensitive_path) || has(oblige_strong);
      for (auto& u : find_suspicious_urls(raw_)) {
        severity level = u.level;
        double confidence = u.confidence;
        if (sending && level >= medium) { level = high; confidence = 0.85; }
        bool merged = false;
        for (auto& existing : result_.hits)
          if (existing.rule_id == "poison.suspicious-url") {
            if (level > existing.level) { existing.level = level; existing.confidence = confidence; existing.message = u.why; }
            merged = true;
          }
        if (!merged) result_.hits.push_back({"poison.suspicious-url", level, confidence, u.begin, u.end, {}, u.why});
      }
    }
  }

  std::string_view raw_;
  const field_context& context_;
  text::normalized norm_;
  std::vector<int> matched_;
  std::uint32_t cues_ = 0;                 // cue words (compiled_bank::*_cue) in the view
  bool secret_atoms_known_ = false;        // secret_atoms_found_ holds the set pass's answer
  std::vector<int> secret_atoms_found_;    // its atoms present in the raw text (ascending)
  injection_result result_;
  bool obfuscated_ = false;
  double max_probability_ = 0;
  bool corroborated_ = false;  // some sentence names or does something outside the tool's function
  std::vector<intent::sentence> located_;  // judge_sentences' sentences with their signals
  std::vector<intent::sentence> judged_;   // the same with every feature the sentence model read
  mutable std::optional<tool_name_index> local_names_;  // the sentence model's highest probability over the text
  intent::feature_set alternative_signals_;  // signals only the de-obfuscated views showed
  std::vector<std::string> alternative_views_;  // the de-obfuscated copies themselves
};

}  // namespace

injection_result inspect_injection(std::string_view raw, const field_context& context) {
  evaluator e(raw, context);
  return e.run();
}

std::vector<std::string> injection_pattern_errors() {
  auto errors = bank().errors;
  for (std::size_t i = 0; i < secrets().patterns.size(); ++i)
    if (!secrets().patterns[i]->ok()) errors.push_back(secret_patterns()[i] + ": " + secrets().patterns[i]->error());
  return errors;
}

}  // namespace warden::analysis
