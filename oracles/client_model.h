// client_model.h — a naive reference model of what ONE optimistic client should show (seed 002
// §1.3 release, §4.1 pending/replay, NormalizedSync; SPEC §4.3), fed only by what the harness
// itself recorded: the server frames the network delivered to the client, the envelopes the
// client sent first-time, and the harness's own record of folded invokes. It never reads the
// backend. Holds state.
//
// Delivery (the caller passes only frames the client's gate can see: a live sub or the lmid
// query, not a refused epoch — see properties/optimistic_invariants.cc):
//   * its own GateModel (oracles/gate_model.h) buffers data frames and releases them at progress;
//     an overflow clears the buffer (the client re-registers every query);
//   * per source qid the model keeps the rows that qid shipped — per (table, pk) the cells its
//     hello covers (by name; a table its hello does not list is covered whole), each tagged with
//     a global delivery sequence. A released snapshot replaces the qid's rows; a released batch
//     adds/overwrites, removes (a pk it does not hold: ignored) or edits (a pk move = remove +
//     add). The synced store is the union over data qids: a row is held while some qid holds it;
//     each cell is the most recently delivered value among the qids that cover it; a cell no
//     holder covers is null (absent);
//   * the reserved lmid query (qid 0) ships `_rindle_client_mutations`; the released lmid is the
//     largest last_mutation_id ever released for this client id (a watermark);
//   * cuts: each source is at a cut (boot id, cv) — the gate's appliedCv — from the release of a
//     snapshot of its current epoch on; a hello (new epoch), an overflow or a welcome (a new
//     session: frames in flight on the old one are lost; a new boot also resets the gate) freezes it
//     at the last cut it reached until its next snapshot releases (its rows are kept meanwhile).
// Expected pending: the sent envelopes with mid > released lmid in mid (= send) order, then the
// open fold windows in creation order with their last args; an entry whose replay fails is dead
// (seed 002: a re-invocation that fails on the new base is dropped) and stays dead. A fold window
// closes when a first-time envelope that is not a recorded normal invoke carries its mutator
// name and last args (the oldest such window).
// Expected head: the synced store with the client mutators replayed over it for the expected
// pending, each in one PlainMutationTx (a failing one writes nothing). Each entry's touched
// tables are the union (never shrinking, as seed 002's write sets) of the tables written by its
// first run and by the replays the client itself makes in a reconcile cycle (see below). A
// Refresh for a new invoke alone re-runs the older entries only to build head; the client does
// not re-invoke them then, so their tables and deadness stay — inside the §4.2 reorder window
// (a write that overtook an open fold) the canonical-order re-run may write tables the
// client's entry never wrote (seed 238).
// tables are the union (never shrinking, as seed 002's write sets) of the tables its successful
// replays wrote to.
// Reorder window (seed 002 §4.2): each entry carries the stamps of the harness's first and last
// invoke of it (a normal Invoke, folded invokes; a flush keeps its window's), reset to 0 whenever
// the model sees the client's reconcile cycle (a release that changed synced or retired a live
// entry, a dropped source). Two live entries touching a common table (read, probed or written
// by their replays) where one applied after the other although it replays first mean head holds
// them applied out of replay order, which the seed accepts until the next cycle (InReorderWindow).
// Errors: Refresh returns InvalidArgument for an unregistered mutator or a synced row the plain
// store rejects. A folded invoke into an open window starts its touched tables over (the collapse
// re-runs the prediction with the new args). Source: seed 002 §1.3, §4.1, §4.2, §5.1, lmid-as-data; SPEC §4.3.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"
#include "optimistic/source.h"
#include "oracles/gate_model.h"
#include "oracles/plain_store.h"

namespace rindle {

class ClientModel {
 public:
  // A point of the authority's history: cv within a boot; ordered lexicographically (a new boot's
  // snapshot carries everything of the older boots).
  struct Cut {
    int64_t boot = 0;
    int64_t cv = 0;
    auto operator<=>(const Cut&) const = default;
  };
  struct Entry {
    std::optional<int64_t> mid;  // nullopt: an open fold window
    std::string fold_key;        // the window's key (folds only; kept after it shipped)
    std::string name;
    nlohmann::json args;
    std::set<std::string> tables;  // tables its replays wrote (union, never shrinks)
    bool dead = false;
    // Every table its replays read, probed or wrote (union, never shrinks): what an entry
    // applied out of replay order can interact with it through.
    std::set<std::string> touched;
    // When the harness first and last applied it on head since the last cycle (invoke stamps; a
    // folded invoke re-applies on top of the earlier ones; 0: applied by the cycle).
    int64_t first_applied = 0;
    int64_t last_applied = 0;
    // Not yet run by a Refresh: its first run stands for the client's invoke (or the fold's
    // re-invocation) and counts toward `tables`.
    bool fresh = true;
  };
  struct Source {
    // table → the hello's column names (absent: the whole row).
    std::map<std::string, std::vector<std::string>> columns;
    // (table, pk) → schema column index → (value, delivery seq).
    std::map<std::pair<std::string, RowValues>, std::map<int, std::pair<Value, int64_t>>> rows;
    std::optional<Cut> cut;  // the cut its rows reached
    bool current = false;    // a snapshot of the current epoch released: cut advances
    std::string frozen_by;   // while not current: "welcome", "hello" or "overflow"
    // A hello changed the column map while the source held rows of the old one: until its
    // snapshot releases, which cells of those rows are present is not modelled (the backend
    // re-derives presence lazily, when a row is next touched).
    bool coverage_changed = false;
  };

  // `schema`: the app schema (what the authority ships); `cap`: the gate's buffer cap.
  ClientModel(std::string client_id, Schema schema, size_t cap);

  // --- delivery ---
  void Welcome(int64_t boot_id);
  void Hello(int64_t qid, const std::vector<WireTable>& tables);
  void Data(int64_t qid, const NormalizedEvent& ev);
  void Progress(int64_t cv_min);
  // The sub of `qid` went away: its rows and buffered frames are dropped (it leaves a fence).
  void DropSource(int64_t qid);
  // The sub of `qid` left this channel for another (seed 002 302 retarget, phase 1): its
  // buffered frames are dropped and it leaves a fence, but its rows stay — the view reads them
  // until the new channel's first snapshot released (then DropSource: phase 2's GC). Its cut
  // stops (frozen_by "retarget") until a snapshot of it releases here again.
  void Leave(int64_t qid);
  // The client's resync fence began over `qids` (gate_model.h; the caller decides when: a
  // (re)connect's lmid hello, an overflow re-registration), as the client's gate does.
  void BeginFence(std::set<int64_t> qids) { gate_.BeginFence(std::move(qids)); }
  // The client re-registered `qids` after an overflow (gate_model.h ExpectHellos).
  void ExpectHellos(const std::set<int64_t>& qids) { gate_.ExpectHellos(qids); }
  // The client ran a reconcile cycle on ANOTHER channel (a room's lmid release retired an entry
  // of a room domain, which this single-domain model does not hold): its replays re-ran every
  // pending entry over a base without that entry, so they count (tables, dead) like a cycle's.
  void ForeignCycle() {
    NoteCycle(/*pending_shrank=*/true);
    dirty_ = true;
  }

  // --- the harness's record of the client's writes ---
  // A normal Invoke took `mid` (its envelope is no fold flush).
  void Invoked(int64_t mid);
  // A successful InvokeFolded of the window `fold_key` (mutator FoldName) with `args`.
  void FoldInvoked(const std::string& fold_key, const nlohmann::json& args);
  // A first-time envelope (call in mid order; earlier mids are ignored).
  void Sent(const MutationEnvelope& envelope);
  int64_t last_sent_mid() const { return last_sent_; }

  // Recomputes the expected pending and head when an input changed since the last call.
  absl::Status Refresh(const std::map<std::string, Mutator>& mutators);

  // --- what the client should show (after Refresh) ---
  int64_t released_lmid() const { return lmid_; }
  const std::map<int64_t, Source>& sources() const { return sources_; }
  const PlainTables& synced() const { return synced_; }
  const PlainTables& head() const { return head_.tables(); }
  // The live expected pending entries in replay order (dead ones left out).
  std::vector<const Entry*> Pending() const;
  int64_t boot() const { return boot_; }
  int64_t applied_cv() const { return gate_.applied_cv(); }
  int64_t releases() const { return releases_; }
  // Whether some source is inside the coverage-change window (Source::coverage_changed).
  bool InCoverageChange() const;
  // Whether head may legitimately differ from synced ⊕ replay (seed 002 §4.2 "the read-dependent
  // reorder snap"): since the client's last reconcile cycle, two live pending entries that touch
  // a common table were applied on head in an order other than replay order — a normal write
  // overtaking an open fold window, a window re-invoked after a later-created one, a window
  // flushed (it now replays with its mid) ahead of an older open one. Decided from the
  // harness's invoke record alone; the window closes at the next cycle.
  bool InReorderWindow() const { return OutOfOrderPair().has_value(); }
  // The first such pair (earlier in replay order, later applied), for reports.
  std::optional<std::pair<const Entry*, const Entry*>> OutOfOrderPair() const;
  // The reconcile cycles the model saw (a release that changed synced or retired a live entry;
  // a dropped source whose rows left).
  int64_t cycles() const { return cycles_; }

 private:
  void Apply(int64_t qid, const NormalizedEvent& ev);
  void ApplyLmid(const Source& s, const std::vector<RowOp>& ops);
  // The wire row of `table` (positional against the qid's hello) as schema cells.
  std::map<int, Value> Cells(const Source& s, const std::string& table, const RowValues& row,
                             RowValues* pk) const;
  void Put(Source& s, const std::string& table, const RowValues& row);
  void Erase(Source& s, const std::string& table, const RowValues& row);
  void FreezeAll(const char* why);
  // A release or GC happened: when synced changed or pending shrank the client runs a cycle.
  void NoteCycle(bool pending_shrank);
  void RebuildSynced();
  void Prune();

  std::string client_id_;
  Schema schema_;
  GateModel gate_;
  std::map<int64_t, std::pair<int64_t, NormalizedEvent>> payloads_;  // frame tag → (qid, frame)
  int64_t next_tag_ = 1;
  int64_t boot_ = 0;
  int64_t seq_ = 0;
  int64_t lmid_ = 0;
  int64_t releases_ = 0;
  std::map<int64_t, Source> sources_;
  std::map<int64_t, int64_t> invoked_;  // normal invokes not yet sent: mid → applied stamp
  int64_t applied_ = 0;                 // the last applied stamp dealt
  int64_t cycles_ = 0;
  int64_t last_sent_ = 0;
  std::map<int64_t, Entry> sent_;  // by mid
  std::vector<Entry> windows_;     // open fold windows, creation order
  PlainTables synced_;
  PlainStore head_;
  bool dirty_ = true;
  bool reconciled_ = false;  // the client ran a reconcile cycle since the last Refresh
};

}  // namespace rindle
