// Signed checkpoints: the writer signs the chain head, verify_log checks every signature.
#include "proxy/audit_signer.hpp"

#include <doctest/doctest.h>

#include "file_lines.hpp"
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/canonical_json.hpp"
#include "proxy/audit_log.hpp"

using namespace warden::proxy;
using namespace warden::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// What verify_log counts in a signed log, and where it found the last checkpoint ("FILE:LINE").
struct signed_counts {
  std::uint64_t records = 0, checkpoints = 0, signed_records = 0, unsigned_tail = 0;
  std::string last_checkpoint;
  bool operator==(const signed_counts&) const = default;
};

std::ostream& operator<<(std::ostream& out, const signed_counts& c) {
  return out << "{records " << c.records << ", checkpoints " << c.checkpoints << ", signed " << c.signed_records
             << ", unsigned tail " << c.unsigned_tail << ", last checkpoint " << c.last_checkpoint << "}";
}

signed_counts counts_of(const verify_report& r) {
  return {r.records, r.checkpoints, r.signed_records, r.unsigned_tail, r.last_checkpoint};
}

// A key pair PREFIX.key / PREFIX.pub in `t`: the signer and a verifier for it.
struct key_pair {
  std::string prefix, id;
  std::shared_ptr<const checkpoint_signer> signer;
  checkpoint_verifier verifier;
};
key_pair make_keys(const temp_audit_dir& t, const std::string& name) {
  key_pair k;
  k.prefix = t.path(name);
  auto id = generate_checkpoint_key(k.prefix);
  REQUIRE_MESSAGE(id, (id ? std::string() : id.error_message()));
  k.id = *id;
  auto signer = checkpoint_signer::load(k.prefix + ".key");
  REQUIRE_MESSAGE(signer, (signer ? std::string() : signer.error_message()));
  k.signer = *signer;
  auto verifier = checkpoint_verifier::load({k.prefix + ".pub"});
  REQUIRE_MESSAGE(verifier, (verifier ? std::string() : verifier.error_message()));
  k.verifier = std::move(*verifier);
  return k;
}

void write_events(const std::string& path, int count, std::shared_ptr<const checkpoint_signer> signer, std::uint64_t every = 1000,
                  std::uint64_t rotate_bytes = 0) {
  audit_options options;
  options.path = path;
  options.signer = std::move(signer);
  options.checkpoint_records = every;
  options.rotate_bytes = rotate_bytes;
  warden::test::write_events(options, 0, count, [](int i) { return json{{"event", "call"}, {"n", i}}; });
}

bool is_checkpoint(const std::string& line) { return check_record(line).body.value("event", "") == "checkpoint"; }

// What a forger without the key does after changing records: renumbers and re-hashes the whole
// chain so that every "seq", "prev" and "hash" is right again.
std::vector<std::string> rechain(const std::vector<json>& bodies) {
  std::vector<std::string> out;
  std::string prev(genesis_hash);
  std::uint64_t seq = 0;
  for (json body : bodies) {
    body["seq"] = ++seq;
    body["prev"] = prev;
    const std::string text = warden::base::canonical_json(body);
    prev = warden::base::sha256_hex(text);
    out.push_back(text.substr(0, text.size() - 1) + ",\"hash\":\"" + prev + "\"}");
  }
  return out;
}

std::vector<json> bodies_of(const std::vector<std::string>& lines) {
  std::vector<json> out;
  for (const auto& line : lines) {
    const auto c = check_record(line);
    REQUIRE(c.ok);
    out.push_back(c.body);
  }
  return out;
}

}  // namespace

TEST_CASE("the signed bytes are the documented string") {
  CHECK(checkpoint_message(1000, "ab12") == "mcp-warden audit checkpoint v1\n1000\nab12\n");
}

TEST_CASE("keygen writes a private key only its owner can read and the public key; it never overwrites") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  CHECK(k.id.size() == 16);
  struct stat info {};
  REQUIRE(::stat((k.prefix + ".key").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(k.signer->key_id() == k.id);
  CHECK(k.verifier.key_ids() == k.id);
  const auto again = generate_checkpoint_key(k.prefix);
  REQUIRE_FALSE(again);
  CHECK(again.error_message() == "'" + k.prefix + ".key' already exists; not overwriting it");
  fs::remove(k.prefix + ".key");
  const auto half = generate_checkpoint_key(k.prefix);  // the .pub alone is still in the way
  REQUIRE_FALSE(half);
  CHECK(half.error_message() == "'" + k.prefix + ".pub' already exists; not overwriting it");
  CHECK_FALSE(fs::exists(k.prefix + ".key"));
}

TEST_CASE("a signing key that cannot be used is refused with a clear message") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  const std::string key = k.prefix + ".key";
  const auto refused = [](const std::string& path) {
    const auto loaded = checkpoint_signer::load(path);
    REQUIRE_FALSE(loaded);
    return loaded.error_message();
  };
  SUBCASE("missing") {
    CHECK(refused(t.path("none.key")) == "cannot read the audit signing key '" + t.path("none.key") + "': No such file or directory");
  }
  SUBCASE("readable by group or others") {
    for (const auto mode : {0640, 0604, 0660}) {
      fs::permissions(key, static_cast<fs::perms>(mode));
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", mode);
      CHECK(refused(key) == "the audit signing key '" + key + "' is accessible by group or others (mode " + octal +
                                "); a private key must be readable by its owner only (chmod 600 '" + key + "')");
    }
  }
  SUBCASE("the public key, or no key at all") {
    fs::copy_file(k.prefix + ".pub", t.path("pub.key"));
    fs::permissions(t.path("pub.key"), static_cast<fs::perms>(0600));
    CHECK(refused(t.path("pub.key")) == "the audit signing key '" + t.path("pub.key") + "' is not a PEM private key");
    CHECK(refused(t.dir.string()) == "the audit signing key '" + t.dir.string() + "' is not a regular file");
  }
  SUBCASE("not Ed25519") {
    EVP_PKEY* other = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED448");
    REQUIRE(other);
    FILE* out = std::fopen(t.path("ed448.key").c_str(), "w");
    REQUIRE(out);
    PEM_write_PrivateKey(out, other, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(out);
    EVP_PKEY_free(other);
    fs::permissions(t.path("ed448.key"), static_cast<fs::perms>(0600));
    CHECK(refused(t.path("ed448.key")) == "the audit signing key '" + t.path("ed448.key") +
                                              "' is a ED448 key; checkpoints are signed with Ed25519 (mcp-warden log keygen)");
  }
  SUBCASE("a public key file that holds the private key") {
    const auto loaded = checkpoint_verifier::load({key});
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error_message() == "the public key '" + key + "' is not a PEM public key (it is a private key: give PREFIX.pub)");
  }
}

TEST_CASE("a signed log: checkpoints every N records and at close, each signing the record before it") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  write_events(t.log, 25, k.signer, 10);
  const auto lines = read_lines(t.log);
  REQUIRE(lines.size() == 28);  // 25 events, checkpoints after 10 and 20 records and at close
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (is_checkpoint(lines[i])) at.push_back(i);
  CHECK(at == std::vector<std::size_t>{10, 21, 27});
  const json checkpoint = check_record(lines[10]).body;
  CHECK(checkpoint["signed_seq"] == 10);
  CHECK(checkpoint["signed_hash"] == check_record(lines[9]).hash);
  CHECK(checkpoint["key_id"] == k.id);
  CHECK(checkpoint["alg"] == "ed25519");
  CHECK(k.verifier.check(checkpoint).empty());

  const auto r = verify_log(t.log, &k.verifier);
  CHECK_MESSAGE(r.ok, r.problem);
  CHECK(counts_of(r) == signed_counts{28, 3, 27, 0, t.log + ":28"});

  SUBCASE("without keys the checkpoints are chain records like the others") {
    const auto plain = verify_log(t.log);
    CHECK(plain.ok);
    CHECK(plain.records == 28);
    CHECK(plain.checkpoints == 3);
    CHECK(plain.signed_records == 0);
  }
}

TEST_CASE("verify with keys fails on a wrong key, a rewritten chain, and a log without checkpoints") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  write_events(t.log, 25, k.signer, 10);
  auto lines = read_lines(t.log);
  const std::string first_checkpoint = t.log + ":11: checkpoint (seq 11): ";

  SUBCASE("a wrong key") {
    const auto other = make_keys(t, "other");
    const auto r = verify_log(t.log, &other.verifier);
    CHECK_FALSE(r.ok);
    CHECK(r.records == 10);
    CHECK(r.problem == first_checkpoint + "signed by key " + k.id + ", not by the given key " + other.id + " (wrong key?)");
  }
  SUBCASE("a record edited, the whole chain recomputed after it") {
    auto bodies = bodies_of(lines);
    bodies[4]["n"] = 99;
    write_lines(t.log, rechain(bodies));
    CHECK(verify_log(t.log).ok);  // the chain alone cannot tell
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK(r.records == 10);
    CHECK(r.problem == first_checkpoint +
                           "records up to seq 10 were changed, removed or inserted after they were signed: the signed head is seq 10 "
                           "with hash " +
                           check_record(lines[9]).hash.substr(0, 16) +
                           "..., the record before this checkpoint is seq 10 with hash " +
                           check_record(read_lines(t.log)[9]).hash.substr(0, 16) + "...");
  }
  SUBCASE("a record deleted before the last checkpoint, the chain renumbered") {
    auto bodies = bodies_of(lines);
    bodies.erase(bodies.begin() + 15);  // between the first and the second checkpoint
    write_lines(t.log, rechain(bodies));
    CHECK(verify_log(t.log).ok);
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK_MESSAGE(r.problem.starts_with(t.log + ":21: checkpoint (seq 21): records up to seq 21 were changed, removed or inserted"), r.problem);
  }
  SUBCASE("records deleted and the checkpoint after them re-pointed at the new head") {
    auto bodies = bodies_of(lines);
    bodies.erase(bodies.begin() + 12, bodies.begin() + 14);
    auto relined = rechain(bodies);
    // The forger also makes the next checkpoint name the head it now follows.
    auto forged = bodies_of(relined);
    REQUIRE(forged[19]["event"] == "checkpoint");
    forged[19]["signed_seq"] = 19;
    forged[19]["signed_hash"] = forged[19]["prev"];
    write_lines(t.log, rechain(forged));
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK(r.problem == t.log + ":20: checkpoint (seq 20): the signature over seq 19 does not verify with key " + k.id +
                           " (the checkpoint was forged or altered)");
  }
  SUBCASE("the front cut off, the chain recomputed from there") {
    auto bodies = bodies_of(lines);
    bodies.erase(bodies.begin(), bodies.begin() + 21);  // the first two checkpoints and what they signed
    write_lines(t.log, rechain(bodies));
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK_MESSAGE(r.problem.starts_with(t.log + ":1: checkpoint (seq 1): records up to seq 21 were changed, removed or inserted"), r.problem);
  }
  SUBCASE("the front cut off, the chain left as it was") {
    lines.erase(lines.begin(), lines.begin() + 3);
    write_lines(t.log, lines);
    CHECK(verify_log(t.log).ok);  // without keys: as if older rotated files were removed (a note)
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK(r.problem == t.log +
                           ":1: the chain starts at seq 4, which is neither the start of a log nor of a rotated file "
                           "(\"log_rotated\"): records before it were cut off");
  }
  SUBCASE("a checkpoint's signature replaced") {
    auto bodies = bodies_of(lines);
    bodies[10]["signature"] = check_record(lines[21]).body["signature"];
    write_lines(t.log, rechain(bodies));
    CHECK(verify_log(t.log, &k.verifier).problem ==
          first_checkpoint + "the signature over seq 10 does not verify with key " + k.id + " (the checkpoint was forged or altered)");
  }
  SUBCASE("all checkpoints left out") {
    auto bodies = bodies_of(lines);
    std::erase_if(bodies, [](const json& b) { return b["event"] == "checkpoint"; });
    write_lines(t.log, rechain(bodies));
    const auto r = verify_log(t.log, &k.verifier);
    CHECK_FALSE(r.ok);
    CHECK(r.problem == t.log + ": no checkpoint in the log: no record is covered by a signature (was it written with --audit-sign-key?)");
  }
}

TEST_CASE("records after the last checkpoint are an unsigned tail: reported, not a failure") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  write_events(t.log, 5, k.signer);
  write_events(t.log, 3, nullptr);  // a writer without the key appends
  const auto r = verify_log(t.log, &k.verifier);
  CHECK_MESSAGE(r.ok, r.problem);
  CHECK(counts_of(r) == signed_counts{9, 1, 5, 3, t.log + ":6"});
}

TEST_CASE("a checkpoint follows within checkpoint_interval of an unsigned record while the log stays open") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  audit_options options;
  options.path = t.log;
  options.signer = k.signer;
  options.checkpoint_interval = std::chrono::milliseconds(50);
  options.sync_interval = std::chrono::milliseconds(20);  // the writer's idle wake-up
  auto log = open_log(options);
  log->record({{"event", "call"}});
  bool signed_in_time = false;
  for (int i = 0; i < 500 && !signed_in_time; ++i) {  // up to five seconds on a loaded machine
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto lines = read_lines(t.log);
    signed_in_time = lines.size() == 2 && is_checkpoint(lines[1]);
  }
  CHECK(signed_in_time);
  log->close();
  CHECK(read_lines(t.log).size() == 2);  // nothing unsigned left: no second checkpoint at close
  CHECK(verify_log(t.log, &k.verifier).ok);
}

TEST_CASE("rotation: every rotated file ends with a checkpoint and the chain verifies across files") {
  temp_audit_dir t;
  const auto k = make_keys(t, "signing");
  write_events(t.log, 20, k.signer, 1000, 1200);
  REQUIRE(fs::exists(t.log + ".2"));
  for (unsigned n = 1; fs::exists(t.log + "." + std::to_string(n)); ++n) {
    const auto rotated = read_lines(t.log + "." + std::to_string(n));
    REQUIRE_FALSE(rotated.empty());
    CHECK(is_checkpoint(rotated.back()));
  }
  const auto r = verify_log(t.log, &k.verifier);
  CHECK_MESSAGE(r.ok, r.problem);
  CHECK(r.files.size() >= 2);
  CHECK(r.unsigned_tail == 0);
  SUBCASE("older rotated files removed: the chain starts at a log_rotated record, which is fine") {
    for (unsigned n = 2; fs::exists(t.log + "." + std::to_string(n)); ++n) fs::remove(t.log + "." + std::to_string(n));
    const auto rest = verify_log(t.log, &k.verifier);
    CHECK_MESSAGE(rest.ok, rest.problem);
    CHECK(rest.notes.size() == 1);
  }
}
