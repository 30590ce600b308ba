// push_drain.cc — the `push-drain` property (families.h; issue 11; seed 002 §7.5 gapless mids: the
// authority applies a client's mids in order, and an envelope that arrived ahead of a gap waits
// and is applied as soon as the gap fills). Holds no state.
//
// Expectation from the harness's record only (ClientState::link): the mids whose push the network
// delivered to the authority since it last lost its held pushes, and the client's lmid there at
// that moment (the base). Every mid of the unbroken run base+1, base+2, … of delivered mids has
// reached the authority with all its predecessors, so by the end of that step the authority must
// have processed it: its lmid for the client (AuthorityView::lmid, the system under test's
// report, checked against the record) is at least the run's end. A drain that stops early (one
// held envelope per gap instead of every consecutive one) leaves the rest waiting for a re-send
// that the transport's own retry or a reconnect's resync usually supplies — slow, and invisible to
// every quiescence check; with the retry off and no reconnect, lost.
#include <string>

#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class PushDrain : public PropertyFamily {
 public:
  MaybeViolation AfterStepAuthority(const World& w) override {
    for (const ClientState& c : w.clients) {
      if (c.link == nullptr) continue;
      int64_t run = c.link->pushes_base;
      while (c.link->pushes_delivered.contains(run + 1)) ++run;
      const int64_t lmid = w.authority->lmid(c.id);
      if (lmid >= run) continue;
      return Violation{"push-drain",
                       StrCat(c.id, ": the authority's lmid is ", lmid, " but every mid up to ",
                              run, " has reached it (pushes delivered since lmid ",
                              c.link->pushes_base, ")")};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakePushDrain() { return std::make_unique<PushDrain>(); }

}  // namespace rindle::props
