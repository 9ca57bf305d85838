#include "daemon/serve/access_token.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace objwire::daemon {

bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::array<std::uint8_t, 32> sha256_of(std::string_view text) {
    std::array<std::uint8_t, 32> d{};
    unsigned int size = 0;
    // SHA-256 cannot fail on a memory buffer with the default provider; a zero digest
    // would only make every token mismatch.
    EVP_Digest(text.data(), text.size(), d.data(), &size, EVP_sha256(), nullptr);
    return d;
}

access_token access_token::from_text(std::string_view token) {
    access_token t;
    t.digest_ = sha256_of(token);
    return t;
}

std::optional<access_token> access_token::load(const std::string& path, std::string& why,
                                               std::string_view key_name) {
    const std::string key(key_name);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        why = "cannot read " + key + " '" + path + "': " + std::strerror(errno);
        return std::nullopt;
    }
    if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0) {
        why = key + " '" + path + "' is readable or writable by other users; chmod o-rwx it";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        why = "cannot read " + key + " '" + path + "'";
        return std::nullopt;
    }
    std::string token = text.str();
    const auto first = token.find_first_not_of(" \t\r\n");
    const auto last = token.find_last_not_of(" \t\r\n");
    token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
    if (token.size() < min_bytes) {
        why = key + " '" + path + "' holds a token of " + std::to_string(token.size()) +
              " bytes; at least " + std::to_string(min_bytes) + " are needed";
        return std::nullopt;
    }
    return from_text(token);
}

bool access_token::matches(std::string_view presented) const {
    const auto d = sha256_of(presented);
    return constant_time_equal(d, digest_);
}

}  // namespace objwire::daemon
