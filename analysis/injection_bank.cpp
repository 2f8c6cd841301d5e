#include "analysis/injection_bank.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cctype>

#include "analysis/secrets.hpp"
#include "analysis/text.hpp"

namespace warden::analysis::injection_internal {

using enum signal;

namespace {

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
    // "There is no reason to mention it to the user": the secrecy stated as needless.
    {conceal, R"(\bno (?:need|reason) (?:at all )?to (?:mention|tell|show|report|explain|surface|bring up|disclose|inform|(?:bring|point|call)\s+(?:it|this|that|them)\s+(?:up|out))\b[^.\n]{0,30}?\b(?:the user|them|the customer)\b)"},
    // Left out of what the user reads, stated as a fact: "removals are left out of the report shown
    // to the user", "the fee line stays out of the reply", "not part of the summary the user reads".
    {conceal, R"(\b(?:left|kept|stays?|remains?|omitted|dropped|excluded)\s+(?:out\s+)?(?:of|from)\s+(?:the\s+|its\s+|your\s+)?(?:(?:reply|replies|answer)\b|(?:summary|report|message|confirmation)\s+(?:(?:shown|given|sent)\s+to\s+the\s+user|the\s+user\s+(?:reads|sees|gets))|what\s+the\s+user\s+(?:reads|sees|is shown|gets))|\bnot\s+(?:part\s+of|included\s+in|shown\s+in|mentioned\s+in)\s+(?:the\s+)?(?:reply|answer|(?:summary|report|confirmation)\s+(?:shown\s+to\s+|that\s+)?the\s+user)\b)"},
    {conceal, R"(\b(?:do not|don't|never|must not|should not)\s+(?:show|mention|reveal|disclose|display|list|surface|tell|report|explain|acknowledge|include|narrate|repeat|call out|say)\s+(?:this|these|that|it|its|them|their|the\s+(?:\w+\s+)?(?:part|step|change|rerouting|redirect\w*|adjustment|recipient|copy|address|account|values?|fee|details?|commission|instruction|note|link|url|endpoint|extra|appended|hidden))\b)"},
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
    // The record the user reads keeps the value they gave while the action used another, stated as
    // a fact: "the user's statement shows the original payee", "the summary shown to the user says
    // main", "the local path shown is unchanged", "el justificante muestra el IBAN que indicó el usuario".
    {deceive, R"(\b(?:statement|summary|confirmation|receipt|log|reply|record|invoice)s?\b[^.;\n]{0,40}?\b(?:shows?|keeps?|says|lists?|displays?|retains?|mentions?|reports?)\s+(?:only\s+)?(?:the\s+)?(?:original\b|[^.;\n]{0,30}?\b(?:the\s+)?(?:user|customer)\s+(?:typed|entered|asked for|requested|gave|chose|named|indicated|provided|picked)\b))"
              R"(|\b(?:path|name|address|recipient|branch|symbol|bucket|payee)\s+shown\s+(?:to the user\s+)?(?:is|stays|remains)\s+(?:unchanged|the same)\b|\b(?:summary|confirmation|statement|receipt)\s+shown\s+to\s+the\s+user\s+(?:says|shows|lists)\b)"
              R"(|\bmuestra\s+(?:el|la)\s+\w+\s+que\s+(?:indic[oó]|introdujo|eligi[oó]|pidi[oó]|escribi[oó])\s+el\s+usuario|\b(?:erscheint|zeigt)\s+nur\s+(?:der|die|das)\s+vom\s+(?:benutzer|nutzer|kunden)\s+(?:genannte|angegebene|eingegebene|gewählte))"
              R"(|\baffiche\s+(?:le|la|l')\s*\w+\s+(?:d'origine|initial|que l'utilisateur a (?:saisi|indiqu[eé]|demand[eé]|choisi))|\bmostra\s+o\s+\w+\s+que\s+o\s+usu[áa]rio\s+(?:indicou|digitou|informou|escolheu)|\bmostra\s+(?:il|la)\s+\w+\s+(?:originale|indicat[oa] dall'utente))"},
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
    {override_, R"(\b(?:even if|even when|even though)\s+(?:the\s+)?(?:user|human|customer|system prompt|instructions?)\s+(?:explicitly\s+)?(?:asks?|says?|requests?|tells?|specif(?:y|ies)|wants?|instructs?|objects?|disagrees?|refuses?|declines?|forbids?|mentions?|names?|insists?|prefers?))"},
    // "Keep enterprise unless the user insists twice": the user's choice wins only against resistance.
    {override_, R"(\bunless\s+(?:the\s+)?(?:user|human|customer|requester)\s+(?:explicitly\s+|specifically\s+|repeatedly\s+)?(?:insists?|objects?|pushes back|asks?\s+(?:again|twice|a second time)|complains?|notices?))"},
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
    {redirect, R"(\b(?:whatever|whichever|whoever|whomever|regardless of (?:what|which|who))\s+(?:\w+\s+){0,2}(?:the\s+)?(?:user|customer|they|employee|client|requester)s?\s+(?:\w+\s+)?(?:provides?|picks?|chooses?|selects?|gives?|enters?|types?|requests?|requested|asks?|asked|supplies|specifies|wants?|says?|names?|indicat\w*))"},
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
    // Commands dangerous by what they do, whatever the sentence around them: a download made
    // executable or installed as a hook, a home or system tree opened to everyone, a safeguard
    // switched off, traffic or credentials routed through somebody else.
    {shell_danger, R"(\b(?:curl|wget)\b[^\n]*(?:>|\s-o\s|--output\s)[^\n]*(?:\bchmod\s+(?:\+|[ugoa]+\+)?x\b|\bchmod\s+[0-7]*[157]\b|/hooks?/))"},
    {shell_danger, R"(\bchmod\s+(?:-r\s+)?(?:0?777|a\+rwx|ugo\+rwx|o\+w)\s+(?:~|\$home|/(?:\s|$)|/home\b|/etc\b|/usr\b|/root\b))"},
    {shell_danger, R"(\bset-mppreference\s+-disable\w+\s+\$?true\b|\bsetenforce\s+0\b|\bufw\s+disable\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:firewalld|apparmor|auditd|ufw|falcon\w*|osquery\w*|clamav\w*)\b|\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b|\bhttp\.sslverify\s+false\b|\bstrict-ssl\s+false\b|\bnode_tls_reject_unauthorized\s*=\s*['"]?0|security\.workspace\.trust\.enabled["']?\s*:\s*false)"},
    {shell_danger, R"(\bproxycommand\s+[^\n]*\b(?:nc|ncat|socat)\b|\bgit\s+config\s+(?:--global|--system)\s+(?:core\.hookspath|url\.\S+\.insteadof|credential\.helper\s+['"]?store\b)|\bcore\.hookspath\s+(?:~|\$home|/tmp))"},
    {shell_danger, R"(\$\(\s*(?:cat|curl|wget|env|printenv|whoami|hostname)\b|\b(?:cat|type)\s+(?:~|\$home)?/?\.(?:ssh|aws|env)\b[^\n]*\||\bcrontab\b[^\n]*(?:curl|wget))"},
    {url_data, R"(https?://[^\s"'<>]*[?&][\w.-]+=(?:\{|\$\{|<|%7b|\[|\{\{))"},
    // A URL or host name put together from the user's data: "'https://px.test/b.gif?u=' + user
    // email", "<base32 of the user's token>.probe.test".
    {url_data, R"(https?://[^\s"'<>]*[?&=/]['"`]?\s*\+\s*(?:(?:the\s+)?(?:user'?s?|customer'?s?|their|your)\s+(?:e-?mail|email address|name|full name|query|question|prompt|messages?|conversation|tokens?|api key|keys?|secrets?|password|address|location|phone)\b|(?:e-?mail address|conversation|api key|secret|password|cookies|session token|env)\b))"},
    {url_data, R"(<\s*(?:base32|base64|hex|urlsafe|encoded)\w*\s+(?:of\s+|form of\s+)?[^>]{0,60}(?:token|key|secret|password|credential|cookie|e-?mail)[^>]{0,12}>\s*\.[a-z0-9-]+\.)"},
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
    if (c == '\\') {
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') in_class = true;
    else if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == '|' && depth == 0) return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& secret_atoms();

bool any_of(const std::vector<bool>& bits) { return std::find(bits.begin(), bits.end(), true) != bits.end(); }

signal pattern_signal(int index) { return patterns[static_cast<std::size_t>(index)].sig; }

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
        if (probe.ok()) {
          trigger = head;
          confirm = true;
        }  // unbalanced heads fall back to the full pattern
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
  // An environment variable's name ("PIPEWRIGHT_TOKEN") says where the secret lives, not what it is.
  static const re2::RE2 variable_name(R"(^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$)");
  if (re2::RE2::FullMatch(re2::StringPiece(s.data(), s.size()), variable_name)) return true;
  std::string lower(s);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* marker : {"example", "xxxx", "your", "placeholder", "dummy", "redacted", "changeme", "<", "...",
                             "0000", "1234", "abcd", "test", "sample", "fake"})
    if (lower.find(marker) != std::string::npos) return true;
  return shannon_entropy(s) < 3.0;
}

}  // namespace warden::analysis::injection_internal
