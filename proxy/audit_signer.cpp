#include "proxy/audit_signer.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/canonical_json.hpp"
#include "base/timestamp.hpp"
#include "proxy/audit_log.hpp"

namespace warden::proxy {

using nlohmann::json;

void evp_pkey_free::operator()(evp_pkey_st* key) const noexcept { EVP_PKEY_free(key); }

namespace {

constexpr std::string_view message_prefix = "mcp-warden audit checkpoint v1\n";
constexpr std::size_t signature_size = 64;       // Ed25519
constexpr std::size_t max_key_file = 64u << 10;  // a PEM key is a few hundred bytes

struct bio_free {
  void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
struct md_ctx_free {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
struct pkey_ctx_free {
  void operator()(EVP_PKEY_CTX* ctx) const noexcept { EVP_PKEY_CTX_free(ctx); }
};

// The contents of a key file, wiped from memory when dropped.
class key_text {
 public:
  key_text() = default;
  key_text(key_text&& other) noexcept : text_(std::move(other.text_)) {}
  key_text& operator=(key_text&&) = delete;
  ~key_text() { OPENSSL_cleanse(text_.data(), text_.size()); }
  std::string& text() { return text_; }

 private:
  std::string text_;
};

// Reads a key file. With `owner_only`, a file that group or others may access is refused; the
// mode is checked on the open descriptor, so it is the mode of the file that is read.
result<key_text> read_key_file(const std::string& path, const std::string& what, bool owner_only) {
  const std::string name = what + " '" + path + "'";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return error{"cannot read the " + name + ": " + std::strerror(errno)};
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_fd{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return error{"cannot read the " + name + ": " + std::strerror(errno)};
  if (!S_ISREG(info.st_mode)) return error{"the " + name + " is not a regular file"};
  if (owner_only && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    return error{"the " + name + " is accessible by group or others (mode " + mode +
                 "); a private key must be readable by its owner only (chmod 600 '" + path + "')"};
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_key_file) return error{"the " + name + " is too large to be a PEM key"};
  key_text out;
  out.text().resize(max_key_file);
  std::size_t got = 0;
  for (;;) {
    const ssize_t n = ::read(fd, out.text().data() + got, out.text().size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return error{"cannot read the " + name + ": " + std::strerror(errno)};
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got == out.text().size()) return error{"the " + name + " is too large to be a PEM key"};
  }
  out.text().resize(got);
  return out;
}

// An Ed25519 key's id: the first 16 hex digits of the SHA-256 of its raw public key.
std::string key_id_of(const EVP_PKEY* key) {
  unsigned char raw[32];
  std::size_t length = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key, raw, &length) != 1) return {};
  return base::sha256_hex(std::string_view(reinterpret_cast<const char*>(raw), length)).substr(0, 16);
}

// The key from PEM text, or why not; `what` names it in messages. OpenSSL's error queue is
// cleared so that a failure here leaves nothing behind for an unrelated later check.
template <typename Reader>
result<evp_pkey_ptr> parse_ed25519(key_text& pem, const std::string& name, std::string_view expected, Reader read) {
  std::unique_ptr<BIO, bio_free> bio(BIO_new_mem_buf(pem.text().data(), static_cast<int>(pem.text().size())));
  evp_pkey_ptr key(bio ? read(bio.get()) : nullptr);
  ERR_clear_error();
  if (!key) {
    std::string why = "the " + name + " is not a PEM " + std::string(expected);
    if (pem.text().find("ENCRYPTED") != std::string::npos) why += " (it is encrypted: use a key without a passphrase)";
    else if (expected == "public key" && pem.text().find("PRIVATE KEY") != std::string::npos) why += " (it is a private key: give PREFIX.pub)";
    return error{why};
  }
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
    const char* type = EVP_PKEY_get0_type_name(key.get());
    return error{"the " + name + " is a " + std::string(type ? type : "non-Ed25519") + " key; checkpoints are signed with Ed25519 (mcp-warden log keygen)"};
  }
  return key;
}

// Refuses an existing file (O_EXCL), and sets the mode whatever the umask.
result<bool> write_new_file(const std::string& path, std::string_view bytes, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) {
    if (errno == EEXIST) return error{"'" + path + "' already exists; not overwriting it"};
    return error{"cannot create '" + path + "': " + std::strerror(errno)};
  }
  bool ok = ::fchmod(fd, mode) == 0;
  for (std::size_t sent = 0; ok && sent < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + sent, bytes.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) sent += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    ::unlink(path.c_str());
    return error{"cannot write '" + path + "': " + std::strerror(saved)};
  }
  return true;
}

std::string pem_of(EVP_PKEY* key, bool private_part) {
  std::unique_ptr<BIO, bio_free> bio(BIO_new(BIO_s_mem()));
  if (!bio) return {};
  const int ok = private_part ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                              : PEM_write_bio_PUBKEY(bio.get(), key);
  if (ok != 1) return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  std::string out(data, static_cast<std::size_t>(size));
  OPENSSL_cleanse(data, static_cast<std::size_t>(size));
  return out;
}

}  // namespace

std::string checkpoint_message(std::uint64_t seq, std::string_view head_hash) {
  std::string out(message_prefix);
  out += std::to_string(seq);
  out += '\n';
  out += head_hash;
  out += '\n';
  return out;
}

// --- signer ----------------------------------------------------------------------------------------

checkpoint_signer::checkpoint_signer(evp_pkey_ptr key) : key_(std::move(key)), key_id_(key_id_of(key_.get())) {}

result<std::shared_ptr<const checkpoint_signer>> checkpoint_signer::load(const std::string& path) {
  auto pem = read_key_file(path, "audit signing key", true);
  if (!pem) return error{pem.error_message()};
  // No passphrase prompt: the proxy runs unattended, often with stdin as the MCP channel.
  auto key = parse_ed25519(*pem, "audit signing key '" + path + "'", "private key", [](BIO* bio) {
    return PEM_read_bio_PrivateKey(
        bio, nullptr, [](char*, int, int, void*) { return -1; }, nullptr);
  });
  if (!key) return error{key.error_message()};
  return std::shared_ptr<const checkpoint_signer>(new checkpoint_signer(std::move(*key)));
}

result<audit_record> checkpoint_signer::checkpoint(std::uint64_t seq, const std::string& head_hash) const {
  const std::string message = checkpoint_message(seq, head_hash);
  unsigned char signature[signature_size];
  std::size_t length = sizeof signature;
  std::unique_ptr<EVP_MD_CTX, md_ctx_free> ctx(EVP_MD_CTX_new());
  // Ed25519 signs the message itself (no separate digest): one-shot EVP_DigestSign, no md.
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &length, reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1) {
    ERR_clear_error();
    return error{"signing the audit checkpoint failed"};
  }
  audit_record record;
  record.text("event", std::string(checkpoint_event), false)
      .text("alg", "ed25519", false)
      .text("key_id", key_id_, false)
      .count("signed_seq", seq)
      .text("signed_hash", head_hash, false)
      .text("signature", base::base64(std::string_view(reinterpret_cast<const char*>(signature), length)), false)
      .text("ts", base::utc_timestamp(), false);
  return record;
}

// --- verifier --------------------------------------------------------------------------------------

result<checkpoint_verifier> checkpoint_verifier::load(const std::vector<std::string>& paths) {
  checkpoint_verifier out;
  for (const auto& path : paths) {
    auto pem = read_key_file(path, "public key", false);
    if (!pem) return error{pem.error_message()};
    auto key = parse_ed25519(*pem, "public key '" + path + "'", "public key",
                             [](BIO* bio) { return PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr); });
    if (!key) return error{key.error_message()};
    const std::string id = key_id_of(key->get());
    out.keys_.emplace(id, std::shared_ptr<evp_pkey_st>(key->release(), evp_pkey_free{}));
  }
  return out;
}

std::string checkpoint_verifier::key_ids() const {
  std::string out;
  for (const auto& [id, key] : keys_) out += (out.empty() ? "" : ", ") + id;
  return out;
}

std::string checkpoint_verifier::check(const json& body) const {
  const auto text = [&](const char* name) {
    const auto it = body.find(name);
    return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto signed_seq = body.find("signed_seq");
  if (signed_seq == body.end() || !signed_seq->is_number_unsigned() || text("signed_hash").empty() || text("key_id").empty() ||
      text("signature").empty())
    return "malformed checkpoint (needs \"signed_seq\", \"signed_hash\", \"key_id\" and \"signature\")";
  if (text("alg") != "ed25519") return "unknown signature algorithm \"" + text("alg") + "\" (expected \"ed25519\")";
  const auto key = keys_.find(text("key_id"));
  if (key == keys_.end())
    return "signed by key " + text("key_id") + ", not by the given key" + (keys_.size() == 1 ? " " : "s ") + key_ids() + " (wrong key?)";
  // First whether the checkpoint is authentic, then whether the chain still leads to what it signed.
  const auto seq = signed_seq->get<std::uint64_t>();
  const auto signature = base::base64_decode(text("signature"));
  const std::string message = checkpoint_message(seq, text("signed_hash"));
  std::unique_ptr<EVP_MD_CTX, md_ctx_free> ctx(EVP_MD_CTX_new());
  const bool verified = signature && signature->size() == signature_size && ctx &&
                        EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key->second.get()) == 1 &&
                        EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()), signature->size(),
                                         reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  ERR_clear_error();
  if (!verified)
    return "the signature over seq " + std::to_string(seq) + " does not verify with key " + key->first +
           " (the checkpoint was forged or altered)";
  const auto chain_seq = body.at("seq").get<std::uint64_t>() - 1;
  if (seq != chain_seq || text("signed_hash") != text("prev"))
    return "records up to seq " + std::to_string(seq) + " were changed, removed or inserted after they were signed: the signed head is seq " +
           std::to_string(seq) + " with hash " + text("signed_hash").substr(0, 16) + "..., the record before this checkpoint is seq " +
           std::to_string(chain_seq) + " with hash " + text("prev").substr(0, 16) + "...";
  return {};
}

// --- keygen ----------------------------------------------------------------------------------------

result<std::string> generate_checkpoint_key(const std::string& prefix) {
  const std::string private_path = prefix + ".key", public_path = prefix + ".pub";
  struct stat existing {};
  for (const auto& path : {private_path, public_path})
    if (::lstat(path.c_str(), &existing) == 0) return error{"'" + path + "' already exists; not overwriting it"};
  std::unique_ptr<EVP_PKEY_CTX, pkey_ctx_free> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* generated = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &generated) != 1) {
    ERR_clear_error();
    return error{"generating an Ed25519 key failed"};
  }
  evp_pkey_ptr key(generated);
  key_text private_pem;
  private_pem.text() = pem_of(key.get(), true);
  const std::string public_pem = pem_of(key.get(), false);
  if (private_pem.text().empty() || public_pem.empty()) {
    ERR_clear_error();
    return error{"writing the key as PEM failed"};
  }
  if (auto written = write_new_file(private_path, private_pem.text(), 0600); !written) return error{written.error_message()};
  if (auto written = write_new_file(public_path, public_pem, 0644); !written) {
    ::unlink(private_path.c_str());  // no private key without its public half
    return error{written.error_message()};
  }
  return key_id_of(key.get());
}

}  // namespace warden::proxy
