// Who may use the daemon (docs/SECURITY.md, "Access"): TLS with optional client certificates
// is checked by the peer stream (daemon/serve/peer_stream.hpp) before the hello; the users of
// [auth] - the shared token and [[auth.users]] - here, in the hello, by the rules of
// daemon/serve/permissions.hpp.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {

std::optional<sha256_digest> digest_from_hex(std::string_view hex) {
    if (hex.size() != 64) return std::nullopt;
    sha256_digest d{};
    for (std::size_t i = 0; i < d.size(); ++i) {
        unsigned value = 0;
        for (const char c : hex.substr(2 * i, 2)) {
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<unsigned>(c - 'A' + 10);
            else
                return std::nullopt;
        }
        d[i] = static_cast<std::uint8_t>(value);
    }
    return d;
}

std::optional<user> user_of(const config::auth_user& entry, std::string& why) {
    user u{entry.name, {entry.send, entry.read, entry.admin}, std::nullopt, entry.cert_subject};
    if (!entry.token_file.empty()) {
        const auto token =
            access_token::load(entry.token_file, why, "token_file of user '" + entry.name + "'");
        if (!token) return std::nullopt;
        u.token = token->digest();
    } else if (!entry.token_sha256.empty()) {
        u.token = digest_from_hex(entry.token_sha256);
    }
    return u;
}

// The [[auth.users]] of auth.users_file.
std::optional<std::vector<config::auth_user>> users_of_file(const std::string& path,
                                                            std::string& why) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        why = "cannot read auth.users_file '" + path + "'";
        return std::nullopt;
    }
    auto parsed = config::parse_auth_users(text.str(), path);
    if (!parsed) {
        why = parsed.error().message;
        return std::nullopt;
    }
    return std::move(*parsed);
}

}  // namespace

std::optional<user_directory> server::load_users(const config::daemon_settings& s,
                                                 std::string& why) {
    std::vector<user> users;
    if (!s.auth_token_file.empty()) {
        const auto token = access_token::load(s.auth_token_file, why);
        if (!token) return std::nullopt;
        users.push_back({"shared", grants::everything(), token->digest(), ""});
    }
    auto entries = s.auth_users;
    if (!s.auth_users_file.empty()) {
        auto more = users_of_file(s.auth_users_file, why);
        if (!more) return std::nullopt;
        for (auto& e : *more) {
            for (const auto& first : entries)
                if (first.name == e.name) {
                    why = e.place + ": user '" + e.name + "' is defined twice (first at " +
                          first.place + ")";
                    return std::nullopt;
                }
            entries.push_back(std::move(e));
        }
    }
    for (const auto& e : entries) {
        auto u = user_of(e, why);
        if (!u) return std::nullopt;
        users.push_back(std::move(*u));
    }
    user_directory dir(std::move(users));
    if (const auto twice = dir.duplicate_token(); !twice.empty()) {
        why = "user '" + twice + "' has the token of another user: each needs its own";
        return std::nullopt;
    }
    return dir;
}

std::error_code server::load_access() {
    std::string why;
    auto users = load_users(settings_, why);
    if (!users) {
        spdlog::error("{}", why);
        return std::make_error_code(std::errc::permission_denied);
    }
    const auto count = users->size();
    users_ = std::make_shared<const user_directory>(std::move(*users));
    anonymous_ = std::make_shared<const user>(user{"anonymous", grants::everything(), {}, {}});
    tls_ = make_tls_context(settings_, why);
    if (!tls_ && !why.empty()) {
        spdlog::error("cannot set up TLS: {}", why);
        return std::make_error_code(std::errc::invalid_argument);
    }
    if (tls_) {
        const auto problem = certificate_validity_problem(*tls_, std::time(nullptr));
        if (!problem.empty()) spdlog::warn("{}", problem);
    }
    spdlog::info("access: {}{}{}", tls_ ? "TLS" : "plain TCP",
                 settings_.tls_client_ca_file.empty() ? "" : ", client certificates required",
                 count == 0 ? ""
                 : count == 1 && settings_.auth_users.empty() && settings_.auth_users_file.empty()
                     ? ", token required"
                     : ", " + std::to_string(count) + " users");
    return {};
}

std::shared_ptr<const user_directory> server::users() const {
    std::lock_guard lock(users_mutex_);
    return users_;
}

bool server::throttled(const std::string& address, std::string& why) {
    const auto now = credential_throttle::clock::now();
    credential_throttle::clock::duration wait{};
    std::lock_guard lock(users_mutex_);
    if (throttle_.may_check(address, now, &wait)) return false;
    const auto& r = throttle_.current_rule();
    why = fmt::format(
        "too many failed credentials from {}: {} at once, then {} a second; retry in {:.1f} s",
        address, r.burst, r.per_second, std::chrono::duration<double>(wait).count());
    return true;
}

void server::note_failed_credential(const std::string& address) {
    std::lock_guard lock(users_mutex_);
    throttle_.failed(address, credential_throttle::clock::now());
}

std::error_code server::check_access(const hello& h, const std::string& address,
                                     const certificate_names& certificate, std::string& why,
                                     std::shared_ptr<const user>& who) {
    const auto dir = users();
    if (dir->empty()) {
        who = anonymous_;
        return {};
    }
    // Before the credential is looked at: a guess refused here tells nothing.
    if (throttled(address, why)) {
        metrics_.count_refusal("", "throttled");
        return proto_errc::unauthorized;
    }
    // A token names the user; without one, a client certificate the TLS handshake verified
    // (when some user is known by one).
    const bool by_certificate =
        h.auth_token.empty() && !certificate.subject.empty() && dir->has_certificate_users();
    if (!h.auth_token.empty())
        who = dir->by_token(sha256_of(h.auth_token));
    else if (by_certificate)
        who = dir->by_certificate(certificate.subject, certificate.alternative);
    if (!who) {
        note_failed_credential(address);
        const auto& s = settings();
        why = !h.auth_token.empty() ? "wrong token"
              : by_certificate
                  ? "no user has cert_subject '" + certificate.subject + "' or one of its names"
              : s.auth_users.empty() && s.auth_users_file.empty()
                  ? "no token in the hello (auth.token_file is set)"
                  : "no token in the hello (auth.users are set)";
        metrics_.count_refusal("", "credential");
        return proto_errc::unauthorized;
    }
    if (auto d = check_request(*who, h)) {
        why = std::move(d->text);
        metrics_.count_refusal(who->name, std::string(permission_name(d->needed)));
        return proto_errc::unauthorized;
    }
    return {};
}

}  // namespace objwire::daemon
