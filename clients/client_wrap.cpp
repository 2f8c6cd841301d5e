// wrap / unwrap by splicing (see client_wrap.hpp).
#include "clients/client_wrap.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace warden::clients {

std::string_view to_string(entry_action action) noexcept {
  switch (action) {
    case entry_action::wrapped: return "wrapped";
    case entry_action::options_updated: return "options updated";
    case entry_action::already_wrapped: return "already wrapped";
    case entry_action::unwrapped: return "unwrapped";
    case entry_action::not_wrapped: return "not wrapped";
    case entry_action::skipped: return "skipped";
  }
  return "skipped";
}

namespace {

std::string_view slice(std::string_view text, std::size_t begin, std::size_t end) {
  return begin <= end && end <= text.size() ? text.substr(begin, end - begin) : std::string_view();
}

// File names for audit logs: keep letters, digits, '-', '_' and '.', replace the rest.
std::string file_safe(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.';
    out += keep ? c : '_';
  }
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out;
}

std::string quoted_list_prefix(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += quote_json(word) + ", ";
  return out;
}

// Clients whose config file only takes stdio entries: a remote entry there must be fronted.
bool needs_stdio(client_kind client) { return client == client_kind::claude_desktop; }

std::string newline_of(std::string_view text) { return text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n"; }

// Entry keys made unique by their rank among entries of the same key (a JSON object may repeat
// a name), so that two versions of a file match entry for entry.
std::vector<std::string> unique_keys(const client_config& config) {
  std::map<std::string, int> seen;
  std::vector<std::string> keys;
  for (const auto& entry : config.servers) keys.push_back(entry.key() + "\x1e" + std::to_string(seen[entry.key()]++));
  return keys;
}

const server_entry* find_entry(const client_config* config, const std::string& unique_key) {
  if (!config) return nullptr;
  const auto keys = unique_keys(*config);
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == unique_key) return &config->servers[i];
  return nullptr;
}

// The text that replaces a remote entry: a stdio entry running mcp-warden --upstream.
std::string fronted_entry_text(const client_config& config, const server_entry& entry,
                               const std::vector<std::string>& warden_args, const std::string& warden_path) {
  std::vector<std::string> args = warden_args;
  args.push_back("--upstream");
  args.push_back(entry.url);
  for (const auto& [name, value] : entry.headers) {
    args.push_back("--header");
    args.push_back(name + ": " + value);
  }
  std::string list;
  for (std::size_t i = 0; i < args.size(); ++i) list += (i ? ", " : "") + quote_json(args[i]);
  std::string out = "{";
  if (config.location.layout == config_layout::vscode_mcp || config.location.layout == config_layout::vscode_settings)
    out += "\"type\": \"stdio\", ";
  out += "\"command\": " + quote_json(warden_path) + ", \"args\": [" + list + "]}";
  return out;
}

}  // namespace

std::vector<std::string> warden_args_for(const client_config& config, const server_entry& entry,
                                         const wrap_options& options) {
  std::vector<std::string> args = options.warden_args;
  if (!options.audit_log_dir.empty()) {
    std::string dir = options.audit_log_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    args.push_back("--audit-log");
    args.push_back(dir + "/" + file_safe(std::string(to_string(config.location.client)) + "-" + entry.name) + ".jsonl");
  }
  return args;
}

result<std::string> apply_edits(std::string_view text, std::vector<text_edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const text_edit& a, const text_edit& b) {
    return a.begin != b.begin ? a.begin > b.begin : a.end > b.end;
  });
  std::string out(text);
  std::size_t limit = text.size();
  for (const auto& edit : edits) {
    if (edit.begin > edit.end || edit.end > limit) return error{"internal: overlapping or out-of-range edit"};
    out.replace(edit.begin, edit.end - edit.begin, edit.replacement);
    limit = edit.begin;
  }
  return out;
}

namespace {

// Splices the edits into the file's text (out.text, out.changed) and, when that changed it, reads
// the new text back so that the caller can check each entry it touched. `done` names the change
// in errors ("rewritten", "restored"). No re-read config when nothing changed.
result<std::optional<client_config>> splice_and_reread(const client_config& config, std::vector<text_edit> edits, rewrite& out,
                                                       const char* done) {
  auto spliced = apply_edits(config.text, std::move(edits));
  if (!spliced) return error{spliced.error_message()};
  out.changed = *spliced != config.text;
  out.text = std::move(*spliced);
  if (!out.changed) return std::optional<client_config>{};
  auto reread = parse_client_config(config.location, out.text);
  if (!reread) return error{std::string("internal: the ") + done + " file does not parse: " + reread.error_message()};
  return std::optional<client_config>{std::move(*reread)};
}

}  // namespace

result<rewrite> wrap_config(const client_config& config, const wrap_options& options) {
  rewrite out;
  std::vector<text_edit> edits;
  std::map<std::string, std::vector<std::string>> expected;  // entry key -> argv it must read back as
  const std::string_view text = config.text;
  const auto keys = unique_keys(config);
  for (std::size_t index = 0; index < config.servers.size(); ++index) {
    const server_entry& entry = config.servers[index];
    entry_outcome outcome{entry.name, entry.project, entry_action::skipped, ""};
    const std::vector<std::string> wanted = warden_args_for(config, entry, options);
    if (!entry.note.empty()) {
      outcome.note = entry.note;
    } else if (entry.wrapped) {
      outcome.action = entry_action::already_wrapped;
      if (entry.warden_args != wanted) {
        if (entry.inner_argv.empty() || !entry.args_value) {
          outcome.note = "fronted remote server: unwrap and wrap again to change mcp-warden's options";
        } else {
          // Replace only the options (and a "--" after them); the original entry stays as it is.
          edits.push_back({entry.args_value->begin + 1, entry.args_value->items[entry.inner_at].begin,
                           quoted_list_prefix(wanted) + "\"--\", "});
          outcome.action = entry_action::options_updated;
          std::vector<std::string> argv{entry.argv.front()};
          argv.insert(argv.end(), wanted.begin(), wanted.end());
          argv.push_back("--");
          argv.insert(argv.end(), entry.inner_argv.begin(), entry.inner_argv.end());
          expected[keys[index]] = argv;
        }
      }
    } else if (entry.transport == server_transport::stdio && entry.command_value) {
      const located_value& command = *entry.command_value;
      const std::string original_command(slice(text, command.begin, command.end));
      const std::string inserted = quoted_list_prefix(wanted) + "\"--\", " + original_command;
      edits.push_back({command.begin, command.end, quote_json(options.warden_path)});
      if (entry.args_value) {
        const located_value& args = *entry.args_value;
        edits.push_back({args.begin + 1, args.begin + 1, inserted + (args.items.empty() ? "" : ", ")});
      } else if (entry.syntax == entry_syntax::toml_table) {
        edits.push_back({command.end, command.end, newline_of(text) + "args = [" + inserted + "]"});
      } else if (entry.syntax == entry_syntax::toml_inline) {
        edits.push_back({command.end, command.end, ", args = [" + inserted + "]"});
      } else {
        edits.push_back({command.end, command.end, ", \"args\": [" + inserted + "]"});
      }
      outcome.action = entry_action::wrapped;
      std::vector<std::string> argv{options.warden_path};
      argv.insert(argv.end(), wanted.begin(), wanted.end());
      argv.push_back("--");
      argv.insert(argv.end(), entry.argv.begin(), entry.argv.end());
      expected[keys[index]] = argv;
    } else if (entry.transport == server_transport::http || entry.transport == server_transport::sse) {
      const bool front = options.front_http || needs_stdio(config.location.client);
      if (!front) {
        outcome.note = "remote server: " + std::string(display_name(config.location.client)) +
                       " connects to it directly, left as is (--front-http routes it through mcp-warden --upstream)";
      } else if (entry.syntax != entry_syntax::json) {
        outcome.note = "remote server in a TOML config: left as is (fronting is done for JSON configs only)";
      } else {
        edits.push_back({entry.location_begin, entry.location_end,
                         fronted_entry_text(config, entry, wanted, options.warden_path)});
        outcome.action = entry_action::wrapped;
        outcome.note = "fronted with mcp-warden --upstream";
      }
    } else {
      outcome.note = "neither a command nor a URL";
    }
    out.outcomes.push_back(std::move(outcome));
  }
  // Read the result back: every entry we touched must now say exactly what we meant.
  auto reread = splice_and_reread(config, std::move(edits), out, "rewritten");
  if (!reread) return error{reread.error_message()};
  if (*reread) {
    for (const auto& [key, argv] : expected) {
      const server_entry* now = find_entry(&**reread, key);
      if (!now || now->argv != argv || !now->wrapped)
        return error{"internal: a rewritten entry does not read back as intended; nothing written"};
    }
  }
  return out;
}

result<rewrite> unwrap_config(const client_config& config, const client_config* backup) {
  rewrite out;
  std::vector<text_edit> edits;
  const std::string_view text = config.text;
  const auto keys = unique_keys(config);
  for (std::size_t index = 0; index < config.servers.size(); ++index) {
    const server_entry& entry = config.servers[index];
    entry_outcome outcome{entry.name, entry.project, entry_action::not_wrapped, ""};
    if (!entry.wrapped || !entry.command_value || !entry.args_value) {
      if (!entry.note.empty()) outcome.note = entry.note;
      out.outcomes.push_back(std::move(outcome));
      continue;
    }
    const located_value& command = *entry.command_value;
    const located_value& args = *entry.args_value;
    const server_entry* before = find_entry(backup, keys[index]);
    if (entry.inner_argv.empty()) {
      // A fronted remote entry: the backup holds its original text.
      if (before && !before->wrapped && backup) {
        edits.push_back({entry.location_begin, entry.location_end,
                         std::string(slice(backup->text, before->location_begin, before->location_end))});
        outcome.action = entry_action::unwrapped;
      } else if (!entry.url.empty() && entry.syntax == entry_syntax::json) {
        std::string restored = "{";
        if (config.location.layout == config_layout::vscode_mcp || config.location.layout == config_layout::vscode_settings ||
            config.location.client == client_kind::claude_code)
          restored += "\"type\": \"http\", ";
        restored += "\"url\": " + quote_json(entry.url);
        std::string headers;
        for (std::size_t i = 0; i + 1 < entry.warden_args.size(); ++i) {
          if (entry.warden_args[i] != "--header") continue;
          const std::string& pair = entry.warden_args[i + 1];
          const auto colon = pair.find(':');
          if (colon == std::string::npos) continue;
          const std::size_t value_at = pair.find_first_not_of(' ', colon + 1);
          headers += (headers.empty() ? "" : ", ") + quote_json(pair.substr(0, colon)) + ": " +
                     quote_json(value_at == std::string::npos ? "" : pair.substr(value_at));
        }
        if (!headers.empty()) restored += ", \"headers\": {" + headers + "}";
        restored += "}";
        edits.push_back({entry.location_begin, entry.location_end, restored});
        outcome.action = entry_action::unwrapped;
        outcome.note = "no backup entry: restored from the --upstream arguments";
      } else {
        outcome.action = entry_action::skipped;
        outcome.note = "wrapped entry without an original command";
      }
      out.outcomes.push_back(std::move(outcome));
      continue;
    }
    const located_value& original_command = args.items[entry.inner_at];
    edits.push_back({command.begin, command.end, std::string(slice(text, original_command.begin, original_command.end))});
    if (entry.inner_at + 1 < args.items.size()) {
      // wrap inserted `OPTS..., "--", C, ` right after '['.
      const std::size_t cut = slice(text, original_command.end, original_command.end + 2) == ", "
                                  ? original_command.end + 2
                                  : args.items[entry.inner_at + 1].begin;
      edits.push_back({args.begin + 1, cut, ""});
    } else {
      // C is the last element: either args was empty, or wrap inserted the whole member.
      std::string_view joint;
      if (command.end <= args.begin) joint = slice(text, command.end, args.begin);
      const bool inserted_member =
          original_command.end + 1 == args.end &&
          (joint == ", \"args\": " || joint == ", args = " || joint == "\nargs = " || joint == "\r\nargs = ");
      const bool backup_had_args = before && (before->args_value.has_value() || before->wrapped);
      if (inserted_member && !backup_had_args) edits.push_back({command.end, args.end, ""});
      else edits.push_back({args.begin + 1, original_command.end, ""});
    }
    outcome.action = entry_action::unwrapped;
    out.outcomes.push_back(std::move(outcome));
  }
  auto reread = splice_and_reread(config, std::move(edits), out, "restored");
  if (!reread) return error{reread.error_message()};
  if (*reread) {
    for (std::size_t index = 0; index < config.servers.size(); ++index) {
      const server_entry& entry = config.servers[index];
      if (!entry.wrapped || entry.inner_argv.empty()) continue;
      const server_entry* now = find_entry(&**reread, keys[index]);
      if (!now || now->wrapped || now->argv != entry.inner_argv)
        return error{"internal: a restored entry does not read back as intended; nothing written"};
    }
  }
  return out;
}

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto newline = text.find('\n', start);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, const std::string& label_before,
                         const std::string& label_after) {
  if (before == after) return "";
  const auto a = split_lines(before);
  const auto b = split_lines(after);
  // Common prefix and suffix first; the LCS table covers only the changed middle.
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  const std::size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  // ops: ' ' keep, '-' remove, '+' add, over the whole files.
  std::vector<std::pair<char, std::string_view>> ops;
  for (std::size_t i = 0; i < prefix; ++i) ops.emplace_back(' ', a[i]);
  if (n * m <= 4'000'000) {
    std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
      for (std::size_t j = m; j-- > 0;)
        lcs[i][j] = a[prefix + i] == b[prefix + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        ops.emplace_back(' ', a[prefix + i]);
        ++i;
        ++j;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.emplace_back('-', a[prefix + i++]);  // removals before additions, as diff(1) prints them
      } else {
        ops.emplace_back('+', b[prefix + j++]);
      }
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) ops.emplace_back('-', a[prefix + i]);
    for (std::size_t j = 0; j < m; ++j) ops.emplace_back('+', b[prefix + j]);
  }
  for (std::size_t i = a.size() - suffix; i < a.size(); ++i) ops.emplace_back(' ', a[i]);

  std::string out = "--- " + label_before + "\n+++ " + label_after + "\n";
  constexpr std::size_t context = 3;
  std::size_t k = 0;
  std::size_t line_a = 1, line_b = 1;  // line numbers at ops[k]
  while (k < ops.size()) {
    if (ops[k].first == ' ') {
      ++k;
      ++line_a;
      ++line_b;
      continue;
    }
    // A hunk: back up to `context` kept lines, run until `2*context` kept lines in a row.
    std::size_t start = k, back = 0;
    while (start > 0 && back < context && ops[start - 1].first == ' ') {
      --start;
      ++back;
    }
    std::size_t end = k, run = 0;  // run: kept lines at the end of [k, end)
    while (end < ops.size()) {
      if (ops[end].first == ' ') {
        if (run == 2 * context) break;
        ++run;
      } else {
        run = 0;
      }
      ++end;
    }
    if (run > context) end -= run - context;
    std::size_t count_a = 0, count_b = 0;
    for (std::size_t x = start; x < end; ++x) {
      if (ops[x].first != '+') ++count_a;
      if (ops[x].first != '-') ++count_b;
    }
    const std::size_t from_a = line_a - back, from_b = line_b - back;
    out += "@@ -" + std::to_string(count_a ? from_a : from_a - 1) + "," + std::to_string(count_a) + " +" +
           std::to_string(count_b ? from_b : from_b - 1) + "," + std::to_string(count_b) + " @@\n";
    for (std::size_t x = start; x < end; ++x) {
      out += ops[x].first;
      out += ops[x].second;
      if (ops[x].second.empty() || ops[x].second.back() != '\n') out += "\n\\ No newline at end of file\n";
    }
    for (std::size_t x = k; x < end; ++x) {
      if (ops[x].first != '+') ++line_a;
      if (ops[x].first != '-') ++line_b;
    }
    k = end;
  }
  return out;
}

}  // namespace warden::clients
