#include "cli/error_catalogue.hpp"

#include "base/error_codes.hpp"
#include "db/error_codes.hpp"
#include "net/error_codes.hpp"
#include "config/error_codes.hpp"
#include "store/error_codes.hpp"
#include "llm/error_codes.hpp"
#include "manifest/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "runner/error_codes.hpp"
#include "catalog/error_codes.hpp"
#include "reload/error_codes.hpp"
#include "auth/error_codes.hpp"
#include "audit/error_codes.hpp"
#include "decisions/error_codes.hpp"
#include "policy/error_codes.hpp"
#include "exec/error_codes.hpp"
#include "operator/error_codes.hpp"
#include "app/error_codes.hpp"
#include "mcp/error_codes.hpp"
#include "upstream/error_codes.hpp"
#include "oauth/error_codes.hpp"
#include "server/error_codes.hpp"
#include "cli/error_codes.hpp"

#include <iterator>

namespace skillhost::cli {

std::vector<CataloguedCode> error_catalogue() {
    std::vector<CataloguedCode> all;
    const auto add = [&all](const auto& list) { all.insert(all.end(), std::begin(list), std::end(list)); };
    add(errors::kBaseErrorCodes);
    add(errors::kDbErrorCodes);
    add(errors::kNetErrorCodes);
    add(errors::kUpstreamErrorCodes);
    add(errors::kOauthErrorCodes);
    add(errors::kConfigErrorCodes);
    add(errors::kStoreErrorCodes);
    add(errors::kLlmErrorCodes);
    add(errors::kManifestErrorCodes);
    add(errors::kPluginErrorCodes);
    add(errors::kRunnerErrorCodes);
    add(errors::kCatalogErrorCodes);
    add(errors::kReloadErrorCodes);
    add(errors::kAuthErrorCodes);
    add(errors::kAuditErrorCodes);
    add(errors::kDecisionsErrorCodes);
    add(errors::kPolicyErrorCodes);
    add(errors::kExecErrorCodes);
    add(errors::kOperatorErrorCodes);
    add(errors::kAppErrorCodes);
    add(errors::kMcpErrorCodes);
    add(errors::kServerErrorCodes);
    add(errors::kCliErrorCodes);
    return all;
}

}  // namespace skillhost::cli
