#include "oauth/client_assertion.hpp"

#include "oauth/base64.hpp"
#include "oauth/error_codes.hpp"
#include "oauth/pkce.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <memory>
#include <vector>

namespace skillhost::oauth {
namespace json = boost::json;

namespace {

using KeyPtr = std::shared_ptr<EVP_PKEY>;

Error key_error(const std::string& what) {
    return Error{errors::kOauthFlowFailed, "the client's private key " + what +
                                               "; give a PEM private key (PKCS#8) of the kind the signing "
                                               "algorithm needs: ES256 a P-256 EC key, RS256 an RSA key"};
}

Result<std::string> sign(EVP_PKEY* key, bool ec, std::string_view input) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    std::size_t length = 0;
    if (!context || EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
        EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) != 1)
        return Error{errors::kOauthFlowFailed, "OpenSSL could not sign the client assertion"};
    std::vector<unsigned char> signature(length);
    if (EVP_DigestSign(context.get(), signature.data(), &length, reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) != 1)
        return Error{errors::kOauthFlowFailed, "OpenSSL could not sign the client assertion"};
    signature.resize(length);
    if (!ec) return base64url(std::string_view(reinterpret_cast<const char*>(signature.data()), signature.size()));
    // A JWS ES256 signature is R and S as 32 bytes each (RFC 7518 §3.4), not OpenSSL's DER.
    const unsigned char* der = signature.data();
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> parsed(
        d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size())), ECDSA_SIG_free);
    if (!parsed) return Error{errors::kOauthFlowFailed, "OpenSSL gave an ECDSA signature it cannot read back"};
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(parsed.get(), &r, &s);
    unsigned char raw[64];
    if (BN_bn2binpad(r, raw, 32) != 32 || BN_bn2binpad(s, raw + 32, 32) != 32)
        return Error{errors::kOauthFlowFailed, "the ECDSA signature is not a P-256 one"};
    return base64url(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

}  // namespace

Result<ClientAssertionSigner> client_assertion_signer(const std::string& private_key_pem,
                                                      const std::string& algorithm) {
    if (algorithm != "ES256" && algorithm != "RS256")
        return Error{errors::kOauthFlowFailed, "the signing algorithm '" + algorithm +
                                                   "' is not one skillhost signs client assertions with; use ES256 "
                                                   "or RS256"};
    if (private_key_pem.size() > 64 * 1024) return key_error("is over 64 KiB");
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), BIO_free);
    KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
    if (!key) return key_error("is not a PEM private key");
    const bool ec = algorithm == "ES256";
    if (ec && (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_EC || EVP_PKEY_get_bits(key.get()) != 256))
        return key_error("is not a P-256 EC key, which ES256 needs");
    if (!ec && EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA)
        return key_error("is not an RSA key, which RS256 needs");
    return ClientAssertionSigner(
        [key, ec, algorithm](const std::string& client_id, const std::string& audience) -> Result<std::string> {
            const auto now =
                std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                    .count();
            auto jti = random_text(16);
            if (!jti) return jti.error();
            const json::object header{{"alg", algorithm}, {"typ", "JWT"}};
            const json::object claims{{"iss", client_id}, {"sub", client_id}, {"aud", audience},
                                      {"iat", now},       {"exp", now + 300}, {"jti", *jti}};
            const std::string input = base64url(json::serialize(header)) + "." + base64url(json::serialize(claims));
            auto signature = sign(key.get(), ec, input);
            if (!signature) return signature.error();
            return input + "." + *signature;
        });
}

}  // namespace skillhost::oauth
