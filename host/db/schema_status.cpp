#include "db/schema_status.hpp"
#include "db/error_codes.hpp"

namespace skillhost::db {

Error schema_too_new_error(const SchemaStatus& status) {
    Error error{errors::kSchemaTooNew,
                "the " + status.backend + " database " + status.where + " is at schema version " +
                    std::to_string(status.current) + ", newer than this skillhost knows (" +
                    std::to_string(status.latest) + "); it was migrated by a newer skillhost",
                {},
                {"run the skillhost version that migrated it, or upgrade this one"}};
    error.details["backend"] = status.backend;
    error.details["current"] = status.current;
    error.details["latest"] = status.latest;
    return error;
}

}  // namespace skillhost::db
