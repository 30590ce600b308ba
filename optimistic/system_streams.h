// system_streams.h — the client's lifecycle SYSTEM STREAMS (seed 002 Slice I-iii
// `retainSystemQuery` / `releaseSystemQuery` / `foldSystemFrames` / `otherScopeSessions` /
// `onScopeSessions`): subscriptions with NO view over the four lifecycle tables of
// base/lifecycle_tables.h, folded at RELEASE time into the ledger plane and two pieces of state.
// Holds state: the system specs by source qid, each system qid's hello projection, roomWatermarks
// (doc → flush_seq), scopeSessions (scope → client → expires_at), the scopes touched by the
// release in progress and the counters. Not thread-safe.
//
// A system retain is an ordinary refcounted RemoteSub (subscriptions.h) with no local view; this
// object only records which lifecycle table its source qid serves and for which doc / scope
// (SystemStreamSpec). Its frames buffer on its channel's gate like the lmid stream's and never
// enter NormalizedSync or the engine (the four tables are not in the app schema).
//
// Hello (CRIT#4, CheckHello): a system qid's hello must advertise lifecycle tables only — the one
// its spec names — with columns a projection or an expansion of the wire schema BY NAME IN ORDER
// and the schema's pk columns present (the same rule channel.h applies to app tables; the four
// schemas join the expected set). Cells are then read by column name; a column the hello did not
// ship reads as null (a garbled row, below).
//
// Fold(frames) — one release's system frames, in the seed's FIXED category order (the order of
// LifecycleTables()), all BEFORE the release's lmid and data frames and before the
// confirm-drop (the caller's order; channel.h Release, reconcile.h ApplyRelease):
//   1. outcome rows  → a MutationOutcomeFrame through the SAME outcomes.h handler the socket's
//      mutationOutcome frames use, domain RoomSourceKey(doc). Must precede 2: a ledger fold first
//      would (a) adopt a fresh-session nextMid so a previous session's deopt row passes the
//      "never issued" guard and re-invokes twice, and (b) let the confirm-drop retire a deopted
//      entry as a success.
//   2. room-ledger rows → the daemon-carried per-domain confirm: the same Ledger::FoldConfirm core
//      as the lmid stream, domain RoomSourceKey(doc) (opened if needed).
//   3. watermark rows → roomWatermarks[doc] = max(old, flush_seq) (monotone; a remove never
//      regresses it).
//   4. scope-session rows → a snapshot REPLACES its spec scope's map (an authoritative
//      re-hydrate); a batch applies add / edit / remove; every scope a row or snapshot touched is
//      recorded for the observer.
// Filters (defense in depth — the server may deliver more): outcome and ledger rows must be this
// client's; every row must match the spec's doc (room tables) or scope (sessions) when the spec
// names one. A remove is never a verdict nor a confirm (retention pruning); a garbled row (a
// wrong cell type, an unknown kind, a non-integral mid / lmid, an empty doc) is skipped — fail
// closed: a covering lmid then means applied. Outcome args are JSON TEXT: unparseable text makes
// the frame not self-contained (no name — a retired mid's deopt is then dropped, not re-invoked).
// Duplicates need nothing here: the outcome handler's processed set absorbs them.
// Errors: Fold returns the confirm core's Status (an lmid ahead of issued mids while sent mids of
// that domain pend); the caller poisons health. A ledger row BELOW the domain's watermark is
// stale, not a regression (the row is the room ledger as of its flush; the room channel's own
// lmid stream runs ahead of it): the backend's hook ignores it (stale_ledger_rows).
//
// TakeTouchedScopes() (the caller, after the WHOLE release applied): the scopes to announce, once
// each, in scope order; the backend fires ScopeSessionsEvent{scope, OtherScopeSessions(scope)}.
// OtherScopeSessions(scope): sessions of OTHER clients with expires_at > the fold clock's now
// (0 without a clock). Released system subs keep every folded value (the fence is truth about
// the store, not about the subscription).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "optimistic/fold_clock.h"
#include "optimistic/gate.h"
#include "optimistic/source.h"

namespace rindle {

// What a system retain serves: one of the four lifecycle tables, and the scope
// (_rindle_scope_sessions) or doc (the three room tables) it was minted for; empty = not given.
struct SystemStreamSpec {
  std::string table;
  std::string scope;
  std::string doc;
};

// One doorbell event (seed 002 ScopeSessionsEvent): a release folded session rows for `scope`;
// `others` is OtherScopeSessions(scope) at that moment.
struct ScopeSessionsEvent {
  std::string scope;
  int64_t others = 0;
};

// Per-category fold counters (the campaign summary's `client.system.*`).
struct SystemFoldCounters {
  int64_t outcome_rows = 0;    // routed to the outcome handler
  int64_t ledger_rows = 0;     // folded into a room domain's watermark
  int64_t stale_ledger_rows = 0;  // below the watermark (the room's stream got there first)
  int64_t watermark_rows = 0;  // max-folded into roomWatermarks
  int64_t session_rows = 0;    // applied to scopeSessions
  int64_t session_snapshots = 0;  // scope maps replaced
  int64_t filtered = 0;        // another client's / doc's / scope's rows
  int64_t removes = 0;         // removes that are no verdict / confirm / regression
  int64_t garbled = 0;         // malformed rows skipped (fail closed)
  int64_t scope_events = 0;    // observer events fired
};

class SystemStreams {
 public:
  struct Hooks {
    // The outcomes.h handler (seed handleMutationOutcome), for `domain`.
    std::function<void(const std::string& domain, const MutationOutcomeFrame&)> outcome;
    // The confirm core (Ledger::FoldConfirm after opening `domain`).
    std::function<absl::Status(const std::string& domain, int64_t lmid)> confirm;
  };

  // `clock` may be null (now = 0) and must outlive this object.
  SystemStreams(std::string client_id, const FoldClock* clock, Hooks hooks);

  // InvalidArgument unless spec.table is a lifecycle table and the doc / scope field it uses is
  // the only one given.
  static absl::Status CheckSpec(const SystemStreamSpec& spec);
  // Records `source_qid`'s spec (a fresh system sub); a no-op when it is already recorded.
  void Add(int64_t source_qid, const SystemStreamSpec& spec);
  // The system sub is gone: forget its spec and projection; folded state stays.
  void Remove(int64_t source_qid);
  bool Has(int64_t source_qid) const { return specs_.count(source_qid) > 0; }

  // CRIT#4 for a system qid's hello (see above); records its projection when OK.
  absl::Status CheckHello(int64_t source_qid, const std::vector<WireTable>& tables);
  // Folds one release's system frames (every frame's qid Has()), in the fixed order.
  absl::Status Fold(const std::vector<const BufferedFrame*>& frames);
  std::set<std::string> TakeTouchedScopes();

  int64_t OtherScopeSessions(const std::string& scope) const;
  const std::map<std::string, int64_t>& room_watermarks() const { return room_watermarks_; }
  const std::map<std::string, std::map<std::string, int64_t>>& scope_sessions() const {
    return scope_sessions_;
  }
  const SystemFoldCounters& counters() const { return counters_; }
  SystemFoldCounters& mutable_counters() { return counters_; }

 private:
  // The frames of `frames` whose spec serves `table`, release order kept.
  std::vector<const BufferedFrame*> OfTable(const std::vector<const BufferedFrame*>& frames,
                                            std::string_view table) const;
  void FoldOutcomes(const BufferedFrame& f);
  absl::Status FoldLedger(const BufferedFrame& f);
  void FoldWatermarks(const BufferedFrame& f);
  void FoldSessions(const BufferedFrame& f);
  // The cell `column` of an op's row under the qid's projection (null when not shipped).
  const Value& Cell(int64_t qid, const RowValues& row, std::string_view column) const;
  // Whether a row of the retain's doc passes its doc filter (counts a filtered row).
  bool DocMatches(const SystemStreamSpec& spec, const std::string& doc);

  std::string client_id_;
  const FoldClock* clock_;
  Hooks hooks_;
  std::map<int64_t, SystemStreamSpec> specs_;                       // by source qid
  std::map<int64_t, std::map<std::string, size_t>> projection_;  // qid → column → index
  std::map<std::string, int64_t> room_watermarks_;
  std::map<std::string, std::map<std::string, int64_t>> scope_sessions_;
  std::set<std::string> touched_scopes_;
  SystemFoldCounters counters_;
};

}  // namespace rindle
