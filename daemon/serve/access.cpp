// Who may use the daemon (docs/SECURITY.md, "Access"): TLS with optional client certificates
// is checked by the peer stream (daemon/serve/peer_stream.hpp) before the hello; the shared token
// here, in the hello.
#include <spdlog/spdlog.h>

#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"

namespace objwire::daemon {

std::error_code server::load_access() {
    std::string why;
    if (!settings_.auth_token_file.empty()) {
        token_ = access_token::load(settings_.auth_token_file, why);
        if (!token_) {
            spdlog::error("{}", why);
            return std::make_error_code(std::errc::permission_denied);
        }
    }
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
                 token_ ? ", token required" : "");
    return {};
}

std::error_code server::check_access(const hello& h, std::string& why) const {
    if (!token_) return {};
    if (h.auth_token.empty()) {
        why = "no token in the hello (auth.token_file is set)";
        return proto_errc::unauthorized;
    }
    if (!token_->matches(h.auth_token)) {
        why = "wrong token";
        return proto_errc::unauthorized;
    }
    return {};
}

}  // namespace objwire::daemon
