#include "auth/secret_box.hpp"

#include "auth/error_codes.hpp"
#include "base/sha256.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace skillhost::auth {
namespace {

constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;

std::string to_hex(const unsigned char* data, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (std::size_t i = 0; i < size; ++i) {
        out += digits[data[i] >> 4];
        out += digits[data[i] & 0xf];
    }
    return out;
}

// Hex text back to bytes; false when it is not hex of an even length.
bool from_hex(std::string_view text, std::string& out) {
    if (text.size() % 2 != 0) return false;
    const auto nibble = [](char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    out.clear();
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int high = nibble(text[i]), low = nibble(text[i + 1]);
        if (high < 0 || low < 0) return false;
        out += static_cast<char>(high * 16 + low);
    }
    return true;
}

std::string octal_mode(mode_t mode) {
    std::string out;
    for (int shift = 6; shift >= 0; shift -= 3) out += static_cast<char>('0' + ((mode >> shift) & 7));
    return out;
}

Error key_error(const std::filesystem::path& file, std::string problem) {
    Error error{errors::kSecretKeyUnavailable, "the secret key " + file.string() + " " + std::move(problem)};
    error.details["file"] = file.string();
    return error;
}

// Makes a new key file: 32 random bytes, 0600, written whole or not at all.
Status make_key_file(const std::filesystem::path& file) {
    std::error_code ec;
    if (file.has_parent_path() && !std::filesystem::exists(file.parent_path(), ec)) {
        std::filesystem::create_directories(file.parent_path(), ec);
        if (ec) return key_error(file, "cannot be made: " + ec.message() + "; check that its directory is writable");
        ::chmod(file.parent_path().c_str(), 0700);
    }
    unsigned char key[32];
    if (RAND_bytes(key, sizeof key) != 1) return key_error(file, "cannot be made: no random bytes from OpenSSL");
    const std::string temporary = file.string() + ".new";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return key_error(file, std::string("cannot be made: ") + std::strerror(errno));
    const bool written = ::write(fd, key, sizeof key) == static_cast<ssize_t>(sizeof key) && ::fsync(fd) == 0;
    ::close(fd);
    // link(), not rename(): two processes making it at once keep the first one's key.
    if (!written || (::link(temporary.c_str(), file.c_str()) != 0 && errno != EEXIST)) {
        const std::string why = std::strerror(errno);
        ::unlink(temporary.c_str());
        return key_error(file, "cannot be made: " + why);
    }
    ::unlink(temporary.c_str());
    return {};
}

struct CipherContext {
    EVP_CIPHER_CTX* context = EVP_CIPHER_CTX_new();
    ~CipherContext() { EVP_CIPHER_CTX_free(context); }
};

}  // namespace

Result<SecretBox> SecretBox::open(const std::filesystem::path& key_file, bool create) {
    struct stat status {};
    if (::lstat(key_file.c_str(), &status) != 0) {
        if (errno != ENOENT || !create)
            return key_error(key_file,
                             std::string("cannot be read: ") + std::strerror(errno) +
                                 (errno == ENOENT ? "; a secret has to be set first (skillhost secrets set)" : ""));
        if (auto made = make_key_file(key_file); !made) return made.error();
        if (::lstat(key_file.c_str(), &status) != 0)
            return key_error(key_file, std::string("cannot be read: ") + std::strerror(errno));
    }
    if (!S_ISREG(status.st_mode)) return key_error(key_file, "is not a regular file");
    if ((status.st_mode & 077) != 0)
        return key_error(key_file, "may be read by group or others (mode " + octal_mode(status.st_mode) +
                                       "); run chmod 600 on it, and set the secrets again if others read it");
    if (status.st_size != 32)
        return key_error(key_file, "is " + std::to_string(status.st_size) +
                                       " bytes, not 32; restore the original file (secrets sealed under it cannot be "
                                       "opened without it) or move it away to start with a new key and no secrets");
    const int fd = ::open(key_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return key_error(key_file, std::string("cannot be read: ") + std::strerror(errno));
    std::array<unsigned char, 32> key{};
    const bool read_whole = ::read(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
    ::close(fd);
    if (!read_whole) return key_error(key_file, "cannot be read whole");
    return SecretBox(key, key_file);
}

SecretBox::SecretBox(std::array<unsigned char, 32> key, std::filesystem::path file)
    : key_(key),
      key_id_(sha256_hex(std::string_view(reinterpret_cast<const char*>(key.data()), key.size())).substr(0, 16)),
      file_(std::move(file)) {}

Result<SealedSecret> SecretBox::seal(std::string_view plaintext, std::string_view bound_to) const {
    unsigned char nonce[kNonceBytes];
    if (RAND_bytes(nonce, sizeof nonce) != 1)
        return Error{errors::kSecretKeyUnavailable, "cannot seal a secret: no random bytes from OpenSSL"};
    CipherContext cipher;
    std::string out(plaintext.size() + kTagBytes, '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(out.data());
    int length = 0, final_length = 0;
    const bool sealed =
        cipher.context != nullptr &&
        EVP_EncryptInit_ex(cipher.context, EVP_aes_256_gcm(), nullptr, key_.data(), nonce) == 1 &&
        EVP_EncryptUpdate(cipher.context, nullptr, &length, reinterpret_cast<const unsigned char*>(bound_to.data()),
                          static_cast<int>(bound_to.size())) == 1 &&
        EVP_EncryptUpdate(cipher.context, bytes, &length, reinterpret_cast<const unsigned char*>(plaintext.data()),
                          static_cast<int>(plaintext.size())) == 1 &&
        EVP_EncryptFinal_ex(cipher.context, bytes + length, &final_length) == 1 &&
        EVP_CIPHER_CTX_ctrl(cipher.context, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                            bytes + plaintext.size()) == 1;
    if (!sealed) return Error{errors::kSecretKeyUnavailable, "cannot seal a secret: OpenSSL's AES-256-GCM failed"};
    return SealedSecret{key_id_, to_hex(nonce, sizeof nonce), to_hex(bytes, out.size())};
}

Result<std::string> SecretBox::open(const SealedSecret& sealed, std::string_view bound_to) const {
    if (sealed.key_id != key_id_) {
        Error error{errors::kSecretKeyMismatch,
                    "a secret was sealed under key " + sealed.key_id + ", and this host's key " + file_.string() +
                        " is " + key_id_ +
                        ": instances sharing a database must share the key file (copy it from the instance that "
                        "set the secret), or set the secret again"};
        error.details["sealed_with"] = sealed.key_id;
        error.details["key_id"] = key_id_;
        return error;
    }
    std::string nonce, data;
    if (!from_hex(sealed.nonce, nonce) || nonce.size() != kNonceBytes || !from_hex(sealed.sealed, data) ||
        data.size() < kTagBytes)
        return Error{errors::kSecretKeyMismatch, "a sealed secret in the database is malformed; set it again"};
    const std::size_t length = data.size() - kTagBytes;
    std::string plaintext(length, '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(data.data());
    CipherContext cipher;
    int written = 0, final_length = 0;
    const bool opened =
        cipher.context != nullptr &&
        EVP_DecryptInit_ex(cipher.context, EVP_aes_256_gcm(), nullptr, key_.data(),
                           reinterpret_cast<const unsigned char*>(nonce.data())) == 1 &&
        EVP_DecryptUpdate(cipher.context, nullptr, &written, reinterpret_cast<const unsigned char*>(bound_to.data()),
                          static_cast<int>(bound_to.size())) == 1 &&
        EVP_DecryptUpdate(cipher.context, reinterpret_cast<unsigned char*>(plaintext.data()), &written, bytes,
                          static_cast<int>(length)) == 1 &&
        EVP_CIPHER_CTX_ctrl(cipher.context, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), bytes + length) == 1 &&
        EVP_DecryptFinal_ex(cipher.context, reinterpret_cast<unsigned char*>(plaintext.data()) + written,
                            &final_length) == 1;
    if (!opened)
        return Error{errors::kSecretKeyMismatch,
                     "a sealed secret in the database does not open under this host's key (it was altered, or "
                     "moved from another row); set it again"};
    return plaintext;
}

}  // namespace skillhost::auth
