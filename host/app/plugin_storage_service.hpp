// Serves the plugins' "skillhost.storage/1" (plugin/storage_service.hpp) from the host's store of
// plugin records, on the host's storage backend: the same records for every instance of a shared
// PostgreSQL. Reads each operation's request, checks what the store does not (the shape of the
// request, that values are JSON), and writes the ABI's answers.
#pragma once

#include "plugin/storage_service.hpp"
#include "store/plugin_data_store.hpp"

#include <memory>

namespace skillhost::app {

class PluginStorageService final : public plugin::StorageService {
public:
    // On the store of `location` (the host's storage backend).
    static Result<std::shared_ptr<PluginStorageService>> open(const db::StorageLocation& location);
    explicit PluginStorageService(std::shared_ptr<store::PluginDataStore> store);

    // Errors: STORAGE_INVALID (a malformed request or value), and the store's (STORAGE_TOO_LARGE,
    // STORAGE_QUOTA_EXCEEDED, STORAGE_CONFLICT, DATABASE_*).
    Result<std::string> handle(const plugin::StorageOrigin& origin, std::string_view operation,
                               std::string_view request_json) override;

private:
    std::shared_ptr<store::PluginDataStore> store_;
};

}  // namespace skillhost::app
