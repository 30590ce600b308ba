// authority_subscriptions.h — what ANY authority (the daemon today, a room tomorrow) needs to
// serve subscriptions over its own store (SPEC §2.3; seed 002 NormalizedSync,
// PROJECTION-SUPPORT-DESIGN). Holds state: per-client sessions of live subscriptions, the
// engine-query → subscription map, per-(client, qid) epochs, the projection policy, the one-shot
// skew requests and the progress-starvation flag. It does NOT own the store, the cv or the
// ledgers: the authority passes the cv it stamps frames with and calls Publish after each commit.
//
// A subscription runs FootprintQuery(query) (footprint_query.h) and its footprint is every base
// row of that live view (result rows at every level: the query's own rows, EXISTS witnesses, the
// row past each window). Register sends hello (tables and column names), snapshot {cv,
// footprint} and progress {cvMin = cv}; after each commit Publish sends, to each subscription
// whose view changed, a batch {cv, ops} with the footprint diff (removes, adds, edits in key
// order; nothing when the diff is empty), and SendProgress sends progress to every session.
//
// Projection: every registration asks the projection policy (default: full rows) how to ship
// that epoch:
//   kFull      — hello lists every schema column; rows are full width.
//   kProjected — per table, the hello lists the pk columns plus every column the (footprint)
//                query references anywhere — where (simple operands, EXISTS correlations and
//                their subqueries, recursively), orderBy, start cursor, select, related
//                correlations — in schema order, and EVERY column of a table whose rows the
//                view shows without a `select` (the root or a visible, non-aggregate related
//                level; not an EXISTS witness): such a view's result is the whole row, and the
//                client evaluates every one of its views over the rows all its queries share,
//                so a cell one query leaves out is read as null by another (a cursor query kept
//                a row whose createdAt a no-select query had not shipped). For that same
//                reason it also ships every column ANY subscription of the client's session
//                reads on that table (a growing per-session union): a row one query holds is
//                evaluated by every view, so a view must never meet an absent cell it reads.
//                A registration that grows the union re-ships each projected subscription
//                lacking a new column (a new epoch: hello + snapshot; "authority.widened_hello").
//                The others are DROPPED. Rows are positional
//                against that list, and the footprint diff is taken over the projected rows, so
//                a change to an unshipped column sends nothing.
//   kWide      — the hello lists every schema column plus an extra "__server_only" column in the
//                middle (a server mid expand-then-contract); rows carry an extra string cell
//                there that the client must drop.
//   kSkewed    — (SkewNextHello, the schema_skew fault) every column, the non-pk ones reversed.
// The choice is per (client, qid, epoch): a re-subscribe may change it, so a frame of a
// superseded epoch scattered through the new epoch's column map corrupts rows (the client must
// drop such frames). Every data frame is tagged with its epoch (frames.h; epoch = the count of
// hellos sent for (client, qid), 1 for the first). Coverage(client) reports, per row in some
// live subscription of the client, which schema columns some such subscription ships — the mask
// the convergence check applies to the authority's store.
//
// Errors: a query that cannot be resolved or registered is an internal error of the authority,
// returned as absl::Status from Register (the authority records it as its health). Calls for a
// client without a session (a registration that raced a disconnect) are ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/db.h"
#include "optimistic/source.h"
#include "sim/world/frames.h"
#include "base/rng.h"

namespace rindle::sim {

inline constexpr char kServerOnlyColumn[] = "__server_only";

// kSkewed: every schema column, the non-pk ones in reverse order (the schema_skew fault).
enum class ProjectionChoice { kFull, kProjected, kWide, kSkewed };
// (client, qid, query, epoch) → how to ship that subscription epoch.
using ProjectionPolicy = std::function<ProjectionChoice(const std::string& client, int64_t qid,
                                                        const RemoteQuery& query, int64_t epoch)>;

// (table, pk) of a row in some live subscription → per schema column, whether it is shipped.
using CoverageMap = std::map<std::pair<std::string, RowValues>, std::vector<bool>>;

// Per table of `ast` (recursively: related, EXISTS subqueries): the schema column indices a
// projected subscription ships — pk columns plus every column the AST references, or every
// column where a shown level has no `select` (kProjected above) — sorted.
std::map<std::string, std::vector<int>> ProjectedColumns(const Ast& ast, const Schema& schema);

// The simulation's policy, a deterministic function of `rng` (fork "projection" of the run
// seed) and of each registration's (client, query key, ordinal among that client's
// registrations of that query) — never of the registration order across queries, so removing
// one registration leaves the others' choices unchanged (the shrinker relies on it): a third
// of runs never project; the others project each
// registration with probability 1/3, 2/3 or 1, and some of those (1 in 2) ship a wide hello to
// 1 in 5 of the unprojected registrations. The lmid query (qid 0) is always full.
ProjectionPolicy SimProjectionPolicy(Rng rng);

class AuthoritySubscriptions {
 public:
  using Sender = std::function<void(const std::string& client, ServerFrame frame)>;

  // `store` (the authority's own engine, tables registered) and `schema` outlive this object;
  // `user_of` maps a client id to its app user (the query context); `send` puts a frame on the
  // client's link; `counters` receives "authority.*_hello" counts.
  AuthoritySubscriptions(Db* store, const Schema* schema,
                         std::map<std::string, std::string> user_of, Sender send,
                         std::map<std::string, int64_t>* counters);

  // Session lifecycle. OpenSession requires no open session for `client`; CloseSession drops
  // the session and destroys its engine queries (no-op without one); CloseAll closes every one.
  void OpenSession(const std::string& client);
  void CloseSession(const std::string& client);
  void CloseAll();
  // Points at a new store (the authority was restored from a backup); no session may be open.
  void Rebind(Db* store);
  bool HasSession(const std::string& client) const { return sessions_.contains(client); }
  // The highest progress cvMin sent to `client`'s open session; -1 without a session or before
  // its first progress. A snapshot registered later must carry a cv above it (the cv promise).
  int64_t Promised(const std::string& client) const;
  // The clients with an open session, in key order.
  std::vector<std::string> SessionClients() const;

  // (Re)subscribes `qid` at `cv`: replaces any live subscription of that qid, then sends hello,
  // snapshot and (unless starved) progress. Ignored without a session.
  absl::Status Register(const std::string& client, int64_t qid, const RemoteQuery& query,
                        int64_t cv);
  void Unregister(const std::string& client, int64_t qid);

  // After a commit at `cv`: a batch frame per changed subscription view.
  void Publish(const std::vector<QueryBatch>& batches, int64_t cv);
  // progress {cvMin = cv} to every session, unless starved.
  void SendProgress(int64_t cv);
  // Starve (withhold) progress frames; releasing sends one at `cv`.
  void StarveProgress(bool starve, int64_t cv);

  void SetProjectionPolicy(ProjectionPolicy policy) { projection_policy_ = std::move(policy); }
  // The next data hello (qid ≠ 0) to `client` is kSkewed. One-shot.
  void SkewNextHello(const std::string& client) { skew_next_hello_.insert(client); }

  // Per (table, pk) held by some live subscription of `client` other than the lmid query.
  CoverageMap Coverage(const std::string& client) const;
  // The (table → shipped schema columns) of one live subscription; empty = all (kFull/kWide).
  // nullptr for no such subscription.
  const std::map<std::string, std::vector<int>>* SubscriptionColumns(const std::string& client,
                                                                     int64_t qid) const;
  // Every live subscription (client, qid), in key order.
  std::vector<std::pair<std::string, int64_t>> Subscriptions() const;
  absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                           int64_t qid) const;
  const Ast* SubscriptionAst(const std::string& client, int64_t qid) const;

 private:
  using FootprintKey = std::pair<std::string, RowValues>;  // (table, pk)
  struct Subscription {
    int64_t engine_qid = 0;
    Ast ast;
    std::map<FootprintKey, RowValues> footprint;  // rows in WIRE form (projected / wide)
    ProjectionChoice choice = ProjectionChoice::kFull;
    std::map<std::string, std::vector<int>> columns;  // kProjected/kSkewed: table → columns
    int64_t epoch = 0;
  };
  struct Session {
    std::map<int64_t, Subscription> subs;
    int64_t promised = -1;  // the highest cvMin sent on this session (-1: none yet)
    // Per table, every column some subscription of this session has read (ProjectedColumns),
    // growing only: a projected subscription ships these too (kProjected above).
    std::map<std::string, std::set<int>> reads;
  };

  // Register's steps, in order.
  void Drop(Session& session, int64_t qid);
  absl::StatusOr<Ast> Resolve(const std::string& client, const RemoteQuery& query) const;
  void ChooseProjection(const std::string& client, int64_t qid, const RemoteQuery& query,
                        const Session& session, Subscription& sub);
  // pk ∪ the sub's own referenced columns ∪ the session's reads, per table the sub reads.
  std::map<std::string, std::vector<int>> ShippedColumns(const Session& session,
                                                         const Ast& ast) const;
  // Re-ships (new epoch: hello + snapshot at `cv`) every projected subscription of `session`
  // other than `except` that lacks a column the session now reads.
  void WidenProjected(const std::string& client, Session& session, int64_t except, int64_t cv);
  std::map<std::string, std::vector<int>> SkewedColumns(const Ast& ast) const;
  void SendHello(const std::string& client, int64_t qid, const Subscription& sub);
  void SendSnapshot(const std::string& client, int64_t qid, const Subscription& sub, int64_t cv);
  void SendProgressTo(const std::string& client, int64_t cv);

  std::map<FootprintKey, RowValues> Footprint(const Subscription& sub) const;
  RowValues Wire(const Subscription& sub, const std::string& table, const RowValues& row) const;
  static std::vector<RowOp> FootprintDiff(const std::map<FootprintKey, RowValues>& old_rows,
                                          const std::map<FootprintKey, RowValues>& new_rows);
  void Count(const std::string& name) { ++(*counters_)[name]; }

  Db* store_;
  const Schema* schema_;
  std::map<std::string, std::string> user_of_;
  Sender send_;
  std::map<std::string, int64_t>* counters_;
  int64_t next_engine_qid_ = 1;
  bool starve_progress_ = false;
  std::map<std::string, Session> sessions_;
  std::map<int64_t, std::pair<std::string, int64_t>> engine_to_sub_;
  ProjectionPolicy projection_policy_;
  std::map<std::pair<std::string, int64_t>, int64_t> epochs_;  // (client, qid) → hellos sent
  std::set<std::string> skew_next_hello_;  // clients whose next data hello is skewed
};

}  // namespace rindle::sim
