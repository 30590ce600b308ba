// run_checker.cc — MakeRunChecker (families.h): the simulated run's families in reporting order.
// The order reproduces the runner's historical check order: health first; per client
// view==fresh, head==sync+pending, gapless mids, the seed-002 surface; at quiescence per client
// no-lost-writes then convergence, then the authority replay, the ledger oracle and the
// authority store; local-only tables after every other step check.
#include "base/check.h"
#include "properties/families.h"
#include "properties/ledger_feed.h"

namespace rindle::props {

Checker MakeRunChecker(OptimisticInvariants* invariants) {
  RINDLE_CHECK(invariants != nullptr);
  Checker checker;
  AuthorityModelFamilies authority = MakeAuthorityModel();
  // The property names each family reports, for the check.<property>.checked/.skipped
  // health counters (checker.h); authority.store reports authority-model too (counted once).
  checker.Add(MakeHealth(), {"authority-health", "client-health"});
  // One fresh-query memo for the families that ask the oracle the same questions (fresh_memo.h).
  auto memo = std::make_shared<FreshMemo>();
  checker.Add(MakeViewFresh(memo), {"events==view", "view==fresh"});
  checker.Add(MakeHeadSyncPending(invariants, memo),
              {"consistent-view", "head==sync+pending", "head-reorder-report"});
  checker.Add(MakeAppliedOnce(invariants), {"applied-once"});
  checker.Add(std::move(authority.replay), {"authority-model"}, CheckedWhen::kQuiescence);
  // One ledger oracle over every domain (ledger_feed.h), read by gapless-mids and the room ledger.
  auto ledger = std::make_shared<LedgerFeed>();
  checker.Add(MakeGaplessMids(ledger), {"gapless-mids"}, CheckedWhen::kBoth);
  checker.Add(MakeResendFaithful(), {"resend-faithful"});
  checker.Add(MakeOptimistic(invariants), {"pending-axis", "superseded-epoch", "replay-order",
                                           "fold-wire", "gate-model", "result-type"});
  checker.Add(MakeNoLostWrites(), {"no-lost-writes"}, CheckedWhen::kQuiescence);
  checker.Add(MakeConvergence(), {"convergence"}, CheckedWhen::kQuiescence);
  checker.Add(std::move(authority.store));  // quiescence only: after the ledger oracle
  checker.Add(MakeLocalTables(), {"local-tables", "local-rows"});
  checker.Add(MakeCvPromise(invariants), {"cv-promise"});
  checker.Add(MakeNoFlicker(invariants), {"no-flicker"});
  checker.Add(MakeRoomLedger(ledger), {"room-gapless-mids", "room-retire", "room-rejection",
                                 "room-deopt-once"},
              CheckedWhen::kBoth);
  checker.Add(MakeRoomDeoptSeq());  // counts check.room-deopt-seq.checked itself (a flip pending)
  checker.Add(MakeFenceLiveness(invariants), {"fence-liveness"});
  checker.Add(MakePushDrain(), {"push-drain"});
  checker.Add(MakeLimitPage(invariants), {"limit-page"});
  return checker;
}

}  // namespace rindle::props
