// The start-up warning for a certificate outside its validity: a certificate valid for one
// day, looked at before, during and after that day.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <asio/ssl.hpp>
#include <ctime>
#include <memory>

#include "daemon/serve/tls_context.hpp"

namespace objwire::daemon {
namespace {

constexpr std::time_t day = 24 * 3600;

// A self-signed certificate valid from `from` for one day, in `ctx`.
void use_one_day_certificate(asio::ssl::context& ctx, std::time_t from) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
    ASSERT_TRUE(key);
    std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
    ASSERT_TRUE(cert);
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    ASSERT_TRUE(X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, 0, &from));
    ASSERT_TRUE(X509_time_adj_ex(X509_getm_notAfter(cert.get()), 1, 0, &from));
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("objwired-test"), -1, -1, 0);
    X509_set_issuer_name(cert.get(), name);
    X509_set_pubkey(cert.get(), key.get());
    ASSERT_GT(X509_sign(cert.get(), key.get(), EVP_sha256()), 0);
    ASSERT_EQ(SSL_CTX_use_certificate(ctx.native_handle(), cert.get()), 1);
}

TEST(CertificateDates, OutsideItsValidityIsNamedInsideItIsNot) {
    asio::ssl::context ctx(asio::ssl::context::tls_server);
    EXPECT_EQ(certificate_validity_problem(ctx, std::time(nullptr)), "");  // none loaded
    const std::time_t from = std::time(nullptr) - 10 * day;
    use_one_day_certificate(ctx, from);
    EXPECT_EQ(certificate_validity_problem(ctx, from + day / 2), "");
    const auto expired = certificate_validity_problem(ctx, from + 2 * day);
    EXPECT_NE(expired.find("tls.cert_file expired on"), std::string::npos) << expired;
    const auto early = certificate_validity_problem(ctx, from - day);
    EXPECT_NE(early.find("is not valid before"), std::string::npos) << early;
}

}  // namespace
}  // namespace objwire::daemon
