// gate.h — one authority channel's coherence gate (seed 002 `SourceGate`, §5.1 / §8.5). Holds
// state: the cv-tagged frame buffer (with per-gate arrival seq), the applied-cv watermark.
//
// Frames: snapshot/batch frames buffer by (cv, arrival seq). Release(cvMin) removes and returns
// every buffered frame with cv ≤ cvMin sorted by (cv, arrival), and raises appliedCv to cvMin
// (monotone). A hello (OnHello) drops that qid's buffered frames — a superseded epoch. A batch
// with cv ≤ appliedCv is a stale redelivery and is not buffered (kStale) — so is one at or below
// a cvMin a fence holds back (ours: the seed has no fence; appliedCv lags that cvMin, and a
// relay's retransmit of an old epoch's batch must not be released after the new snapshot —
// campaign seed 280, corpus/seed-280-superseded-epoch.json); a snapshot always
// buffers. Buffering past `cap` frames is an overflow: the buffer is cleared and kOverflow
// returned — the caller re-registers the channel's subs and lmid query (seed 002 `overflow`).
// Reset() (authority restart) clears the buffer and appliedCv (and any fence).
// DropConnection() (a reconnect, same boot) drops every buffered frame but keeps appliedCv: they
// came on the dead connection, whose frames still in flight were lost, so a buffered lmid batch
// may be missing its cv's data batch — the new session's first progress (sent before the
// re-registrations reach the authority) would release the confirmation alone and the view would
// revert a confirmed write. The re-registration re-sends every qid's snapshot; a fence in force
// waits for all of them again.
// Resync fence (BeginFence): after a resync (reconnect) or an overflow re-registration the gate
// releases nothing until every qid it re-registered (data subs AND the lmid query) has its
// snapshot buffered — or was dropped (DropQuery: unregistered) — and cvMin reaches the highest of
// those snapshots' cvs; then one Release hands them over together, in (cv, arrival) order. A
// hello for a fenced qid (a new epoch: its buffered snapshot was dropped) makes it wait again;
// a snapshot already buffered when the fence begins (current epoch, current connection) counts.
// An overflow re-registration owes one hello per qid it re-registered (ExpectHellos): until the
// last owed hello of a qid is here, a snapshot of it answers an OLDER registration still in
// flight and does not count for the fence. Otherwise a second overflow hit while the first
// re-registration's answers were in flight let the first one's lmid snapshot complete the second
// fence, and a push the authority processed between the second re-registration's lmid
// unregister and register (two link messages; its data batch had no lmid frame) released its
// effect while the mutation was still pending: applied twice (issue 11, the lmid gap).
// While fenced, a batch for a qid still waiting is of the superseded epoch and is dropped
// (kStale), and the cap grows by the number of fenced qids (their snapshots are owed, not
// backlog) — otherwise a cap below the number of subs would overflow on every re-registration.
// Nor does a frame count that a progress held by the fence already covers (cv ≤ that cvMin): the
// seed overflows on what progress has not released — a pinned cvMin — and without the fence
// those frames would have been released. Counting them overflowed again inside each
// re-registration's own burst (seed 1921, cap 6 and 26 subs: the snapshots and the batches of the
// qids already re-snapshotted), re-registered again, and so on — a livelock for as long as writes
// came. The fence lasts until the re-registered snapshots are here (about one round trip).
// The seed's TypeScript (002 SourceGate / §8.5 overflow) is silent here: it re-registers and
// keeps releasing on every progress, and the re-registrations' snapshots arrive one progress
// apart — the lmid snapshot alone retires a pending entry whose effect is still missing from
// the data (the view drops a confirmed write: [a] → [] → [a]), or a data snapshot that already
// holds a mutation's effect releases while it is still pending (applied twice: n 2 → 3 → 2).
// Seed 002 computeRelease relies on "confirmation and data of the same commit share a cv, so
// they release together by construction"; re-registration breaks that, the fence restores it.
// Errors: none (pure bookkeeping).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "optimistic/source.h"

namespace rindle {

struct BufferedFrame {
  int64_t cv = 0;
  int64_t qid = 0;
  NormalizedEvent::Type kind = NormalizedEvent::Type::kSnapshot;
  std::vector<RowOp> ops;
  uint64_t seq = 0;  // arrival order on this gate
};

class SourceGate {
 public:
  enum class Admit { kBuffered, kStale, kOverflow };

  SourceGate(std::string key, size_t cap) : key_(std::move(key)), cap_(cap) {}

  // Drops the qid's buffered frames; returns how many.
  size_t OnHello(int64_t qid);
  // A snapshot or batch frame (CHECKs it is not a hello).
  Admit OnData(int64_t qid, const NormalizedEvent& ev);
  // Empty while fenced (appliedCv does not move).
  std::vector<BufferedFrame> Release(int64_t cv_min);
  // Drops the qid's buffered frames (its sub was released; it leaves the fence); returns how many.
  size_t DropQuery(int64_t qid);
  void Reset();
  // A reconnect: drops every buffered frame (appliedCv stays); returns how many.
  size_t DropConnection();
  // Starts a fence over `qids` (replacing any).
  void BeginFence(std::set<int64_t> qids);
  // An overflow re-registration of `qids` went out: one more hello owed for each (see above).
  void ExpectHellos(const std::set<int64_t>& qids);
  bool fenced() const { return fenced_; }
  // Releases the fence held back (progress frames that released nothing).
  int64_t fence_holds() const { return fence_holds_; }
  // Frames that would have overflowed a fence had the frames a held progress covers counted.
  int64_t fence_spared() const { return fence_spared_; }

  const std::string& key() const { return key_; }
  int64_t applied_cv() const { return applied_cv_; }
  // Batches refused as stale redeliveries (cv ≤ appliedCv, or ≤ a cvMin the fence holds back)
  // over the gate's life.
  int64_t stale_dropped() const { return stale_dropped_; }
  // Frames DropConnection dropped over the gate's life.
  int64_t connection_dropped() const { return connection_dropped_; }
  size_t buffered() const { return buffer_.size(); }
  size_t cap() const { return cap_; }
  const std::vector<BufferedFrame>& buffer() const { return buffer_; }

 private:
  // Whether the buffer, the frame just pushed included, is past the cap (the header says how a
  // fence changes what counts).
  bool Overflowing();

  std::string key_;
  size_t cap_;
  std::vector<BufferedFrame> buffer_;
  uint64_t next_seq_ = 0;
  int64_t applied_cv_ = 0;
  int64_t stale_dropped_ = 0;
  int64_t connection_dropped_ = 0;
  bool fenced_ = false;
  std::set<int64_t> fence_all_;      // the qids the fence covers
  std::set<int64_t> fence_waiting_;  // of those, the ones without a buffered snapshot
  int64_t fence_cv_ = 0;             // the highest cv of the fenced snapshots buffered
  int64_t fence_holds_ = 0;
  int64_t fence_spared_ = 0;
  int64_t held_cv_min_ = 0;  // the highest cvMin a fence held back (this timeline: Reset clears)
  std::map<int64_t, int64_t> owed_hellos_;  // qid → re-registrations' hellos not yet here
};

}  // namespace rindle
