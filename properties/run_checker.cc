// run_checker.cc — MakeRunChecker (families.h): the simulated run's families in reporting order.
// The order reproduces the runner's historical check order: health first; per client
// view==fresh, head==sync+pending, gapless mids, the seed-002 surface; at quiescence per client
// no-lost-writes then convergence, then the authority replay, the ledger oracle and the
// authority store; local-only tables after every other step check.
#include "base/check.h"
#include "properties/families.h"

namespace rindle::props {

Checker MakeRunChecker(OptimisticInvariants* invariants) {
  RINDLE_CHECK(invariants != nullptr);
  Checker checker;
  AuthorityModelFamilies authority = MakeAuthorityModel();
  checker.Add(MakeHealth());
  checker.Add(MakeViewFresh());
  checker.Add(MakeHeadSyncPending());
  checker.Add(std::move(authority.replay));  // quiescence only: before the ledger oracle
  checker.Add(MakeGaplessMids());
  checker.Add(MakeOptimistic(invariants));
  checker.Add(MakeNoLostWrites());
  checker.Add(MakeConvergence());
  checker.Add(std::move(authority.store));  // quiescence only: after the ledger oracle
  checker.Add(MakeLocalTables());
  return checker;
}

}  // namespace rindle::props
