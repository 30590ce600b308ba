// scenario.cc — the document level of scenario.h's reader: ScenarioFromJson (format, header
// fields, then the lists through scenario_json_read.h, then ValidateScenario) and LoadScenario.
// The writer is scenario_json_write.cc, the rules scenario_validate.cc, the step printer
// scenario_steps.cc, the kinds scenario_kinds.cc.
#include "sim/scenario/scenario.h"

#include <utility>
#include <vector>

#include "base/json_file.h"
#include "base/str_util.h"
#include "properties/property_names.h"
#include "sim/scenario/scenario_json_read.h"
#include "sim/scenario/scenario_json_reader.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// "format" (known: /2, or the seed-only /1) and the keys that format allows. Sets `v1`.
absl::Status ReadFormat(const ObjectReader& r, const std::string& origin, bool& v1) {
  const json* format = r.Find("format");
  const std::string expected_format =
      StrCat("\"", kScenarioFormat, "\" (or the older \"", kScenarioFormatV1, "\")");
  if (format == nullptr) return FieldError(origin, "format", StrCat(expected_format, " (missing)"), nullptr);
  v1 = *format == kScenarioFormatV1;
  if (!v1 && *format != kScenarioFormat) return FieldError(origin, "format", expected_format, format);
  std::vector<std::string> known = {"format", "seed", "max_steps", "expect", "property", "note"};
  if (!v1) {
    for (const char* k : {"message", "config", "seed_rows", "actions", "faults", "swarm"}) {
      known.push_back(k);
    }
  }
  return r.CheckObject(known);
}

absl::Status ReadSeedAndSteps(const ObjectReader& r, const std::string& origin, Scenario& s) {
  const json* seed = nullptr;
  SCN_ASSIGN(seed, r.Require("seed", "a non-negative integer"));
  if (!seed->is_number_unsigned()) {
    return FieldError(origin, "seed", "a non-negative integer below 2^64", seed);
  }
  s.seed = seed->get<uint64_t>();

  if (const json* it = r.Find("max_steps")) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 ||
        it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return FieldError(origin, "max_steps", "a positive integer", it);
    }
    s.max_steps = static_cast<int64_t>(it->get<uint64_t>());
  }
  return absl::OkStatus();
}

// "expect", "property" (required when expect is fail), "note", "message".
absl::Status ReadExpectation(const ObjectReader& r, const std::string& origin, Scenario& s) {
  const json* expect = nullptr;
  SCN_ASSIGN(expect, r.Require("expect", "\"pass\" or \"fail\""));
  if (*expect == "pass") {
    s.expect = Scenario::Expect::kPass;
  } else if (*expect == "fail") {
    s.expect = Scenario::Expect::kFail;
  } else {
    return FieldError(origin, "expect", "\"pass\" or \"fail\"", expect);
  }
  if (const json* it = r.Find("property")) {
    if (!it->is_string() || !props::IsKnownPropertyName(it->get<std::string>())) {
      return FieldError(origin, "property",
                        StrCat("a known property name (one of ", props::KnownPropertyNamesText(),
                               ")"),
                        it);
    }
    s.property = it->get<std::string>();
  }
  if (s.expect == Scenario::Expect::kFail && s.property.empty()) {
    return FieldError(origin, "property",
                      "the name of the property the run breaks (required when \"expect\" is "
                      "\"fail\")",
                      r.Find("property"));
  }
  for (auto [key, out] : {std::pair<const char*, std::string*>{"note", &s.note},
                          std::pair<const char*, std::string*>{"message", &s.message}}) {
    if (const json* it = r.Find(key)) {
      if (!it->is_string()) return FieldError(origin, key, "a string", it);
      *out = it->get<std::string>();
    }
  }
  return absl::OkStatus();
}

absl::Status ReadActionsAndFaults(const ObjectReader& r, const std::string& origin, Scenario& s) {
  const json* actions = nullptr;
  SCN_ASSIGN(actions, r.Require("actions", "an array of actions"));
  if (!actions->is_array()) return FieldError(origin, "actions", "an array of actions", actions);
  for (size_t i = 0; i < actions->size(); ++i) {
    ScenarioAction a;
    SCN_ASSIGN(a, ActionFromJson((*actions)[i], origin, i));
    s.actions.push_back(std::move(a));
  }
  const json* faults = nullptr;
  SCN_ASSIGN(faults, r.Require("faults", "an array of faults"));
  if (!faults->is_array()) return FieldError(origin, "faults", "an array of faults", faults);
  for (size_t i = 0; i < faults->size(); ++i) {
    ScenarioFault f;
    SCN_ASSIGN(f, FaultFromJson((*faults)[i], origin, i));
    s.faults.push_back(f);
  }
  return absl::OkStatus();
}

// The /2 body: config, seed rows, actions, faults, swarm.
absl::Status ReadGenerated(const ObjectReader& r, const std::string& origin, Scenario& s) {
  s.generated = true;
  const json* config = nullptr;
  SCN_ASSIGN(config, r.Require("config", "an object"));
  SCN_ASSIGN(s.config, ConfigFromJson(*config, origin));
  const json* rows = nullptr;
  SCN_ASSIGN(rows, r.Require("seed_rows", "an object {table: [[cells...], ...]}"));
  SCN_ASSIGN(s.seed_rows, SeedRowsFromJson(*rows, origin));
  if (auto st = ReadActionsAndFaults(r, origin, s); !st.ok()) return st;
  if (const json* swarm = r.Find("swarm")) {
    if (!swarm->is_object()) return FieldError(origin, "swarm", "an object", swarm);
    s.swarm = *swarm;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Scenario> ScenarioFromJson(const json& doc, const std::string& origin) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(StrCat(origin, ": expected a JSON object {\"format\": \"",
                                             kScenarioFormat, "\", ...}, got ", ShowJson(doc)));
  }
  ObjectReader r(origin, "", doc);
  bool v1 = false;
  if (auto st = ReadFormat(r, origin, v1); !st.ok()) return st;
  Scenario s;
  s.path = origin;
  if (auto st = ReadSeedAndSteps(r, origin, s); !st.ok()) return st;
  if (auto st = ReadExpectation(r, origin, s); !st.ok()) return st;
  if (v1) return s;
  if (auto st = ReadGenerated(r, origin, s); !st.ok()) return st;
  if (auto st = ValidateScenario(s, origin); !st.ok()) return st;
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  // Size, file kind, nesting and duplicate keys are refused by the shared reader.
  absl::StatusOr<json> doc = ReadJsonFile(path);
  if (!doc.ok()) return doc.status();
  return ScenarioFromJson(*doc, path);
}

}  // namespace rindle::sim
