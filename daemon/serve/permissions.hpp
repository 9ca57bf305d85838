// Who a peer is and what it may do (docs/SECURITY.md, "Users and permissions"): the users of
// [[auth.users]] and the shared token, found by the digest of a presented token or by a client
// certificate's names, and the rule of which permission each hello needs. No I/O: the server
// builds the directory from files it read and asks it per hello.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/control.hpp"

namespace objwire::daemon {

using sha256_digest = std::array<std::uint8_t, 32>;

// Whether `name` matches `pattern`, where each `*` stands for any run of characters (none
// included) and every other character for itself.
bool pattern_matches(std::string_view pattern, std::string_view name);

enum class permission { send, read, admin };
std::string_view permission_name(permission p);

struct grants {
    std::vector<std::string> send;  // sender-id patterns
    std::vector<std::string> read;  // sender-id patterns
    bool admin = false;

    static grants everything() { return {{"*"}, {"*"}, true}; }
    bool may_send(std::string_view sender_id) const;
    bool may_read(std::string_view sender_id) const;
    // Reads every stream (admin, or read = ["*"]): sees gaps and the whole sender list.
    bool reads_everything() const;
    bool operator==(const grants&) const = default;
};

struct user {
    std::string name;
    grants may;
    std::optional<sha256_digest> token;  // SHA-256 of its token
    std::string cert_subject;            // a client certificate's subject or one of its SANs
};

// A hello that its user may not make: which permission it lacks, and the text for the error
// frame and the log (the user's name, never its credential).
struct denial {
    permission needed;
    std::string text;
};

// What `h` needs of `u`: a sender its id (send), a reader read permission for the sender it
// names (or any read permission for every stream, which it then sees filtered), the sender
// list read permission (filtered) or admin, cursor commands and stats admin. nullopt: allowed.
std::optional<denial> check_request(const user& u, const hello& h);

class user_directory {
  public:
    user_directory() = default;
    explicit user_directory(std::vector<user> users);

    // The user whose token digest is SHA-256(presented): every user's digest is compared in
    // constant time, so the time says nothing of which one matched. Null: none.
    std::shared_ptr<const user> by_token(const sha256_digest& presented) const;
    // The user whose cert_subject is the certificate's subject or one of its SANs.
    std::shared_ptr<const user> by_certificate(std::string_view subject,
                                               std::span<const std::string> names) const;
    std::shared_ptr<const user> find(std::string_view name) const;
    bool empty() const { return users_.empty(); }
    std::size_t size() const { return users_.size(); }
    bool has_certificate_users() const;
    // Two users with the same token digest: the name of the second, else "".
    std::string duplicate_token() const;

  private:
    std::vector<std::shared_ptr<const user>> users_;
};

// Why a session of `was` that made hello `h` must end after a reload to `next`: its user is
// gone, or lost the permission the hello needs. "" when it may go on.
std::string revocation(const user& was, const hello& h, const user_directory& next);

}  // namespace objwire::daemon
