// The shared token of [auth] token_file: read once at start, then every hello's token is
// compared with it in constant time (docs/SECURITY.md, "Access").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace objwire::daemon {

// Whether a and b hold the same bytes, in a time that depends only on their sizes (callers
// compare fixed-size digests, so the sizes tell nothing). Different sizes: false.
bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

// SHA-256 of `text`: what a token is compared as, and what token_sha256 holds.
std::array<std::uint8_t, 32> sha256_of(std::string_view text);

class access_token {
  public:
    static constexpr std::size_t min_bytes = 16;

    // Reads the token (surrounding white space dropped) from `path`. Refuses a file it cannot
    // read, one other users may read or write, and a token shorter than min_bytes; `why` says
    // which.
    // `key` names the setting in `why` ("auth.token_file").
    static std::optional<access_token> load(const std::string& path, std::string& why,
                                            std::string_view key = "auth.token_file");
    static access_token from_text(std::string_view token);

    // Compares digests, so neither the time nor an early exit tells how much of a guess was
    // right, nor how long the token is.
    bool matches(std::string_view presented) const;
    const std::array<std::uint8_t, 32>& digest() const { return digest_; }

  private:
    std::array<std::uint8_t, 32> digest_{};  // SHA-256
};

}  // namespace objwire::daemon
