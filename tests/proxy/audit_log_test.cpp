#include "proxy/audit_log.hpp"

#include <doctest/doctest.h>

#include "file_lines.hpp"
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <functional>
#include <future>
#include <random>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/canonical_json.hpp"
#include "protocol/jsonrpc.hpp"
#include "policy/policy_inspector.hpp"
#include "proxy/runtime_text.hpp"

using namespace warden::proxy;
using namespace warden::protocol;
using nlohmann::json;

namespace {

using temp_log = warden::test::temp_audit_dir;

using warden::test::open_log;
using warden::test::read_lines;
using warden::test::write_lines;

// Options for a log at `t` that redacts credentials in peer values.
audit_options redacting(const temp_log& t) {
  audit_options options;
  options.path = t.log;
  options.redact_secrets = true;
  return options;
}

void write_events(const std::string& path, int count, audit_options options = {}) {
  options.path = path;
  warden::test::write_events(options, 0, count, [](int i) { return json{{"event", "call"}, {"n", i}}; });
}

}  // namespace

TEST_CASE("records are chained and verify; a second writer continues the chain") {
  temp_log t;
  write_events(t.log, 5);
  write_events(t.log, 3);
  const auto lines = read_lines(t.log);
  REQUIRE(lines.size() == 8);
  const auto first = check_record(lines[0]);
  REQUIRE(first.ok);
  CHECK(first.body["prev"] == std::string(genesis_hash));
  CHECK(first.body["seq"] == 1);
  CHECK(check_record(lines[1]).body["prev"] == first.hash);
  CHECK(check_record(lines[7]).body["seq"] == 8);
  const auto report = verify_log(t.log);
  CHECK(report.ok);
  CHECK(report.records == 8);
  CHECK(report.torn_tail.empty());
}

TEST_CASE("verify finds the first bad record: edited, deleted, reordered") {
  temp_log t;
  write_events(t.log, 6);
  auto lines = read_lines(t.log);
  SUBCASE("edited") {
    const auto at = lines[2].find("\"n\":2");
    REQUIRE(at != std::string::npos);
    lines[2].replace(at, 5, "\"n\":9");
    write_lines(t.log, lines);
    const auto r = verify_log(t.log);
    CHECK_FALSE(r.ok);
    CHECK(r.problem == t.log + ":3: record content does not match its hash (the record was edited)");
  }
  SUBCASE("edited with its own hash recomputed") {
    auto c = check_record(lines[2]);
    json body = c.body;
    body["n"] = 9;
    std::string text = body.dump();
    // Re-sign the record as a forger would; the next record's prev still gives it away.
    std::string signed_line = text.substr(0, text.size() - 1) + ",\"hash\":\"" + warden::base::sha256_hex(text) + "\"}";
    lines[2] = signed_line;
    write_lines(t.log, lines);
    const auto r = verify_log(t.log);
    CHECK_FALSE(r.ok);
    CHECK(r.problem.rfind(t.log + ":4: chain broken:", 0) == 0);
    CHECK(r.records == 3);
  }
  SUBCASE("deleted") {
    lines.erase(lines.begin() + 3);
    write_lines(t.log, lines);
    const auto r = verify_log(t.log);
    CHECK_FALSE(r.ok);
    CHECK(r.problem == t.log +
                           ":4: chain broken: \"prev\" does not match the hash of the record before it; expected seq 4, "
                           "found seq 5 (records deleted or moved)");
  }
  SUBCASE("reordered") {
    std::swap(lines[1], lines[4]);
    write_lines(t.log, lines);
    const auto r = verify_log(t.log);
    CHECK_FALSE(r.ok);
    CHECK(r.problem.rfind(t.log + ":2: chain broken:", 0) == 0);
  }
  SUBCASE("a line that is not a record") {
    lines[0] = "{\"event\":\"forged\"}";
    write_lines(t.log, lines);
    const auto r = verify_log(t.log);
    CHECK(r.problem == t.log + ":1: not a record (no trailing \"hash\" member)");
  }
}

TEST_CASE("a torn last line (kill -9 mid-write) is reported, not treated as tampering; the next writer repairs it") {
  temp_log t;
  write_events(t.log, 3);
  {
    std::ofstream out(t.log, std::ios::app);
    out << "{\"event\":\"call\",\"n\":";  // no newline: the writer died here
  }
  auto r = verify_log(t.log);
  CHECK(r.ok);
  CHECK(r.records == 3);
  CHECK(r.torn_tail == t.log + ":4: incomplete last record (20 bytes, the writer stopped mid-write); not counted");
  write_events(t.log, 1);
  r = verify_log(t.log);
  CHECK(r.ok);
  CHECK(r.torn_tail.empty());
  const auto lines = read_lines(t.log);
  REQUIRE(lines.size() == 5);
  CHECK(check_record(lines[3]).body["event"] == "torn_tail_discarded");
  CHECK(check_record(lines[3]).body["bytes"] == 20);
}

TEST_CASE("rotation keeps the chain across files") {
  temp_log t;
  audit_options options;
  options.rotate_bytes = 600;
  write_events(t.log, 20, options);
  CHECK(std::filesystem::exists(t.log + ".1"));
  const auto r = verify_log(t.log);
  CHECK_MESSAGE(r.ok, r.problem);
  CHECK(r.files.size() >= 2);
  CHECK(r.records >= 20);
  SUBCASE("deleting a rotated file in the middle breaks the chain") {
    if (std::filesystem::exists(t.log + ".2")) {
      std::filesystem::remove(t.log + ".1");
      std::filesystem::rename(t.log + ".2", t.log + ".1");
      CHECK_FALSE(verify_log(t.log).ok);
    }
  }
}

TEST_CASE("redaction runs before chaining; a full queue records that it dropped") {
  temp_log t;
  audit_options options = redacting(t);
  options.queue_capacity = 2;
  options.full_wait = std::chrono::milliseconds(0);  // no back-pressure: a full queue drops
  auto log = open_log(options);
  for (int i = 0; i < 200; ++i) log->record({{"event", "call"}, {"arguments", {{"key", "AKIAIOSFODNN7EXAMPLE"}}}});
  log->close();
  const auto stats = log->stats();
  CHECK(stats.written + stats.dropped == 200);
  const auto lines = read_lines(t.log);
  std::uint64_t reported = 0;
  for (const auto& line : lines) {
    CHECK(line.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
    const auto c = check_record(line);
    REQUIRE(c.ok);
    if (c.body["event"] == "records_dropped") reported += c.body["count"].get<std::uint64_t>();
  }
  CHECK(reported == stats.dropped);
  CHECK(verify_log(t.log).ok);
}

// The writer used to build each record as a document: redact the members mcp-warden does not
// fill itself, cap the whole event, write its canonical JSON. A record built from members must
// give the same bytes, whichever way it was put together.
TEST_CASE("a record built from members is written exactly as the document it stands for") {
  std::mt19937 random(1234);
  const std::vector<std::string> keys = {"event", "id", "arguments", "reason", "mode", "session", "tool", "error",
                                         "rules", "result_bytes", "enforced", "method", "a\"b", "\xc3\xa9t\xc3\xa9", "z"};
  const std::vector<std::string> texts = {"", "allowed by default", "AKIAIOSFODNN7EXAMPLE", "key=ghp_" + std::string(36, 'a'),
                                          std::string(3000, 'x'), "\xe2\x82\xac" + std::string(2046, 'y') + "\xe2\x82\xac",
                                          "bad \xff utf-8", "tab\there \"quoted\"", "password=Sup3rS3cretValue!"};
  auto random_value = [&](auto& self, int depth) -> json {
    switch (random() % (depth > 14 ? 4 : 7)) {
      case 0: return texts[random() % texts.size()];
      case 1: return static_cast<std::int64_t>(random() % 2000) - 1000;
      case 2: return random() % 2 == 0;
      case 3: return nullptr;
      case 4: {
        json object = json::object();
        for (auto n = random() % 3; n-- > 0;) object[keys[random() % keys.size()]] = self(self, depth + 1);
        return object;
      }
      default: {
        json array = json::array();
        for (auto n = random() % 3 + 1; n-- > 0;) array.push_back(self(self, depth + 1));
        return array;
      }
    }
  };
  audit_options rules;
  rules.redact_secrets = true;
  rules.max_string = 2048;
  rules.max_depth = 12;
  for (int round = 0; round < 3000; ++round) {
    audit_record record;
    json document = json::object();
    for (auto n = random() % 10 + 1; n-- > 0;) {
      const std::string& key = keys[random() % keys.size()];
      const bool own = key == "event" || key == "mode" || key == "session";
      json value = random_value(random_value, 1);
      if (const auto form = random() % 3; form != 0 && (value.is_object() || value.is_array())) {
        // As a peer's JSON text: compact (often its own canonical form) or indented (never).
        const std::string text = value.dump(form == 1 ? -1 : 1, ' ', false, json::error_handler_t::replace);
        document[key] = json::parse(text);
        record.json_text(key, text, !own);
        continue;
      }
      document[key] = value;
      if (value.is_string()) record.text(key, value.get<std::string>(), !own);
      else if (value.is_boolean()) record.flag(key, value.get<bool>());
      else if (value.is_number_integer() && value.get<std::int64_t>() >= 0) record.count(key, value.get<std::uint64_t>());
      else if (value.is_number_integer()) record.number(key, value.get<std::int64_t>());
      else record.value(key, std::move(value), !own);
    }
    for (auto& [key, value] : document.items())
      if (key != "event" && key != "mode" && key != "session") redact_json(value, true);
    cap_json(document, 2048, 12);
    record.redact_and_cap(rules);
    REQUIRE(record.canonical_text() == warden::base::canonical_json(document));
  }
}

// A peer's JSON text is written as it came only when that is exactly what its document would give.
TEST_CASE("a JSON text member is written verbatim only when it is its own canonical, clean form") {
  audit_options rules;
  rules.redact_secrets = true;
  rules.max_string = 16;
  rules.max_depth = 3;  // members' contents: two levels of arrays/objects
  const std::string key = "ghp_" + std::string(36, 'a');
  const std::vector<std::string> texts = {
      R"({"a":1,"b":[true,false,null],"c":"plain text"})", R"({})", R"([])", R"(-12)", R"("x")",
      R"({"b":1,"a":2})", R"({"a": 1})", R"({"a":1,"a":2})", R"({"a":1.5})", R"(1e2)", R"(-0)", R"(0)",
      R"(123456789012345678)", R"(12345678901234567890)", R"(-1234567890123456789)", R"("\u0041")",
      R"({"\u00e9":1})", "\"\xc3\xa9\"", R"("seventeen bytes!!")", R"("sixteen bytes!!!")", R"([[1]])", R"([[[1]]])",
      R"({"a":{"b":{}}})", "{\"token\":\"" + key + "\"}", "[\"" + key + "\",1]", R"(["password=Sup3rS3cretValue!"])",
      R"({"":1,"a":2})", R"({"a":2,"":1})", R"([1,])" /* not well-formed: rejected by the caller; here it must not pass */};
  for (const auto& text : texts) {
    CAPTURE(text);
    audit_record record;
    record.json_text("arguments", text, true);
    json parsed;
    try {
      parsed = json::parse(text);
    } catch (const json::exception&) {
      CHECK_THROWS(record.redact_and_cap(rules));  // the writer records it as a failed redaction
      continue;
    }
    record.redact_and_cap(rules);
    json document = {{"arguments", parsed}};
    redact_json(document["arguments"], true);
    cap_json(document, 16, 3);
    CHECK(record.canonical_text() == warden::base::canonical_json(document));
    // Without redact_and_cap (no checks made) the text is still written in canonical form.
    audit_record unchecked;
    unchecked.json_text("arguments", text, true);
    CHECK(unchecked.canonical_text() == warden::base::canonical_json(json{{"arguments", parsed}}));
  }
}

TEST_CASE("a record of more members than the stack order holds is sorted and written like the rest") {
  json document = json::object();
  audit_record record;
  for (int i = 60; i-- > 0;) {                                                      // added in reverse order, each key twice: the later value wins
    const std::string key = "k" + std::to_string(i % 40) + (i % 2 ? "\"odd" : "");  // i and i + 40: one key
    record.number(key, i);
    document[key] = i;
  }
  CHECK(record.canonical_text() == warden::base::canonical_json(document));
}

// What the app's redaction hook did before records were built from members: every top-level
// member except the six mcp-warden fills itself was searched. from_json must keep that list.
TEST_CASE("from_json treats exactly mcp-warden's own members as its own; caps are optional") {
  const std::string secret = "AKIAIOSFODNN7EXAMPLE";
  json event = json::object();
  for (const char* key : {"event", "decision", "mode", "session", "ts", "warden_version", "reason", "method", "tool", "asked", "id"})
    event[key] = secret;
  event["arguments"] = {{"k", secret}};
  event["error"] = {{"message", secret}};
  audit_options rules;
  rules.redact_secrets = true;
  audit_record record = audit_record::from_json(event);
  record.redact_and_cap(rules);
  const json written = json::parse(record.canonical_text());
  for (const char* own : {"event", "decision", "mode", "session", "ts", "warden_version"}) CHECK(written[own] == secret);
  for (const char* peer : {"reason", "method", "tool", "asked", "id"}) CHECK(written[peer] == "[REDACTED:aws-access-key-id]");
  CHECK(written["arguments"]["k"] == "[REDACTED:aws-access-key-id]");
  CHECK(written["error"]["message"] == "[REDACTED:aws-access-key-id]");
  CHECK(audit_record::from_json(json::array({1})).canonical_text() == R"({"event":"invalid","value":[1]})");

  SUBCASE("without caps, long and deep values are written whole") {
    audit_record whole;
    json deep = 1;
    for (int i = 0; i < 40; ++i) deep = json::array({deep});
    whole.text("reason", std::string(5000, 'r'), true).value("deep", deep, true);
    whole.redact_and_cap(audit_options{});
    const json back = json::parse(whole.canonical_text());
    CHECK(back["reason"].get<std::string>().size() == 5000);
    CHECK(back["deep"] == deep);
  }
}

TEST_CASE("a call record written through the policy inspector: peer values redacted, own values kept") {
  temp_log t;
  audit_options options = redacting(t);
  options.max_string = 2048;
  options.max_depth = 12;
  auto log = open_log(options);
  policy_inspector_options settings;
  settings.mode = warden::policy::mode::audit;
  settings.audit = log.get();
  settings.session_id = "session-1";
  auto inspector = policy_inspector::create(settings);
  REQUIRE(inspector);
  const std::string request =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://x.example/?q=AKIAIOSFODNN7EXAMPLE"}}})";
  const std::string response = R"({"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"bad key AKIAIOSFODNN7EXAMPLE"}})";
  const message call = parse_message(request, {}).value;
  (*inspector)->inspect(call, message_context{direction::client_to_server, request});
  const message answer = parse_message(response, {}).value;
  (*inspector)->inspect(answer, message_context{direction::server_to_client, response});
  log->close();
  int calls = 0;
  for (const auto& line : read_lines(t.log)) {
    CHECK(line.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
    const auto c = check_record(line);
    REQUIRE(c.ok);
    if (c.body["event"] != "call") continue;
    ++calls;
    CHECK(c.body["id"] == 7);
    CHECK(c.body["tool"] == "fetch");
    CHECK(c.body["method"] == "tools/call");
    CHECK(c.body["session"] == "session-1");
    CHECK(c.body["mode"] == "audit");
    CHECK(c.body["result_bytes"] == response.size());
    CHECK(c.body["latency_us"].is_number_integer());
    CHECK(c.body["arguments"]["url"] == "https://x.example/?q=[REDACTED:aws-access-key-id]");
    CHECK(c.body["error"]["message"] == "bad key [REDACTED:aws-access-key-id]");
    CHECK(c.body["secrets"] == json::array({"aws-access-key-id"}));
  }
  CHECK(calls == 1);
}

namespace {
// A record the writer thread builds; `fail` makes building throw, as an allocation failure would.
struct built_on_writer final : deferred_record {
  int number = 0;
  bool fail = false;
  std::thread::id* built_by = nullptr;
  audit_record build() && override {
    if (built_by) *built_by = std::this_thread::get_id();
    if (fail) throw std::runtime_error("cannot build");
    audit_record event;
    event.text("event", "deferred", false).count("n", static_cast<std::uint64_t>(number)).text("note", "AKIAIOSFODNN7EXAMPLE", true);
    return event;
  }
};
}  // namespace

TEST_CASE("a deferred record is built and redacted on the writer; one that cannot be built keeps its place in the chain") {
  temp_log t;
  auto log = open_log(redacting(t));
  std::thread::id builder;
  for (int i = 0; i < 3; ++i) {
    auto event = std::make_unique<built_on_writer>();
    event->number = i;
    event->fail = i == 1;
    event->built_by = i == 0 ? &builder : nullptr;
    log->record(std::move(event));
  }
  log->close();
  CHECK(builder != std::thread::id{});
  CHECK(builder != std::this_thread::get_id());
  const auto lines = read_lines(t.log);
  REQUIRE(lines.size() == 3);
  std::vector<json> bodies;
  for (const auto& line : lines) {
    const auto c = check_record(line);
    REQUIRE(c.ok);
    bodies.push_back(c.body);
  }
  CHECK(bodies[0]["event"] == "deferred");
  CHECK(bodies[0]["n"] == 0);
  CHECK(bodies[0]["note"] == "[REDACTED:aws-access-key-id]");
  CHECK(bodies[1]["event"] == "unknown");
  CHECK(bodies[1]["redaction_failed"] == true);
  CHECK(bodies[2]["n"] == 2);
  CHECK(log->stats().written == 3);
  CHECK(verify_log(t.log).ok);
}

TEST_CASE("a full queue slows the caller to the writer's pace instead of losing records") {
  temp_log t;
  audit_options options = redacting(t);
  options.queue_capacity = 2;
  auto log = open_log(options);
  for (int i = 0; i < 2000; ++i) log->record({{"event", "call"}, {"n", i}});
  log->close();
  CHECK(log->stats().written == 2000);
  CHECK(log->stats().dropped == 0);
  const auto lines = read_lines(t.log);
  REQUIRE(lines.size() == 2000);
  CHECK(check_record(lines.back()).body["n"] == 1999);
  CHECK(verify_log(t.log).ok);
}

namespace {

// Whether this process has a thread named `name` (from /proc/self/task/*/comm).
bool has_thread(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the writer thread is named warden-audit while the log is open") {
  temp_log t;
  audit_options options;
  options.path = t.log;
  auto log = open_log(options);
  log->record({{"event", "call"}});
  bool named = false;
  // The writer names itself when it starts: wait for it to have started.
  for (int i = 0; i < 500 && !(named = has_thread("warden-audit")); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(named);
  log->close();
  CHECK_FALSE(has_thread("warden-audit"));
  CHECK(read_lines(t.log).size() == 1);
}

namespace {
// Polls for up to five seconds (a loaded machine may be slow to schedule the writer).
bool wait_until(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

// A record whose building takes long: the writer is stuck on it, as on a disk that hangs.
struct slow_to_build final : deferred_record {
  std::chrono::milliseconds delay;
  std::atomic<bool>* started;
  slow_to_build(std::chrono::milliseconds d, std::atomic<bool>& s) : delay(d), started(&s) {}
  audit_record build() && override {
    *started = true;
    std::this_thread::sleep_for(delay);
    audit_record event;
    event.text("event", "slow", false);
    return event;
  }
};
}  // namespace

TEST_CASE("a stalled writer: one wait of full_wait, then records are dropped at once and announced") {
  temp_log t;
  audit_options options = redacting(t);
  options.queue_capacity = 2;
  options.full_wait = std::chrono::milliseconds(100);
  auto log = open_log(options);
  std::atomic<bool> taken{false};
  log->record(std::make_unique<slow_to_build>(std::chrono::milliseconds(1500), taken));
  REQUIRE(wait_until([&] { return taken.load(); }));  // the writer has taken it: the queue is empty
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) log->record({{"event", "call"}, {"n", i}});
  const auto waited = std::chrono::steady_clock::now() - start;
  // Two fit in the queue, the third waits once for full_wait, the other 97 do not wait (else
  // this would take 9.8 s).
  CHECK(waited >= std::chrono::milliseconds(90));
  CHECK(waited < std::chrono::milliseconds(1400));
  log->close();
  const auto stats = log->stats();
  CHECK(stats.dropped == 98);
  CHECK(stats.written == 3);
  std::uint64_t announced = 0;
  for (const auto& line : read_lines(t.log)) {
    const auto c = check_record(line);
    REQUIRE(c.ok);
    if (c.body["event"] == "records_dropped") announced += c.body["count"].get<std::uint64_t>();
  }
  CHECK(announced == 98);
  CHECK(verify_log(t.log).ok);
}

namespace {
// A record whose building waits for the test: the writer holds still while records queue up.
struct gated_record final : deferred_record {
  std::shared_future<void> open;
  std::atomic<bool>* building;
  gated_record(std::shared_future<void> f, std::atomic<bool>& b) : open(std::move(f)), building(&b) {}
  audit_record build() && override {
    *building = true;
    open.wait();
    audit_record event;
    event.text("event", "gate", false);
    return event;
  }
};

// A disk that fills at `limit` bytes: RLIMIT_FSIZE makes write(2) take a text up to the limit and
// refuse the rest (EFBIG; SIGXFSZ ignored), as a full disk does, without root. Process-wide while
// it lives, so nothing else here writes files meanwhile.
struct file_size_limit {
  rlimit before{};
  explicit file_size_limit(std::uintmax_t limit) {
    ::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &before);
    rlimit now = before;
    now.rlim_cur = static_cast<rlim_t>(limit);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &now) == 0);
  }
  ~file_size_limit() { ::setrlimit(RLIMIT_FSIZE, &before); }
};

json padded_call(int n) { return {{"event", "call"}, {"n", n}, {"pad", std::string(1000, 'x')}}; }

struct log_contents {
  std::uint64_t calls = 0, announced = 0;
  std::vector<std::string> events;
};

log_contents read_records(const std::string& path) {
  log_contents out;
  for (const auto& line : read_lines(path)) {
    const auto c = check_record(line);
    REQUIRE(c.ok);
    out.events.push_back(c.body["event"].get<std::string>());
    if (c.body["event"] == "call") ++out.calls;
    if (c.body["event"] == "records_dropped") out.announced += c.body["count"].get<std::uint64_t>();
  }
  return out;
}
}  // namespace

// An open log holding one "start" record, its writer held by a gate; ten ~1.2 KB calls queued
// behind the gate form the writer's next batch.
struct log_behind_gate {
  temp_log t;
  std::unique_ptr<audit_log> log;
  std::uintmax_t size0 = 0;  // the file with the start record
  std::promise<void> gate;

  log_behind_gate() {
    log = open_log(redacting(t));
    log->record({{"event", "start"}});
    REQUIRE(wait_until([&] { return read_lines(t.log).size() == 1; }));
    size0 = std::filesystem::file_size(t.log);
    std::atomic<bool> gate_taken{false};
    log->record(std::make_unique<gated_record>(gate.get_future().share(), gate_taken));
    REQUIRE(wait_until([&] { return gate_taken.load(); }));
    for (int i = 0; i < 10; ++i) log->record(padded_call(i));
  }
};

TEST_CASE("a write the disk takes in part keeps the whole records that reached it; the rest are announced") {
  log_behind_gate held;
  {
    file_size_limit disk_full(held.size0 + 4000);  // the gate and ~3 calls fit
    held.gate.set_value();
    REQUIRE(wait_until([&] { return held.log->stats().write_errors > 0; }));
    CHECK(std::filesystem::file_size(held.t.log) <= held.size0 + 4000);
  }
  held.log->record({{"event", "after"}});
  held.log->close();
  const auto contents = read_records(held.t.log);
  CHECK(contents.calls >= 2);  // kept, though the text they were in was not written whole
  CHECK(contents.calls + contents.announced == 10);
  CHECK(contents.events.back() == "after");
  const auto stats = held.log->stats();
  CHECK(stats.dropped == contents.announced);
  CHECK(stats.not_announced == 0);
  CHECK(stats.written == contents.calls + 3);  // start, gate, after
  CHECK(verify_log(held.t.log).ok);
}

TEST_CASE("closing after a failed write: the loss gets one more try with the records_dropped note alone") {
  log_behind_gate held;
  {
    // Room for the gate, one call and part of the next: the calls' batch, taken once close() has
    // begun, fails there; the ~300 bytes left take the note.
    file_size_limit disk_full(held.size0 + 2300);
    std::thread closer([&] { held.log->close(); });
    REQUIRE(wait_until([&] { return held.log->stats().closing; }));  // the batch is taken at close
    held.gate.set_value();
    closer.join();
  }
  const auto contents = read_records(held.t.log);
  CHECK(contents.calls == 1);
  CHECK(contents.announced == 9);
  CHECK(contents.events.back() == "records_dropped");
  const auto stats = held.log->stats();
  CHECK(stats.dropped == 9);
  CHECK(stats.not_announced == 0);
  CHECK(verify_log(held.t.log).ok);
}

TEST_CASE("a log that takes no more writes until close: stats say the loss is not announced in it") {
  temp_log t;
  auto log = open_log(redacting(t));
  log->record({{"event", "start"}});
  REQUIRE(wait_until([&] { return read_lines(t.log).size() == 1; }));
  {
    file_size_limit disk_full(std::filesystem::file_size(t.log));
    for (int i = 0; i < 3; ++i) log->record(padded_call(i));
    log->close();
  }
  const auto stats = log->stats();
  CHECK(stats.dropped == 3);
  CHECK(stats.not_announced == 3);
  CHECK(stats.write_errors >= 2);  // the batch, then the note alone
  CHECK(read_lines(t.log).size() == 1);
  CHECK(verify_log(t.log).ok);
}
