#include "engine/db.h"

#include "absl/strings/str_cat.h"
#include "engine/ast_json.h"
#include "base/check.h"
#include "engine/ivm/pipeline.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {

struct Db::QueryEntry {
  Ast ast;
  std::unique_ptr<Pipeline> pipeline;
};

Db::Db() { RINDLE_CHECK(!rebase_.open() && !txn_open_ && NoNetChange(accum_)); }

// A WriteTxn keeps a pointer to its Db: destroying the Db under an open txn would leave the txn's
// rollback writing freed tables.
Db::~Db() { RINDLE_CHECK_MSG(!txn_open_, "Db destroyed while a write txn is open"); }

void Db::CheckDelivered() const {
  RINDLE_CHECK_MSG(txn_open_ || rebase_.open() || NoNetChange(accum_),
                   "a net change is left undelivered outside a write txn and a rebase cycle");
}

Table* Db::FindTable(std::string_view name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

absl::Status Db::CheckUsable() const {
  if (poisoned_) {
    return absl::FailedPreconditionError(
        "db is poisoned by an earlier error inside a server batch; discard it and re-hydrate");
  }
  return absl::OkStatus();
}

absl::Status Db::RegisterTable(const std::string& name, const TableSpec& spec, bool local) {
  RETURN_IF_ERROR(CheckUsable());
  RETURN_IF_ERROR(spec.Validate(name));
  if (Table* t = FindTable(name)) {
    if (t->spec() == spec && t->local() == local) return absl::OkStatus();
    return absl::AlreadyExistsError(StrCat(
        "table \"", name, "\" is already registered with a different schema or locality"));
  }
  if (rebase_.open() || txn_open_) {
    return absl::FailedPreconditionError("registerTable inside an open write or server batch");
  }
  const bool inserted = tables_.emplace(name, std::make_unique<Table>(name, spec, local)).second;
  RINDLE_CHECK(inserted);
  return absl::OkStatus();
}

absl::Status Db::UnregisterTable(const std::string& name) {
  RETURN_IF_ERROR(CheckUsable());
  Table* t = FindTable(name);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", name, "\""));
  if (rebase_.open() || txn_open_) {
    return absl::FailedPreconditionError("unregisterTable inside an open write or server batch");
  }
  for (const auto& [qid, q] : queries_) {
    for (const auto& tn : q->pipeline->tables()) {
      if (tn == name) {
        return absl::FailedPreconditionError(
            StrCat("table \"", name, "\" is read by live query ", qid));
      }
    }
  }
  // Nothing undelivered can still name the table.
  CheckDelivered();
  tables_.erase(tables_.find(name));
  merge_.Forget(name);
  RINDLE_CHECK(FindTable(name) == nullptr);
  return absl::OkStatus();
}

const TableSpec* Db::GetTableSpec(std::string_view name) const {
  Table* t = FindTable(name);
  return t == nullptr ? nullptr : &t->spec();
}

bool Db::IsLocal(std::string_view name) const {
  Table* t = FindTable(name);
  return t != nullptr && t->local();
}

std::vector<std::string> Db::TableNames() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tables_) out.push_back(name);
  return out;
}

TableLookup Db::Lookup() const {
  return [this](std::string_view name) { return GetTableSpec(name); };
}

absl::StatusOr<QuerySnapshot> Db::RegisterQuery(int64_t qid, const Ast& ast) {
  RETURN_IF_ERROR(CheckUsable());
  if (queries_.contains(qid)) {
    return absl::AlreadyExistsError(StrCat("query id ", qid, " is already registered"));
  }
  if (rebase_.open() || txn_open_) {
    return absl::FailedPreconditionError("query registration inside an open write or server batch");
  }
  // Hydrating over an undelivered change would deliver that change to the new query twice.
  CheckDelivered();
  RETURN_IF_ERROR(ValidateAst(ast, Lookup()));
  ASSIGN_OR_RETURN(std::unique_ptr<Pipeline> pipeline,
                   Pipeline::Build(ast, [this](std::string_view n) { return FindTable(n); }));
  QuerySnapshot snap;
  snap.shape = pipeline->shape();
  snap.events = pipeline->Hydrate();
  auto entry = std::make_unique<QueryEntry>();
  entry->ast = ast;
  entry->pipeline = std::move(pipeline);
  const bool inserted = queries_.emplace(qid, std::move(entry)).second;
  RINDLE_CHECK(inserted);
  return snap;
}

void Db::DestroyQuery(int64_t qid) {
  queries_.erase(qid);
  RINDLE_CHECK(!queries_.contains(qid));
}

bool Db::HasQuery(int64_t qid) const { return queries_.contains(qid); }

std::vector<int64_t> Db::QueryIds() const {
  std::vector<int64_t> out;
  for (const auto& [qid, q] : queries_) out.push_back(qid);
  return out;
}

const Ast* Db::QueryAst(int64_t qid) const {
  auto it = queries_.find(qid);
  return it == queries_.end() ? nullptr : &it->second->ast;
}

absl::StatusOr<std::vector<TreeNode>> Db::QueryResult(int64_t qid) const {
  auto it = queries_.find(qid);
  if (it == queries_.end()) return absl::NotFoundError(StrCat("unknown query ", qid));
  return it->second->pipeline->Result();
}

std::unique_ptr<WriteTxn> Db::Write() {
  auto txn = std::unique_ptr<WriteTxn>(new WriteTxn(this));
  // The txn is the Db's one open txn, or it was born closed because another is open (or the Db
  // is poisoned).
  RINDLE_CHECK(txn_open_ || poisoned_);
  return txn;
}

std::vector<QueryBatch> Db::Deliver() {
  std::vector<QueryBatch> out;
  // Drop pks whose net change is nothing (written and restored).
  for (auto& [name, changes] : accum_) {
    for (auto it = changes.begin(); it != changes.end();) {
      const NetChange& c = it->second;
      const bool same = (!c.before && !c.after) ||
                        (c.before && c.after && CompareRowValues(*c.before, *c.after) == 0);
      if (same) {
        it = changes.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [qid, q] : queries_) {
    std::vector<ChangeEvent> events = q->pipeline->Process(accum_);
    if (!events.empty()) out.push_back({qid, std::move(events)});
  }
  accum_.clear();
  return out;
}

absl::Status Db::ServerBatchBegin(std::string_view source_key,
                                  const std::vector<ServerDeltaOp>& deltas) {
  RETURN_IF_ERROR(CheckUsable());
  if (rebase_.open()) {
    return absl::FailedPreconditionError("serverBatchBegin: a cycle is already open");
  }
  if (txn_open_) return absl::FailedPreconditionError("serverBatchBegin: a write txn is open");
  absl::Status s = rebase_.Begin(source_key, deltas);
  // An error changes nothing: no cycle opens and nothing is buffered.
  RINDLE_CHECK(s.ok() ? rebase_.open() : (!rebase_.open() && NoNetChange(accum_)));
  return s;
}

absl::StatusOr<std::vector<QueryBatch>> Db::ServerBatchEnd() {
  RETURN_IF_ERROR(CheckUsable());
  if (!rebase_.open()) return absl::FailedPreconditionError("serverBatchEnd: no cycle is open");
  if (txn_open_) return absl::FailedPreconditionError("serverBatchEnd: a write txn is still open");
  rebase_.End();
  return Deliver();
}

absl::StatusOr<std::vector<RowValues>> Db::TableRows(std::string_view table) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  return t->HeadRows();
}

absl::StatusOr<std::vector<RowValues>> Db::SyncRows(std::string_view table) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  if (t->local()) {
    return absl::FailedPreconditionError(
        StrCat("table \"", table, "\" is local-only: it has no sync baseline"));
  }
  return t->SyncRows();
}

absl::StatusOr<std::optional<RowValues>> Db::Get(std::string_view table,
                                                 const RowValues& pk) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  Row r = t->Find(pk);
  if (!r) return std::optional<RowValues>();
  return std::optional<RowValues>(*r);
}

// --- the multi-source merge: a facade over merge.h ---

absl::Status Db::CheckMergeMutable(std::string_view call) const {
  RETURN_IF_ERROR(CheckUsable());
  // A staged write's undo records the table's overlay: a merge write under it would be undone
  // wrongly by a rollback.
  if (txn_open_) return absl::FailedPreconditionError(StrCat(call, ": a write txn is open"));
  return absl::OkStatus();
}

std::vector<QueryBatch> Db::DeliverUnlessCycle() {
  // Inside a server-batch cycle the change folds into the cycle's one delivery.
  if (rebase_.open()) return {};
  return Deliver();
}

absl::Status Db::AddRoomSource(std::string_view table, std::string_view room_key,
                               const WritableScope& w) {
  RETURN_IF_ERROR(CheckMergeMutable("addRoomSource"));
  return merge_.AddRoomSource(table, room_key, w);
}

absl::StatusOr<std::vector<QueryBatch>> Db::RemoveRoomSource(std::string_view table,
                                                             std::string_view room_key) {
  RETURN_IF_ERROR(CheckMergeMutable("removeRoomSource"));
  RETURN_IF_ERROR(merge_.RemoveRoomSource(table, room_key));
  return DeliverUnlessCycle();
}

absl::Status Db::HoldBack(std::string_view table, std::string_view source_key,
                          const RowValues& row) {
  RETURN_IF_ERROR(CheckMergeMutable("holdBack"));
  RETURN_IF_ERROR(merge_.HoldBack(table, source_key, row));
  CheckDelivered();  // an install changes nothing visible
  return absl::OkStatus();
}

absl::Status Db::HoldBackAbsent(std::string_view table, std::string_view source_key,
                                const RowValues& old_row) {
  RETURN_IF_ERROR(CheckMergeMutable("holdBackAbsent"));
  RETURN_IF_ERROR(merge_.HoldBackAbsent(table, source_key, old_row));
  CheckDelivered();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<QueryBatch>> Db::DropHeldBack(std::string_view table,
                                                         std::string_view source_key,
                                                         const RowValues& probe) {
  RETURN_IF_ERROR(CheckMergeMutable("dropHeldBack"));
  RETURN_IF_ERROR(merge_.DropHeldBack(table, source_key, probe));
  return DeliverUnlessCycle();
}

absl::StatusOr<std::optional<HeldBackInfo>> Db::HeldBackState(std::string_view table,
                                                              std::string_view source_key,
                                                              const RowValues& probe) {
  RETURN_IF_ERROR(CheckUsable());
  return merge_.HeldBackState(table, source_key, probe);
}

absl::StatusOr<std::vector<QueryBatch>> Db::FreezeSource(std::string_view table,
                                                         std::string_view source_key) {
  RETURN_IF_ERROR(CheckMergeMutable("freezeSource"));
  RETURN_IF_ERROR(merge_.FreezeSource(table, source_key));
  return DeliverUnlessCycle();
}

absl::StatusOr<std::optional<std::string>> Db::ProvenanceOf(std::string_view table,
                                                            const RowValues& row) {
  RETURN_IF_ERROR(CheckUsable());
  return merge_.ProvenanceOf(table, row);
}

absl::StatusOr<bool> Db::WritableMatches(std::string_view table, std::string_view room_key,
                                         const RowValues& row) {
  RETURN_IF_ERROR(CheckUsable());
  return merge_.WritableMatches(table, room_key, row);
}

absl::StatusOr<std::vector<RowValues>> Db::SourceRows(std::string_view table,
                                                      std::string_view source_key) const {
  return merge_.SourceRows(table, source_key);
}

}  // namespace rindle
