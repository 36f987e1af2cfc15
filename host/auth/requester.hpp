// Who asked for a call: a front end directly, an operator run, or the execution of an approval.
// Stored and audited in its text form ("direct", "api", "mcp", "demo-seed", "run:<id>",
// "approval:<id>"); code uses the type, so nothing parses "run:" prefixes by hand.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::auth {

enum class RequesterKind { direct, api, mcp, demo, run, approval, other };

class Requester {
public:
    Requester() = default;  // direct
    static Requester direct() { return {}; }
    static Requester api() { return Requester(RequesterKind::api, {}); }
    static Requester mcp() { return Requester(RequesterKind::mcp, {}); }
    static Requester demo() { return Requester(RequesterKind::demo, {}); }
    static Requester run(std::string run_id) { return Requester(RequesterKind::run, std::move(run_id)); }
    static Requester approval(std::string approval_id) {
        return Requester(RequesterKind::approval, std::move(approval_id));
    }
    // The stored form back; text this version does not know is kept as it is (kind `other`).
    static Requester from_text(std::string_view text);

    RequesterKind kind() const { return kind_; }
    // The operator run waiting on this call, when an operator run asked for it.
    std::optional<std::string> run_id() const {
        return kind_ == RequesterKind::run ? std::optional<std::string>(id_) : std::nullopt;
    }
    std::string to_text() const;

    bool operator==(const Requester&) const = default;

private:
    Requester(RequesterKind kind, std::string id) : kind_(kind), id_(std::move(id)) {}

    RequesterKind kind_ = RequesterKind::direct;
    std::string id_;  // the run or approval id; the whole text for `other`
};

}  // namespace skillhost::auth
