// checker.cc — see checker.h.
#include "properties/checker.h"

#include "base/check.h"

namespace rindle::props {

void Checker::Add(std::unique_ptr<PropertyFamily> family) {
  RINDLE_CHECK(family != nullptr);
  families_.push_back(std::move(family));
}

MaybeViolation Checker::AfterStep(const World& world, StepCounters* counters) {
  RINDLE_CHECK(counters != nullptr);
  RINDLE_CHECK(world.authority != nullptr);
  for (auto& f : families_) {
    if (auto v = f->AfterStep(world)) return v;
  }
  for (const ClientState& c : world.clients) {
    if (!c.dirty) continue;
    for (auto& f : families_) {
      if (auto v = f->AfterStepClient(world, c, counters)) return v;
    }
  }
  if (world.authority_dirty) {
    for (auto& f : families_) {
      if (auto v = f->AfterStepAuthority(world)) return v;
    }
  }
  for (const ClientState& c : world.clients) {
    if (!c.local_dirty) continue;
    for (auto& f : families_) {
      if (auto v = f->AfterStepLocal(world, c)) return v;
    }
  }
  return std::nullopt;
}

MaybeViolation Checker::AtQuiescence(const World& world) {
  RINDLE_CHECK(world.authority != nullptr);
  for (const ClientState& c : world.clients) {
    for (auto& f : families_) {
      if (auto v = f->AtQuiescenceClient(world, c)) return v;
    }
  }
  for (auto& f : families_) {
    if (auto v = f->AtQuiescence(world)) return v;
  }
  return std::nullopt;
}

}  // namespace rindle::props
