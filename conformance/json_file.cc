#include "conformance/json_file.h"

#include <fstream>
#include <sstream>

#include "base/str_util.h"

namespace rindle::conformance {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(StrCat(path, ": not valid JSON (", e.what(), ")"));
  }
}

absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.good()) return absl::InvalidArgumentError(StrCat(path, ": cannot open for writing"));
  out << j.dump(1) << "\n";
  out.flush();
  if (!out.good()) return absl::InternalError(StrCat(path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace rindle::conformance
