#include "daemon/ops/settings_check.hpp"

#include "config/daemon_rules.hpp"

#include "daemon/serve/access_token.hpp"
#include "daemon/serve/tls_context.hpp"

namespace objwire::daemon {

std::vector<std::string> settings_problems(const config::daemon_settings& s) {
    std::vector<std::string> out;
    for (auto& e : config::check_daemon_settings(s))
        out.push_back(std::move(e.message));
    // The deeper checks read the files: only worth it once the files are there.
    if (!out.empty()) return out;
    std::string why;
    if (!s.auth_token_file.empty() && !access_token::load(s.auth_token_file, why))
        out.push_back("auth.token_file: " + why + " (OBJWIRE_AUTH_TOKEN_FILE)");
    why.clear();
    if (!make_tls_context(s, why) && !why.empty())
        out.push_back("tls: cannot set up TLS: " + why +
                      " (tls.cert_file, tls.key_file, tls.client_ca_file)");
    if (s.sink_kind == "forward") {
        if (auto to = config::parse_host_port(s.forward_to); !to)
            out.push_back("forward.to: " + to.error().message + " (OBJWIRE_FORWARD_TO)");
        if (!s.forward_client_config.empty()) {
            auto hop = config::load_client_file(s.forward_client_config);
            if (!hop) out.push_back("forward.client_config: " + hop.error().message);
        }
    }
    return out;
}

}  // namespace objwire::daemon
