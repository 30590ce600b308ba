// ledger.h — the client's mutation ledger (seed 002 `dealMid` / `PendingMutation` / watermarks /
// confirm-drop, §7.1–§7.2): the pending entries, per-domain gapless mids, the client-global deal
// seq and per-domain confirmation watermarks. Holds state; not thread-safe. Domains are keyed by
// source key (base/source_key.h: kDaemonSource today; a second domain only adds entries).
//
// Invariants:
//   - mids are dealt per domain from 1, gapless, in SEND order (a failed invoke deals none, #10);
//     every deal also stamps the next client-global seq — the ONE replay order. Within a domain
//     seq order == mid order EXCEPT across a deopt flip (Redeal keeps the original seq under a
//     later daemon mid, seed 002 PendingMutation.seq).
//   - an entry without a mid is an unflushed fold: never confirmable, never re-sent.
//   - watermark[domain] only grows (FoldConfirm is max-monotone).
//   - pending stays in creation (Append) order; ids are stamped by Append and never reused.
// FoldConfirm(domain, lmid): an lmid above every issued mid is a fresh session over a client id
// with history (continue the server's sequence) — unless sent mids of that domain are pending:
// then two writers share the client id (or state is corrupt) and it returns Internal (the caller
// poisons health). An lmid BELOW the watermark is an authority restored from an older ledger: it
// returns DataLoss (kLedgerRegressed; the caller poisons health) — see FoldConfirm for why the
// client refuses rather than recovers. DropConfirmed() retires every entry with mid ≤ watermark[its domain]; a burnt
// (rejected) mid drops the same way (the release carries no effects for it, so the rewind snaps
// the prediction back). Erase (a failed re-invocation: the entry is dead) keeps a SENT entry's
// envelope until its mid is confirmed: the authority processes mids strictly in order, so a dead
// mid whose push was lost must still be re-sent (and burnt there), or every later mid of the
// domain is held forever; SentInMidOrder lists those dead envelopes too (seed 002 §7.5 rule 3 —
// the seed's resendPending re-sends only pendingMutations, which loses them: a seed gap).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "optimistic/pending.h"

namespace rindle {

// The message prefix of the status FoldConfirm returns for a regressing lmid.
inline constexpr char kLedgerRegressed[] = "authority ledger regressed";
// Whether `s` (a backend health, possibly annotated) is that refusal.
bool IsLedgerRegression(const absl::Status& s);

class Ledger {
 public:
  // Opens `domain` (next mid 1, watermark 0). Re-adding a domain is a programmer error.
  void AddDomain(std::string_view domain);
  // Opens `domain` unless it is open. A domain's state is never removed (seed 002 §7.1: a
  // disconnected channel's domain keeps nextMid and watermark forever).
  void EnsureDomain(std::string_view domain);
  bool HasDomain(const std::string& domain) const { return next_mid_.count(domain) > 0; }

  // Deals the next (mid, seq) of `domain`, opening it first if needed (seed 002 dealMid: "a
  // domain absent from the map starts at 1").
  std::pair<int64_t, int64_t> DealMid(const std::string& domain);
  // The H-v deopt flip (seed 002 handleMutationOutcome step 4): the pending entry `id` moves to
  // `domain` with a fresh mid of that domain and KEEPS its seq — its replay position (the dealt
  // seq is discarded, the one place a seq is dropped). Returns the new mid.
  int64_t Redeal(uint64_t id, const std::string& domain);
  // Appends `entry` (its id still 0; mid and seq both set or both unset; a mid-bearing entry's
  // domain open) and stamps its id. An unflushed fold may name a not-yet-open provisional domain.
  PendingMutation& Append(PendingMutation entry);
  PendingMutation* Find(uint64_t id);
  const PendingMutation* Find(uint64_t id) const;
  // The pending entry holding (domain, mid), or nullptr (dead sent envelopes are not pending).
  PendingMutation* FindSent(const std::string& domain, int64_t mid);
  // Whether `mid` was ever dealt on `domain` (1 ≤ mid < nextMid[domain]).
  bool Issued(const std::string& domain, int64_t mid) const;

  absl::Status FoldConfirm(const std::string& domain, int64_t lmid);
  // A channel's OWN lmid stream (channel.cc): the regression refusal is judged against what this
  // stream released before on `domain`. A release below a watermark that another carrier raised
  // — a room domain's daemon-carried room-ledger row (system_streams.h), which can overtake the
  // room channel: coherent within a channel, eventual across — is lag: counted
  // (stream_lag_confirms), nothing moves. Seed 002's foldConfirm max-folds; the refusal is ours
  // (see FoldConfirm) and must not fire on that lag.
  absl::Status FoldStreamConfirm(const std::string& domain, int64_t lmid);
  int64_t stream_lag_confirms() const { return stream_lag_confirms_; }
  // The test seam's confirm (seed 002 __testRelease watermarkUpdate): watermark[domain] :=
  // max(watermark, lmid), opening the domain if needed — no lmid-stream checks.
  void RaiseWatermark(const std::string& domain, int64_t lmid);
  // Drops every confirmed entry; returns whether pending shrank.
  bool DropConfirmed();
  // Drops the entries at these indexes of pending() (a failed re-invocation), keeping the order.
  void Erase(const std::set<size_t>& indexes);

  // The domain's sent (mid-bearing) unconfirmed entries in mid order, dead ones (erased after
  // their send) included — what a resync re-sends.
  std::vector<const PendingMutation*> SentInMidOrder(const std::string& domain) const;
  // Indexes of pending() in SEND order: seq ascending, unflushed (seq-less) entries last, stable.
  std::vector<size_t> ReplayOrder() const;
  // The union of every pending entry's touched tables (the pending axis).
  std::set<std::string> PendingTables() const;

  std::vector<PendingMutation>& pending() { return pending_; }
  const std::vector<PendingMutation>& pending() const { return pending_; }
  const std::map<std::string, int64_t>& next_mid() const { return next_mid_; }
  const std::map<std::string, int64_t>& watermark() const { return watermark_; }

 private:
  std::vector<PendingMutation> pending_;  // creation order
  std::vector<PendingMutation> dead_sent_;  // erased after their send, not yet confirmed
  uint64_t next_entry_id_ = 1;
  std::map<std::string, int64_t> next_mid_;
  std::map<std::string, int64_t> watermark_;
  std::map<std::string, int64_t> stream_high_;  // per domain: the highest lmid its own stream released
  int64_t stream_lag_confirms_ = 0;
  int64_t deal_seq_ = 0;
};

}  // namespace rindle
