#include "config/digest.hpp"

#include "analysis/text.hpp"

#include <openssl/evp.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

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

namespace {

std::string nlohmann_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A string as nlohmann writes it. Nearly all strings are printable ASCII without a quote or a
// backslash: those are copied in one piece (nlohmann's serializer decodes every byte through its
// UTF-8 state machine); anything else is left to nlohmann, so escapes and U+FFFD replacement
// stay exactly its own.
void append_string(std::string& out, std::string_view text) {
  if (analysis::text::json_plain_prefix(text) != text.size()) {
    out += nlohmann_text(nlohmann::json(std::string(text)));
    return;
  }
  // One append of the quotes and the text (this runs for every string of every audit record).
  const std::size_t at = out.size();
  out.append(text.size() + 2, '"');
  std::memcpy(out.data() + at + 1, text.data(), text.size());
}

template <typename Integer>
void append_integer(std::string& out, Integer number) {
  char buffer[24];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
  out.append(buffer, end);
}

void append_canonical(std::string& out, const nlohmann::json& value) {
  using type = nlohmann::json::value_t;
  switch (value.type()) {
    case type::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const nlohmann::json::object_t&>()) {  // std::map: sorted
        if (!first) out += ',';
        first = false;
        append_string(out, key);
        out += ':';
        append_canonical(out, member);
      }
      out += '}';
      return;
    }
    case type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value.get_ref<const nlohmann::json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        append_canonical(out, element);
      }
      out += ']';
      return;
    }
    case type::string: append_string(out, value.get_ref<const std::string&>()); return;
    case type::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case type::null: out += "null"; return;
    case type::number_integer: append_integer(out, value.get<std::int64_t>()); return;
    case type::number_unsigned: append_integer(out, value.get<std::uint64_t>()); return;
    default: out += nlohmann_text(value); return;  // floats (nlohmann's own shortest form), binary, discarded
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& value) {
  std::string out;
  out.reserve(256);
  append_canonical(out, value);
  return out;
}

void append_canonical_json(std::string& out, const nlohmann::json& value) { append_canonical(out, value); }

void append_json_string(std::string& out, std::string_view text) { append_string(out, text); }

}  // namespace warden::config
