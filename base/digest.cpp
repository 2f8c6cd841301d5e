#include "base/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstring>

namespace warden::base {

namespace {

// OpenSSL 3 looks EVP_sha256() up in its provider tables on every use (a lock and a hash-table
// search, a third of a small digest's cost): fetch the implementation once instead.
const EVP_MD* sha256_method() {
  static const EVP_MD* const method = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched ? fetched : EVP_sha256();
  }();
  return method;
}

// Writes the digest to `out` (EVP_MAX_MD_SIZE bytes) and returns its length.
unsigned int sha256_into(std::string_view bytes, unsigned char* out) {
  unsigned int length = 0;
  // One context per thread, reused: EVP_Digest allocates, initialises and frees one per call, a
  // large share of the cost of hashing a short audit record.
  struct context_owner {
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    ~context_owner() { EVP_MD_CTX_free(context); }
  };
  thread_local context_owner owner;
  if (!owner.context || EVP_DigestInit_ex(owner.context, sha256_method(), nullptr) != 1 ||
      EVP_DigestUpdate(owner.context, bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(owner.context, out, &length) != 1)
    EVP_Digest(bytes.data(), bytes.size(), out, &length, sha256_method(), nullptr);
  return length;
}

}  // namespace

std::string sha256(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  const unsigned int length = sha256_into(bytes, out);
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  const unsigned int length = sha256_into(bytes, out);
  // Two hex digits per byte from one table (every audit record is hashed).
  static constexpr auto pairs = [] {
    std::array<char, 512> table{};
    constexpr char hex[] = "0123456789abcdef";
    for (int b = 0; b < 256; ++b) {
      table[2 * b] = hex[b >> 4];
      table[2 * b + 1] = hex[b & 15];
    }
    return table;
  }();
  std::string text(length * 2, '\0');
  for (unsigned int i = 0; i < length; ++i) std::memcpy(text.data() + 2 * i, pairs.data() + 2 * out[i], 2);
  return text;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');  // EVP_EncodeBlock adds a NUL
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0 || text.size() > (std::size_t{1} << 30)) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes and skips surrounding whitespace: the
  // padding is taken off, and only a text that base64() would write back is accepted.
  out.resize(static_cast<std::size_t>(n));
  for (std::size_t pad = text.size(); pad > 0 && text[pad - 1] == '=' && !out.empty(); --pad) out.pop_back();
  if (base64(out) != text) return std::nullopt;
  return out;
}

std::string base64url(std::string_view bytes) {
  // OpenSSL has no URL-safe alphabet: the standard text with two letters swapped and no padding.
  std::string out = base64(bytes);
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_'
                                                    : c;
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

}  // namespace warden::base
