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

  std::function<void(const QueryBatch&, bool catch_up)> batch_observer;
  std::function<void(int64_t qid, ResultType)> result_type_observer;
  std::function<void(int64_t qid, bool pending)> pending_observer;

 private:
  struct LocalQuery {
    std::vector<std::string> tables;  // AstTables
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
