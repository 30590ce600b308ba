#include "conformance/engine_run.h"

#include "engine/presentation.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "oracles/diff.h"

namespace rindle::conformance {

std::string_view RowOpKindName(RowOp::Kind kind) {
  switch (kind) {
    case RowOp::Kind::kAdd: return "add";
    case RowOp::Kind::kRemove: return "remove";
    case RowOp::Kind::kEdit: return "edit";
  }
  return "?";
}

absl::Status EngineRun::Init(const Schema& schema, const TableRows& rows) {
  for (const auto& [name, spec] : schema) {
    RETURN_IF_ERROR(db_.RegisterTable(name, spec, /*local=*/false));
  }
  std::unique_ptr<WriteTxn> txn = db_.Write();
  for (const auto& [table, list] : rows) {
    for (size_t i = 0; i < list.size(); ++i) {
      absl::Status s = txn->Add(table, list[i]);
      if (!s.ok()) {
        return absl::Status(s.code(),
                            StrCat("initial rows: ", table, "[", i, "]: ", s.message()));
      }
    }
  }
  return txn->Commit().status();
}

absl::Status EngineRun::Register(const Ast& ast) {
  ast_ = ast;
  ASSIGN_OR_RETURN(QuerySnapshot snap, db_.RegisterQuery(kQueryId, ast));
  view_ = std::make_unique<ResultView>(snap.shape);
  absl::Status s = view_->Apply(snap.events);
  if (!s.ok()) {
    return absl::Status(s.code(), StrCat("folding the hydrate snapshot: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status EngineRun::Apply(const std::vector<RowOp>& ops) {
  if (view_ == nullptr) return absl::FailedPreconditionError("EngineRun: no query registered");
  std::unique_ptr<WriteTxn> txn = db_.Write();
  for (size_t i = 0; i < ops.size(); ++i) {
    const RowOp& op = ops[i];
    absl::Status s;
    switch (op.kind) {
      case RowOp::Kind::kAdd: s = txn->Add(op.table, op.row); break;
      case RowOp::Kind::kRemove: s = txn->Remove(op.table, op.row); break;
      case RowOp::Kind::kEdit: s = txn->Edit(op.table, op.old_row, op.row); break;
    }
    if (!s.ok()) {
      return absl::Status(s.code(), StrCat("op ", i, " (", RowOpKindName(op.kind), " ",
                                           op.table, "): ", s.message()));
    }
  }
  ASSIGN_OR_RETURN(std::vector<QueryBatch> batches, txn->Commit());
  for (const QueryBatch& b : batches) {
    if (b.query_id != kQueryId) continue;
    for (size_t i = 0; i < b.events.size(); ++i) {
      absl::Status s = view_->Apply(b.events[i]);
      if (!s.ok()) {
        return absl::Status(s.code(), StrCat("folding commit event ", i, " ",
                                             ChangeEventToJson(b.events[i]).dump(), ": ",
                                             s.message()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> EngineRun::Folded() const {
  if (view_ == nullptr) return absl::FailedPreconditionError("EngineRun: no query registered");
  return PresentData(view_->Tree(), ast_, db_.Lookup());
}

absl::StatusOr<nlohmann::json> EngineRun::Materialized() const {
  ASSIGN_OR_RETURN(std::vector<TreeNode> tree, db_.QueryResult(kQueryId));
  return PresentData(tree, ast_, db_.Lookup());
}

absl::StatusOr<std::string> EngineRun::EventsVsView() const {
  ASSIGN_OR_RETURN(nlohmann::json folded, Folded());
  ASSIGN_OR_RETURN(nlohmann::json materialized, Materialized());
  return JsonDiff(materialized, folded);
}

}  // namespace rindle::conformance
