#include "auth/requester.hpp"

namespace skillhost::auth {

Requester Requester::from_text(std::string_view text) {
    if (text.empty() || text == "direct") return direct();
    if (text == "api") return api();
    if (text == "mcp") return mcp();
    if (text == "demo-seed") return demo();
    if (text.starts_with("run:") && text.size() > 4) return run(std::string(text.substr(4)));
    if (text.starts_with("approval:") && text.size() > 9) return approval(std::string(text.substr(9)));
    return Requester(RequesterKind::other, std::string(text));
}

std::string Requester::to_text() const {
    switch (kind_) {
        case RequesterKind::direct: return "direct";
        case RequesterKind::api: return "api";
        case RequesterKind::mcp: return "mcp";
        case RequesterKind::demo: return "demo-seed";
        case RequesterKind::run: return "run:" + id_;
        case RequesterKind::approval: return "approval:" + id_;
        case RequesterKind::other: return id_;
    }
    return id_;
}

}  // namespace skillhost::auth
