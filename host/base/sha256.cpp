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

// One digest context per thread, reused: EVP_Digest allocates and frees a context (and the
// provider's state) for every hash.
struct DigestContext {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~DigestContext() { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::string sha256_hex(std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    thread_local DigestContext context;
    // These only fail on allocation failure.
    if (context.ctx == nullptr || EVP_DigestInit_ex(context.ctx, sha256_algorithm(), nullptr) != 1 ||
        EVP_DigestUpdate(context.ctx, data.data(), data.size()) != 1 ||
        EVP_DigestFinal_ex(context.ctx, digest.data(), &length) != 1) {
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
