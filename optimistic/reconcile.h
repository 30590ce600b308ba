// reconcile.h — the release → reconcile cycle (seed 002 `applyRelease` / the rebase cycle, §5.1,
// CRIT#2): confirm-drop, then the server delta rebased under every pending prediction. Holds
// state: the replay observer and the cycle counter; everything else it drives (engine, ledger,
// views, folds) belongs to the backend.
//
// ApplyRelease(delta, newly): every pending entry with mid ≤ watermark[its domain] is dropped
// (Ledger::DropConfirmed); if the delta is non-empty or pending shrank, the cycle runs; then the
// axes refresh and each just-hydrated view the release delivered nothing to gets an explicit
// empty catch-up. RunCycle(delta): ServerBatchBegin(source, delta), re-invoke ALL pending in SEND
// (seq) order with unflushed folds last (a failing re-invocation is dropped from pending — its
// mid still confirms, burnt, upstream; write-sets merge union-never-shrink), ServerBatchEnd, fold
// the batches into the views. A completed cycle clears head_reordered (head == sync ⊕ replay
// again). RunGc runs a released sub's GC delta through the same cycle: the GC must leave BOTH
// head and sync — a server delta, never an optimistic remove (CRIT#2).
// Errors: an engine failure inside a cycle is returned by RunCycle; ApplyRelease and RunGc record
// it in the shared health. A cycle never nests (CHECKed).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "optimistic/folds.h"
#include "optimistic/health.h"
#include "optimistic/ledger.h"
#include "optimistic/mutator_registry.h"
#include "optimistic/room_tables.h"
#include "optimistic/views.h"

namespace rindle {

class Reconciler {
 public:
  // Every pointer must outlive this object.
  Reconciler(Db* db, ClientHealth* health, const MutatorRegistry* registry, const Schema* schema,
             const std::set<std::string>* local_tables, Ledger* ledger, Views* views,
             Folds* folds);

  void ApplyRelease(const std::string& source, const std::vector<ServerDeltaOp>& delta,
                    const std::set<int64_t>& newly);
  // `newly` / `caught_up` as in Views::ApplyBatches.
  absl::Status RunCycle(const std::string& source, const std::vector<ServerDeltaOp>& delta,
                        const std::set<int64_t>* newly = nullptr,
                        std::set<int64_t>* caught_up = nullptr);
  // `what` names the caller in the health message.
  void RunGc(const std::string& source, const std::vector<ServerDeltaOp>& gc,
             const std::string& what);

  int64_t cycles() const { return cycles_; }

  // (entry, ok) for every re-invocation, in replay order.
  std::function<void(const PendingMutation&, bool ok)> replay_observer;
  // The staging map an entry re-stages through (its CURRENT domain's, room_tables.h; a
  // deopt-flipped entry's is the daemon's: none). Unset: no staging.
  std::function<const RoomTableMap*(const std::string& domain)> stage_for;
  // ApplyRelease's room hooks (downgrade.h): `before_cycle` runs right after the confirm-drop
  // (true forces the cycle: a ghost drop unregistered staged twins), `after_cycle` after it.
  std::function<bool()> before_cycle;
  std::function<void()> after_cycle;

 private:
  // Re-invokes every pending entry on the open batch; failed ones land in `dropped`.
  absl::Status Replay(std::set<size_t>* dropped);

  Db* db_;
  ClientHealth* health_;
  const MutatorRegistry* registry_;
  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  Ledger* ledger_;
  Views* views_;
  Folds* folds_;
  int64_t cycles_ = 0;
};

}  // namespace rindle
