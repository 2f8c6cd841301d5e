#include "config/digest.hpp"

#include <openssl/evp.h>

namespace warden::config {

std::string sha256_hex(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &length, EVP_sha256(), nullptr);
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
