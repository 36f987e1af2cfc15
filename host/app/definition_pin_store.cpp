#include "app/definition_pin_store.hpp"

#include "decisions/stored_row.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::app {
namespace json = boost::json;

namespace {

// A row whose decision is being asked for by another process that has not written its id after
// this long is taken over (that process died between the two statements).
constexpr std::int64_t kAskTakeoverMs = 30'000;

std::int64_t now_ms() {
    return decisions::to_ms(std::chrono::system_clock::now());
}

std::string review_of(std::string_view id) {
    const std::string command = decisions::rules_of(decisions::DecisionKind::definition_change).command();
    if (id.empty()) return "see `skillhost " + command + " list`";
    return "see `skillhost " + command + " show " + std::string(id) + "`";
}

plugin::PinVerdict waiting(const plugin::ListedDefinition& listed, std::string pinned_hash, std::string id,
                           std::string state) {
    plugin::PinVerdict verdict;
    verdict.tool = listed.tool;
    verdict.pinned_hash = std::move(pinned_hash);
    verdict.review = review_of(id);
    verdict.decision_id = std::move(id);
    verdict.decision_state = std::move(state);
    return verdict;
}

// A decision that still stands for its change: waiting, refused, or approved and being pinned.
bool still_stands(const decisions::DefinitionChangeRecord& record, TimePoint now) {
    using S = decisions::DefinitionChangeState;
    if (record.state == S::pending) return record.expires_at > now;
    return record.state == S::rejected || record.state == S::approved;
}

}  // namespace

Result<std::shared_ptr<DefinitionPinStore>> DefinitionPinStore::open(
    const db::StorageLocation& location, std::shared_ptr<decisions::DefinitionChangeQueue> changes) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    return std::make_shared<DefinitionPinStore>(std::move(*connection), std::move(changes));
}

DefinitionPinStore::DefinitionPinStore(std::unique_ptr<db::BackendConnection> connection,
                                       std::shared_ptr<decisions::DefinitionChangeQueue> changes)
    : connection_(std::move(connection)), changes_(std::move(changes)) {}

Result<std::vector<plugin::PinVerdict>> DefinitionPinStore::check(std::string_view server,
                                                                  const std::vector<plugin::ListedDefinition>& listed,
                                                                  std::string_view user_id) {
    std::lock_guard lock(mutex_);
    auto pinned = connection_->run("reading a server's pinned definitions",
                                   "SELECT COUNT(*) FROM definition_pins WHERE server = ?", {std::string(server)});
    if (!pinned) return pinned.error();
    if (pinned->integer(0, 0) == 0) {
        if (auto first = pin_first_listing(server, listed); !first) return first.error();
    }
    std::vector<plugin::PinVerdict> verdicts;
    for (const auto& definition : listed) {
        auto pin = read_pin(server, definition.tool);
        if (!pin) return pin.error();
        if (*pin && (*pin)->hash == definition.hash) {
            plugin::PinVerdict verdict;
            verdict.tool = definition.tool;
            verdict.callable = true;
            verdict.pinned_hash = definition.hash;
            verdicts.push_back(std::move(verdict));
            continue;
        }
        auto verdict = decision_for(server, definition, *pin, user_id);
        if (!verdict) return verdict.error();
        verdicts.push_back(std::move(*verdict));
    }
    return verdicts;
}

// The first listing ever of `server` is its pin. Another process pinning the same server at once
// inserts the same rows or others; either way each tool keeps the first pin written.
Status DefinitionPinStore::pin_first_listing(std::string_view server,
                                             const std::vector<plugin::ListedDefinition>& listed) {
    return connection_->transaction([&](db::SqlSession& session) -> Status {
        for (const auto& definition : listed) {
            auto inserted =
                session.run("pinning a server's first definitions",
                            "INSERT INTO definition_pins (server, tool, hash, definition, pinned_at_ms, pinned_by)"
                            " VALUES (?, ?, ?, ?, ?, 'first listing') ON CONFLICT (server, tool) DO NOTHING",
                            {std::string(server), definition.tool, definition.hash,
                             json::serialize(definition.definition), now_ms()});
            if (!inserted) return inserted.error();
        }
        spdlog::info("MCP server '{}': first listing pinned ({} definitions)", server, listed.size());
        return {};
    });
}

Result<std::optional<DefinitionPinStore::Pin>> DefinitionPinStore::read_pin(std::string_view server,
                                                                            std::string_view tool) const {
    auto rows = connection_->run("reading a pinned definition",
                                 "SELECT hash, definition FROM definition_pins WHERE server = ? AND tool = ?",
                                 {std::string(server), std::string(tool)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<Pin>();
    return std::optional<Pin>(Pin{rows->text(0, 0), rows->text(0, 1)});
}

Result<plugin::PinVerdict> DefinitionPinStore::decision_for(std::string_view server,
                                                            const plugin::ListedDefinition& listed,
                                                            const std::optional<Pin>& pin, std::string_view user_id) {
    const std::string old_hash = pin ? pin->hash : std::string();
    const std::vector<db::SqlValue> key{std::string(server), listed.tool, old_hash, listed.hash};
    auto claimed = connection_->run("asking for a definition change",
                                    "INSERT INTO definition_changes (server, tool, old_hash, new_hash, decision_id,"
                                    " asked_at_ms) VALUES (?, ?, ?, ?, '', ?)"
                                    " ON CONFLICT (server, tool, old_hash, new_hash) DO NOTHING",
                                    {key[0], key[1], key[2], key[3], now_ms()});
    if (!claimed) return claimed.error();
    if (claimed->affected == 1) return ask(server, listed, pin, user_id);

    auto rows = connection_->run("reading a definition change",
                                 "SELECT decision_id, asked_at_ms FROM definition_changes"
                                 " WHERE server = ? AND tool = ? AND old_hash = ? AND new_hash = ?",
                                 key);
    if (!rows) return rows.error();
    if (rows->size() == 0) return waiting(listed, old_hash, "", "pending");
    const std::string id = rows->text(0, 0);
    const std::int64_t asked_at = rows->integer(0, 1);
    if (id.empty() && now_ms() - asked_at < kAskTakeoverMs) return waiting(listed, old_hash, "", "pending");
    if (!id.empty()) {
        auto record = changes_->get(id);
        if (record && still_stands(*record, std::chrono::system_clock::now()))
            return waiting(listed, old_hash, id, decisions::to_string(record->state));
    }
    // Expired, failed, pinned and since replaced, or asked by a process that died: ask again, once.
    std::vector<db::SqlValue> retake{now_ms()};
    retake.insert(retake.end(), key.begin(), key.end());
    retake.emplace_back(id);
    retake.emplace_back(asked_at);
    auto taken = connection_->run("asking again for a definition change",
                                  "UPDATE definition_changes SET decision_id = '', asked_at_ms = ?"
                                  " WHERE server = ? AND tool = ? AND old_hash = ? AND new_hash = ?"
                                  " AND decision_id = ? AND asked_at_ms = ?",
                                  retake);
    if (!taken) return taken.error();
    if (taken->affected == 1) return ask(server, listed, pin, user_id);
    return waiting(listed, old_hash, "", "pending");
}

// This process holds the row of (server, tool, pin, listed hash): it asks for the decision and
// writes its id there.
Result<plugin::PinVerdict> DefinitionPinStore::ask(std::string_view server, const plugin::ListedDefinition& listed,
                                                   const std::optional<Pin>& pin, std::string_view user_id) {
    decisions::DefinitionChangeAsk change;
    change.server = std::string(server);
    change.tool = listed.tool;
    change.user_id = std::string(user_id);
    if (pin) {
        change.old_hash = pin->hash;
        std::error_code ec;
        change.old_definition = json::parse(pin->definition, ec);
        if (ec) change.old_definition = json::object();
    }
    change.new_hash = listed.hash;
    change.new_definition = listed.definition;
    auto record = changes_->request(change);
    if (!record) return record.error();
    auto noted = connection_->run("noting a definition change",
                                  "UPDATE definition_changes SET decision_id = ?"
                                  " WHERE server = ? AND tool = ? AND old_hash = ? AND new_hash = ?",
                                  {record->id, std::string(server), listed.tool, change.old_hash, listed.hash});
    if (!noted) return noted.error();
    spdlog::warn("MCP server '{}': {} waits for definition change {}", server, record->what(), record->id);
    return waiting(listed, change.old_hash, record->id, "pending");
}

Status DefinitionPinStore::pin(const decisions::DefinitionChangeRecord& record, std::string_view by) {
    std::lock_guard lock(mutex_);
    const std::string definition = json::serialize(record.new_definition);
    auto written =
        record.old_hash.empty()
            ? connection_->run("pinning an approved definition",
                               "INSERT INTO definition_pins (server, tool, hash, definition, pinned_at_ms, pinned_by)"
                               " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (server, tool) DO NOTHING",
                               {record.server, record.tool, record.new_hash, definition, now_ms(), std::string(by)})
            : connection_->run("pinning an approved definition",
                               "UPDATE definition_pins SET hash = ?, definition = ?, pinned_at_ms = ?, pinned_by = ?"
                               " WHERE server = ? AND tool = ? AND hash = ?",
                               {record.new_hash, definition, now_ms(), std::string(by), record.server, record.tool,
                                record.old_hash});
    if (!written) return written.error();
    if (written->affected == 1) return {};
    Error error{errors::kUpstreamDefinitionChanged,
                "the pin of " + record.what() + " is no longer the one definition change " + record.id +
                    " was asked against (another change was approved first); it is not pinned, and the next "
                    "listing of the server asks for a decision against the pin as it is now"};
    error.details["definition_change_id"] = record.id;
    error.details["old_hash"] = record.old_hash;
    return error;
}

}  // namespace skillhost::app
