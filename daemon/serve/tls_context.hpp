// The daemon's TLS settings ([tls]) turned into an OpenSSL context, once at start: TLS 1.2 or
// newer, the certificate chain and key, and with client_ca_file the demand for a client
// certificate signed by one of its CAs (docs/SECURITY.md, "Access").
#pragma once

#include <ctime>

#include <asio/ssl.hpp>
#include <memory>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace objwire::daemon {

// Null with `why` empty when [tls] is off; null with `why` saying what is wrong when the
// settings or the files are unusable.
std::unique_ptr<asio::ssl::context> make_tls_context(const config::daemon_settings& s,
                                                     std::string& why);

// What is wrong with the dates of the context's certificate at `now` ("tls.cert_file expired
// on ..." or "... is not valid before ..."), or "" when it is valid then. A daemon whose
// certificate is outside its validity still starts (a renewal may be on its way), but every
// client will refuse it: the start says so.
std::string certificate_validity_problem(asio::ssl::context& ctx, std::time_t now);

// The reason OpenSSL gives for the last failure on this thread ("certificate verify
// failed", "peer did not return a certificate"), or `fallback`.
std::string last_tls_error(const std::string& fallback);

// A verified client certificate's names, what [[auth.users]] cert_subject is matched against:
// its subject as RFC 2253 text ("CN=writer,O=example") and its subject alternative names (DNS
// names, e-mail addresses, URIs, IP addresses as text). Empty when the peer sent none.
struct certificate_names {
    std::string subject;
    std::vector<std::string> alternative;
};
certificate_names peer_certificate_names(SSL* ssl);

}  // namespace objwire::daemon
