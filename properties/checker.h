// checker.h — the one interface every property family implements, and the Checker that runs the
// families of a simulated run in a fixed order (SPEC §4). A family may hold state across steps
// (e.g. the ledger oracle, the watermarks seen); the Checker holds the families.
//
// Phases, in the order the runner calls them and the Checker visits them (first violation wins;
// within a phase the families run in registration order, the clients in index order):
//   after every step   AfterStep (once) → for each dirty client: AfterStepClient (every family
//                      for that client before the next client) → when the authority is dirty:
//                      AfterStepAuthority → for each local-dirty client: AfterStepLocal.
//   at quiescence      for each client: AtQuiescenceClient → AtQuiescence (once).
// The order is part of the contract: tests and shrunk corpus cases expect the same property to
// be reported first when several fail. Families must not mutate the world.
// Source: SPEC §4; seed 002 §5.1.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "properties/invariants.h"
#include "properties/world.h"

namespace rindle::props {

class PropertyFamily {
 public:
  virtual ~PropertyFamily() = default;
  virtual MaybeViolation AfterStep(const World&) { return std::nullopt; }
  virtual MaybeViolation AfterStepClient(const World&, const ClientState&, StepCounters*) {
    return std::nullopt;
  }
  virtual MaybeViolation AfterStepAuthority(const World&) { return std::nullopt; }
  virtual MaybeViolation AfterStepLocal(const World&, const ClientState&) { return std::nullopt; }
  virtual MaybeViolation AtQuiescenceClient(const World&, const ClientState&) {
    return std::nullopt;
  }
  virtual MaybeViolation AtQuiescence(const World&) { return std::nullopt; }
};

// Health counters (not part of the trace digest): for each property a family is registered
// with, `check.<property>.checked` counts the steps (and the quiescence check) in which the
// checker ran the family for it, `check.<property>.skipped` the steps in which the family
// skipped it (a `check.*_skip` counter rose while it ran, e.g. check.model_reorder_window_skip).
// A property is counted at the steps, at quiescence, or both (`when`).
enum class CheckedWhen { kSteps, kQuiescence, kBoth };

class Checker {
 public:
  // Families run in the order added; `properties` are the names the family reports.
  void Add(std::unique_ptr<PropertyFamily> family, std::vector<std::string> properties = {},
           CheckedWhen when = CheckedWhen::kSteps);
  // The step checks (see the phases above); `counters` must be non-null.
  MaybeViolation AfterStep(const World& world, StepCounters* counters);
  // Counts into the counters last passed to AfterStep (none before the first step).
  MaybeViolation AtQuiescence(const World& world);

 private:
  struct Entry {
    std::unique_ptr<PropertyFamily> family;
    std::vector<std::string> properties;
    CheckedWhen when;
  };
  // A client that refused an authority rollback the record justifies (ledger_rollback.h): out of
  // every check from then on.
  bool Refused(const World& world, const ClientState& c);

  std::vector<Entry> families_;
  StepCounters* counters_ = nullptr;
  std::set<std::string> refused_;
};

}  // namespace rindle::props
