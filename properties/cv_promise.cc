// cv_promise.cc — the `cv-promise` property (families.h; issue 11; seed 002 §5.1 SourceGate:
// progress {cvMin: c} promises that every frame with cv ≤ c has been sent). Holds state: per
// client, the promise made on the current connection (the highest cvMin delivered since its
// welcome) and, per boot epoch, the highest cv of a confirmation (lmid frame) the shadow gate
// released in an earlier step.
//
// Expectations come from the delivery tap only (StepRecord: what the network carried and what
// the shadow gate released), never from the backend or the authority:
//   1. on one connection (welcome to welcome) after progress {cvMin: c} is delivered, no data
//      frame (snapshot or batch; hellos carry no cv) with cv ≤ c arrives — a snapshot of a query
//      registered later must carry a cv above the promise, or the gate would release it at the
//      next progress as if it had been ordered before frames already released;
//   2. within a boot epoch the client never releases a data frame whose cv is below a
//      confirmation it released in an earlier step (the confirmation told it that data newer
//      than that frame was already applied).
// A welcome starts a new connection (promise cleared); a welcome with a new boot id starts a new
// boot epoch (cvs restart at 0). Counters: check.cv_promise.{frames, progress, welcomes}.
#include <map>
#include <string>

#include "base/check.h"
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class CvPromise : public PropertyFamily {
 public:
  explicit CvPromise(OptimisticInvariants* invariants) : inv_(invariants) {
    RINDLE_CHECK(inv_ != nullptr);
  }

  MaybeViolation AfterStepClient(const World&, const ClientState& c,
                                 StepCounters* counters) override {
    State& s = states_[c.id];
    const StepRecord& step = inv_->Step(c.id);
    for (const TapFrame& f : step.delivered) {
      switch (f.kind) {
        case TapFrame::Kind::kWelcome:
          ++(*counters)["check.cv_promise.welcomes"];
          s.promise = -1;
          if (f.cv != s.boot) s.confirmed_cv = -1;
          s.boot = f.cv;
          break;
        case TapFrame::Kind::kProgress:
          ++(*counters)["check.cv_promise.progress"];
          s.promise = std::max(s.promise, f.cv);
          break;
        case TapFrame::Kind::kData:
          if (f.hello) break;
          if (f.copy) {  // a fault's copy: the authority promised nothing about it
            ++(*counters)["check.cv_promise.copy_skip"];
            break;
          }
          ++(*counters)["check.cv_promise.frames"];
          if (s.promise >= 0 && f.cv <= s.promise) {
            return Violation{
                "cv-promise",
                StrCat(c.id, ": ", f.qid == kLmidQid ? "lmid" : StrCat("qid ", f.qid),
                       f.snapshot ? " snapshot" : " batch", " with cv ", f.cv,
                       " arrived after progress {cvMin: ", s.promise,
                       "} on the same connection (boot ", s.boot, ")")};
          }
          break;
      }
    }
    // Released data is checked against confirmations of EARLIER steps; then this step's count.
    int64_t confirmed = s.confirmed_cv;
    for (const TapFrame& f : step.released) {
      if (f.qid == kLmidQid) {
        confirmed = std::max(confirmed, f.cv);
      } else if (f.cv < s.confirmed_cv) {
        return Violation{"cv-promise",
                         StrCat(c.id, ": released qid ", f.qid, f.snapshot ? " snapshot" : " batch",
                                " at cv ", f.cv, " after releasing a confirmation at cv ",
                                s.confirmed_cv, " (boot ", s.boot, ")")};
      }
    }
    s.confirmed_cv = confirmed;
    return std::nullopt;
  }

 private:
  struct State {
    int64_t boot = 0;
    int64_t promise = -1;       // -1: no progress on this connection yet
    int64_t confirmed_cv = -1;  // -1: no confirmation released in this boot epoch
  };

  OptimisticInvariants* inv_;
  std::map<std::string, State> states_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeCvPromise(OptimisticInvariants* invariants) {
  return std::make_unique<CvPromise>(invariants);
}

}  // namespace rindle::props
