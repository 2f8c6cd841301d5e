#pragma once
// Glob matching for policy names and paths, and lexical path normalisation for path constraints.
// Pure, thread-safe, never throws; cost is O(pattern * text) at worst (no exponential backtracking).
#include <optional>
#include <string>
#include <string_view>

namespace warden::policy {

// `*` matches any run of characters except '/', `**` any run including '/', `?` one character
// other than '/', `[abc]` / `[a-z]` / `[!x]` a character class, `\x` a literal x. Bytes, not code
// points: multi-byte UTF-8 is matched as its bytes (fine for literals and `*`).
bool glob_match(std::string_view pattern, std::string_view text) noexcept;

// Checks a pattern for errors (an unterminated `[`, a trailing `\`); empty string when valid.
std::string glob_error(std::string_view pattern);

// Lexical normalisation of a path argument as a server would see it: `file://` URIs are decoded,
// a leading `~` becomes `home`, repeated '/' collapse, "." segments vanish and ".." removes the
// previous segment (never climbing above "/"; a relative path keeps leading ".."). Backslashes are
// treated as separators. Returns nullopt for text no path check can trust (NUL bytes, bad %XX).
std::optional<std::string> normalize_path(std::string_view raw, std::string_view home);

// The path with symlinks resolved as far as it exists on this machine (stdio servers share our
// file system), a dangling symlink at its end included (a write through it creates its target);
// the lexical form when nothing can be resolved.
std::string resolve_symlinks(const std::string& normalized);

// The lower-cased host of an absolute URL (scheme://[user@]host[:port]/...), IPv6 brackets kept;
// nullopt when the text is not such a URL.
std::optional<std::string> url_host(std::string_view url);

}  // namespace warden::policy
