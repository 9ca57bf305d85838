#include "daemon/serve/permissions.hpp"

#include <algorithm>

#include "daemon/serve/access_token.hpp"

namespace objwire::daemon {
namespace {

bool any_matches(const std::vector<std::string>& patterns, std::string_view name) {
    return std::ranges::any_of(patterns,
                               [&](const std::string& p) { return pattern_matches(p, name); });
}

std::string quoted(std::string_view id) {
    return "'" + std::string(id) + "'";
}

denial deny(permission p, const user& u, const std::string& what) {
    return {p, "user '" + u.name + "' lacks permission " + std::string(permission_name(p)) + " " +
                   what};
}

std::optional<denial> check_reader(const user& u, const hello& h) {
    switch (h.request) {
        case read_request::list_cursors:
        case read_request::delete_cursor:
        case read_request::set_cursor:
            if (u.may.admin) return std::nullopt;
            return deny(permission::admin, u, "(cursor commands)");
        case read_request::list_senders:
            if (u.may.admin || !u.may.read.empty()) return std::nullopt;
            return deny(permission::read, u, "(the sender list shows the streams one may read)");
        case read_request::none:
            break;
    }
    if (!h.read_sender.empty()) {
        if (u.may.may_read(h.read_sender)) return std::nullopt;
        return deny(permission::read, u, "for sender id " + quoted(h.read_sender));
    }
    if (u.may.admin || !u.may.read.empty()) return std::nullopt;
    return deny(permission::read, u, "(no stream)");
}

}  // namespace

bool pattern_matches(std::string_view pattern, std::string_view name) {
    // Greedy glob with one backtrack point: linear in practice, never exponential.
    std::size_t p = 0, n = 0;
    std::size_t star = std::string_view::npos, resume = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = n;
        } else if (p < pattern.size() && pattern[p] == name[n]) {
            ++p;
            ++n;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            n = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

std::string_view permission_name(permission p) {
    switch (p) {
        case permission::send:
            return "send";
        case permission::read:
            return "read";
        case permission::admin:
            return "admin";
    }
    return "?";
}

bool grants::may_send(std::string_view sender_id) const {
    return any_matches(send, sender_id);
}

bool grants::may_read(std::string_view sender_id) const {
    return admin || any_matches(read, sender_id);
}

bool grants::reads_everything() const {
    return admin || std::ranges::find(read, "*") != read.end();
}

std::optional<denial> check_request(const user& u, const hello& h) {
    switch (h.role) {
        case peer_role::sender:
            if (u.may.may_send(h.sender_id)) return std::nullopt;
            return deny(permission::send, u, "as sender id " + quoted(h.sender_id));
        case peer_role::reader:
            return check_reader(u, h);
        case peer_role::stats:
            if (u.may.admin) return std::nullopt;
            return deny(permission::admin, u, "(stats)");
    }
    return deny(permission::admin, u, "(unknown role)");
}

user_directory::user_directory(std::vector<user> users) {
    users_.reserve(users.size());
    for (auto& u : users)
        users_.push_back(std::make_shared<const user>(std::move(u)));
}

std::shared_ptr<const user> user_directory::by_token(const sha256_digest& presented) const {
    std::shared_ptr<const user> found;
    for (const auto& u : users_) {
        // No early exit: every digest is compared, whichever matches.
        const bool same = u->token && constant_time_equal(*u->token, presented);
        if (same && !found) found = u;
    }
    return found;
}

std::shared_ptr<const user> user_directory::by_certificate(
    std::string_view subject, std::span<const std::string> names) const {
    for (const auto& u : users_) {
        if (u->cert_subject.empty()) continue;
        if (u->cert_subject == subject || std::ranges::find(names, u->cert_subject) != names.end())
            return u;
    }
    return nullptr;
}

std::shared_ptr<const user> user_directory::find(std::string_view name) const {
    for (const auto& u : users_)
        if (u->name == name) return u;
    return nullptr;
}

bool user_directory::has_certificate_users() const {
    return std::ranges::any_of(users_, [](const auto& u) { return !u->cert_subject.empty(); });
}

std::string user_directory::duplicate_token() const {
    for (std::size_t i = 0; i < users_.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (users_[i]->token && users_[j]->token && *users_[i]->token == *users_[j]->token)
                return users_[i]->name;
    return "";
}

std::string revocation(const user& was, const hello& h, const user_directory& next) {
    const auto now = next.find(was.name);
    if (!now) return "user '" + was.name + "' was removed";
    if (auto d = check_request(*now, h)) return d->text + " since the reload";
    return "";
}

}  // namespace objwire::daemon
