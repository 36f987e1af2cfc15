// Internal to manifest/: reading a foreign server declaration's credentials, `secrets:` (a user's
// secrets formatted into variables or headers) and `oauth:` (the server's authorization), checked
// against the transport and against what `env:` and `headers:` already set
// (manifest/foreign_server.hpp has what each key means).
#pragma once

#include "manifest/foreign_server.hpp"
#include "manifest/yaml_field.hpp"

#include <optional>

namespace skillhost::manifest::detail {

// `transport`: the declaration's, when it reads (nullopt: each target is checked on its own).
void read_secrets(const Field& field, std::optional<ForeignTransport> transport, ForeignServer& server,
                  ProblemList& problems);
void read_oauth(const Field& field, std::optional<ForeignTransport> transport, ForeignServer& server,
                ProblemList& problems);

}  // namespace skillhost::manifest::detail
