// scenario_validate.cc — ValidateScenario (scenario.h): the cross-field rules no single element
// reader can check. Which kinds open a view (a kNewHandle field), carry mutator args or local
// ops, or target a client comes from the kinds table (scenario_kinds.h).
#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "base/str_util.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_json_reader.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/workload/mutators.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

absl::Status Invalid(const std::string& origin, const std::string& rest) {
  return absl::InvalidArgumentError(StrCat(origin, ": field \"", rest));
}

absl::Status ValidateConfig(const ScenarioConfig& c, const std::string& origin) {
  if (c.clients < 1 || c.clients > kMaxScenarioClients) {
    return Invalid(origin, StrCat("config.clients\": expected an integer in [1, ",
                                  kMaxScenarioClients, "], got ", c.clients));
  }
  if (c.connect_ms.size() != static_cast<size_t>(c.clients)) {
    return Invalid(origin, StrCat("config.connect_ms\": expected ", c.clients,
                                  " times (one per client), got ", c.connect_ms.size()));
  }
  return absl::OkStatus();
}

// A mutate / mutate_folded action's mutator and args against the declared argument table
// (mutators.h): an unknown mutator, a missing, unknown or mistyped arg is an error naming the
// action, the mutator and the arg — never a mutator that silently no-ops at run time.
absl::Status ValidateMutatorCall(const ScenarioAction& a, size_t i, const std::string& origin) {
  if (FindMutatorSignature(a.name) == nullptr) {
    const json name = a.name;
    return FieldError(origin, StrCat("actions[", i, "].name"),
                      StrCat("a workload mutator (", absl::StrJoin(WorkloadMutatorNames(), ", "),
                             ")"),
                      &name);
  }
  const std::optional<ArgProblem> problem = CheckMutatorArgs(a.name, a.args);
  if (!problem) return absl::OkStatus();
  const std::string field = StrCat("actions[", i, "].args", problem->arg.empty() ? "" : ".",
                                   problem->arg);
  return FieldError(origin, field, problem->expected, problem->got ? &*problem->got : nullptr);
}

// The rules of one action that need only the action itself (and its kind's row).
absl::Status ValidateActionShape(const ScenarioAction& a, size_t i, const std::string& origin) {
  using K = ScenarioAction::Kind;
  if (a.kind == K::kMutateFolded &&
      (a.fold_key.is_null() || a.debounce_ms < 0 || (a.max_wait_ms && *a.max_wait_ms < 0))) {
    return Invalid(origin, StrCat("actions[", i, "]\": expected a fold with a non-null key and "
                                  "non-negative debounce_ms / max_wait_ms"));
  }
  if (ActionHasField(a.kind, FieldType::kLocalOps) && a.ops.empty()) {
    return Invalid(origin,
                   StrCat("actions[", i, "].ops\": expected a non-empty array of local ops"));
  }
  if (ActionHasField(a.kind, FieldType::kMutatorArgs) && !a.args.is_object()) {
    return Invalid(origin, StrCat("actions[", i, "].args\": expected a JSON object"));
  }
  if (ActionHasField(a.kind, FieldType::kMutatorArgs)) return ValidateMutatorCall(a, i, origin);
  return absl::OkStatus();
}

absl::Status ValidateActions(const Scenario& s, const std::string& origin) {
  const ScenarioConfig& c = s.config;
  int64_t last_t = 0;
  std::map<int, std::set<int64_t>> handles;
  for (size_t i = 0; i < s.actions.size(); ++i) {
    const ScenarioAction& a = s.actions[i];
    if (a.client < 0 || a.client >= c.clients) {
      return Invalid(origin, StrCat("actions[", i, "].client\": expected an integer in [0, ",
                                    c.clients - 1, "], got ", a.client));
    }
    if (a.t_ms < last_t || a.t_ms > c.safety_ms) {
      return Invalid(origin, StrCat("actions[", i, "].t\": expected a time in [", last_t, ", ",
                                    c.safety_ms, "] (ascending, inside config.safety_ms), got ",
                                    a.t_ms));
    }
    last_t = a.t_ms;
    if (ActionHasField(a.kind, FieldType::kNewHandle) &&
        !handles[a.client].insert(a.handle).second) {
      return Invalid(origin, StrCat("actions[", i, "].handle\": expected a handle not yet used "
                                    "by client ", a.client, ", got ", a.handle));
    }
    if (auto st = ValidateActionShape(a, i, origin); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ValidateFaults(const Scenario& s, const std::string& origin) {
  const ScenarioConfig& c = s.config;
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const ScenarioFault& f = s.faults[i];
    if (FaultTargetsClient(f.kind) && (f.client < 0 || f.client >= c.clients)) {
      return Invalid(origin, StrCat("faults[", i, "].client\": expected an integer in [0, ",
                                    c.clients - 1, "], got ", f.client));
    }
    if (f.t_ms > c.safety_ms) {
      return Invalid(origin, StrCat("faults[", i, "].t\": expected a time in [0, ", c.safety_ms,
                                    "] (inside config.safety_ms), got ", f.t_ms));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateScenario(const Scenario& s, const std::string& origin) {
  if (!s.generated) return absl::OkStatus();
  if (auto st = ValidateConfig(s.config, origin); !st.ok()) return st;
  if (auto st = ValidateActions(s, origin); !st.ok()) return st;
  return ValidateFaults(s, origin);
}

}  // namespace rindle::sim
