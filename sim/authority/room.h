// room.h — the honest ROOM authority of one document (seed 002 §7.1 domains, H-v §3.3 outcomes,
// I-ii co-commit): a per-doc realtime server on ITS OWN engine Db, reached under
// RoomSourceKey(doc) (base/source_key.h), that confirms the mutations its clients route into
// the room's domain on its own channel and flushes what it confirmed to the daemon. Holds state:
// the room's store (its copy of the doc's rows), per-client room ledgers, its cv and boot id,
// the harness's record of every mid's fate, and the writes confirmed since the last flush.
//
// Ledger (like the daemon's, daemon.h): envelopes are processed strictly in mid order per
// client: mid ≤ lmid is a duplicate (acknowledged, ignored); mid == lmid+1 is processed; a mid
// beyond the next is held, unacknowledged, until the gap fills. Every processed mid bumps cv by
// one and writes the room's `_rindle_client_mutations` row [client, lmid] in the same commit —
// the room's reserved lmid stream (qid 0) on its channel.
// Fates of a processed mid (RoomFate):
//   kConfirmed — the room twin ran and its writes stay in the room store (flushed later);
//   kRejected  — the twin failed (a final validation failure) or a reject storm drew it: the mid
//                is BURNT and a `rejected` mutationOutcome {mid, reason, echo} goes out;
//   kDeopt     — a mutation the room will not confirm: not a room-declared mutator, its args
//                name another issue, its writes touch rows outside the doc (a comment of another
//                issue, any other table), it names a doc row the room does not hold (a keyed
//                read that finds nothing and writes nothing there: the row lives in another
//                doc's thread, e.g. a comment moved INTO this thread), it edits or removes a row
//                the room did not add (the room is the home of the thread's NEW comments; the
//                daemon holds the current copy of every other row — the room's may lag), or a
//                deopt storm drew it: the mid is burnt and a `deopt` outcome {mid, echo} goes
//                out; the client re-sends it to the daemon, whose twin applies it. Each reason is
//                counted (room.deopt_reason.<not_declared|other_issue|writes_outside|not_held|
//                edits_existing|storm>).
// Outcome frames go out BEFORE the commit's lmid batch and progress (out of band on the same
// ordered link; the simulation's outcome faults may delay, drop, duplicate or reorder them).
// A duplicate push (mid ≤ lmid: a re-send after a reconnect) of a mid the room did not confirm
// is re-answered with its outcome (seed 002 H-v "the original + a re-send's re-answer"; counted
// room.outcome_reanswered): the client's processed set absorbs it, or — when the outcome frame
// died with the old link and the new session's lmid snapshot retired the entry first — it is
// the late deopt of an already-retired mid, which the client re-invokes on the daemon.
// Storms: SetStorm(kind, per_mille) makes the room deopt / reject a drawn share of the mids it
// processes; each draw is keyed by (client, mid) (never by call order).
// Flush (TakeFlush): the confirmed writes since the last flush (last write per pk), every
// client's room lmid as of now, and an outcome row for every non-confirmed mid since the last
// flush — what the daemon co-commits in ONE transaction (DaemonAuthority::ApplyRoomFlush).
// Restart: new boot id, cv 0, every session gone; store and ledgers durable. Crash
// (CrashBeforeFlush): a restart that also LOSES the confirmed-but-unflushed writes (the store
// goes back to its state at the last flush; ledgers stay — the mids were confirmed) — the
// harness records each lost mid (RoomRecord.lost) so the properties account for them.
// Errors: internal failures (a commit that should never fail) → health(); unknown clients and
// malformed envelopes are CHECKs. Source: seed 002 §7.1, §3.3 H-v, I-ii; SPEC §2.3.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/rng.h"
#include "engine/db.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/source.h"
#include "optimistic/write_set.h"
#include "sim/authority/authority_endpoint.h"
#include "sim/authority/authority_subscriptions.h"

namespace rindle::sim {

enum class RoomFate { kConfirmed, kRejected, kDeopt };
std::string_view RoomFateName(RoomFate fate);

// The harness's record of one mid the room processed.
struct RoomRecord {
  std::string client_id;
  int64_t mid = 0;
  std::string name;
  nlohmann::json args;
  RoomFate fate = RoomFate::kConfirmed;
  std::string reason;     // kRejected: the twin's error / the storm; kDeopt: why
  int64_t cv = 0;
  int64_t boot = 0;
  WriteSet writes;         // kConfirmed: what the twin wrote
  int64_t flush_seq = 0;   // the flush that carried it to the daemon (0: not yet)
  bool lost = false;       // a crash lost it before any flush
};

// One outcome row of a flush (base/lifecycle_tables.h _rindle_room_mutation_outcomes).
struct RoomOutcomeRow {
  std::string client_id;
  int64_t mid = 0;
  std::string kind;  // kOutcomeDeopt / kOutcomeRejected
  std::string reason;
  std::string name;
  nlohmann::json args;
};

// What one flush carries to the daemon (co-committed there in ONE transaction).
struct RoomFlush {
  std::string doc;
  int64_t flush_seq = 0;
  std::vector<WriteRecord> writes;          // last write per (table, pk), key order
  std::map<std::string, int64_t> ledger;    // client → room lmid as of the flush
  std::vector<RoomOutcomeRow> outcomes;     // every non-confirmed mid since the last flush
  std::vector<size_t> records;              // indexes into log() this flush carries
};

// The reserved name a flush is logged under in the daemon's log (client = the room's source key,
// mid = flush_seq): its args {"doc", "writes": [{table, pk, row|null}]} replay through
// RoomFlushTwin — so the authority-model replay and a rollback rebuild the flushed rows.
inline constexpr char kRoomFlushMutator[] = "_rindle/room_flush";
nlohmann::json RoomFlushArgs(const RoomFlush& flush);
// Applies a flush's writes (an upsert per row image, a remove per deletion). Fails on args that
// RoomFlushArgs did not make (InvalidArgument).
Mutator RoomFlushTwin();

class RoomAuthority : public AuthorityEndpoint {
 public:
  using Sender = AuthoritySubscriptions::Sender;

  // `twins` are the room-declared mutators' server twins (a name outside them is deopted);
  // `doc` is "issue:<id>": the room owns that issue's comment thread.
  RoomAuthority(std::string doc, Schema schema, std::map<std::string, Mutator> twins,
                std::map<std::string, std::string> user_of, Sender sender,
                std::map<std::string, int64_t>* counters, Rng rng);

  std::string_view source_key() const override { return key_; }
  const std::string& doc() const { return doc_; }
  // The issue id the doc names ("issue:i001" → "i001").
  const std::string& issue_id() const { return issue_id_; }

  absl::Status Seed(const std::map<std::string, std::vector<RowValues>>& rows) override;
  void Connect(const std::string& client) override;
  void Disconnect(const std::string& client) override;
  void Register(const std::string& client, int64_t qid, const RemoteQuery& query) override;
  void Unregister(const std::string& client, int64_t qid) override;
  bool HandlePush(const MutationEnvelope& envelope) override;
  void SetProjectionPolicy(ProjectionPolicy policy) override {
    subs_.SetProjectionPolicy(std::move(policy));
  }
  void Restart() override;
  // A restart that loses every confirmed-unflushed write (see the file comment). Returns how
  // many confirmed mids it lost.
  int64_t CrashBeforeFlush();
  void SkewNextHello(const std::string& client) override { subs_.SkewNextHello(client); }
  void StarveProgress(bool starve) override { subs_.StarveProgress(starve, cv_); }

  enum class Storm { kNone, kDeopt, kReject };
  void SetStorm(Storm storm, uint32_t per_mille) {
    storm_ = storm;
    storm_per_mille_ = per_mille;
  }

  // The doc's writes the daemon confirmed (issue edits, comment edits / deletes / moves: the
  // daemon-declared mutators) reach the room: its issue row and comment thread are made equal to
  // `daemon`'s, except the rows its own unflushed confirmed mids wrote (the flush carries those to
  // the daemon). One commit (cv + 1, published to the room's subs) when anything differs; the
  // context tables stay as seeded. Returns whether it committed.
  bool MirrorDaemon(const Db& daemon);
  // True when some confirmed or burnt mid awaits a flush.
  bool HasUnflushed() const { return next_unflushed_ < log_.size(); }
  // The flush of everything since the last one (flush_seq = previous + 1); marks it flushed.
  RoomFlush TakeFlush();
  int64_t flush_seq() const { return flush_seq_; }

  // ---- read by the properties ----
  const absl::Status& health() const override { return health_; }
  bool TakeDirty() override {
    const bool d = dirty_;
    dirty_ = false;
    return d;
  }
  int64_t boot_id() const override { return boot_id_; }
  int64_t cv() const override { return cv_; }
  const Db& store() const override { return *store_; }
  // The room has no ProcessedEnvelope log of the daemon's shape; records() is its record.
  const std::vector<ProcessedEnvelope>& log() const override { return no_log_; }
  const std::vector<RoomRecord>& records() const { return log_; }
  int64_t lmid(const std::string& client) const override;
  CoverageMap Coverage(const std::string& client) const override { return subs_.Coverage(client); }
  std::vector<std::pair<std::string, int64_t>> Subscriptions() const override {
    return subs_.Subscriptions();
  }
  absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                           int64_t qid) const override {
    return subs_.SubscriptionResult(client, qid);
  }
  const Ast* SubscriptionAst(const std::string& client, int64_t qid) const override {
    return subs_.SubscriptionAst(client, qid);
  }

 private:
  struct Ledger {
    int64_t lmid = 0;
    std::map<int64_t, MutationEnvelope> held;
  };

  void CheckKnown(const std::string& client) const;
  void RegisterTables(Db* store);
  void Process(const MutationEnvelope& e);
  // Why the room will not confirm `e` before running it (not room-declared, another doc, a
  // drawn deopt), or nullopt; `reason_key` gets the counter's key.
  std::optional<std::string> DeoptBefore(const MutationEnvelope& e, std::string* reason_key) const;
  // Why the twin's run is not the room's to confirm (writes outside the doc, a doc row it does
  // not hold, an edit of a row it did not add), or nullopt; `reason_key` gets the counter's key.
  std::optional<std::string> OutsideDoc(const WriteSet& writes, const ReadLog& reads,
                                        std::string* reason_key) const;
  bool Drawn(const MutationEnvelope& e, std::string_view what) const;
  // Runs the twin and the ledger row in one transaction; `writes` gets the twin's rows.
  absl::StatusOr<std::vector<QueryBatch>> RunTwin(const MutationEnvelope& e, WriteSet* writes,
                                                  std::string* deopt, std::string* reason_key);
  absl::StatusOr<std::vector<QueryBatch>> BurnMid(const MutationEnvelope& e);
  void SendOutcome(const RoomRecord& rec);
  // Rebuilds the store from the seed rows and every flushed write, and the ledger rows.
  void RebuildFlushedStore();
  void Fail(absl::Status s);
  void Count(const std::string& name) { ++(*counters_)[name]; }

  std::string doc_;
  std::string key_;
  std::string issue_id_;
  Schema schema_;
  std::map<std::string, Mutator> twins_;
  std::set<std::string> clients_;
  Sender send_;
  std::map<std::string, int64_t>* counters_;
  const Rng rng_;  // never advanced: storm draws fork a stream keyed by (client, mid)
  std::unique_ptr<Db> store_;
  AuthoritySubscriptions subs_;  // after store_: holds a pointer to it
  int64_t boot_id_ = 1;
  int64_t cv_ = 0;
  std::map<std::string, Ledger> ledgers_;
  std::vector<RoomRecord> log_;
  std::map<std::pair<std::string, int64_t>, size_t> record_of_;  // (client, mid) → log_ index
  size_t next_unflushed_ = 0;
  int64_t flush_seq_ = 0;
  std::map<std::string, std::vector<RowValues>> seed_rows_;
  // Every flushed write, last per (table, pk): what a crash rebuilds the store from.
  std::map<std::pair<std::string, std::string>, WriteRecord> flushed_;
  Storm storm_ = Storm::kNone;
  uint32_t storm_per_mille_ = 0;
  absl::Status health_;
  const std::set<std::string> no_local_tables_;
  const std::vector<ProcessedEnvelope> no_log_;
  bool dirty_ = true;
};

}  // namespace rindle::sim
