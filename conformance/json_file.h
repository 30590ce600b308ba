// json_file.h — reads one JSON document from a file for the conformance runners. Stateless.
//
// The shared hardened reader (base/json_file.h): errors (never exceptions) NotFound
// "<path>: cannot open (...)", InvalidArgument "<path>: <$.json.path>: <what> (expected ...)"
// for a special or oversized file, nesting over 256, a duplicate key, or text that is not JSON.
// Source: fixtures/README.md (every case file is one JSON document).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// Writes `j` (1-space indented like the recorded fixtures, trailing newline) through a temporary
// file renamed into place; errors name the path.
absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& j);

}  // namespace rindle::conformance
