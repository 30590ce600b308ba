// families.h — the catalogue of the simulated run's property families (checker.h), one .cc per
// family, and the action-time checks the runner applies right after an action (before that
// step's checks). Each factory returns a fresh family; stateful ones (gapless-mids: the ledger
// oracle and the watermarks seen; authority-model: the replayed store) keep memory for one run.
// MakeRunChecker registers them in the order that fixes which property is reported first.
//
//   health.cc              authority-health, client-health (first, every step)
//   view_fresh.cc          events==view and view==fresh on every dirty client's remote views;
//                          view==fresh on every authority subscription (SPEC §4.1, §4.2)
//   head_sync_pending.cc   head==sync+pending and consistent-view against the client model
//                          (oracles/client_model.h, fed only by the harness's record), skipped
//                          inside the accepted §4.2 reorder window as the model decides it
//                          (check.model_reorder_window_skip); head-reorder-report: inside the
//                          model's window the backend's head_reordered() must be set too
//   applied_once.cc        applied-once: the released lmid and each data source's rows agree
//                          with the authority's processed log at the source's cut
//   gapless_mids.cc        mids: sent 1..n, confirmation watermark monotone, the authority
//                          processed each client's mids in order once, the ledger oracle at
//                          quiescence; and at action time a (folded) invoke deals mids only as
//                          it and the fold flushes it caused say (SPEC §3)
//   optimistic.cc          the seed-002 surface (optimistic_invariants.h) behind the interface
//   no_lost_writes.cc      at quiescence nothing is pending and the authority processed every
//                          issued mid
//   convergence.cc         at quiescence views and synced rows equal the authority's store as
//                          the client can know it under projection (masked by Coverage)
//   authority_model.cc     the authority's log replays to the same fates and store
//   local_tables.cc        local-only tables == what the client wrote; local-only views are
//                          complete and fresh; at action time a write_local's outcome
//   resend_faithful.cc     every re-send of a mid carries its first send's name and args
//   no_flicker.cc          a view's rows never drop or change without a local action or released
//                          data (from the tap's StepRecord) that explains it
//   cv_promise.cc          no data frame at or below a delivered cvMin on one connection; no data
//                          released older than a released confirmation (the tap's StepRecord)
//   room_ledger.cc         the room plane (issue 12): room mids gapless per (client, room), a
//                          room entry never retired before its room processed it, rejections
//                          surfaced once with the room's reason, a delivered deopt processed
//                          once by the daemon; at action time channel isolation
//   room_ledger_seq.cc     room-deopt-seq: the pending entries' seq order is the harness's one
//                          deal order, a deopt flip keeping its room mid's place
//   fence_liveness.cc      no resync fence holds progress past a bound once every registration
//                          the link carried has its snapshot delivered (the harness's record)
//   push_drain.cc          the authority processed every mid whose push reached it with all its
//                          predecessors (the harness's record of delivered pushes)
//   limit_page.cc          a limited view is never shorter than the authority's state at its
//                          cut with the client model's pending predictions fills (the +1 witness)
//   folds.cc               at action time: a fold-legal folded invoke is accepted, FlushFolds
//                          leaves no window open, flush-on-enqueue (seed 002 §4.2)
// Source: SPEC §3, §4; seed 002 §4.2, §5.1.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "optimistic/inspect.h"
#include "properties/checker.h"
#include "properties/fresh_memo.h"
#include "properties/optimistic_invariants.h"

namespace rindle::props {

std::unique_ptr<PropertyFamily> MakeHealth();
// `memo` (optional, shared between the families that ask the fresh-query oracle): fresh_memo.h.
std::unique_ptr<PropertyFamily> MakeViewFresh(std::shared_ptr<FreshMemo> memo = nullptr);
// `invariants` (the runner's, feeding the client models) must outlive the families.
std::unique_ptr<PropertyFamily> MakeHeadSyncPending(OptimisticInvariants* invariants,
                                                    std::shared_ptr<FreshMemo> memo = nullptr);
std::unique_ptr<PropertyFamily> MakeAppliedOnce(OptimisticInvariants* invariants);
// The live views of `c` as the optimistic invariants key them.
std::map<int64_t, ViewInfo> ViewInfosOf(const ClientState& c);
class LedgerFeed;  // ledger_feed.h: the run's ledger oracle, shared by the two families below
// `feed` (optional: a fresh one) is shared with MakeRoomLedger.
std::unique_ptr<PropertyFamily> MakeGaplessMids(std::shared_ptr<LedgerFeed> feed = nullptr);
// `invariants` must outlive the family (the runner feeds it frames and folded invokes).
std::unique_ptr<PropertyFamily> MakeOptimistic(OptimisticInvariants* invariants);
std::unique_ptr<PropertyFamily> MakeNoLostWrites();
std::unique_ptr<PropertyFamily> MakeConvergence();
// Two phases of one family: the replay (fates agree) runs before the ledger oracle, the store
// comparison after it.
struct AuthorityModelFamilies {
  std::unique_ptr<PropertyFamily> replay;
  std::unique_ptr<PropertyFamily> store;
};
AuthorityModelFamilies MakeAuthorityModel();
std::unique_ptr<PropertyFamily> MakeLocalTables();
std::unique_ptr<PropertyFamily> MakeResendFaithful();
// `invariants` must outlive the family (its StepRecord is the tap these read).
std::unique_ptr<PropertyFamily> MakeNoFlicker(OptimisticInvariants* invariants);
std::unique_ptr<PropertyFamily> MakeCvPromise(OptimisticInvariants* invariants);
// room_ledger.cc: room-gapless-mids, room-retire, room-rejection, room-deopt-once (and the ledger
// oracle's room domains; no-lost-writes for room mids). `feed`: shared with MakeGaplessMids.
std::unique_ptr<PropertyFamily> MakeRoomLedger(std::shared_ptr<LedgerFeed> feed = nullptr);
// room_ledger_seq.cc: room-deopt-seq (and replay-order across domains) against the harness's
// deal record (world.h DealRecord). Counts its own check.room-deopt-seq.checked.
std::unique_ptr<PropertyFamily> MakeRoomDeoptSeq();
// channel-isolation: per channel key, (appliedCv, buffered frames) before and after one frame
// delivered on `delivered_on`; every other channel must be unchanged.
MaybeViolation CheckChannelIsolation(const std::string& client, const std::string& delivered_on,
                                     const std::map<std::string, std::pair<int64_t, size_t>>& before,
                                     const std::map<std::string, std::pair<int64_t, size_t>>& after);
// room-watermark (seed 002 system streams: watermark rows fold by monotone max into
// roomWatermarks[doc]): after a daemon frame, the client's reported fence per doc EQUALS the
// highest flush_seq the harness released to it (`released_max`, recorded before the frame: a doc
// absent there has no released row, so reports 0 or nothing). Above it: a fence from no row;
// below it: the fence fell back — an older flush_seq row (an authority restored from an older
// backup, daemon.h RollBack) overwrote it. The expectation is the harness's record only: the
// client's earlier reports are never the reference.
MaybeViolation CheckRoomWatermarks(const std::string& client,
                                   const std::map<std::string, int64_t>& released_max,
                                   const std::map<std::string, int64_t>& reported);
std::unique_ptr<PropertyFamily> MakeFenceLiveness(OptimisticInvariants* invariants);
std::unique_ptr<PropertyFamily> MakePushDrain();
// `invariants` must outlive the family (its client models give the cut and the predictions).
std::unique_ptr<PropertyFamily> MakeLimitPage(OptimisticInvariants* invariants);

// Every family of a simulated run, in reporting order.
Checker MakeRunChecker(OptimisticInvariants* invariants);

// --- action-time checks (gapless_mids.cc) ---
// A folded invoke moved nextMid by `dealt` while `flushes` fold flushes happened.
MaybeViolation CheckFoldedInvokeDeals(const std::string& client, const std::string& name,
                                      int64_t dealt, int64_t flushes);
// A mutator failed client-side: nextMid may have moved only by the fold flushes it caused.
MaybeViolation CheckRejectedInvokeDeals(const std::string& client, const std::string& name,
                                        int64_t next_mid_before, int64_t next_mid_after,
                                        int64_t flushes);

// --- action-time checks (folds.cc) ---
// A folded invoke of `name` was refused with `status` (the workload's blind keyed writers are
// fold-legal: the read trap must not fire for them).
MaybeViolation CheckFoldRefusal(const std::string& client, const std::string& name,
                                const nlohmann::json& args, const absl::Status& status);
// FlushFolds left `open` fold windows open.
MaybeViolation CheckFlushFoldsClosedAll(const std::string& client, size_t open);
// Flush-on-enqueue: after a normal invoke took `mid`, no open fold that does not defer across
// writes shares a table with it.
MaybeViolation CheckFlushOnEnqueue(const std::string& client, const std::string& name,
                                   int64_t mid, const Inspect& inspect);

// --- action-time checks (local_tables.cc) ---
// The outcome of a write_local batch (`synced`: it had a kSyncedWrite intent, which the backend
// must refuse with a non-Internal error).
MaybeViolation CheckWriteLocalOutcome(const std::string& client, bool synced,
                                      const absl::Status& status);

}  // namespace rindle::props
