// json_file.h — reads one JSON document from a file for the conformance runners. Stateless.
//
// Errors (never exceptions): NotFound "<path>: cannot open" when the file cannot be read,
// InvalidArgument "<path>: not valid JSON (<parser message>)" when it does not parse.
// Source: fixtures/README.md (every case file is one JSON document).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// Writes `j` (1-space indented like the recorded fixtures, trailing newline); errors name the
// path.
absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& j);

}  // namespace rindle::conformance
