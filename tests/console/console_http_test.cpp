// The web console's routes: the embedded files with their content types, hashed paths and cache
// headers, the security headers on every answer, and nothing served or revealed for any other
// path. In-process for the asset table, over loopback HTTP against the real binary for the rest.
#include "daemon_process.hpp"
#include "server/console_assets.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace skillhost::testing {
namespace {

using server::ConsoleAssets;
using server::EmbeddedFile;
using ::testing::HasSubstr;
using ::testing::Not;

EmbeddedFile file(const char* name, const char* text) {
    return {name, reinterpret_cast<const unsigned char*>(text), std::char_traits<char>::length(text)};
}

TEST(ConsoleAssets, ThePageNamesEachFileByItsContentHash) {
    ConsoleAssets assets({file("index.html", "<script src=\"{{asset:a.js}}\"></script>{{asset:a.css}}"),
                          file("a.js", "one"), file("a.css", "two")});
    const auto* js = assets.find(assets.all()[1].hash, "a.js");
    ASSERT_NE(js, nullptr);
    EXPECT_EQ(js->body, "one");
    EXPECT_EQ(js->content_type, "text/javascript; charset=utf-8");
    EXPECT_EQ(js->hash.size(), 16u);
    EXPECT_EQ(assets.page().body, "<script src=\"/console/" + js->hash + "/a.js\"></script>/console/" +
                                      assets.find(assets.all()[2].hash, "a.css")->hash + "/a.css");
    EXPECT_EQ(assets.page().content_type, "text/html; charset=utf-8");
    // Another file's hash, an unknown name, or the page itself under /console: nothing.
    EXPECT_EQ(assets.find(assets.all()[2].hash, "a.js"), nullptr);
    EXPECT_EQ(assets.find(js->hash, "b.js"), nullptr);
    EXPECT_EQ(assets.find(assets.page().hash, "index.html"), nullptr);

    ConsoleAssets changed({file("index.html", "{{asset:a.js}}"), file("a.js", "one!")});
    EXPECT_NE(changed.all()[1].hash, js->hash) << "new content, new path";
}

TEST(ConsoleAssets, ABrokenFileListIsABuildMistakeNamedAtStartUp) {
    EXPECT_THROW(ConsoleAssets({file("a.js", "x")}), std::logic_error);
    EXPECT_THROW(ConsoleAssets({file("index.html", "{{asset:missing.js}}")}), std::logic_error);
}

TEST(ConsoleAssets, TheEmbeddedConsoleResolvesEveryReference) {
    ConsoleAssets assets;
    EXPECT_THAT(assets.page().body, Not(HasSubstr("{{asset:")));
    std::set<std::string> names;
    for (const auto& a : assets.all()) names.insert(a.name);
    EXPECT_EQ(names, (std::set<std::string>{"index.html", "app.js", "app.css"}));
}

void expect_security_headers(const HttpResult& r) {
    const std::string csp = r.headers.count("content-security-policy") ? r.headers.at("content-security-policy") : "";
    EXPECT_THAT(csp, HasSubstr("default-src 'self'"));
    EXPECT_THAT(csp, HasSubstr("script-src 'self';"));
    EXPECT_THAT(csp, HasSubstr("style-src 'self';"));
    EXPECT_THAT(csp, HasSubstr("frame-ancestors 'none'"));
    EXPECT_THAT(csp, HasSubstr("object-src 'none'"));
    EXPECT_THAT(csp, Not(HasSubstr("unsafe")));
    EXPECT_EQ(r.headers.count("x-content-type-options") ? r.headers.at("x-content-type-options") : "", "nosniff");
    EXPECT_EQ(r.headers.count("referrer-policy") ? r.headers.at("referrer-policy") : "", "no-referrer");
    EXPECT_EQ(r.headers.count("x-frame-options") ? r.headers.at("x-frame-options") : "", "DENY");
    EXPECT_EQ(r.headers.count("set-cookie"), 0u);
}

// The hashed paths the page refers to ("/console/<hash>/<file>").
std::vector<std::string> asset_paths(const std::string& html) {
    std::vector<std::string> out;
    for (std::size_t pos = html.find("\"/console/"); pos != std::string::npos;
         pos = html.find("\"/console/", pos + 1)) {
        out.push_back(html.substr(pos + 1, html.find('"', pos + 1) - pos - 1));
    }
    return out;
}

class ConsoleServed : public ::testing::Test {
protected:
    void SetUp() override { d.start(); }
    DaemonProcess d;
};

TEST_F(ConsoleServed, ThePageIsPublicStrictAndHasNoInlineCode) {
    auto page = d.get("/", "");  // no token: the page holds no data
    ASSERT_EQ(page.status, 200) << page.body;
    EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
    EXPECT_EQ(page.headers.at("cache-control"), "no-cache");
    ASSERT_EQ(page.headers.count("etag"), 1u);
    expect_security_headers(page);
    // The CSP forbids inline code; the page must not need any.
    EXPECT_THAT(page.body, Not(HasSubstr("<script>")));
    EXPECT_THAT(page.body, Not(HasSubstr("<style")));
    EXPECT_THAT(page.body, Not(HasSubstr(" style=")));
    EXPECT_THAT(page.body, Not(HasSubstr(" onclick=")));
    EXPECT_THAT(page.body, Not(HasSubstr("http://")));
    EXPECT_THAT(page.body, Not(HasSubstr("https://")));
    EXPECT_EQ(d.get("/v1/whoami", "").status, 401) << "the API still needs a token";

    auto again = http_request(d.port(), RequestSpec{"GET", "/", "", "", {{"If-None-Match", page.headers.at("etag")}}});
    EXPECT_EQ(again.status, 304);
    EXPECT_EQ(again.body, "");
    EXPECT_EQ(again.headers.at("etag"), page.headers.at("etag"));
}

TEST_F(ConsoleServed, FilesAreServedWithTheirTypesAndCachedForGood) {
    auto page = d.get("/", "");
    const auto paths = asset_paths(page.body);
    ASSERT_EQ(paths.size(), 2u) << page.body;
    std::set<std::string> types;
    for (const auto& path : paths) {
        auto r = d.get(path, "");
        ASSERT_EQ(r.status, 200) << path << ": " << r.body;
        types.insert(r.headers.at("content-type"));
        EXPECT_EQ(r.headers.at("cache-control"), "public, max-age=31536000, immutable") << path;
        expect_security_headers(r);
        EXPECT_FALSE(r.body.empty());
        auto cached =
            http_request(d.port(), RequestSpec{"GET", path, "", "", {{"If-None-Match", r.headers.at("etag")}}});
        EXPECT_EQ(cached.status, 304) << path;
    }
    EXPECT_EQ(types, (std::set<std::string>{"text/javascript; charset=utf-8", "text/css; charset=utf-8"}));
}

TEST_F(ConsoleServed, AnyOtherPathRevealsNothing) {
    auto page = d.get("/", "");
    const auto paths = asset_paths(page.body);
    ASSERT_FALSE(paths.empty());
    const std::string hash = paths[0].substr(9, 16);
    const std::string app_js = d.get(paths[0], "").body;
    for (const std::string& target :
         std::vector<std::string>{"/console/0000000000000000/app.js", "/console/" + hash + "/index.html",
                                  "/console/" + hash + "/app.css.map", "/console/" + hash + "/../app.js",
                                  "/console/" + hash + "/%2e%2e%2fskillhost.yaml", "/console/" + hash, "/console/",
                                  "/index.html", "/app.js", "/etc/passwd", "/../../etc/passwd", "/.git/config",
                                  "/skillhost.yaml", "/owner.token", "/console/" + hash + "/app.js/x"}) {
        auto r = d.get(target, "");
        EXPECT_EQ(r.status, 404) << target << ": " << r.body;
        EXPECT_EQ(r.error_code(), "NOT_FOUND") << target;
        EXPECT_EQ(r.headers.at("content-type"), "application/json") << target;
        EXPECT_LT(r.body.size(), 400u) << target;
        EXPECT_THAT(r.body, Not(HasSubstr(d.home().string()))) << target;
        EXPECT_THAT(r.body, Not(HasSubstr(d.etc().parent_path().string()))) << target;
        EXPECT_THAT(r.body, Not(HasSubstr("root:"))) << target;
        EXPECT_THAT(r.body, Not(HasSubstr(app_js.substr(0, 60)))) << target;
    }
    auto post = d.post("/", "{}", "");
    EXPECT_EQ(post.status, 405);
    EXPECT_EQ(post.headers.at("allow"), "GET");
}

}  // namespace
}  // namespace skillhost::testing
