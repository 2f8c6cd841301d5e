#include "config/digest.hpp"

#include <openssl/evp.h>

namespace warden::config {

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

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &length, sha256_method(), nullptr);
  static constexpr char hex[] = "0123456789abcdef";
  std::string text;
  text.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    text += hex[out[i] >> 4];
    text += hex[out[i] & 15];
  }
  return text;
}

std::string canonical_json(const nlohmann::json& value) {
  // nlohmann::json keeps objects in a std::map: keys come out sorted.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace warden::config
