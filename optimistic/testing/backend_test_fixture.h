// backend_test_fixture.h — the shared fixture of the OptimisticBackend unit tests: a small
// schema (issue, counter, local-only draft), named test mutators, a FakeSource, a ManualFoldClock
// and helpers to hydrate views and read head/sync. Test use only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "base/lifecycle_tables.h"
#include "gtest/gtest.h"
#include "optimistic/backend.h"
#include "optimistic/testing/fake_source.h"
#include "optimistic/fold_clock.h"

namespace rindle::backend_test {

using json = nlohmann::json;

inline constexpr char kClient[] = "c1";

inline Schema TestSchema() {
  Schema s;
  s["issue"] = TableSpec{{{"id", ColumnType::kString, false},
                          {"title", ColumnType::kString, false},
                          {"status", ColumnType::kString, true}},
                         {0}};
  s["counter"] = TableSpec{{{"id", ColumnType::kString, false},
                            {"n", ColumnType::kNumber, false}},
                           {0}};
  s["draft"] = TableSpec{{{"id", ColumnType::kString, false},
                          {"text", ColumnType::kString, true}},
                         {0}};
  return s;
}

inline RowValues Issue(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title), Value::Null()};
}
inline RowValues Counter(const std::string& id, int64_t n) { return {Value::String(id), Value::Int(n)}; }
inline RowOp AddOp(const std::string& table, RowValues r) {
  return RowOp{RowOp::Kind::kAdd, table, std::move(r), {}};
}
inline RowOp RemoveOp(const std::string& table, RowValues r) {
  return RowOp{RowOp::Kind::kRemove, table, std::move(r), {}};
}
inline RowOp EditOp(const std::string& table, RowValues o, RowValues n) {
  return RowOp{RowOp::Kind::kEdit, table, std::move(n), std::move(o)};
}

inline Ast TableAst(const std::string& table) {
  Ast a;
  a.table = table;
  a.order_by = {OrderPart{"id", false}};
  return a;
}

inline std::map<std::string, Mutator> TestMutators() {
  std::map<std::string, Mutator> m;
  m["createIssue"] = [](MutationTx& tx, const json& a) {
    return tx.Insert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  m["setTitle"] = [](MutationTx& tx, const json& a) {
    return tx.Update("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  m["setStatus"] = [](MutationTx& tx, const json& a) {
    return tx.Update("issue", {{"id", a["id"]}, {"status", a["status"]}});
  };
  m["nullTitle"] = [](MutationTx& tx, const json& a) {
    return tx.Update("issue", {{"id", a["id"]}, {"title", nullptr}});
  };
  // Fails unless the issue exists (a read-dependent mutator whose base can vanish upstream).
  m["retitleExisting"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("issue", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no such issue");
    return tx.Update("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  m["boom"] = [](MutationTx& tx, const json&) -> absl::Status {
    absl::Status s = tx.Insert("issue", {{"id", "zz"}, {"title", "never"}});
    if (!s.ok()) return s;
    return absl::InvalidArgumentError("boom: client-side validation failed");
  };
  m["inc"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return tx.Insert("counter", {{"id", a["id"]}, {"n", 1}});
    return tx.Update("counter", {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() + 1}});
  };
  m["double"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no counter");
    return tx.Update("counter", {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() * 2}});
  };
  m["typo"] = [](MutationTx& tx, const json&) {
    return tx.Insert("issue", {{"id", "t"}, {"titel", "x"}});
  };
  m["badTable"] = [](MutationTx& tx, const json&) {
    return tx.Insert("issues", {{"id", "t"}});
  };
  m["missingTitle"] = [](MutationTx& tx, const json&) { return tx.Insert("issue", {{"id", "t"}}); };
  m["writeDraft"] = [](MutationTx& tx, const json&) {
    return tx.Insert("draft", {{"id", "d"}, {"text", "x"}});
  };
  m["readDraft"] = [](MutationTx& tx, const json&) {
    return tx.Get("draft", {Value::String("d")}).status();
  };
  m["raw"] = [](MutationTx& tx, const json& a) -> absl::Status {
    RowValues r = {Value::String("r"), Value::String("1"), Value::Null()};
    RowValues r2 = {Value::String("r"), Value::String("2"), Value::String("open")};
    absl::Status s = tx.Add("issue", r);
    if (s.ok()) s = tx.Edit("issue", r, r2);
    if (s.ok() && a.value("again", false)) s = tx.Add("issue", r);
    if (s.ok() && a.value("staleRemove", false)) s = tx.Remove("issue", r);
    if (s.ok() && a.value("width", false)) s = tx.Add("issue", {Value::String("w")});
    if (s.ok()) {
      Ast q;
      q.table = "issue";
      auto res = tx.Query(q);
      if (!res.ok()) return res.status();
      if (res->size() != 1) return absl::InternalError("query must see the staged row");
    }
    return s;
  };
  m["queryDraft"] = [](MutationTx& tx, const json&) {
    Ast q;
    q.table = "draft";
    return tx.Query(q).status();
  };
  m["jsonCell"] = [](MutationTx& tx, const json&) {
    return tx.Insert("issue", {{"id", "j"}, {"title", "T"}, {"status", {{"k", 1}}}});
  };
  m["churn"] = [](MutationTx& tx, const json&) -> absl::Status {
    // add → edit → edit of one pk, and edit → remove of another: inspect() shows the matrix.
    absl::Status s = tx.Insert("issue", {{"id", "n"}, {"title", "1"}});
    if (s.ok()) s = tx.Update("issue", {{"id", "n"}, {"title", "2"}});
    if (s.ok()) s = tx.Update("issue", {{"id", "b"}, {"title", "edited"}});
    if (s.ok()) s = tx.Delete("issue", {{"id", "b"}});
    return s;
  };
  return m;
}

// The options every fixture builds its backend from: client kClient, the test schema with the
// local-only draft table, the test mutators, `cap` and `clock` (which must outlive the backend).
inline OptimisticOptions TestOptions(FoldClock* clock, size_t cap = 1024) {
  OptimisticOptions o;
  o.client_id = kClient;
  o.schema = TestSchema();
  o.local_tables = {"draft"};
  o.mutators = TestMutators();
  o.buffer_cap = cap;
  o.clock = clock;
  return o;
}

// The multi-domain tests' policy: a mutation declares the room named by args["room"], if any.
inline DomainPolicy RoomArgPolicy() {
  return [](const std::string&, const json& args) -> std::optional<std::string> {
    if (args.is_object() && args.contains("room")) return args["room"].get<std::string>();
    return std::nullopt;
  };
}

// Retains the daemon-carried lifecycle stream `table` of `doc` (seed 002 I-iii) as system qid
// `qid` and answers its hello on `daemon` with the table's wire shape. `client` scopes the
// per-client tables (the room ledger); empty for none.
inline absl::Status RetainLifecycleStream(OptimisticBackend& backend, FakeSource& daemon,
                                          int64_t qid, std::string_view table,
                                          const std::string& doc, const std::string& client = "") {
  json args = {{"table", std::string(table)}, {"doc", doc}};
  if (!client.empty()) args["client_id"] = client;
  const RemoteQuery remote{std::string(kLifecycleQueryName), args};
  if (absl::Status s = backend.RetainSystemQuery(qid, remote, {std::string(table), "", doc});
      !s.ok()) {
    return s;
  }
  for (const LifecycleTableSpec& t : LifecycleTables()) {
    if (t.name != table) continue;
    WireTable w{std::string(t.name), {}, t.primary_key};
    for (auto c : t.columns) w.columns.emplace_back(c);
    daemon.Hello(qid, {w});
  }
  return absl::OkStatus();
}

// The daemon-carried lifecycle rows of seed 002 I-iii: doc's room ledger confirming `client`'s
// room mids up to `lmid`, and doc's watermark at `flush_seq`.
inline RowOp RoomLedgerAdd(const std::string& doc, const std::string& client, int64_t lmid) {
  return RowOp{RowOp::Kind::kAdd, std::string(kRoomClientMutationsTable),
               {Value::String(doc), Value::String(client), Value::Int(lmid)}, {}};
}
inline RowOp RoomWatermarkAdd(const std::string& doc, int64_t flush_seq) {
  return RowOp{RowOp::Kind::kAdd, std::string(kRoomWatermarkTable),
               {Value::String(doc), Value::Int(flush_seq)}, {}};
}

// A view's root rows as "id=title" strings (DebugString cells), in view order; empty when gone.
inline std::vector<std::string> ShownRows(const OptimisticBackend& backend, int64_t qid) {
  std::vector<std::string> out;
  const ResultView* v = backend.View(qid);
  if (v == nullptr) return out;
  for (const auto& n : v->Tree()) {
    out.push_back((*n.row)[0].DebugString() + "=" + (*n.row)[1].DebugString());
  }
  return out;
}

class BackendTest : public ::testing::Test {
 protected:
  explicit BackendTest(size_t cap = 1024) {
    backend_ = std::make_unique<OptimisticBackend>(TestOptions(&clock_, cap), &source_);
    backend_->SetBatchObserver([this](const QueryBatch& b, bool catch_up) {
      batches_.push_back(b);
      if (catch_up) catch_ups_.push_back(b);
    });
    EXPECT_TRUE(backend_->health().ok()) << backend_->health();
  }

  // Registers qid as a remote query over `table` and hydrates it with `rows` at `cv`.
  void Hydrate(int64_t qid, const std::string& table, const std::string& remote_name,
               std::vector<RowValues> rows, int64_t cv) {
    ASSERT_TRUE(backend_->RegisterQuery(qid, TableAst(table), RemoteQuery{remote_name, json::object()}).ok());
    source_.Hello(qid, {});
    source_.Snapshot(qid, cv, table, std::move(rows));
    source_.Progress(cv);
  }

  std::vector<std::string> ViewIds(int64_t qid) const {
    std::vector<std::string> out;
    const ResultView* v = backend_->View(qid);
    if (v == nullptr) return out;
    for (const auto& n : v->Tree()) out.push_back((*n.row)[0].as_string());
    return out;
  }
  std::vector<int64_t> PushedMids() const {
    std::vector<int64_t> out;
    for (const auto& e : source_.pushed) out.push_back(e.mid);
    return out;
  }
  std::vector<RowValues> Head(const std::string& t) const { return *backend_->engine().TableRows(t); }
  std::vector<RowValues> Sync(const std::string& t) const { return *backend_->engine().SyncRows(t); }

  ManualFoldClock clock_;  // before backend_: the backend clears its timers on destruction
  FakeSource source_;
  std::unique_ptr<OptimisticBackend> backend_;
  std::vector<QueryBatch> batches_;
  std::vector<QueryBatch> catch_ups_;
};

}  // namespace rindle::backend_test
