// SHA-256 digests as lowercase hex: API token hashes, audit argument digests.
#pragma once

#include <string>
#include <string_view>

namespace skillhost {

std::string sha256_hex(std::string_view data);

}  // namespace skillhost
