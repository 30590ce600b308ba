// gate_model.h — a naive reference model of the optimistic client's coherence gate (seed 002
// SourceGate, §5.1; SPEC §4.3), shared by the runner's gate-model property
// (properties/optimistic_invariants.cc) and the client's state-machine test
// (optimistic/backend_state_test.cc). Holds state: the frames the gate buffers, in arrival
// order, and appliedCv.
//
// Rules (the whole gate, nothing about subscriptions or hellos' schemas — callers decide which
// frames reach the gate at all):
//   * a batch with cv ≤ appliedCv — or ≤ a cvMin a fence holds back (appliedCv lags it; every
//     batch it covers came before it on the FIFO link) — is stale and dropped; a snapshot always
//     buffers;
//   * buffering a frame past `cap` frames overflows: the buffer is cleared (the client
//     re-subscribes; what that means is the caller's);
//   * a hello for a qid (or an unsubscribe) drops that qid's buffered frames;
//   * progress at cvMin releases every buffered frame with cv ≤ cvMin in (cv, arrival) order
//     (seed 002 §5.1: a snapshot that overtook an older batch of another query applies after
//     it) and raises
//     appliedCv to max(appliedCv, cvMin);
//   * a restart (a new boot id) clears the buffer and resets appliedCv to 0 (and any fence);
//   * a reconnect (DropAll) drops every buffered frame, appliedCv stays (the old connection's
//     frames in flight were lost, so what is buffered may be an incomplete cv); a fence in
//     force waits for every fenced qid's snapshot again;
//   * a fence (BeginFence: after a resync or an overflow re-registration, over the qids the
//     client re-registered) holds every release until each of those qids has a snapshot
//     buffered (or was forgotten: its sub went away) and cvMin reaches the highest of their
//     cvs; a hello for a fenced qid makes it wait again (its buffered snapshot was dropped);
//     while fenced a batch for a qid still waiting is stale, the cap grows by the number of
//     fenced qids, and a frame a held progress covers (cv ≤ the highest cvMin the fence held
//     back) does not count against it — only the fence holds it (seed 1921);
//   * an overflow re-registration owes one hello per re-registered qid (ExpectHellos): until the
//     last owed hello of a qid is here its snapshot answers an older registration and does not
//     count for the fence (issue 11, the lmid gap); a reconnect or restart forgets what is owed.
// Plain ints only: the model shares no type with optimistic/ (ARCHITECTURE §5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace rindle {

class GateModel {
 public:
  struct Frame {
    int64_t qid = 0;
    int64_t cv = 0;
    bool snapshot = false;  // false: a batch
    int64_t epoch = 0;      // the caller's tag (seed 002: the qid's hello epoch); not interpreted
    int64_t tag = 0;        // another caller's tag (the tap: an lmid frame's confirmed mid)
  };
  enum class Arrival { kStale, kBuffered, kOverflow };

  explicit GateModel(size_t cap);

  // A data frame (batch or snapshot) arrives.
  Arrival Push(const Frame& frame);
  // Drops every buffered frame of `qid` (its hello); returns how many.
  size_t Drop(int64_t qid);
  // The same when `qid`'s sub went away (it also leaves the fence).
  size_t Forget(int64_t qid);
  // A reconnect: drops every buffered frame; returns how many.
  size_t DropAll();
  void BeginFence(std::set<int64_t> qids);
  // The client re-registered `qids` after an overflow: one more hello owed for each.
  void ExpectHellos(const std::set<int64_t>& qids);
  bool fenced() const { return fenced_; }
  // Releases the frames with cv ≤ cv_min, in (cv, arrival) order. `cv_min` may be below appliedCv
  // (appliedCv never moves back).
  std::vector<Frame> Release(int64_t cv_min);
  // The authority restarted: empty buffer, appliedCv 0.
  void Reset();

  const std::vector<Frame>& buffer() const { return buffer_; }
  size_t buffered() const { return buffer_.size(); }
  int64_t applied_cv() const { return applied_cv_; }
  size_t cap() const { return cap_; }

 private:
  size_t cap_;
  std::vector<Frame> buffer_;
  int64_t applied_cv_ = 0;
  bool fenced_ = false;
  std::set<int64_t> fence_;          // the fenced qids
  std::set<int64_t> missing_;        // fenced qids with no snapshot buffered
  int64_t fence_cv_ = 0;             // highest cv of the fenced snapshots buffered
  int64_t held_cv_min_ = 0;          // highest cvMin a fence held back (Reset clears)
  std::map<int64_t, int64_t> owed_;  // qid → re-registrations' hellos not yet here
};

}  // namespace rindle
