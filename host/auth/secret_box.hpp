// Sealing users' secrets for the database: AES-256-GCM under one host key, bound to whose secret it
// is, so the database (a file, a backup, a PostgreSQL replica) never holds a plaintext and a sealed
// value moved to another user's row does not open.
//
// The key is 32 random bytes in a file of its own (config `secret_key_file`, default
// <home>/secret.key), made with mode 0600 on first use and refused when others can read it.
// Instances that share one PostgreSQL database must share the file; a value sealed under another
// key is refused with SECRET_KEY_MISMATCH naming both key ids, never opened as garbage.
#pragma once

#include "base/error.hpp"

#include <array>
#include <filesystem>
#include <string>
#include <string_view>

namespace skillhost::auth {

// A sealed value as it is stored: which key sealed it, the nonce and the ciphertext with its tag
// (both base64).
struct SealedSecret {
    std::string key_id;  // 16 hex digits: the start of SHA-256 of the key
    std::string nonce;
    std::string sealed;
};

class SecretBox {
public:
    // Reads the key file, making it (0600, in a directory made 0700 if missing) when `create` and
    // it does not exist. SECRET_KEY_UNAVAILABLE when it cannot be read or made, is not 32 bytes,
    // or group/others may read it.
    static Result<SecretBox> open(const std::filesystem::path& key_file, bool create);

    const std::string& key_id() const { return key_id_; }
    // `bound_to` (for example "alice\nGITHUB_TOKEN") is authenticated with the value: opening with
    // another fails.
    Result<SealedSecret> seal(std::string_view plaintext, std::string_view bound_to) const;
    Result<std::string> open(const SealedSecret& sealed, std::string_view bound_to) const;

private:
    SecretBox(std::array<unsigned char, 32> key, std::filesystem::path file);

    std::array<unsigned char, 32> key_{};
    std::string key_id_;
    std::filesystem::path file_;
};

}  // namespace skillhost::auth
