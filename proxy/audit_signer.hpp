#pragma once
// Signed checkpoints of the audit log (docs/fleet.md, "Signed checkpoints"). The hash chain shows
// that records were not changed one at a time; a checkpoint, an Ed25519 signature over the chain
// head written into the chain, shows that they were not rewritten wholesale on the machine either
// (whoever rewrites must also hold the private key).
//
// Signed bytes (checkpoint_message): "mcp-warden audit checkpoint v1\n" <seq> "\n" <hash> "\n",
// where <seq> is the head record's "seq" in decimal and <hash> its "hash" (64 lower-case hex).
// Key id: the first 16 hex digits of the SHA-256 of the raw 32-byte public key.
//
// Thread-safety: a loaded signer or verifier is immutable; any thread may use it.
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

struct evp_pkey_st;  // OpenSSL's EVP_PKEY, kept out of this header

namespace warden::proxy {

class audit_record;

inline constexpr std::string_view checkpoint_event = "checkpoint";

// The canonical byte string a checkpoint signs.
std::string checkpoint_message(std::uint64_t seq, std::string_view head_hash);

struct evp_pkey_free {
  void operator()(evp_pkey_st* key) const noexcept;
};
using evp_pkey_ptr = std::unique_ptr<evp_pkey_st, evp_pkey_free>;

class checkpoint_signer {
 public:
  // Reads an unencrypted Ed25519 private key (PEM). Refuses a file that group or others may
  // access (as ssh does): the key is what makes the log's signatures worth anything.
  static result<std::shared_ptr<const checkpoint_signer>> load(const std::string& path);

  const std::string& key_id() const { return key_id_; }
  // The checkpoint record (without "seq", "prev", "hash": the writer chains it) signing the head
  // record `seq` whose hash is `head_hash`.
  result<audit_record> checkpoint(std::uint64_t seq, const std::string& head_hash) const;

 private:
  explicit checkpoint_signer(evp_pkey_ptr key);
  evp_pkey_ptr key_;
  std::string key_id_;
};

// Public keys that checkpoints may be signed with, by key id.
class checkpoint_verifier {
 public:
  // Ed25519 public keys (PEM, as `log keygen` writes PREFIX.pub).
  static result<checkpoint_verifier> load(const std::vector<std::string>& paths);

  // Checks a checkpoint record's body (the record without "hash"; its "seq" and "prev" already
  // checked by the chain): "" when it is signed by one of the keys and what it signs is the record
  // before it, else why not.
  std::string check(const nlohmann::json& body) const;
  std::string key_ids() const;  // "id1, id2"

 private:
  std::map<std::string, std::shared_ptr<evp_pkey_st>> keys_;
};

// `log keygen`: writes PREFIX.key (private, PEM, mode 0600) and PREFIX.pub (public, PEM), never
// over an existing file. Returns the key id.
result<std::string> generate_checkpoint_key(const std::string& prefix);

}  // namespace warden::proxy
