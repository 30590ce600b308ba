// swap.h — the client's room view plane, moving views and subs between authorities (seed 002
// 302 §4.1 `processSwapIns` / `markSubHydrated`'s swap queue / the late join in `retainRemote`,
// §6.1 `onRoomContextJoin`, I-iv `retargetRemoteQuery` / `flushRetargetGc` / the wrong-channel
// grace in `onFrame`). Holds state: the queued swap-ins, which views are swapped onto which room,
// the views the context-join event fired for, the retargets awaiting their old-channel GC, and
// the room counters (shared with downgrade.h). Not thread-safe.
//
// Swap-in: a ROOM sub's first released snapshot queues it (QueueSwapIn); at the release TAIL —
// strictly after the reconcile folded that snapshot into the room's twins (swapping earlier would
// hydrate the view empty, a flash) — ProcessSwapIns re-registers each of its views' engine query
// on the AST remapped onto the twins (room_tables.h RemapAstTables), in place (views.h Rebind:
// one transition), records it swapped, and adds the twins to its pending axis (union: the wire
// names stay). A view already swapped onto that room is skipped; a room with no twins swaps
// nothing. A late joiner (a view retaining an already-hydrated room sub) swaps at once
// (SwapLateJoiner). The context-join event (302 §6.1): a swapping view that still reads tables
// the room does not own (and that are not local) fires `context_join` ONCE per view, before the
// owned-table check (an all-context room swaps nothing yet still starves every ref).
//
// Retarget (Retarget(remote, key), two phases): validated before anything moves — `key` must be
// connected (NotFound) and the sub live (NotFound); a sub already on `key` returns at once
// (idempotent per target; counted nothing). Phase 1 (Subscriptions::Move): the old channel
// unregisters the sub and drops its buffered frames but KEEPS its rows (the view still reads
// them), the sub re-registers on `key` with its hydration re-armed. Phase 2 (FlushRetargetGc, at
// the end of every release of the sub's new channel): once that channel released the sub's first
// snapshot, the OLD channel's rows for the sub are dropped and reconciled out (a GC server delta)
// — after the swap, so invisible to the swapped views. Until then old-channel frames for the sub
// are stale, not a wiring bug (InGrace) — and so are they AFTER the cutover while the sub has
// not re-entered that channel: the old channel may have sent them before it processed the
// unsubscribe, and its link is independent of the new channel's, so they can arrive after the new
// channel's first snapshot released (seed 6 --room-views on: the daemon's hello and snapshot of a
// sub retargeted 20 ms after its retain, delivered after the room's). Seed 002 ends the grace
// with the deferred GC and throws then (a wiring error); a frame on a channel the sub never
// lived on still is one. A sub released mid-window GCs its old channel with its
// release (TakeRetargetGc). A vanished old channel (a demote disconnected it) GCs nothing: its
// pending GCs are forgotten at the disconnect (ForgetGcFrom).
// Errors: Retarget's validation; an engine failure of a swap or a GC lands in the shared health.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "optimistic/channels.h"
#include "optimistic/health.h"
#include "optimistic/reconcile.h"
#include "optimistic/room_tables.h"
#include "optimistic/source.h"
#include "optimistic/subscriptions.h"
#include "optimistic/views.h"

namespace rindle {

// Counters of the room plane, for the campaign summary (the simulator reads them).
struct RoomCounters {
  int64_t swap_ins = 0;         // views swapped onto twins at a release tail
  int64_t late_join_swaps = 0;  // views swapped at retain (a late joiner)
  int64_t swap_backs = 0;       // views swapped back at a ghost drop (downgrade.h)
  int64_t context_joins = 0;    // context-join events fired
  int64_t retargets = 0;        // phase 1 moves (an idempotent no-op is not counted)
  int64_t retarget_gcs = 0;     // phase 2 old-channel GCs run
  int64_t grace_frames = 0;     // old-channel frames ignored in the grace window
  int64_t demotes = 0;          // DemoteRoomSource calls that armed or renewed a ghost
  int64_t ghost_drops = 0;
  int64_t ghosts_cancelled = 0;  // a reconnect cancelled a pending ghost
  int64_t stuck_events = 0;
  int64_t cross_authority_warnings = 0;  // room_tables.h NoteCrossAuthority fired
};

// The 302 §6.1 context-coverage event: a view swapping onto room `source_key`'s twins still reads
// `tables` (wire names) the room does not own — they keep reading the daemon's plain tables.
struct RoomContextJoinEvent {
  std::string source_key;
  std::string name;
  nlohmann::json args;
  std::vector<std::string> tables;
};

class RoomSwaps {
 public:
  // Every pointer must outlive this object.
  RoomSwaps(Channels* channels, Subscriptions* subs, Views* views, RoomTables* rooms,
            Reconciler* reconcile, const std::set<std::string>* local_tables,
            ClientHealth* health, RoomCounters* counters);

  // --- swap-in ---
  void QueueSwapIn(int64_t source_qid);
  void ProcessSwapIns();
  void SwapLateJoiner(int64_t source_qid);
  std::vector<int64_t> SwappedOnto(const std::string& source_key) const;  // ascending
  std::optional<std::string> SwappedTo(int64_t qid) const;
  void ForgetSwap(int64_t qid) { swapped_.erase(qid); }
  // View teardown: its swap record and its context-join mark.
  void ForgetView(int64_t qid);

  // --- retarget ---
  absl::StatusOr<int64_t> Retarget(const RemoteQuery& remote, const std::string& source_key);
  void FlushRetargetGc(const std::string& channel);
  // Whether a frame for `source_qid` on `channel` is stale: the window's old channel, or any
  // channel the sub left since (see the header comment). ForgetLeft: the sub is gone.
  bool InGrace(int64_t source_qid, const std::string& channel) const;
  void ForgetLeft(int64_t source_qid) { left_.erase(source_qid); }
  // The old channel of a sub released mid-window (the record goes); nullopt when none.
  std::optional<std::string> TakeRetargetGc(int64_t source_qid);
  // Channel `channel` is disconnecting: the retargets that left it have nothing to GC there any
  // more (its incarnation is gone; a reconnect's adopted row record must keep what the frozen
  // twins show — backend.h ConnectSource).
  void ForgetGcFrom(const std::string& channel) {
    std::erase_if(retarget_gc_, [&](const auto& e) { return e.second == channel; });
  }
  // GCs `source_qid`'s rows off `channel` (its delta mapped through its twins) as a server delta.
  void GcOn(const std::string& channel, int64_t source_qid, const std::string& what);

  std::function<void(const RoomContextJoinEvent&)> context_join;

 private:
  // Swaps the views the sub behind `source_qid` feeds; returns how many moved.
  int SwapSub(int64_t source_qid);
  void NoteContextJoin(int64_t qid, int64_t source_qid, const std::string& key,
                       const RoomTableMap& map);

  Channels* channels_;
  Subscriptions* subs_;
  Views* views_;
  RoomTables* rooms_;
  Reconciler* reconcile_;
  const std::set<std::string>* local_tables_;
  ClientHealth* health_;
  RoomCounters* counters_;
  std::set<int64_t> queued_;                   // source qids whose first snapshot released now
  std::map<int64_t, std::string> swapped_;     // view qid → the room it reads
  std::set<int64_t> context_warned_;           // views the context-join event fired for
  std::map<int64_t, std::string> retarget_gc_;  // source qid → the channel it left
  std::map<int64_t, std::set<std::string>> left_;  // source qid → channels it left, not re-entered
};

}  // namespace rindle
