// health.cc — authority-health and client-health (families.h): the first internal error of the
// authority (every step) or of a dirty client's backend ends the run.
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class Health : public PropertyFamily {
 public:
  MaybeViolation AfterStep(const World& w) override {
    if (!w.authority->health().ok()) {
      return Violation{"authority-health", std::string(w.authority->health().message())};
    }
    return std::nullopt;
  }
  MaybeViolation AfterStepClient(const World&, const ClientState& c, StepCounters*) override {
    if (!c.backend->health().ok()) {
      return Violation{"client-health", StrCat(c.id, ": ", c.backend->health().message())};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeHealth() { return std::make_unique<Health>(); }

}  // namespace rindle::props
