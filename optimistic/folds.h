// folds.h — the client's open fold windows (seed 002 `invokeFolded` / `flushFolds`,
// FOLDED-MUTATIONS-DESIGN §1–§9): per fold key one record naming its single pending entry, the
// window's timers on the FoldClock, flush, drain-overlapping (flush-on-enqueue), creation order
// and the overtaken-fold detection behind head_reordered(). Holds state; not thread-safe.
//
// InvokeFolded applies the prediction now with the READ TRAP armed (RunMode::kFolded: a public
// Get/GetRow/Query fails with a fold-read error and nothing is consumed; the keyed writers'
// internal probes stay legal). A fold key is "name\0" + compact JSON of FoldOptions::key. Absorb collapses every invoke of one
// key into ONE pending entry whose args are overwritten in place (mid and seq stay unset). The
// window flushes after `debounce_ms` of quiet (Arm re-arms on each invoke), at the first invoke
// once `max_wait_ms` has passed since the window opened, on FlushFold(key) / FlushFolds()
// (creation order), or when a normal Invoke's touched tables overlap the fold's (DrainOverlapping,
// flush-on-enqueue §4.2 — unless `defer_across_writes`). Overlap is judged on the fold's
// FOOTPRINT: the tables its entry wrote plus the tables its keyed writers probed (union over the
// window's invokes). A folded update of a missing row writes nothing, yet it branched on that
// row (seed 002 H-ii §3.2 #3), so a write inserting the row can observe it and must get the
// larger mid ("wire order == local-apply order for any pair that can observe each other").
// Domains (seed 002 §7.1): every Absorb stamps the entry's PROVISIONAL domain resolved from the
// latest args; Flush RE-RESOLVES it from the final args and deals the mid from that domain's
// ledger (the mid then pins it). `room_debounce_ms` (seed 002 §9.3 roomDebounceMs): a window
// whose write routes into a room (its domain at the first invoke is not the daemon) flushes at
// that interval — both its debounce and its maxWait — so intermediates stream to the room;
// off the room it is ignored. The cadence is fixed for the window at its first invoke.
// Flush deals the mid and seq (SEND order,
// so gapless) and pushes the envelope with the LAST args. Unflushed folds re-invoke after every
// dealt seq, in creation order. Timers run on the clock (never wall time); a due timer calls the
// `on_due` callback (the backend's guarded FlushFold).
//
// head_reordered (seed 002 §4.2 "the read-dependent reorder snap") is set when head may
// legitimately differ from sync ⊕ replay(pending): a normal write read or wrote a table in an
// OPEN fold's footprint (NoteOvertaken: one the drain did not flush — deferAcrossWrites, or a
// read-only overlap), or an open fold was re-invoked after a later-created open fold touching the same
// tables, or a fold flushed (took a seq, so it now replays first) while another open fold touches
// the same tables; the next reconcile replays them in seq / creation order instead and clears it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "optimistic/fold_clock.h"
#include "optimistic/health.h"
#include "optimistic/ledger.h"
#include "optimistic/source.h"
#include "optimistic/write_set.h"

namespace rindle {

inline constexpr int64_t kDefaultFoldDebounceMs = 120;

// A folded call site's policy (seed 002 `FoldOptions`). Times are virtual ms.
struct FoldOptions {
  nlohmann::json key;                  // identity half of the fold key (e.g. the target pk)
  int64_t debounce_ms = 120;           // trailing debounce after the LAST invoke
  std::optional<int64_t> max_wait_ms;  // cap from the window's first invoke; unset = unbounded
  bool defer_across_writes = false;    // keep deferring across overlapping normal writes
  std::optional<int64_t> room_debounce_ms;  // §9.3 cadence when the window routes into a room
};

class Folds {
 public:
  struct Record {
    uint64_t entry_id = 0;  // its PendingMutation::id
    uint64_t created = 0;   // creation order (flushFolds / drain order)
    std::string name;
    nlohmann::json args;    // the latest args (what the flush ships)
    int64_t first_at = 0;   // clock time of the window's first invoke
    int64_t debounce_ms = kDefaultFoldDebounceMs;
    std::optional<int64_t> max_wait_ms;
    bool defer_across_writes = false;
    std::optional<FoldClock::TimerId> timer;
    std::set<std::string> probed;  // tables the window's invokes probed (footprint's read half)
  };

  // `clock` may be null (then Absorb/Arm must not be called); the rest must outlive this object.
  // `resolve` is the declared domain of (name, args) (domains.h); `push` ships a flushed
  // envelope of a domain; `on_due` is called with the key when a window's timer fires.
  using Resolve = std::function<std::string(const std::string& name, const nlohmann::json& args)>;
  using Push = std::function<void(const std::string& domain, const MutationEnvelope&)>;
  Folds(FoldClock* clock, Ledger* ledger, const ClientHealth* health, Resolve resolve,
        std::string client_id, Push push, std::function<void(const std::string&)> on_due);
  // Clears the open timers (they would call into a destroyed backend).
  ~Folds();

  static std::string Key(const std::string& name, const nlohmann::json& key);

  bool IsOpen(const std::string& key) const { return folds_.count(key) > 0; }
  // One folded invoke's bookkeeping after its prediction committed: overwrite the open window's
  // entry, or (after flushing a window whose entry a failed re-invocation dropped) open one.
  void Absorb(const std::string& key, const std::string& name, const nlohmann::json& args,
              const FoldOptions& opts, WriteSet writes, const std::set<std::string>& probed,
              int64_t now);
  // Re-arms the trailing debounce — or flushes now when the maxWait cap is due.
  void Arm(const std::string& key, int64_t now);
  // Closes the window and ships it (no-op for an unknown key). The caller has checked re-entry.
  void Flush(const std::string& key);
  // Flush-on-enqueue (§4.2): flushes, in creation order, every non-deferring window whose
  // footprint meets `tables`. Postcondition (CHECKed; the flush-on-enqueue property reads it): no
  // open non-deferring window's footprint meets `tables`.
  void DrainOverlapping(const std::set<std::string>& tables);
  // A normal write that read or wrote a table a still-open fold wrote (see above).
  void NoteOvertaken(const WriteSet& writes, const ReadLog& reads);
  std::vector<std::string> InCreationOrder() const;

  const std::map<std::string, Record>& records() const { return folds_; }
  bool head_reordered() const { return head_reordered_; }
  void ClearReordered() { head_reordered_ = false; }

 private:
  // The window's footprint: its entry's written tables ∪ its probed tables (see above).
  static std::set<std::string> Footprint(const Record& f, const PendingMutation& entry);
  // Sets head_reordered when an open window (created after `after`, if given) touches `tables`.
  void NoteOpenOverlap(const std::set<std::string>& tables, std::optional<uint64_t> after);

  FoldClock* clock_;
  Ledger* ledger_;
  const ClientHealth* health_;
  Resolve resolve_;
  std::string client_id_;
  Push push_;
  std::function<void(const std::string&)> on_due_;
  std::map<std::string, Record> folds_;  // by fold key
  uint64_t next_created_ = 0;
  bool head_reordered_ = false;
};

}  // namespace rindle
