#include "daemon/serve/tls_context.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace objwire::daemon {
namespace {

// Loads one file into the context; on failure fills `why` with the key, the path and
// OpenSSL's reason.
template <class Load>
bool load(Load&& load_file, const char* key, const std::string& path, std::string& why) {
    if (::access(path.c_str(), R_OK) != 0) {
        why = std::string(key) + " '" + path + "': " + std::strerror(errno);
        return false;
    }
    std::error_code ec;
    load_file(ec);
    if (!ec) return true;
    why = std::string(key) + " '" + path + "': " + last_tls_error(ec.message());
    return false;
}

}  // namespace

namespace {
std::string asn1_time_text(const ASN1_TIME* t) {
    BIO* b = BIO_new(BIO_s_mem());
    if (!b) return "?";
    ASN1_TIME_print(b, t);
    char* data = nullptr;
    const long n = BIO_get_mem_data(b, &data);
    std::string text(data, n > 0 ? static_cast<std::size_t>(n) : 0);
    BIO_free(b);
    return text;
}
}  // namespace

std::string certificate_validity_problem(asio::ssl::context& ctx, std::time_t now) {
    X509* cert = SSL_CTX_get0_certificate(ctx.native_handle());
    if (!cert) return {};
    if (X509_cmp_time(X509_get0_notAfter(cert), &now) < 0)
        return "the certificate of tls.cert_file expired on " +
               asn1_time_text(X509_get0_notAfter(cert)) + ": clients will refuse it";
    if (X509_cmp_time(X509_get0_notBefore(cert), &now) > 0)
        return "the certificate of tls.cert_file is not valid before " +
               asn1_time_text(X509_get0_notBefore(cert)) + ": clients will refuse it until then";
    return {};
}

std::string last_tls_error(const std::string& fallback) {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return fallback;
    const char* reason = ERR_reason_error_string(e);
    return reason ? reason : fallback;
}

std::unique_ptr<asio::ssl::context> make_tls_context(const config::daemon_settings& s,
                                                     std::string& why) {
    why.clear();
    if (s.tls_cert_file.empty()) {
        if (!s.tls_key_file.empty() || !s.tls_client_ca_file.empty())
            why = "tls.key_file and tls.client_ca_file need tls.cert_file";
        return nullptr;
    }
    if (s.tls_key_file.empty()) {
        why = "tls.cert_file needs tls.key_file";
        return nullptr;
    }
    ERR_clear_error();
    auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    SSL_CTX* native = ctx->native_handle();
    if (!load([&](std::error_code& ec) { ctx->use_certificate_chain_file(s.tls_cert_file, ec); },
              "tls.cert_file", s.tls_cert_file, why))
        return nullptr;
    if (!load(
            [&](std::error_code& ec) {
                ctx->use_private_key_file(s.tls_key_file, asio::ssl::context::pem, ec);
            },
            "tls.key_file", s.tls_key_file, why))
        return nullptr;
    if (SSL_CTX_check_private_key(native) != 1) {
        why = "tls.key_file '" + s.tls_key_file +
              "' does not belong to tls.cert_file: " + last_tls_error("key mismatch");
        return nullptr;
    }
    if (!s.tls_client_ca_file.empty()) {
        if (!load([&](std::error_code& ec) { ctx->load_verify_file(s.tls_client_ca_file, ec); },
                  "tls.client_ca_file", s.tls_client_ca_file, why))
            return nullptr;
        // Tells clients which CAs we accept, so one with several certificates picks right.
        if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s.tls_client_ca_file.c_str()))
            SSL_CTX_set_client_CA_list(native, names);
        ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
    }
    // objwire clients never resume TLS sessions: tickets would only cost bytes and time.
    SSL_CTX_set_num_tickets(native, 0);
    SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
    // Session resumption with client certificates needs a context id, or OpenSSL refuses it.
    static constexpr unsigned char id[] = "objwired";
    SSL_CTX_set_session_id_context(native, id, sizeof id - 1);
    return ctx;
}

namespace {

std::string name_text(X509_NAME* name) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
    if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) return "";
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

std::string general_name_text(const GENERAL_NAME* n) {
    int type = 0;
    const auto* value = static_cast<const ASN1_STRING*>(GENERAL_NAME_get0_value(n, &type));
    if (value == nullptr) return "";
    const auto* bytes = ASN1_STRING_get0_data(value);
    const auto size = static_cast<std::size_t>(ASN1_STRING_length(value));
    if (type == GEN_DNS || type == GEN_EMAIL || type == GEN_URI)
        return std::string(reinterpret_cast<const char*>(bytes), size);
    if (type == GEN_IPADD && (size == 4 || size == 16)) {
        asio::ip::address a;
        if (size == 4) {
            asio::ip::address_v4::bytes_type b;
            std::memcpy(b.data(), bytes, 4);
            a = asio::ip::address_v4(b);
        } else {
            asio::ip::address_v6::bytes_type b;
            std::memcpy(b.data(), bytes, 16);
            a = asio::ip::address_v6(b);
        }
        return a.to_string();
    }
    return "";
}

}  // namespace

certificate_names peer_certificate_names(SSL* ssl) {
    certificate_names out;
    std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), &X509_free);
    if (!cert) return out;
    out.subject = name_text(X509_get_subject_name(cert.get()));
    auto* names = static_cast<GENERAL_NAMES*>(
        X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr));
    if (names == nullptr) return out;
    for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
        auto text = general_name_text(sk_GENERAL_NAME_value(names, i));
        if (!text.empty()) out.alternative.push_back(std::move(text));
    }
    GENERAL_NAMES_free(names);
    return out;
}

}  // namespace objwire::daemon
