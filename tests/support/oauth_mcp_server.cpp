#include "support/oauth_mcp_server.hpp"

#include <openssl/sha.h>

#include <boost/json.hpp>

namespace skillhost::testing {
namespace json = boost::json;
using llm::testing::Connection;
using llm::testing::RecordedRequest;

namespace {

std::string decode(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') {
            out += ' ';
        } else if (text[i] == '%' && i + 2 < text.size()) {
            out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::map<std::string, std::string> fields_of(std::string_view text) {
    std::map<std::string, std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('&', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view pair = text.substr(start, end - start);
        const std::size_t eq = pair.find('=');
        if (eq != std::string_view::npos) out[decode(pair.substr(0, eq))] = decode(pair.substr(eq + 1));
        start = end + 1;
    }
    return out;
}

std::string s256(const std::string& verifier) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    unsigned bits = 0;
    int count = 0;
    for (unsigned char byte : digest) {
        bits = (bits << 8) | byte;
        count += 8;
        while (count >= 6) {
            out += kAlphabet[(bits >> (count - 6)) & 63];
            count -= 6;
        }
    }
    if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
    return out;
}

void reply_json(Connection& connection, int status, const json::value& body,
                const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    connection.respond(status, json::serialize(body), "application/json", headers);
}

}  // namespace

OAuthMcpServer::OAuthMcpServer()
    : server_([this](const RecordedRequest& request, Connection& connection) { handle(request, connection); }) {}

void OAuthMcpServer::expire_access_tokens() {
    std::lock_guard lock(mutex_);
    access_tokens_.clear();
}

std::string OAuthMcpServer::last_scope() const {
    std::lock_guard lock(mutex_);
    return last_scope_;
}

std::string OAuthMcpServer::issue(const std::string& user) {
    const std::string token = "at-" + user + "-" + std::to_string(++serial_) + "-0123456789abcdef";
    access_tokens_[token] = user;
    return token;
}

void OAuthMcpServer::handle(const RecordedRequest& request, Connection& connection) {
    const std::string path = request.target.substr(0, request.target.find('?'));
    if (path == "/.well-known/oauth-protected-resource/mcp") {
        return reply_json(connection, 200,
                          json::object{{"resource", url()},
                                       {"authorization_servers", json::array{base()}},
                                       {"scopes_supported", json::array{"tools"}}});
    }
    if (path == "/.well-known/oauth-authorization-server") {
        return reply_json(connection, 200,
                          json::object{{"issuer", base()},
                                       {"authorization_endpoint", base() + "/authorize"},
                                       {"token_endpoint", base() + "/token"},
                                       {"registration_endpoint", base() + "/register"},
                                       {"code_challenge_methods_supported", json::array{"S256"}},
                                       {"token_endpoint_auth_methods_supported", json::array{"none"}},
                                       {"grant_types_supported", json::array{"authorization_code", "refresh_token"}}});
    }
    if (path == "/register" && request.method == "POST") {
        ++registrations_;
        return reply_json(connection, 201,
                          json::object{{"client_id", "client-" + std::to_string(registrations_.load())},
                                       {"token_endpoint_auth_method", "none"}});
    }
    if (path == "/authorize") return authorize(request, connection);
    if (path == "/token" && request.method == "POST") return token(request, connection);
    if (path == "/mcp") return mcp(request, connection);
    reply_json(connection, 404, json::object{{"error", "not_found"}});
}

void OAuthMcpServer::authorize(const RecordedRequest& request, Connection& connection) {
    ++authorizations_;
    const std::size_t question = request.target.find('?');
    auto query = fields_of(question == std::string::npos ? "" : std::string_view(request.target).substr(question + 1));
    std::string location = query["redirect_uri"] + "?";
    if (refuse_) {
        location += "error=access_denied&error_description=the+user+said+no&state=" + query["state"];
    } else {
        const std::string code = "code-" + std::to_string(authorizations_.load());
        {
            std::lock_guard lock(mutex_);
            codes_[code] = Code{query["user"].empty() ? "nobody" : query["user"], query["code_challenge"]};
            last_scope_ = query["scope"];
        }
        location += "code=" + code + "&state=" + (forge_state_ ? std::string("forged") : query["state"]);
    }
    connection.respond(302, "", "text/plain", {{"Location", location}});
}

void OAuthMcpServer::token(const RecordedRequest& request, Connection& connection) {
    auto form = fields_of(request.body);
    std::lock_guard lock(mutex_);
    std::string user;
    if (form["grant_type"] == "authorization_code") {
        const auto code = codes_.find(form["code"]);
        if (code == codes_.end() || s256(form["code_verifier"]) != code->second.challenge)
            return reply_json(connection, 400, json::object{{"error", "invalid_grant"}});
        user = code->second.user;
        codes_.erase(code);
        ++code_grants_;
    } else if (form["grant_type"] == "refresh_token") {
        const auto held = refresh_tokens_.find(form["refresh_token"]);
        if (held == refresh_tokens_.end()) return reply_json(connection, 400, json::object{{"error", "invalid_grant"}});
        user = held->second;
        refresh_tokens_.erase(held);  // rotated
        ++refresh_grants_;
    } else {
        return reply_json(connection, 400, json::object{{"error", "unsupported_grant_type"}});
    }
    const std::string access = issue(user);
    const std::string refresh = "rt-" + user + "-" + std::to_string(serial_) + "-fedcba9876543210";
    refresh_tokens_[refresh] = user;
    reply_json(connection, 200,
               json::object{{"access_token", access},
                            {"token_type", "Bearer"},
                            {"expires_in", 3600},
                            {"refresh_token", refresh},
                            {"scope", "tools"}});
}

void OAuthMcpServer::mcp(const RecordedRequest& request, Connection& connection) {
    if (request.method != "POST") {
        connection.respond(405, "");
        return;
    }
    const std::string authorization = request.header("authorization");
    std::string user;
    {
        std::lock_guard lock(mutex_);
        const auto held =
            authorization.starts_with("Bearer ") ? access_tokens_.find(authorization.substr(7)) : access_tokens_.end();
        if (held != access_tokens_.end()) user = held->second;
    }
    if (user.empty()) {
        ++unauthorized_;
        return reply_json(connection, 401, json::object{{"error", "invalid_token"}},
                          {{"WWW-Authenticate", "Bearer error=\"invalid_token\", resource_metadata=\"" + base() +
                                                    "/.well-known/oauth-protected-resource/mcp\""}});
    }
    const json::object message = json::parse(request.body).as_object();
    const std::string method(message.at("method").as_string());
    if (!message.contains("id")) {
        connection.respond(202, "");
        return;
    }
    const json::value id = message.at("id");
    json::value result;
    if (method == "initialize") {
        result = json::object{{"protocolVersion", "2025-06-18"},
                              {"capabilities", json::object{{"tools", json::object{}}}},
                              {"serverInfo", json::object{{"name", "oauth-fixture"}, {"version", "1.0.0"}}}};
    } else if (method == "tools/list") {
        json::array tools;
        for (const char* name : {"whoami", "echo_token", "echo"})
            tools.push_back(json::object{{"name", name},
                                         {"description", std::string("The ") + name + " tool"},
                                         {"inputSchema", json::object{{"type", "object"}}}});
        result = json::object{{"tools", std::move(tools)}};
    } else if (method == "tools/call") {
        const std::string tool(message.at("params").at("name").as_string());
        std::string text = tool == "whoami"       ? "signed in as " + user
                           : tool == "echo_token" ? "you sent " + authorization.substr(7)
                                                  : "echo";
        result = json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}};
    } else {
        return reply_json(connection, 200,
                          json::object{{"jsonrpc", "2.0"},
                                       {"id", id},
                                       {"error", json::object{{"code", -32601}, {"message", "no such method"}}}});
    }
    reply_json(connection, 200, json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

}  // namespace skillhost::testing
