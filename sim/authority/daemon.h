// daemon.h — the honest daemon authority (SPEC §2.3): the authoritative store in its own engine,
// per-client ledgers, `cv` per commit, per-subscription footprint frames, progress frames, and
// restart. Holds state; driven by the runner through network closures.
//
// Envelopes are processed strictly in mid order per client: mid ≤ lmid is a duplicate
// (acknowledged, ignored); mid == lmid+1 runs the server twin in ONE transaction that also
// writes the `_rindle_client_mutations` row [clientID, lmid] (confirmation is data, same cv); a
// twin that fails (or an unknown mutator) is processed as a no-op that still advances lmid (the
// mid is burnt); a mid beyond the next is held, unacknowledged, until the gap fills.
// Every processed envelope bumps `cv` by one, and so does a registration on a session already
// promised progress {cvMin: cv} (authority.snapshot_cv_bump: its snapshot carries a cv above the
// promise — the cv promise). A subscription runs FootprintQuery(query)
// (footprint_query.h) and its footprint is every base row of that live view (result rows at every
// level: the query's own rows, EXISTS witnesses, the row past each window); after each commit, subscriptions whose view changed get
// a batch {cv, ops} with the footprint diff, then every connected client gets progress {cvMin =
// cv}. Registration sends hello (tables and column names), snapshot {cv, footprint} and progress.
// Restart: a new boot id, cv back to 0, every session and subscription gone; the store and the
// ledgers are durable. RollBack (the authority_rollback fault): a restart from an OLDER backup of
// that durable state — the store and every ledger as they were before the last `forget`
// processed envelopes; the forgotten ones leave log() for forgotten() (so log() is always the
// history the store is the replay of); a kept room flush brings back its lifecycle rows too, so
// the backup's watermark row is the last kept flush's (an older flush_seq: the fence a client
// must not let regress, seed 002 system streams). Seed 002 assumes durable ledgers and says nothing of an
// older one; what the client must do then is in optimistic/ledger.h (FoldConfirm).
// Source: SPEC §2.3; seed 002 lmid-as-data, §7.5.
//
// Subscriptions (footprints, projection, epochs, hello/snapshot/batch/progress frames, Coverage)
// Rooms (room.h, issue 12): the daemon registers the four lifecycle tables
// (base/lifecycle_tables.h) and serves the lifecycle query for system retains like any
// subscription. ApplyRoomFlush commits one room flush in ONE transaction at ONE cv: the flushed
// row images (through RoomFlushTwin, logged as kRoomFlushMutator under the room's source key with
// mid = flush_seq — the log stays the history the store replays), the room-ledger rows
// `_rindle_room_client_mutations` (doc, client, room lmid), an outcome row per non-applied mid
// `_rindle_room_mutation_outcomes` and the watermark row `_rindle_room_watermark` (doc, seq).
// A deopted mutation reaches the daemon as an ordinary envelope (a fresh daemon mid).
//
// Subscriptions (footprints, projection, epochs, hello/snapshot/batch/progress frames, Coverage)
// are served by the shared AuthoritySubscriptions (authority_subscriptions.h); this class keeps
// the daemon's own part: the store, the per-client ledgers and mid ordering, the twins, cv and
// restart. It implements AuthorityEndpoint (authority_endpoint.h) under kDaemonSource.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db.h"
#include "base/source_key.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/source.h"
#include "sim/authority/authority_endpoint.h"
#include "sim/authority/authority_subscriptions.h"
#include "sim/authority/room.h"
#include "sim/world/frames.h"
#include "base/rng.h"

namespace rindle::sim {

class DaemonAuthority : public AuthorityEndpoint {
 public:
  using Sender = AuthoritySubscriptions::Sender;

  // `user_of` maps a client id to its app user (the query context); only those clients may
  // connect or push. `sender` puts a frame on a client's link; `counters` outlives this object.
  DaemonAuthority(Schema schema, std::map<std::string, Mutator> twins,
                  std::map<std::string, std::string> user_of, Sender sender,
                  std::map<std::string, int64_t>* counters);

  std::string_view source_key() const override { return kDaemonSource; }

  // Loads the initial authoritative rows (one commit, before any client connects).
  absl::Status Seed(const std::map<std::string, std::vector<RowValues>>& rows) override;

  // A client's link reached the authority: a fresh session; sends the welcome frame.
  void Connect(const std::string& client) override;
  void Disconnect(const std::string& client) override;
  void Register(const std::string& client, int64_t qid, const RemoteQuery& query) override;
  void Unregister(const std::string& client, int64_t qid) override;
  // The next data hello (qid ≠ 0) to `client` advertises a skewed column order: the non-pk
  // columns of every table it lists are reversed and its rows follow that order — an honest
  // deployment skew the client must refuse (seed 002 CRIT#4). One-shot.
  void SkewNextHello(const std::string& client) override;
  // The push path; returns true when acknowledged (processed now or a duplicate).
  bool HandlePush(const MutationEnvelope& envelope) override;
  void Restart() override;
  // Commits one room flush (see the file comment); false (and health) when it cannot commit.
  bool ApplyRoomFlush(const RoomFlush& flush);
  // Restart() from the durable state as it was before the last `forget` (≥ 1) processed
  // envelopes: the store is rebuilt from the seed rows and a replay of the kept log through the
  // twins (deterministic: each kept envelope commits as it did), every ledger's lmid goes back
  // with it. Returns how many envelopes were forgotten (fewer when the log is shorter).
  int64_t RollBack(int64_t forget);

  // How each registration's epoch is shipped (default: always kFull).
  void SetProjectionPolicy(ProjectionPolicy policy) override {
    subs_.SetProjectionPolicy(std::move(policy));
  }
  // For every (table, pk) held by some live subscription of `client` other than the lmid query:
  // per schema column of the table, whether some such subscription ships it.
  CoverageMap Coverage(const std::string& client) const override {
    return subs_.Coverage(client);
  }
  // The (table → shipped schema columns) of one live subscription; empty = all (kFull/kWide).
  // nullptr for no such subscription.
  const std::map<std::string, std::vector<int>>* SubscriptionColumns(const std::string& client,
                                                                     int64_t qid) const {
    return subs_.SubscriptionColumns(client, qid);
  }

  // When set, progress frames are withheld (progress starvation); releasing sends one.
  void StarveProgress(bool starve) override { subs_.StarveProgress(starve, cv_); }

  int64_t boot_id() const override { return boot_id_; }
  int64_t cv() const override { return cv_; }
  const Db& store() const override { return *store_; }
  const Schema& schema() const { return schema_; }
  int64_t lmid(const std::string& client) const override;
  const std::vector<ProcessedEnvelope>& log() const override { return log_; }
  // Every envelope a RollBack forgot, in processing order; and how many rollbacks happened.
  const std::vector<ProcessedEnvelope>& forgotten() const { return forgotten_; }
  int64_t rollbacks() const { return rollbacks_; }
  // Every live subscription view: (client, qid) → engine qid; for view==fresh checks.
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
  // The first internal error (a failed commit or registration that should never fail).
  const absl::Status& health() const override { return health_; }
  // True when the store or a subscription changed since the last TakeDirty().
  bool TakeDirty() override {
    const bool d = dirty_;
    dirty_ = false;
    return d;
  }

 private:
  struct Ledger {
    int64_t lmid = 0;
    std::map<int64_t, MutationEnvelope> held;
  };

  void CheckKnown(const std::string& client) const;
  // Registers the app tables and the ledger table in a fresh store (failures → health).
  void RegisterTables(Db* store);
  void Process(const MutationEnvelope& e);
  // Runs the twin of `e` and the ledger row in one transaction; the commit's batches, or why it
  // failed (the transaction is rolled back). `writes` gets the twin's committed rows (cleared
  // on failure).
  absl::StatusOr<std::vector<QueryBatch>> RunTwin(const MutationEnvelope& e, WriteSet* writes);
  // The burnt-mid commit: only the ledger row.
  absl::StatusOr<std::vector<QueryBatch>> BurnMid(const MutationEnvelope& e);
  void Fail(absl::Status s);
  void Count(const std::string& name) { ++(*counters_)[name]; }
  // The flush's lifecycle rows (room ledger, outcomes, watermark) into `tx`.
  absl::Status WriteFlushRows(WriteTxn& tx, const RoomFlush& flush);

  Schema schema_;
  std::map<std::string, Mutator> twins_;
  std::set<std::string> clients_;  // the keys of user_of: the clients that may connect
  Sender send_;
  std::map<std::string, int64_t>* counters_;
  std::unique_ptr<Db> store_;
  AuthoritySubscriptions subs_;  // after store_: holds a pointer to it
  int64_t boot_id_ = 1;
  int64_t cv_ = 0;
  std::map<std::string, Ledger> ledgers_;
  std::vector<ProcessedEnvelope> log_;
  std::vector<ProcessedEnvelope> forgotten_;  // what rollbacks forgot (the harness's record)
  int64_t rollbacks_ = 0;
  std::map<std::string, std::vector<RowValues>> seed_rows_;  // a rollback rebuilds from them
  // Each logged flush's lifecycle rows, by its log entry (room key, logged mid): a rollback's
  // backup holds the lifecycle rows as of its last kept flush (older watermark, ledger and
  // outcome rows), not none. Lifecycle part only (`writes` and `records` empty).
  std::map<std::pair<std::string, int64_t>, RoomFlush> flush_rows_;
  absl::Status health_;
  const std::set<std::string> no_local_tables_;
  bool dirty_ = true;
};

}  // namespace rindle::sim
