#include "policy/policy.hpp"

#include <re2/re2.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/json_escape.hpp"
#include "policy/glob.hpp"

namespace warden::policy {

using ojson = nlohmann::ordered_json;

std::string_view to_string(action what) noexcept {
  switch (what) {
    case action::allow: return "allow";
    case action::deny: return "deny";
    case action::ask: return "ask";
  }
  return "allow";
}

std::string_view to_string(mode what) noexcept { return what == mode::audit ? "audit" : "enforce"; }

std::string_view to_string(result_action what) noexcept {
  switch (what) {
    case result_action::off: return "off";
    case result_action::log: return "log";
    case result_action::sanitize: return "sanitize";
    case result_action::block: return "block";
  }
  return "off";
}

namespace {
constexpr std::string_view role_names[role_count] = {"untrusted_content", "private_data", "external_sink",
                                                     "code_execution", "destructive", "filesystem_write"};
}

std::string_view to_string(role what) noexcept { return role_names[static_cast<std::size_t>(what)]; }

std::optional<role> parse_role(std::string_view text) noexcept {
  for (std::size_t i = 0; i < role_count; ++i)
    if (role_names[i] == text) return static_cast<role>(i);
  return std::nullopt;
}

policy default_policy() {
  policy p;
  p.surface.hide_at = analysis::severity::high;
  return p;  // the member defaults are the documented built-in behaviour
}

text_position position_of(std::string_view text, std::size_t offset) noexcept {
  text_position at;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

namespace {

std::string pointer_escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// Where each value of an already validated JSON-with-comments document starts, by JSON pointer.
// nlohmann does not report positions of values, so schema errors need this second, cheap pass.
class position_index {
 public:
  explicit position_index(std::string_view text) : text_(text) {
    skip_space();
    value("", 0);
  }
  std::size_t offset(const std::string& pointer) const {
    // The closest recorded ancestor when the exact pointer is unknown (e.g. a missing member).
    std::string probe = pointer;
    for (;;) {
      if (auto it = where_.find(probe); it != where_.end()) return it->second;
      const auto slash = probe.rfind('/');
      if (slash == std::string::npos) return 0;
      probe.resize(slash);
    }
  }

 private:
  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const auto end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        break;
      }
    }
  }
  std::string string_token() {
    std::string out;
    ++pos_;  // opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        const char e = text_[++pos_];
        if (e == 'u') {
          unsigned cp = 0;
          for (int k = 0; k < 4 && pos_ + 1 < text_.size(); ++k) {
            const char h = text_[++pos_];
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
          }
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
        } else {
          const char plain = base::unescape_json(e);  // what the document was validated with
          out += plain ? plain : e;
        }
        ++pos_;
      } else {
        out += text_[pos_++];
      }
    }
    ++pos_;  // closing quote
    return out;
  }
  static std::string escape(const std::string& key) { return pointer_escape(key); }
  // The members or elements after an opening bracket up to `close` (or the end of the text), each
  // indexed by `item`; commas between them are stepped over.
  template <typename Item>
  void items(char close, Item item) {
    ++pos_;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] == close) break;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      item();
      skip_space();
    }
    ++pos_;
  }
  void value(const std::string& pointer, int depth) {
    if (pos_ >= text_.size()) return;
    where_[pointer] = pos_;
    const char c = text_[pos_];
    if (depth > 200) {  // deeper than any policy: stop indexing, positions fall back to ancestors
      pos_ = text_.size();
      return;
    }
    if (c == '{') {
      items('}', [&] {
        const std::size_t key_at = pos_;
        const std::string key = string_token();
        const std::string child = pointer + "/" + escape(key);
        key_positions_[child] = key_at;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ':') ++pos_;
        skip_space();
        value(child, depth + 1);
      });
    } else if (c == '[') {
      std::size_t index = 0;
      items(']', [&] { value(pointer + "/" + std::to_string(index++), depth + 1); });
    } else if (c == '"') {
      string_token();
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::string_view(",]} \t\r\n/").find(text_[pos_]) == std::string_view::npos) ++pos_;
      if (pos_ == start) ++pos_;  // a stray byte: always make progress (found by fuzz_policy)
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;

 public:
  // Where the member name of `pointer` starts (its value's position when unknown).
  std::size_t key_offset(const std::string& pointer) const {
    if (auto it = key_positions_.find(pointer); it != key_positions_.end()) return it->second;
    return offset(pointer);
  }

 private:
  std::map<std::string, std::size_t> where_;
  std::map<std::string, std::size_t> key_positions_;
};

// "/tools/2/action" -> "tools[2].action"
std::string display_path(const std::string& pointer) {
  std::string out;
  std::size_t i = 0;
  while (i < pointer.size()) {
    const auto next = pointer.find('/', i + 1);
    std::string part = pointer.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1);
    std::string unescaped;
    for (std::size_t k = 0; k < part.size(); ++k) {
      if (part[k] == '~' && k + 1 < part.size()) {
        unescaped += part[k + 1] == '1' ? '/' : '~';
        ++k;
      } else {
        unescaped += part[k];
      }
    }
    const bool index = !unescaped.empty() && unescaped.find_first_not_of("0123456789") == std::string::npos;
    if (index) out += "[" + unescaped + "]";
    else out += (out.empty() ? "" : ".") + unescaped;
    if (next == std::string::npos) break;
    i = next;
  }
  return out.empty() ? "(document)" : out;
}

// Reads one policy document; the first error wins and stops the walk.
class policy_reader {
 public:
  policy_reader(std::string_view text, std::string_view name) : text_(text), name_(name), index_(text) {}

  bool failed() const { return !problem_.empty(); }
  const std::string& problem() const { return problem_; }

  void fail(const std::string& pointer, const std::string& message) {
    if (failed()) return;
    const text_position at = position_of(text_, index_.offset(pointer));
    problem_ = std::string(name_) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
               display_path(pointer) + ": " + message;
  }
  void fail_at_key(const std::string& pointer, const std::string& message) {
    if (failed()) return;
    const text_position at = position_of(text_, index_.key_offset(pointer));
    problem_ = std::string(name_) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
               display_path(pointer) + ": " + message;
  }
  std::string where(const std::string& pointer) const {
    const text_position at = position_of(text_, index_.offset(pointer));
    return std::string(name_) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
  }

  // Member `key` of `object`, when present, read by `reader(member, pointer)` (one of the readers
  // below) into `target`. False once reading failed (the reader has recorded why).
  template <typename T, typename Read>
  bool member(const ojson& object, const char* key, const std::string& pointer, T& target, Read reader) {
    const auto it = object.find(key);
    if (it == object.end()) return true;
    auto value = reader(*it, pointer);
    if (!value) return false;
    target = std::move(*value);
    return true;
  }
  template <typename T, typename Value>
  bool member(const ojson& object, const char* key, const std::string& pointer, T& target,
              std::optional<Value> (policy_reader::*reader)(const ojson&, const std::string&)) {
    return member(object, key, pointer, target, [&](const ojson& j, const std::string& at) { return (this->*reader)(j, at); });
  }

  // The object's members must all be in `known`.
  bool only(const ojson& object, const std::string& pointer, std::initializer_list<std::string_view> known) {
    if (!object.is_object()) {
      fail(pointer, "expected an object");
      return false;
    }
    for (const auto& [key, value] : object.items()) {
      bool ok = false;
      for (auto k : known) ok = ok || k == key;
      if (!ok) {
        std::string list;
        for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail_at_key(pointer + "/" + pointer_escape(key), "unknown member '" + key + "' (expected one of: " + list + ")");
        return false;
      }
    }
    return true;
  }

  std::optional<std::string> string(const ojson& v, const std::string& pointer) {
    if (!v.is_string()) {
      fail(pointer, "expected a string");
      return std::nullopt;
    }
    return v.get<std::string>();
  }
  std::optional<bool> boolean(const ojson& v, const std::string& pointer) {
    if (!v.is_boolean()) {
      fail(pointer, "expected true or false");
      return std::nullopt;
    }
    return v.get<bool>();
  }
  std::optional<double> number(const ojson& v, const std::string& pointer) {
    if (!v.is_number()) {
      fail(pointer, "expected a number");
      return std::nullopt;
    }
    return v.get<double>();
  }
  std::optional<std::size_t> count(const ojson& v, const std::string& pointer) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      fail(pointer, "expected a non-negative integer");
      return std::nullopt;
    }
    return v.get<std::size_t>();
  }
  std::optional<std::string> glob(const ojson& v, const std::string& pointer) {
    auto text = string(v, pointer);
    if (!text) return std::nullopt;
    if (auto problem = glob_error(*text); !problem.empty()) {
      fail(pointer, problem);
      return std::nullopt;
    }
    return text;
  }
  std::optional<std::vector<std::string>> globs(const ojson& v, const std::string& pointer) {
    if (!v.is_array()) {
      fail(pointer, "expected an array of glob strings");
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      auto g = glob(v[i], pointer + "/" + std::to_string(i));
      if (!g) return std::nullopt;
      out.push_back(*g);
    }
    return out;
  }
  template <typename Enum>
  std::optional<Enum> choice(const ojson& v, const std::string& pointer,
                             std::initializer_list<std::pair<std::string_view, Enum>> options) {
    std::string list;
    for (const auto& [word, value] : options) list += (list.empty() ? "\"" : ", \"") + std::string(word) + "\"";
    if (v.is_string()) {
      for (const auto& [word, value] : options)
        if (v.get<std::string>() == word) return value;
      fail(pointer, "expected one of " + list + ", got \"" + v.get<std::string>() + "\"");
    } else {
      fail(pointer, "expected one of " + list);
    }
    return std::nullopt;
  }
  std::optional<action> decision(const ojson& v, const std::string& pointer) {
    return choice<action>(v, pointer, {{"allow", action::allow}, {"deny", action::deny}, {"ask", action::ask}});
  }

  std::optional<std::optional<action>> optional_action(const ojson& v, const std::string& pointer) {
    auto a = choice<int>(v, pointer, {{"allow", 0}, {"deny", 1}, {"ask", 2}, {"off", 3}});
    // Built in place: GCC 12 warns (falsely) about a moved-from empty inner optional.
    std::optional<std::optional<action>> chosen;
    if (!a) return chosen;
    chosen.emplace();
    if (*a != 3) chosen->emplace(static_cast<action>(*a));
    return chosen;
  }
  std::optional<analysis::severity> severity(const ojson& v, const std::string& pointer) {
    return choice<analysis::severity>(v, pointer,
                                      {{"info", analysis::severity::info},
                                       {"low", analysis::severity::low},
                                       {"medium", analysis::severity::medium},
                                       {"high", analysis::severity::high},
                                       {"critical", analysis::severity::critical}});
  }
  std::optional<role_set> roles(const ojson& v, const std::string& pointer) {
    if (!v.is_array()) {
      fail(pointer, "expected an array of roles");
      return std::nullopt;
    }
    role_set set = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string item = pointer + "/" + std::to_string(i);
      auto r = choice<role>(v[i], item,
                            {{"untrusted_content", role::untrusted_content},
                             {"private_data", role::private_data},
                             {"external_sink", role::external_sink},
                             {"code_execution", role::code_execution},
                             {"destructive", role::destructive},
                             {"filesystem_write", role::filesystem_write}});
      if (!r) return std::nullopt;
      set = static_cast<role_set>(set | role_bit(*r));
    }
    return set;
  }

  void read(const ojson& doc, policy& out);

 private:
  void read_rule(const ojson& v, const std::string& pointer, tool_rule& rule);
  void read_constraint(const ojson& v, const std::string& pointer, argument_constraint& c);
  void read_results(const ojson& v, const std::string& pointer, result_rules& r);

  std::string_view text_;
  std::string_view name_;
  position_index index_;
  std::string problem_;
};

void policy_reader::read(const ojson& doc, policy& out) {
  if (!only(doc, "", {"$schema", "version", "mode", "default", "tools", "roles", "surface", "results", "secrets", "flows", "pins", "askTimeoutSeconds"}))
    return;
  if (auto it = doc.find("version"); it != doc.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() != 1) return fail("/version", "only version 1 is supported");
  }
  if (!member(doc, "mode", "/mode", out.preferred_mode, [&](const ojson& j, const std::string& at) {
        return choice<mode>(j, at, {{"audit", mode::audit}, {"enforce", mode::enforce}});
      }))
    return;
  if (!member(doc, "default", "/default", out.default_action, &policy_reader::decision)) return;
  if (auto it = doc.find("tools"); it != doc.end()) {
    if (!it->is_array()) return fail("/tools", "expected an array of rules");
    for (std::size_t i = 0; i < it->size() && !failed(); ++i) {
      tool_rule rule;
      read_rule((*it)[i], "/tools/" + std::to_string(i), rule);
      out.tools.push_back(std::move(rule));
    }
  }
  if (auto it = doc.find("roles"); it != doc.end() && !failed()) {
    if (!it->is_object()) return fail("/roles", "expected an object mapping tool globs to role lists");
    for (const auto& [key, value] : it->items()) {
      const std::string pointer = "/roles/" + pointer_escape(key);
      if (auto problem = glob_error(key); !problem.empty()) return fail(pointer, problem);
      auto set = roles(value, pointer);
      if (!set) return;
      out.roles.emplace_back(key, *set);
    }
  }
  if (auto it = doc.find("surface"); it != doc.end() && !failed()) {
    if (!only(*it, "/surface", {"hideAtOrAbove", "tools", "prompts", "resources"})) return;
    if (auto h = it->find("hideAtOrAbove"); h != it->end()) {
      if (h->is_string() && h->get<std::string>() == "off") {
        out.surface.hide_at.reset();
      } else {
        auto s = severity(*h, "/surface/hideAtOrAbove");
        if (!s) return;
        out.surface.hide_at = *s;
      }
    }
    for (auto [key, target] : {std::pair<const char*, bool*>{"tools", &out.surface.tools},
                               {"prompts", &out.surface.prompts},
                               {"resources", &out.surface.resources}}) {
      if (!member(*it, key, std::string("/surface/") + key, *target, &policy_reader::boolean)) return;
    }
  }
  if (auto it = doc.find("results"); it != doc.end() && !failed()) read_results(*it, "/results", out.results);
  if (auto it = doc.find("secrets"); it != doc.end() && !failed()) {
    if (!only(*it, "/secrets", {"arguments", "allTools", "redactResults", "redactAudit"})) return;
    if (!member(*it, "arguments", "/secrets/arguments", out.secrets.in_arguments, &policy_reader::optional_action)) return;
    for (auto [key, target] : {std::pair<const char*, bool*>{"allTools", &out.secrets.all_tools},
                               {"redactResults", &out.secrets.redact_results},
                               {"redactAudit", &out.secrets.redact_audit}}) {
      if (!member(*it, key, std::string("/secrets/") + key, *target, &policy_reader::boolean)) return;
    }
  }
  if (auto it = doc.find("flows"); it != doc.end() && !failed()) {
    if (!only(*it, "/flows", {"untrustedThenSink", "untrustedThenDestructive", "privateThenSink"})) return;
    for (auto [key, target] : {std::pair<const char*, std::optional<action>*>{"untrustedThenSink", &out.flows.untrusted_then_sink},
                               {"untrustedThenDestructive", &out.flows.untrusted_then_destructive},
                               {"privateThenSink", &out.flows.private_then_sink}}) {
      if (!member(*it, key, std::string("/flows/") + key, *target, &policy_reader::optional_action)) return;
    }
  }
  if (auto it = doc.find("pins"); it != doc.end() && !failed()) {
    if (!only(*it, "/pins", {"firstSight", "onDrift"})) return;
    if (!member(*it, "firstSight", "/pins/firstSight", out.pins.first_sight, [&](const ojson& j, const std::string& at) {
          return choice<pin_mode>(j, at, {{"tofu", pin_mode::tofu}, {"strict", pin_mode::strict}});
        }))
      return;
    if (!member(*it, "onDrift", "/pins/onDrift", out.pins.hide_drift, [&](const ojson& j, const std::string& at) {
          return choice<bool>(j, at, {{"hide", true}, {"log", false}});
        }))
      return;
  }
  if (auto it = doc.find("askTimeoutSeconds"); it != doc.end() && !failed()) {
    auto v = count(*it, "/askTimeoutSeconds");
    if (!v) return;
    if (*v == 0 || *v > 86400) return fail("/askTimeoutSeconds", "expected 1 to 86400 seconds");
    out.ask_timeout_seconds = static_cast<std::uint32_t>(*v);
  }
}

void policy_reader::read_rule(const ojson& v, const std::string& pointer, tool_rule& rule) {
  if (!only(v, pointer, {"server", "tool", "action", "reason", "arguments", "rateLimit", "roles"})) return;
  rule.location = where(pointer);
  if (!member(v, "server", pointer + "/server", rule.server, &policy_reader::glob)) return;
  if (!member(v, "tool", pointer + "/tool", rule.tool, &policy_reader::glob)) return;
  if (!member(v, "action", pointer + "/action", rule.decision, &policy_reader::decision)) return;
  if (!member(v, "reason", pointer + "/reason", rule.reason, &policy_reader::string)) return;
  if (auto it = v.find("arguments"); it != v.end()) {
    if (!it->is_object()) return fail(pointer + "/arguments", "expected an object mapping argument names to constraints");
    for (const auto& [key, value] : it->items()) {
      argument_constraint c;
      c.name = key;
      read_constraint(value, pointer + "/arguments/" + pointer_escape(key), c);
      if (failed()) return;
      rule.arguments.push_back(std::move(c));
    }
  }
  if (auto it = v.find("rateLimit"); it != v.end()) {
    const std::string at = pointer + "/rateLimit";
    if (!only(*it, at, {"calls", "perSeconds"})) return;
    if (!it->contains("calls") || !it->contains("perSeconds")) return fail(at, "needs both 'calls' and 'perSeconds'");
    auto calls = count((*it)["calls"], at + "/calls");
    if (!calls) return;
    auto per = number((*it)["perSeconds"], at + "/perSeconds");
    if (!per) return;
    if (*calls == 0 || *calls > 1000000) return fail(at + "/calls", "expected 1 to 1000000 calls");
    if (!(*per > 0) || *per > 86400 * 366.0) return fail(at + "/perSeconds", "expected a positive number of seconds");
    rule.limit = rate_limit{static_cast<std::uint32_t>(*calls), *per};
  }
  if (!member(v, "roles", pointer + "/roles", rule.roles, &policy_reader::roles)) return;
}

void policy_reader::read_constraint(const ojson& v, const std::string& pointer, argument_constraint& c) {
  if (!only(v, pointer, {"required", "paths", "hosts", "schemes", "regex", "minLength", "maxLength", "minimum", "maximum"}))
    return;
  c.location = where(pointer);
  if (!member(v, "required", pointer + "/required", c.required, &policy_reader::boolean)) return;
  if (auto it = v.find("paths"); it != v.end()) {
    if (!only(*it, pointer + "/paths", {"allow", "deny"})) return;
    if (!member(*it, "allow", pointer + "/paths/allow", c.path_allow, &policy_reader::globs)) return;
    if (!member(*it, "deny", pointer + "/paths/deny", c.path_deny, &policy_reader::globs)) return;
  }
  if (auto it = v.find("hosts"); it != v.end()) {
    auto g = globs(*it, pointer + "/hosts");
    if (!g) return;
    c.hosts = *g;
    for (auto& h : c.hosts)
      for (char& ch : h) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (!member(v, "schemes", pointer + "/schemes", c.schemes, &policy_reader::globs)) return;
  if (auto it = v.find("regex"); it != v.end()) {
    auto s = string(*it, pointer + "/regex");
    if (!s) return;
    RE2::Options options;
    options.set_log_errors(false);
    auto compiled = std::make_shared<re2::RE2>(*s, options);
    if (!compiled->ok()) return fail(pointer + "/regex", "invalid regular expression: " + compiled->error());
    c.regex = std::move(compiled);
    c.regex_text = *s;
  }
  for (auto [key, target] : {std::pair<const char*, std::optional<std::size_t>*>{"minLength", &c.min_length},
                             {"maxLength", &c.max_length}}) {
    if (!member(v, key, pointer + "/" + key, *target, &policy_reader::count)) return;
  }
  for (auto [key, target] : {std::pair<const char*, std::optional<double>*>{"minimum", &c.minimum},
                             {"maximum", &c.maximum}}) {
    if (!member(v, key, pointer + "/" + key, *target, &policy_reader::number)) return;
  }
  if (c.min_length && c.max_length && *c.min_length > *c.max_length)
    return fail(pointer + "/minLength", "minLength is greater than maxLength");
  if (c.minimum && c.maximum && *c.minimum > *c.maximum)
    return fail(pointer + "/minimum", "minimum is greater than maximum");
}

void policy_reader::read_results(const ojson& v, const std::string& pointer, result_rules& r) {
  if (!only(v, pointer, {"injection", "hiddenUnicode", "ansi", "resources", "prompts"})) return;
  auto read_action = [&](const ojson& a, const std::string& at) {
    return choice<result_action>(a, at, {{"off", result_action::off}, {"log", result_action::log}, {"sanitize", result_action::sanitize}, {"block", result_action::block}});
  };
  for (auto [key, what, level] :
       {std::tuple<const char*, result_action*, analysis::severity*>{"injection", &r.injection, &r.injection_at},
        {"hiddenUnicode", &r.hidden_unicode, &r.hidden_unicode_at}}) {
    auto it = v.find(key);
    if (it == v.end()) continue;
    const std::string at = pointer + "/" + key;
    if (!only(*it, at, {"action", "atOrAbove"})) return;
    if (!member(*it, "action", at + "/action", *what, read_action)) return;
    if (!member(*it, "atOrAbove", at + "/atOrAbove", *level, &policy_reader::severity)) return;
  }
  if (!member(v, "ansi", pointer + "/ansi", r.ansi, read_action)) return;
  for (auto [key, target] : {std::pair<const char*, bool*>{"resources", &r.scan_resources}, {"prompts", &r.scan_prompts}}) {
    if (!member(v, key, pointer + "/" + key, *target, &policy_reader::boolean)) return;
  }
}

}  // namespace

namespace {

// nlohmann 3.11.2 skips comments but not trailing commas: blank out every comma that is followed
// (after whitespace and comments) by '}' or ']'. Same length, so error offsets stay true.
std::string without_trailing_commas(std::string_view text) {
  std::string out(text);
  std::size_t pending_comma = std::string::npos;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      const auto end = out.find("*/", i + 2);
      i = end == std::string::npos ? out.size() : end + 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if ((c == '}' || c == ']') && pending_comma != std::string::npos) out[pending_comma] = ' ';
    pending_comma = c == ',' ? i : std::string::npos;
    if (c == '"') i = base::json_string_end(out, i);
  }
  return out;
}

}  // namespace

result<policy> parse_policy(std::string_view original, std::string_view name) {
  // nlohmann ends a comment at a NUL byte where our position index would not: a policy is text.
  if (const auto nul = original.find('\0'); nul != std::string_view::npos) {
    const text_position at = position_of(original, nul);
    return error{std::string(name) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                 ": a policy file must not contain NUL bytes"};
  }
  const std::string cleaned = without_trailing_commas(original);
  const std::string_view text = cleaned;
  ojson doc;
  try {
    doc = ojson::parse(text, nullptr, true, true);
  } catch (const ojson::parse_error& e) {
    // nlohmann's byte is 1-based and points at the last character read.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const text_position at = position_of(text, offset);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while parsing
    // value - invalid literal; last read: 'tru,'" -> keep the part after the position.
    if (const auto colon = what.find(": ", what.find("parse error")); colon != std::string::npos)
      what = what.substr(colon + 2);
    return error{std::string(name) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                 ": invalid JSON: " + what};
  } catch (const std::exception& e) {
    return error{std::string(name) + ": invalid JSON: " + e.what()};
  }
  policy out = default_policy();
  out.source = std::string(name);
  try {
    policy_reader reader(text, name);
    reader.read(doc, out);
    if (reader.failed()) return error{reader.problem()};
  } catch (const std::exception& e) {
    return error{std::string(name) + ": " + e.what()};
  }
  return out;
}

result<policy> load_policy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open the policy file"};
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) return error{path + ": cannot read the policy file"};
  return parse_policy(text.str(), path);
}

}  // namespace warden::policy
