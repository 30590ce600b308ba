// result_io.cc — see result_io.h.
#include "cli/result_io.h"

#include "absl/strings/str_cat.h"

namespace rindle::sim::cli {

std::string DumpLine(const nlohmann::json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ResultToJson(const RunResult& r, bool with_counters) {
  nlohmann::json j = {{"seed", r.seed},         {"ok", r.ok},         {"property", r.property},
                      {"step", r.step},         {"message", r.message}, {"digest", r.digest},
                      {"steps", r.steps},       {"virtual_ms", r.virtual_ms}};
  if (with_counters) {
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [name, count] : r.counters) counters[name] = count;
    j["counters"] = std::move(counters);
  }
  return j;
}

absl::StatusOr<RunResult> ResultFromJsonLine(const std::string& line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("result line is not JSON: ", e.what()));
  }
  if (!j.is_object()) return absl::InvalidArgumentError("result line is not a JSON object");
  RunResult r;
  try {
    r.seed = j.at("seed").get<uint64_t>();
    r.ok = j.at("ok").get<bool>();
    r.property = j.at("property").get<std::string>();
    r.step = j.at("step").get<int64_t>();
    r.message = j.at("message").get<std::string>();
    r.digest = j.at("digest").get<std::string>();
    r.steps = j.at("steps").get<int64_t>();
    r.virtual_ms = j.at("virtual_ms").get<int64_t>();
    if (auto it = j.find("counters"); it != j.end()) {
      for (const auto& [name, count] : it->items()) r.counters[name] = count.get<int64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("result line: bad field: ", e.what()));
  }
  return r;
}

std::string FailureLine(const RunResult& r) {
  return absl::StrCat("seed=", r.seed, " property=", r.property, " step=", r.step, " ",
                      r.message);
}

}  // namespace rindle::sim::cli
