#include "optimistic/views.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "optimistic/write_set.h"

namespace rindle {

std::string_view ResultTypeName(ResultType t) {
  return t == ResultType::kComplete ? "complete" : "unknown";
}

Views::Views(Db* db, ClientHealth* health, const Subscriptions* subs, const Ledger* ledger)
    : db_(db), health_(health), subs_(subs), ledger_(ledger) {
  RINDLE_CHECK(db_ != nullptr && health_ != nullptr && subs_ != nullptr && ledger_ != nullptr);
}

absl::Status Views::Register(int64_t qid, const Ast& ast) {
  RINDLE_CHECK(!Has(qid));
  absl::StatusOr<QuerySnapshot> snap = db_->RegisterQuery(qid, ast);
  if (!snap.ok()) return AnnotateStatus(snap.status(), absl::StrCat("registerQuery ", qid, ": "));
  auto view = std::make_unique<ResultView>(snap->shape);
  if (absl::Status s = view->Apply(snap->events); !s.ok()) {
    db_->DestroyQuery(qid);
    return AnnotateStatus(s, absl::StrCat("registerQuery ", qid, ": snapshot does not fold: "));
  }
  queries_[qid] = LocalQuery{ast, AstTables(ast), std::move(view)};
  return absl::OkStatus();
}

const Ast& Views::OriginalAst(int64_t qid) const { return queries_.at(qid).ast; }

absl::Status Views::Rebind(int64_t qid, const Ast& engine_ast) {
  LocalQuery& q = queries_.at(qid);
  RINDLE_CHECK(!db_->in_server_batch());
  db_->DestroyQuery(qid);
  absl::StatusOr<QuerySnapshot> snap = db_->RegisterQuery(qid, engine_ast);
  if (!snap.ok()) return AnnotateStatus(snap.status(), absl::StrCat("swap of view ", qid, ": "));
  ResultView fresh(snap->shape);
  if (absl::Status s = fresh.Apply(snap->events); !s.ok()) {
    db_->DestroyQuery(qid);
    return AnnotateStatus(s, absl::StrCat("swap of view ", qid, ": snapshot does not fold: "));
  }
  *q.view = std::move(fresh);  // in place: the caller's view pointer survives
  if (swap_observer) swap_observer(qid);
  return absl::OkStatus();
}

void Views::Detach(int64_t qid) {
  RINDLE_CHECK(Has(qid));
  db_->DestroyQuery(qid);
}

void Views::AddTables(int64_t qid, const std::vector<std::string>& tables) {
  std::vector<std::string>& mine = queries_.at(qid).tables;
  std::set<std::string> all(mine.begin(), mine.end());
  all.insert(tables.begin(), tables.end());
  mine.assign(all.begin(), all.end());
}

void Views::Destroy(int64_t qid) {
  auto q = queries_.find(qid);
  RINDLE_CHECK(q != queries_.end());
  db_->DestroyQuery(qid);
  queries_.erase(q);
  result_types_.erase(qid);
  pending_axis_.erase(qid);
}

const ResultView* Views::View(int64_t qid) const {
  auto it = queries_.find(qid);
  return it == queries_.end() ? nullptr : it->second.view.get();
}

ResultType Views::GetResultType(int64_t qid) const {
  if (!Has(qid)) return ResultType::kUnknown;
  return subs_->ViewHydrated(qid) ? ResultType::kComplete : ResultType::kUnknown;
}

bool Views::IsPending(int64_t qid) const {
  auto it = queries_.find(qid);
  if (it == queries_.end()) return false;
  return AnyTableIn(it->second.tables, ledger_->PendingTables());
}

void Views::ApplyBatches(const std::vector<QueryBatch>& batches, const std::set<int64_t>* newly,
                         std::set<int64_t>* caught_up) {
  for (const auto& b : batches) {
    auto it = queries_.find(b.query_id);
    if (it == queries_.end()) continue;
    absl::Status s = it->second.view->Apply(b.events);
    if (!s.ok()) health_->Fail(AnnotateStatus(s, absl::StrCat("view for qid ", b.query_id, ": ")));
    // A just-hydrated view's batch from a release is its catch-up delivery.
    const bool catch_up = newly != nullptr && newly->count(b.query_id) > 0;
    if (catch_up && caught_up != nullptr) caught_up->insert(b.query_id);
    if (batch_observer) batch_observer(b, catch_up);
  }
}

void Views::DeliverEmptyCatchUps(const std::set<int64_t>& newly,
                                 const std::set<int64_t>& caught_up) {
  // Without it a newly hydrated view's consumer would wait for a first result forever.
  for (int64_t qid : newly) {
    if (caught_up.count(qid) > 0 || !Has(qid)) continue;
    if (batch_observer) batch_observer(QueryBatch{qid, {}}, true);
  }
}

void Views::NotifyResultType(int64_t qid, ResultType rt, bool force) {
  auto [it, inserted] = result_types_.try_emplace(qid, rt);
  const bool changed = inserted || it->second != rt;
  it->second = rt;
  if ((changed || force) && result_type_observer) result_type_observer(qid, rt);
}

void Views::RefreshAxes() {
  const std::set<std::string> tables = ledger_->PendingTables();
  for (const auto& [qid, q] : queries_) {
    NotifyResultType(qid, GetResultType(qid), /*force=*/false);
    const bool pending = AnyTableIn(q.tables, tables);
    auto [it, inserted] = pending_axis_.try_emplace(qid, pending);
    const bool changed = inserted || it->second != pending;
    it->second = pending;
    if (changed && pending_observer) pending_observer(qid, pending);
  }
}

}  // namespace rindle
