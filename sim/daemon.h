// daemon.h — the honest daemon authority (SPEC §2.3): the authoritative store in its own engine,
// per-client ledgers, `cv` per commit, per-subscription footprint frames, progress frames, and
// restart. Holds state; driven by the runner through network closures.
//
// Envelopes are processed strictly in mid order per client: mid ≤ lmid is a duplicate
// (acknowledged, ignored); mid == lmid+1 runs the server twin in ONE transaction that also
// writes the `_rindle_client_mutations` row [clientID, lmid] (confirmation is data, same cv); a
// twin that fails (or an unknown mutator) is processed as a no-op that still advances lmid (the
// mid is burnt); a mid beyond the next is held, unacknowledged, until the gap fills.
// Every processed envelope bumps `cv` by one. A subscription runs FootprintQuery(query)
// (footprint_query.h) and its footprint is every base row of that live view (result rows at every
// level: the query's own rows, EXISTS witnesses, the row past each window); after each commit, subscriptions whose view changed get
// a batch {cv, ops} with the footprint diff, then every connected client gets progress {cvMin =
// cv}. Registration sends hello (tables and column names), snapshot {cv, footprint} and progress.
// Restart: a new boot id, cv back to 0, every session and subscription gone; the store and the
// ledgers are durable. Source: SPEC §2.3; seed 002 lmid-as-data, §7.5.
//
// Projection (seed 002 NormalizedSync, PROJECTION-SUPPORT-DESIGN): every registration asks the
// projection policy (SetProjectionPolicy; default: full rows) how to ship that epoch:
//   kFull      — hello lists every schema column; rows are full width (as before).
//   kProjected — per table, the hello lists the pk columns plus every column the (footprint)
//                query references anywhere — where (simple operands, EXISTS correlations and
//                their subqueries, recursively), orderBy, start cursor, select, related
//                correlations — in schema order; the others are DROPPED. Rows are positional
//                against that list, and the footprint diff is taken over the projected rows, so
//                a change to an unshipped column sends nothing.
//   kWide      — the hello lists every schema column plus an extra "__server_only" column in the
//                middle (a server mid expand-then-contract); rows carry an extra string cell
//                there that the client must drop.
// The choice is per (client, qid, epoch): a re-subscribe may change it, so a frame of a
// superseded epoch scattered through the new epoch's column map corrupts rows (the client must
// drop such frames). Every data frame is tagged with its epoch (frames.h). Coverage(client)
// reports, per row in some live subscription of the client, which schema columns some such
// subscription ships — the mask the convergence check applies to the authority's store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/db.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/source.h"
#include "sim/frames.h"
#include "sim/rng.h"

namespace rindle::sim {

struct ProcessedEnvelope {
  std::string client_id;
  int64_t mid = 0;
  std::string name;
  nlohmann::json args;
  bool applied = false;  // false: burnt (the twin failed)
  std::string reason;    // why it was burnt
  int64_t cv = 0;
};

inline constexpr char kServerOnlyColumn[] = "__server_only";

// kSkewed: every schema column, the non-pk ones in reverse order (the schema_skew fault).
enum class ProjectionChoice { kFull, kProjected, kWide, kSkewed };
// (client, qid, query, epoch) → how to ship that subscription epoch.
using ProjectionPolicy = std::function<ProjectionChoice(const std::string& client, int64_t qid,
                                                        const RemoteQuery& query, int64_t epoch)>;

// Per table of `ast` (recursively: related, EXISTS subqueries): the schema column indices a
// projected subscription ships — pk columns plus every column the AST references — sorted.
std::map<std::string, std::vector<int>> ProjectedColumns(const Ast& ast, const Schema& schema);

// The simulation's policy, a deterministic function of `rng` (fork "projection" of the run
// seed) and the registration order: a third of runs never project; the others project each
// registration with probability 1/3, 2/3 or 1, and some of those (1 in 2) ship a wide hello to
// 1 in 5 of the unprojected registrations. The lmid query (qid 0) is always full.
ProjectionPolicy SimProjectionPolicy(Rng rng);

class DaemonAuthority {
 public:
  using Sender = std::function<void(const std::string& client, ServerFrame frame)>;

  // `user_of` maps a client id to its app user (the query context).
  DaemonAuthority(Schema schema, std::map<std::string, Mutator> twins,
                  std::map<std::string, std::string> user_of, Sender sender,
                  std::map<std::string, int64_t>* counters);

  // Loads the initial authoritative rows (one commit, before any client connects).
  absl::Status Seed(const std::map<std::string, std::vector<RowValues>>& rows);

  // A client's link reached the authority: a fresh session; sends the welcome frame.
  void Connect(const std::string& client);
  void Disconnect(const std::string& client);
  void Register(const std::string& client, int64_t qid, const RemoteQuery& query);
  void Unregister(const std::string& client, int64_t qid);
  // The next data hello (qid ≠ 0) to `client` advertises a skewed column order: the non-pk
  // columns of every table it lists are reversed and its rows follow that order — an honest
  // deployment skew the client must refuse (seed 002 CRIT#4). One-shot.
  void SkewNextHello(const std::string& client) { skew_next_hello_.insert(client); }
  // The push path; returns true when acknowledged (processed now or a duplicate).
  bool HandlePush(const MutationEnvelope& envelope);
  void Restart();

  // How each registration's epoch is shipped (default: always kFull).
  void SetProjectionPolicy(ProjectionPolicy policy) { projection_policy_ = std::move(policy); }
  // For every (table, pk) held by some live subscription of `client` other than the lmid query:
  // per schema column of the table, whether some such subscription ships it.
  std::map<std::pair<std::string, RowValues>, std::vector<bool>> Coverage(
      const std::string& client) const;
  // The (table → shipped schema columns) of one live subscription; empty = all (kFull/kWide).
  // nullptr for no such subscription.
  const std::map<std::string, std::vector<int>>* SubscriptionColumns(const std::string& client,
                                                                     int64_t qid) const;

  // When set, progress frames are withheld (progress starvation); releasing sends one.
  void StarveProgress(bool starve);

  int64_t boot_id() const { return boot_id_; }
  int64_t cv() const { return cv_; }
  const Db& store() const { return *store_; }
  const Schema& schema() const { return schema_; }
  int64_t lmid(const std::string& client) const;
  const std::vector<ProcessedEnvelope>& log() const { return log_; }
  // Every live subscription view: (client, qid) → engine qid; for view==fresh checks.
  std::vector<std::pair<std::string, int64_t>> Subscriptions() const;
  absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                           int64_t qid) const;
  const Ast* SubscriptionAst(const std::string& client, int64_t qid) const;
  // The first internal error (a failed commit or registration that should never fail).
  const absl::Status& health() const { return health_; }
  // True when the store or a subscription changed since the last TakeDirty().
  bool TakeDirty() {
    const bool d = dirty_;
    dirty_ = false;
    return d;
  }

 private:
  using FootprintKey = std::pair<std::string, RowValues>;  // (table, pk)
  struct Subscription {
    int64_t engine_qid = 0;
    Ast ast;
    std::map<FootprintKey, RowValues> footprint;  // rows in WIRE form (projected / wide)
    ProjectionChoice choice = ProjectionChoice::kFull;
    std::map<std::string, std::vector<int>> columns;  // kProjected: table → shipped columns
    int64_t epoch = 0;
  };
  struct Session {
    std::map<int64_t, Subscription> subs;
  };
  struct Ledger {
    int64_t lmid = 0;
    std::map<int64_t, MutationEnvelope> held;
  };

  void Process(const MutationEnvelope& e);
  void Publish(const std::vector<QueryBatch>& batches);
  void SendProgress();
  std::map<FootprintKey, RowValues> Footprint(const Subscription& sub) const;
  RowValues Wire(const Subscription& sub, const std::string& table, const RowValues& row) const;
  void Fail(absl::Status s);
  void Count(const std::string& name) { ++(*counters_)[name]; }

  Schema schema_;
  std::map<std::string, Mutator> twins_;
  std::map<std::string, std::string> user_of_;
  Sender send_;
  std::map<std::string, int64_t>* counters_;
  std::unique_ptr<Db> store_;
  int64_t boot_id_ = 1;
  int64_t cv_ = 0;
  int64_t next_engine_qid_ = 1;
  bool starve_progress_ = false;
  std::map<std::string, Session> sessions_;
  std::map<std::string, Ledger> ledgers_;
  std::map<int64_t, std::pair<std::string, int64_t>> engine_to_sub_;
  std::vector<ProcessedEnvelope> log_;
  absl::Status health_;
  const std::set<std::string> no_local_tables_;
  bool dirty_ = true;
  ProjectionPolicy projection_policy_;
  std::map<std::pair<std::string, int64_t>, int64_t> epochs_;  // (client, qid) → hellos sent
  std::set<std::string> skew_next_hello_;  // clients whose next data hello is skewed
};

}  // namespace rindle::sim
