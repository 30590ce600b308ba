// no_lost_writes.cc — no-lost-writes (families.h; SPEC §4): at quiescence no client holds a
// pending mutation and the authority processed every mid each client issued (1..nextMid-1).
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class NoLostWrites : public PropertyFamily {
 public:
  MaybeViolation AtQuiescenceClient(const World& w, const ClientState& c) override {
    const OptimisticBackend& b = *c.backend;
    if (!b.pending().empty()) {
      return Violation{"no-lost-writes", StrCat(c.id, ": ", b.pending().size(),
                                                " mutations still pending at quiescence")};
    }
    const int64_t issued = b.inspect().next_mid - 1;
    const int64_t processed = w.authority->lmid(c.id);
    if (processed != issued) {
      return Violation{"no-lost-writes", StrCat(c.id, ": issued mids 1..", issued,
                                                " but the authority processed through ",
                                                processed)};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeNoLostWrites() { return std::make_unique<NoLostWrites>(); }

}  // namespace rindle::props
