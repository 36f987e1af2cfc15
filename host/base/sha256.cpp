#include "base/sha256.hpp"

#include <openssl/evp.h>

#include <array>

namespace skillhost {

namespace {

// Fetched once: with OpenSSL 3, EVP_sha256() makes every EVP_Digest fetch the implementation again
// (a provider lookup under a lock), which cost more than hashing a short text (the audit log hashes
// the arguments of every call). Kept for the life of the process.
const EVP_MD* sha256_algorithm() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    static const EVP_MD* const fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched) return fetched;
#endif
    return EVP_sha256();
}

}  // namespace

std::string sha256_hex(std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    // EVP_Digest is one-shot and thread-safe; it only fails on allocation failure.
    if (EVP_Digest(data.data(), data.size(), digest.data(), &length, sha256_algorithm(), nullptr) != 1) {
        throw std::bad_alloc();
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(length * 2);
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(hex[digest[i] >> 4]);
        out.push_back(hex[digest[i] & 0x0f]);
    }
    return out;
}

}  // namespace skillhost
