#include "conformance/json_file.h"

#include "base/json_file.h"

namespace rindle::conformance {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  return ::rindle::ReadJsonFile(path);
}

absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& j) {
  return WriteFileAtomically(path, j.dump(1) + "\n");
}

}  // namespace rindle::conformance
