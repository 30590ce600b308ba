// downgrade.h — the client's room downgrade (seed 002 I-v re-expressed by 302 §4.2:
// `demoteRoomSource`'s ghost, `evaluateGhosts`, `dropGhost`, `onDowngradeStuck`, the reconnect
// cancel in `connectSource`). Holds state: the ghosts by room source key. Not thread-safe.
//
// A ghost is a demoted room whose channel is gone but whose twins — and the views swapped onto
// them — stay, frozen at the room's last state, until the daemon plane provably absorbed the
// room's final flush (swapping back earlier would show the follower's pre-flush images). Arm(key,
// doc, final_flush_seq): a new ghost, or — a second demote of the same room — the existing one's
// fence raised to the max (never an older fence). Cancel(key): a reconnect of the room cancels a
// pending ghost (the live room keeps its twins and swapped views). Evaluate() runs after every
// release and at demote time; for each ghost whose room has no live channel:
//   fence: room_watermark(doc) ≥ final_flush_seq (0 is trivially satisfied), AND
//   no SENT room-domain mutation remains (pending entries with domain == key and a mid — they
//   retire only through outcome resolution, §7.5);
// both ⇒ DROP, in one step: every view swapped onto the room detaches, the twins unregister, ONE
// daemon reconcile re-stages the pending set onto the daemon tables (the staging map is gone), and
// the views re-register on their original ASTs (views.h Rebind: one transition each). Fence met
// but sent mids remain ⇒ `stuck` fires ONCE per ghost naming exactly those mids (mid order), and
// the ghost HOLDS — no timeout retire. The fence reads `room_watermark`, the client's
// roomWatermarks[doc] (system_streams.h, folded inside the channel's release before the cycle).
// Errors: an engine failure of the drop lands in the shared health (the ghost is gone either way).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "optimistic/channels.h"
#include "optimistic/health.h"
#include "optimistic/ledger.h"
#include "optimistic/reconcile.h"
#include "optimistic/room_tables.h"
#include "optimistic/subscriptions.h"
#include "optimistic/swap.h"
#include "optimistic/views.h"

namespace rindle {

// The stuck-downgrade event: the ghost's fence is satisfied but these SENT room-domain mids never
// resolved.
struct DowngradeStuckEvent {
  std::string source_key;
  std::string doc;
  std::vector<int64_t> mids;
};

class Downgrades {
 public:
  struct Ghost {
    std::string doc;
    int64_t final_flush_seq = 0;
    bool stuck_reported = false;  // the ONE stuck event already fired
  };

  // Every pointer must outlive this object.
  Downgrades(Channels* channels, const Subscriptions* subs, Ledger* ledger, Views* views,
             RoomTables* rooms, RoomSwaps* swaps, Reconciler* reconcile, ClientHealth* health,
             RoomCounters* counters);

  void Arm(const std::string& source_key, const std::string& doc, int64_t final_flush_seq);
  void Cancel(const std::string& source_key);
  // Standalone (demote time, the watermark test seam): detach, one cycle if pending, reattach.
  void Evaluate();
  // The release hooks (reconcile.h before_cycle / after_cycle). BeforeCycle returns whether a
  // drop needs the cycle to run (pending entries to re-stage).
  bool BeforeCycle();
  void AfterCycle();
  bool Has(const std::string& source_key) const { return ghosts_.count(source_key) > 0; }
  const std::map<std::string, Ghost>& ghosts() const { return ghosts_; }

  std::function<int64_t(const std::string& doc)> room_watermark;
  std::function<void(const DowngradeStuckEvent&)> stuck;

 private:
  // The ghosts due to drop now (firing the stuck event where due).
  std::vector<std::string> Due();
  // Drop step 1: the ghosts go, their views detach, their twins unregister; the views to rebind
  // land in `detached_`.
  void Detach(const std::vector<std::string>& keys);
  bool Ready(const std::string& key, Ghost& ghost);

  Channels* channels_;
  const Subscriptions* subs_;
  Ledger* ledger_;
  Views* views_;
  RoomTables* rooms_;
  RoomSwaps* swaps_;
  Reconciler* reconcile_;
  ClientHealth* health_;
  RoomCounters* counters_;
  std::map<std::string, Ghost> ghosts_;
  std::vector<int64_t> detached_;  // views awaiting their swap-back Rebind
};

}  // namespace rindle
