// Every host error code, with its kind and the subsystem that declares it: the catalogue that
// docs/http-api.md is held against (tests/cli/error_catalogue_test.cpp). It lives in the top layer
// because it includes every subsystem's error_codes.hpp.
#pragma once

#include "base/error_kind.hpp"

#include <vector>

namespace skillhost::cli {

// Every declared code, subsystem by subsystem from the bottom layer up. A name appears twice only
// when its kind depends on the cause (DATABASE_ERROR, TOO_MANY_STREAMS), once per kind.
std::vector<CataloguedCode> error_catalogue();

}  // namespace skillhost::cli
