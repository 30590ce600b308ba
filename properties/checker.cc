// checker.cc — see checker.h.
#include "properties/checker.h"

#include <string_view>

#include "base/check.h"
#include "properties/ledger_rollback.h"

namespace rindle::props {
namespace {

// The sum of the `check.*_skip` counters (the only place a family records a skip; only
// AfterStepClient gets the counters).
int64_t SkipTotal(const StepCounters& counters) {
  int64_t total = 0;
  for (auto it = counters.lower_bound("check."); it != counters.end(); ++it) {
    std::string_view name = it->first;
    if (name.substr(0, 6) != "check.") break;
    if (name.size() >= 5 && name.substr(name.size() - 5) == "_skip") total += it->second;
  }
  return total;
}

// Adds one checked (or skipped) step to each of `properties`.
void Tally(StepCounters& counters, const std::vector<std::string>& properties, bool skipped) {
  for (const std::string& p : properties) {
    ++counters["check." + p + (skipped ? ".skipped" : ".checked")];
  }
}

}  // namespace

void Checker::Add(std::unique_ptr<PropertyFamily> family, std::vector<std::string> properties,
                  CheckedWhen when) {
  RINDLE_CHECK(family != nullptr);
  families_.push_back({std::move(family), std::move(properties), when});
}

MaybeViolation Checker::AfterStep(const World& world, StepCounters* counters) {
  RINDLE_CHECK(counters != nullptr);
  RINDLE_CHECK(world.authority != nullptr);
  counters_ = counters;
  std::vector<bool> skipped(families_.size(), false);
  auto tally = [&] {
    for (size_t i = 0; i < families_.size(); ++i) {
      if (families_[i].when != CheckedWhen::kQuiescence) {
        Tally(*counters, families_[i].properties, skipped[i]);
      }
    }
  };
  for (auto& f : families_) {
    if (auto v = f.family->AfterStep(world)) return tally(), v;
  }
  for (const ClientState& c : world.clients) {
    if (!c.dirty || Refused(world, c)) continue;
    for (size_t i = 0; i < families_.size(); ++i) {
      const int64_t before = SkipTotal(*counters);
      auto v = families_[i].family->AfterStepClient(world, c, counters);
      if (SkipTotal(*counters) != before) skipped[i] = true;
      if (v) return tally(), v;
    }
  }
  if (world.authority_dirty) {
    for (auto& f : families_) {
      if (auto v = f.family->AfterStepAuthority(world)) return tally(), v;
    }
  }
  for (const ClientState& c : world.clients) {
    if (!c.local_dirty || Refused(world, c)) continue;
    for (auto& f : families_) {
      if (auto v = f.family->AfterStepLocal(world, c)) return tally(), v;
    }
  }
  tally();
  return std::nullopt;
}

bool Checker::Refused(const World& world, const ClientState& c) {
  if (refused_.contains(c.id)) return true;
  if (!RefusedRollback(world, c)) return false;
  // The named health outcome (ledger_rollback.h): counted once, then the client is out.
  refused_.insert(c.id);
  if (counters_ != nullptr) ++(*counters_)["health.refused_authority_rollback"];
  return true;
}

MaybeViolation Checker::AtQuiescence(const World& world) {
  RINDLE_CHECK(world.authority != nullptr);
  if (counters_ != nullptr) {
    for (const Entry& e : families_) {
      if (e.when != CheckedWhen::kSteps) Tally(*counters_, e.properties, /*skipped=*/false);
    }
  }
  for (const ClientState& c : world.clients) {
    if (Refused(world, c)) continue;
    for (auto& f : families_) {
      if (auto v = f.family->AtQuiescenceClient(world, c)) return v;
    }
  }
  for (auto& f : families_) {
    if (auto v = f.family->AtQuiescence(world)) return v;
  }
  return std::nullopt;
}

}  // namespace rindle::props
