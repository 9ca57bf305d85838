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

access_token::digest access_token::digest_of(std::string_view text) {
    digest d{};
    unsigned int size = 0;
    // SHA-256 cannot fail on a memory buffer with the default provider; a zero digest
    // would only make every token mismatch.
    EVP_Digest(text.data(), text.size(), d.data(), &size, EVP_sha256(), nullptr);
    return d;
}

access_token access_token::from_text(std::string_view token) {
    access_token t;
    t.digest_ = digest_of(token);
    return t;
}

std::optional<access_token> access_token::load(const std::string& path, std::string& why) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        why = "cannot read auth.token_file '" + path + "': " + std::strerror(errno);
        return std::nullopt;
    }
    if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0) {
        why =
            "auth.token_file '" + path + "' is readable or writable by other users; chmod o-rwx it";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        why = "cannot read auth.token_file '" + path + "'";
        return std::nullopt;
    }
    std::string token = text.str();
    const auto first = token.find_first_not_of(" \t\r\n");
    const auto last = token.find_last_not_of(" \t\r\n");
    token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
    if (token.size() < min_bytes) {
        why = "auth.token_file '" + path + "' holds a token of " + std::to_string(token.size()) +
              " bytes; at least " + std::to_string(min_bytes) + " are needed";
        return std::nullopt;
    }
    return from_text(token);
}

bool access_token::matches(std::string_view presented) const {
    const digest d = digest_of(presented);
    return constant_time_equal(d, digest_);
}

}  // namespace objwire::daemon
