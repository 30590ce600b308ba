// views.h — the client's local queries and their ResultViews (seed 002 registerQuery /
// unregisterQuery / ResultType / isPending): one engine query + ResultView per local qid, the
// ResultType axis and the PENDING axis, and the transition-only observers. Holds state; not
// thread-safe. Reads hydration from Subscriptions and the pending tables from the Ledger.
//
// ResultType is kUnknown while the view's sub has not released its first snapshot (even an empty
// one), then kComplete; a local-only view (no sub) is kComplete; a late joiner to a hydrated sub
// is kComplete at once. The PENDING axis is separate: IsPending(qid) ⇔ some pending entry's
// touched tables meet the view's tables. Both observers fire on transitions only (RefreshAxes);
// NotifyResultType(force) re-notifies a late joiner even if it already read kComplete (a
// swallowed transition is unrecoverable for a consumer; a redundant one is harmless).
// ApplyBatches folds per-query batches into the views (invoke commits, local writes, reconcile
// deliveries) and fires the batch observer after each fold; during a release the caller passes
// the just-hydrated views, whose batch is marked as their catch-up delivery, and
// DeliverEmptyCatchUps gives each of them that folded nothing an explicit EMPTY catch-up.
// Errors: Register returns Status (engine registration, a snapshot that does not fold); a view
// that cannot fold a batch is recorded in the shared health.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "optimistic/health.h"
#include "optimistic/ledger.h"
#include "optimistic/subscriptions.h"

namespace rindle {

enum class ResultType { kUnknown, kComplete };
std::string_view ResultTypeName(ResultType t);

class Views {
 public:
  // Every pointer must outlive this object.
  Views(Db* db, ClientHealth* health, const Subscriptions* subs, const Ledger* ledger);

  // Registers the engine query and folds its snapshot into a new view. Requires !Has(qid).
  absl::Status Register(int64_t qid, const Ast& ast);
  // Tears the engine query and the view down and forgets its axes. Requires Has(qid).
  void Destroy(int64_t qid);
  // --- the room swap (swap.h, downgrade.h) ---
  // The AST the view was registered with (wire table names). Requires Has(qid).
  const Ast& OriginalAst(int64_t qid) const;
  // Re-registers the ENGINE query on `engine_ast` and resets the view IN PLACE to its snapshot
  // (the object, and pointers to it, survive); the swap observer then sees ONE transition. A
  // detached view is simply re-attached. Errors: the engine registration / the snapshot fold (the
  // view keeps its rows, detached). Requires Has(qid); not inside a reconcile cycle.
  absl::Status Rebind(int64_t qid, const Ast& engine_ast);
  // Drops the view's engine query but keeps the view and its rows (a swap-back in progress: the
  // cycle between detach and Rebind delivers nothing to it). Requires Has(qid).
  void Detach(int64_t qid);
  // The pending axis gains `tables` (a swapped view's twins; union, never shrinks).
  void AddTables(int64_t qid, const std::vector<std::string>& tables);
  // Back to the original AST's tables (a swap-back).
  void ResetTables(int64_t qid) { queries_.at(qid).tables = AstTables(queries_.at(qid).ast); }
  const std::vector<std::string>& Tables(int64_t qid) const { return queries_.at(qid).tables; }

  bool Has(int64_t qid) const { return queries_.count(qid) > 0; }
  const ResultView* View(int64_t qid) const;
  ResultType GetResultType(int64_t qid) const;
  bool IsPending(int64_t qid) const;

  // `newly` (may be null) marks just-hydrated views; their batches are inserted in `caught_up`.
  void ApplyBatches(const std::vector<QueryBatch>& batches,
                    const std::set<int64_t>* newly = nullptr,
                    std::set<int64_t>* caught_up = nullptr);
  void DeliverEmptyCatchUps(const std::set<int64_t>& newly, const std::set<int64_t>& caught_up);
  // Recomputes every view's ResultType and pending axis; fires the observers on transitions.
  void RefreshAxes();
  void NotifyResultType(int64_t qid, ResultType rt, bool force);
  // The result type last notified for `qid` (nullopt: none yet).
  std::optional<ResultType> Notified(int64_t qid) const {
    auto it = result_types_.find(qid);
    if (it == result_types_.end()) return std::nullopt;
    return it->second;
  }

  std::function<void(const QueryBatch&, bool catch_up)> batch_observer;
  std::function<void(int64_t qid, ResultType)> result_type_observer;
  std::function<void(int64_t qid, bool pending)> pending_observer;
  // Fired after a Rebind reset a view in place (its new content is View(qid)).
  std::function<void(int64_t qid)> swap_observer;

 private:
  struct LocalQuery {
    Ast ast;                          // as registered (wire names)
    std::vector<std::string> tables;  // AstTables (+ a swapped view's twins)
    std::unique_ptr<ResultView> view;
  };

  Db* db_;
  ClientHealth* health_;
  const Subscriptions* subs_;
  const Ledger* ledger_;
  std::map<int64_t, LocalQuery> queries_;
  std::map<int64_t, ResultType> result_types_;  // last notified
  std::map<int64_t, bool> pending_axis_;        // last notified
};

}  // namespace rindle
