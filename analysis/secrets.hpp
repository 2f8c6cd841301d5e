#pragma once
// The one catalogue of credential shapes. `scan` (poison.embedded-secret) and the runtime path
// (proxy/runtime_text: redaction of results, arguments and the audit log) read this same table, so
// what one finds the other redacts. Plain constexpr data: no RE2 here.
#include <array>
#include <string_view>

namespace warden::analysis {

// One credential shape: the kind reported, its RE2 pattern (group 1, when present, is the
// credential itself), and whether it is generic (assignments and high-entropy runs: right for
// arguments and the audit log, too noisy for tool results).
struct secret_shape {
  std::string_view kind;
  std::string_view regex;
  bool generic;
};

// Shapes published by the issuers, anchored on their fixed prefixes so that ordinary text does not
// match; generic ones last, and high-entropy (found without RE2) the very last.
inline constexpr std::array<secret_shape, 16> secret_shapes{{
    {"private-key", R"(-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|\z))", false},
    {"aws-access-key-id", R"(\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b)", false},
    {"github-token", R"(\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b)", false},
    {"gitlab-token", R"(\b(glpat-[A-Za-z0-9_-]{20,})\b)", false},
    {"slack-token", R"(\b(xox[abprs]-[A-Za-z0-9-]{10,}))", false},
    {"slack-webhook", R"((https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}))", false},
    {"anthropic-key", R"(\b(sk-ant-[A-Za-z0-9_-]{20,}))", false},
    {"openai-key", R"(\b(sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}))", false},
    {"stripe-key", R"(\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}))", false},
    {"google-api-key", R"(\b(AIza[0-9A-Za-z_-]{35}))", false},
    {"jwt", R"(\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}))", false},
    {"npm-token", R"(\b(npm_[A-Za-z0-9]{36}))", false},
    {"huggingface-token", R"(\b(hf_[A-Za-z0-9]{30,}))", false},
    {"url-credentials", R"(\bhttps?://[^/\s:@"']+:([^/\s:@"']{6,})@[\w.-]+)", true},
    {"credential-assignment",
     R"((?i)(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|client[_-]?secret|token)["']?\s*[:=]\s*["']?([^\s"',;]{8,}))",
     true},
    {"high-entropy", R"(([A-Za-z0-9+/_=-]{32,}))", true},
}};

// The fixed strings every issuer shape above contains at its start (case-sensitive): a text
// without any of them holds no issuer credential. Keep in step with secret_shapes.
inline constexpr std::array<std::string_view, 21> secret_issuer_prefixes{
    "-----BEGIN", "AKIA", "ASIA", "ABIA", "ACCA", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "xox", "hooks.slack.com", "sk-", "sk_", "rk_", "eyJ", "npm_", "hf_"};

}  // namespace warden::analysis
