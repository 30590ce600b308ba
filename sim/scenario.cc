// scenario.cc — see scenario.h.
#include "sim/scenario.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rindle::sim {
namespace {

constexpr const char* kKnownFields[] = {"format", "seed", "max_steps", "expect", "property",
                                        "note"};

// A short rendering of a JSON value for error messages.
std::string Show(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

absl::Status FieldError(const std::string& origin, const std::string& field,
                        const std::string& expected, const nlohmann::json* got) {
  std::string msg = absl::StrCat(origin, ": field \"", field, "\": expected ", expected);
  if (got != nullptr) absl::StrAppend(&msg, ", got ", Show(*got));
  return absl::InvalidArgumentError(msg);
}

}  // namespace

absl::StatusOr<Scenario> ScenarioFromJson(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ": expected a JSON object {\"format\": \"", kScenarioFormat, "\", ...}, got ",
        Show(doc)));
  }
  for (const auto& [key, value] : doc.items()) {
    bool known = false;
    for (const char* f : kKnownFields) known = known || key == f;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ": unknown field \"", key, "\" (known fields: ",
                       absl::StrJoin(kKnownFields, ", "), ")"));
    }
  }

  Scenario s;
  s.path = origin;

  auto format = doc.find("format");
  if (format == doc.end()) {
    return FieldError(origin, "format", absl::StrCat("\"", kScenarioFormat, "\" (missing)"),
                      nullptr);
  }
  if (!format->is_string() || format->get<std::string>() != kScenarioFormat) {
    return FieldError(origin, "format", absl::StrCat("\"", kScenarioFormat, "\""), &*format);
  }

  auto seed = doc.find("seed");
  if (seed == doc.end()) {
    return FieldError(origin, "seed", "a non-negative integer (missing)", nullptr);
  }
  if (!seed->is_number_unsigned()) {
    return FieldError(origin, "seed", "a non-negative integer below 2^64", &*seed);
  }
  s.seed = seed->get<uint64_t>();

  if (auto it = doc.find("max_steps"); it != doc.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 ||
        it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return FieldError(origin, "max_steps", "a positive integer", &*it);
    }
    s.max_steps = static_cast<int64_t>(it->get<uint64_t>());
  }

  auto expect = doc.find("expect");
  if (expect == doc.end()) {
    return FieldError(origin, "expect", "\"pass\" or \"fail\" (missing)", nullptr);
  }
  if (*expect == "pass") {
    s.expect = Scenario::Expect::kPass;
  } else if (*expect == "fail") {
    s.expect = Scenario::Expect::kFail;
  } else {
    return FieldError(origin, "expect", "\"pass\" or \"fail\"", &*expect);
  }

  if (auto it = doc.find("property"); it != doc.end()) {
    if (!it->is_string()) return FieldError(origin, "property", "a property name string", &*it);
    s.property = it->get<std::string>();
  }
  if (s.expect == Scenario::Expect::kFail && s.property.empty()) {
    return FieldError(origin, "property",
                      "the name of the property the run breaks (required when \"expect\" is "
                      "\"fail\")",
                      doc.contains("property") ? &doc["property"] : nullptr);
  }

  if (auto it = doc.find("note"); it != doc.end()) {
    if (!it->is_string()) return FieldError(origin, "note", "a string", &*it);
    s.note = it->get<std::string>();
  }
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open scenario file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON: ", e.what()));
  }
  return ScenarioFromJson(doc, path);
}

nlohmann::json ScenarioToJson(const Scenario& scenario) {
  nlohmann::json j = {
      {"format", kScenarioFormat},
      {"seed", scenario.seed},
      {"expect", scenario.expect == Scenario::Expect::kPass ? "pass" : "fail"},
  };
  if (scenario.max_steps) j["max_steps"] = *scenario.max_steps;
  if (!scenario.property.empty()) j["property"] = scenario.property;
  if (!scenario.note.empty()) j["note"] = scenario.note;
  return j;
}

RunOptions ScenarioRunOptions(const Scenario& scenario) {
  RunOptions options;
  options.seed = scenario.seed;
  if (scenario.max_steps) options.max_steps = *scenario.max_steps;
  return options;
}

RunResult RunScenario(const Scenario& scenario) { return RunSeed(ScenarioRunOptions(scenario)); }

ScenarioVerdict JudgeScenario(const Scenario& scenario, const RunResult& result) {
  const std::string failure =
      result.ok ? std::string()
                : absl::StrCat("seed=", result.seed, " property=", result.property,
                               " step=", result.step, " ", result.message);
  if (scenario.expect == Scenario::Expect::kPass) {
    if (result.ok) return {true, absl::StrCat("passed (digest ", result.digest, ")")};
    return {false, failure};
  }
  if (result.ok) {
    return {false, absl::StrCat("expected property \"", scenario.property,
                                "\" to fail (documented known bug) but the run passed; if the "
                                "bug is fixed, change \"expect\" to \"pass\"")};
  }
  if (result.property != scenario.property) {
    return {false, absl::StrCat("expected property \"", scenario.property,
                                "\" to fail, but a different property failed: ", failure)};
  }
  return {true, absl::StrCat("failed as expected (known bug): property=", result.property,
                             " step=", result.step)};
}

}  // namespace rindle::sim
