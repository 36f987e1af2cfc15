// The HTTP client verifies TLS peers: a self-signed certificate is refused with a clear error.
#include "net/http_client.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <gtest/gtest.h>

#include <thread>

namespace skillhost::http {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// A throwaway self-signed certificate for CN=127.0.0.1 (no CA trusts it; that is the point).
constexpr const char* kCertificate = R"(-----BEGIN CERTIFICATE-----
MIIDCzCCAfOgAwIBAgIUP4sCVArmmWysJhwR3lap8hMSTe8wDQYJKoZIhvcNAQEL
BQAwFDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMTEzMzQyMVoYDzIxMjYx
MDI4MTMzNDIxWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQCt6YLh+CYEa9WK5DhXWmLVEI/S4zSji4UoVtORR4Wj
zAOwfsYlPhp/f7tOkl+HXtE1Tsk4PzlbAMv/Yzi0OnSs6XLHPAgeqC0TMPR1avkd
eR2JJv+lXi5wYDqqGZPbYR2UJ+UCp27S+uzVeO/Q7Wq8OroZVNg8hgdKg6uKN0OV
pCptzVAsYu+vbMtLuLouNR9BLN3x2C8Gxw7pmHgdSlcTvs0UCxax+l0NlSNVGF8B
9U6TyUBtD1x3Gon0MHHpwCEWb0zfts4WNrGCQN2dq/kexZ4AN01Ru2kYDbeEBph5
Io2IrijdJiJw9+RdwxsqTGcGBA1Hua5oI+om2odmnihXAgMBAAGjUzBRMB0GA1Ud
DgQWBBSSGFzlSItb+KUr3BSQHX8r9kSRZTAfBgNVHSMEGDAWgBSSGFzlSItb+KUr
3BSQHX8r9kSRZTAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQBh
6t3PqIFv6YoE//f4BRV03xlzNpMlun9yUpBKH3LbzU0ea/WcRQox2x+b2EJFsC/A
/IBgJZknorgdpminZ5Ow4ortAGdugvMVksmeS/6O6NRI+jUTCW1QJut48EzfimXS
reANsEEGV58QwqVqLOlQChXF4fsKhadTJzEtPvlsOmfNKBV1LFwr2ykBre7bYBfq
s/Bn5sfkd+CTumSRV7pNCl3hfJaHmBYz7C3b0ZI5AF+xF7mucbJECM1sH1I45nIN
9R0YToEEjbdzsGZx4YpeU/SlXZVT6eL9sXuhBOl2oNwBUOVO8grNsJGwawYxA5MH
PFYI1sbaTQdHC788Sr/q
-----END CERTIFICATE-----
)";
constexpr const char* kPrivateKey = R"(-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCt6YLh+CYEa9WK
5DhXWmLVEI/S4zSji4UoVtORR4WjzAOwfsYlPhp/f7tOkl+HXtE1Tsk4PzlbAMv/
Yzi0OnSs6XLHPAgeqC0TMPR1avkdeR2JJv+lXi5wYDqqGZPbYR2UJ+UCp27S+uzV
eO/Q7Wq8OroZVNg8hgdKg6uKN0OVpCptzVAsYu+vbMtLuLouNR9BLN3x2C8Gxw7p
mHgdSlcTvs0UCxax+l0NlSNVGF8B9U6TyUBtD1x3Gon0MHHpwCEWb0zfts4WNrGC
QN2dq/kexZ4AN01Ru2kYDbeEBph5Io2IrijdJiJw9+RdwxsqTGcGBA1Hua5oI+om
2odmnihXAgMBAAECggEACNZompe5RC4/+r/gMRLcb4auQwGIEkDWcmypxvnYdltk
BfBbR1c254BpLJ6kO2/RDSFveOvq5o9NeTE57Mavrn2/zGoQ4OXw7HG8v8lrgVjp
7FH5WcDwdoYdVQ7ZrviUv+D1x+2+5E/GAI8VuLXn36AoXCiDQzLDD2v40pw+U031
G2N3eALxcimZyYXyKhW7+fdZPDS7bGqAiDw+Wxakaap4p44eSFDHweg39XobHIJz
PaL/ExC0k4cPEWcPuwEahfwujayHwb13b0v1zWuKMDw2ykHjx9bH2kj6CRdq/Ki7
ddUo3NysV3baVCjOLipJvYaUUBKrBFrADU+gbHDdGQKBgQDrVl/oSS08nihPoNQZ
foaNmzj4XYFM8MmSgY/g/zHCbR5TJfQM8PFBDDHprB59LBrbg+bcPijSmfAanvUv
PUBh2omUBLSGovzbbtCd8jjX2uwp4JOsJ1wOMP52VAGumcwhU3CV5Kk5HIqauLzi
4crDtXcaOlWj18PgnI+LBUrt4wKBgQC9Ln7KCdFTDLqISkn9q4NdHk4Mgm5vAFgr
gknvVn4WGbwMNcZwwEMWubjD630UCO2b7JVJwtbigHbFflIoQFtY6g3oreFYkjZw
x9HxGxa2R8pB1y0YJ3w0aWQ/T9V0IOcofnmOM/6mpeSucd7PpBKlZ4kXvuIZjT3M
mpaYIzfl/QKBgQDUtvTne8U0xmv/VYqBJLkwI76B19q4lehM0WkgYOo0J/dCBssq
K1qVhhVTdiz0zTnVcsroBhNWEKhTF5zcvwuDp0m1je8yxv2wxeAw87Dngsz2KTSx
Zb4yYZyPje0bSY6WDNp10gIXSjIKGbM5jAd/kHWAMnwYJT26tyiT6wvIKwKBgHyw
9Ki+J9YRgbDrJjGopoDtxIvCPH+1PmgPDCRQYfK3K5bwqscOMin8Z6fawyo9aD9p
hEyFu5S3D5HEXOpi4NKOEnTWhr0WQgO78Mh2DlY+ozUaWoKdI+R3wrdoK0zLkxDB
q+TqqGG23i+Mpks93Xxf7aBVFDm7OoxtJ+1G6UURAoGBANpy8tYBxk3Jo4zvVoi2
/yEgY9FxG41JpGoraLOsPpPkvImBq+WfRuyR5sc+G07oCfCJ/v12gxgMGylKbeG0
4ugD63g8eK5+HzoOx/I54M/EBXOyywdDRnHhsy8VY2T3ZYoHbxplXQMSXbsCCjK9
cZmqYOeBvmk+n2PR2VMb0K3h
-----END PRIVATE KEY-----
)";

TEST(HttpClientTls, RefusesAServerWhoseCertificateNoTrustedCaSigned) {
    asio::io_context server_io;
    asio::ssl::context server_tls(asio::ssl::context::tls_server);
    server_tls.use_certificate_chain(asio::buffer(std::string(kCertificate)));
    server_tls.use_private_key(asio::buffer(std::string(kPrivateKey)), asio::ssl::context::pem);
    asio::ip::tcp::acceptor acceptor(server_io, {asio::ip::make_address("127.0.0.1"), 0});
    const auto port = acceptor.local_endpoint().port();
    std::thread server([&] {
        asio::ssl::stream<asio::ip::tcp::socket> stream(server_io, server_tls);
        boost::system::error_code ec;
        acceptor.accept(stream.next_layer(), ec);
        if (!ec) stream.handshake(asio::ssl::stream_base::server, ec);  // fails: the client aborts
    });

    HttpClientOptions options;
    options.connect_timeout = 2000ms;
    options.read_timeout = 2000ms;
    options.max_retries = 0;
    auto response = send_http_request({"GET", "https://127.0.0.1:" + std::to_string(port) + "/", {}, ""}, options);
    server.join();
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_TLS_ERROR");
    EXPECT_NE(response.error().message.find("certificate"), std::string::npos) << response.error().message;
    EXPECT_NE(response.error().message.find("http://"), std::string::npos);  // says what else to do
}

}  // namespace
}  // namespace skillhost::http
