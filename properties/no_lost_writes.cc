// no_lost_writes.cc — no-lost-writes (families.h; SPEC §4): at quiescence no client holds a
// pending mutation and the authority processed every mid each client issued (1..nextMid-1); after
// an authority rollback, every forgotten mid of a client that did not refuse was processed again
// as it was first sent (ledger_rollback.h).
#include "properties/no_lost_writes.h"

#include "base/str_util.h"
#include "properties/families.h"
#include "properties/ledger_rollback.h"

namespace rindle::props {

std::string DescribePendingAtQuiescence(const std::string& client,
                                        const std::vector<PendingMutation>& pending) {
  constexpr size_t kListed = 5;
  std::string out = StrCat(client, ": ", pending.size(), " mutations still pending at quiescence");
  for (size_t i = 0; i < pending.size() && i < kListed; ++i) {
    const PendingMutation& p = pending[i];
    std::string args = p.args.dump();
    if (args.size() > 120) args = StrCat(args.substr(0, 117), "...");
    StrAppend(&out, i == 0 ? ": " : "; ", p.mid ? StrCat("mid ", *p.mid) : std::string("unsent"),
              " ", p.name, " ", args, " (domain ", p.domain, ")");
  }
  if (pending.size() > kListed) StrAppend(&out, "; ... and ", pending.size() - kListed, " more");
  return out;
}

namespace {

class NoLostWrites : public PropertyFamily {
 public:
  MaybeViolation AtQuiescenceClient(const World& w, const ClientState& c) override {
    const OptimisticBackend& b = *c.backend;
    if (!b.pending().empty()) {
      return Violation{"no-lost-writes", DescribePendingAtQuiescence(c.id, b.pending())};
    }
    const int64_t issued = b.inspect().next_mid - 1;
    const int64_t processed = w.authority->lmid(c.id);
    if (processed != issued) {
      return Violation{"no-lost-writes", StrCat(c.id, ": issued mids 1..", issued,
                                                " but the authority processed through ",
                                                processed)};
    }
    return CheckRollbackRecovered(w, c);
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeNoLostWrites() { return std::make_unique<NoLostWrites>(); }

}  // namespace rindle::props
