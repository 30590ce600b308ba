// scenario_json_read.h — the element readers of the scenario loader (scenario.h's
// ScenarioFromJson assembles a document from them): config, seed rows, one action, one fault.
// Stateless. Each checks its element's shape and the rules it can check alone (ranges, known
// fields from the kinds table, mutator and query names against the app); the cross-element
// rules (client below config.clients, time order, unique handles) are ValidateScenario's.
// Errors: InvalidArgument naming `origin`, the JSON path and what was expected (scenario.h).
// Source: SPEC §6.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/scenario/scenario_types.h"

namespace rindle::sim {

absl::StatusOr<ScenarioConfig> ConfigFromJson(const nlohmann::json& j, const std::string& origin);
// Rows are checked against the app schema (fixtures/): arity, cell types, unique primary keys.
absl::StatusOr<SeedRows> SeedRowsFromJson(const nlohmann::json& j, const std::string& origin);
// `index` is the action's position in "actions" (for the error path).
absl::StatusOr<ScenarioAction> ActionFromJson(const nlohmann::json& j, const std::string& origin,
                                              size_t index);
absl::StatusOr<ScenarioFault> FaultFromJson(const nlohmann::json& j, const std::string& origin,
                                            size_t index);

}  // namespace rindle::sim
