#include "engine/db.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "engine/ast_json.h"
#include "engine/ivm/view.h"

namespace rindle {
namespace {

TableSpec IssueSpec() {
  TableSpec s;
  s.columns = {{"id", ColumnType::kString, false},
               {"title", ColumnType::kString, false},
               {"priority", ColumnType::kNumber, false},
               {"owner", ColumnType::kString, true}};
  s.primary_key = {0};
  return s;
}

RowValues R(const std::string& id, const std::string& title, int64_t prio,
            std::optional<std::string> owner = std::nullopt) {
  return {Value::String(id), Value::String(title), Value::Int(prio),
          owner ? Value::String(*owner) : Value::Null()};
}

Ast Q(const std::string& text) {
  auto ast = ParseAstText(text);
  EXPECT_TRUE(ast.ok()) << ast.status();
  return *ast;
}

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(db.RegisterTable("issue", IssueSpec(), false).ok()); }
  // Seeds authoritative rows through a server batch (so they are in `sync`, not optimistic).
  void Seed(int n) {
    std::vector<ServerDeltaOp> deltas;
    for (int i = 0; i < n; ++i) {
      char id[16];
      std::snprintf(id, sizeof id, "i%03d", i);
      deltas.push_back({"issue", ServerDeltaOp::Type::kAdd, R(id, "t", i % 7), {}});
    }
    ASSERT_TRUE(db.ServerBatchBegin(deltas).ok());
    ASSERT_TRUE(db.ServerBatchEnd().ok());
  }
  // Registers `ast` as qid, keeps a folded view, returns it.
  ResultView& Live(int64_t qid, const Ast& ast) {
    auto snap = db.RegisterQuery(qid, ast);
    EXPECT_TRUE(snap.ok()) << snap.status();
    views.emplace(qid, ResultView(snap->shape));
    EXPECT_TRUE(views.at(qid).Apply(snap->events).ok());
    return views.at(qid);
  }
  void Fold(const std::vector<QueryBatch>& batches) {
    for (const auto& b : batches) {
      auto s = views.at(b.query_id).Apply(b.events);
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  // Folded view == the pipeline's own materialization.
  void ExpectConsistent() {
    for (auto& [qid, v] : views) {
      auto r = db.QueryResult(qid);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(v.RawJson(), TreeToJson(*r)) << "qid " << qid;
    }
  }
  Db db;
  std::map<int64_t, ResultView> views;
};

TEST_F(DbTest, AddRemoveEditProduceFoldableEvents) {
  Seed(5);
  Live(1, Q(R"({"table":"issue","orderBy":[["priority","desc"]]})"));
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("issue", R("x1", "new", 9)).ok());
  ASSERT_TRUE(tx->Remove("issue", R("i001", "t", 1)).ok());
  ASSERT_TRUE(tx->Edit("issue", R("i002", "t", 2), R("i002", "moved", 0)).ok());
  auto batches = tx->Commit();
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 1u);
  EXPECT_EQ((*batches)[0].events.size(), 3u);
  Fold(*batches);
  ExpectConsistent();
  EXPECT_EQ(views.at(1).root_size(), 5u);
}

TEST_F(DbTest, LimitWindowRefillsWhenARowLeaves) {
  Seed(20);
  Live(1, Q(R"({"table":"issue","orderBy":[["id","asc"]],"limit":3})"));
  auto tx = db.Write();
  ASSERT_TRUE(tx->Remove("issue", R("i000", "t", 0)).ok());
  auto b = tx->Commit();
  ASSERT_TRUE(b.ok());
  Fold(*b);
  ExpectConsistent();
  auto r = db.QueryResult(1);
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[2].row->at(0), Value::String("i003"));
}

TEST_F(DbTest, RowEnteringBeforeBoundPushesBoundOut) {
  Seed(10);
  Live(1, Q(R"({"table":"issue","orderBy":[["id","desc"]],"limit":2})"));
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("issue", R("z", "t", 1)).ok());
  auto b = tx->Commit();
  Fold(*b);
  ExpectConsistent();
  auto r = db.QueryResult(1);
  EXPECT_EQ((*r)[0].row->at(0), Value::String("z"));
  EXPECT_EQ((*r)[1].row->at(0), Value::String("i009"));
}

// Regression (found by the simulator, seed 164): evicting the bound of a full window must remove
// exactly the bound row — the eviction once passed a reference into the window that erase()
// had destroyed, and emitted a remove of whatever row the freed memory held.
TEST_F(DbTest, EvictionRemovesExactlyTheBound) {
  Seed(40);
  Live(1, Q(R"({"table":"issue","orderBy":[["id","desc"]],"limit":30})"));
  for (int round = 0; round < 5; ++round) {
    auto before = db.QueryResult(1);
    const Row bound = before->back().row;
    auto tx = db.Write();
    ASSERT_TRUE(tx->Add("issue", R(absl::StrCat("z", round), "t", 1)).ok());
    auto b = tx->Commit();
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(b->size(), 1u);
    bool removed_bound = false;
    for (const auto& e : (*b)[0].events) {
      if (e.op.kind == ChangeOp::Kind::kRemove) {
        EXPECT_EQ(*e.op.row, *bound);
        removed_bound = true;
      }
    }
    EXPECT_TRUE(removed_bound);
    Fold(*b);
    ExpectConsistent();
  }
}

TEST_F(DbTest, FilterAndCursor) {
  Seed(15);
  Live(1, Q(R"({"table":"issue","where":{"type":"simple","op":">=","left":{"type":"column","name":"priority"},"right":{"type":"literal","value":3}},
               "orderBy":[["id","asc"]],"start":{"row":{"id":"i005"},"exclusive":true},"limit":4})"));
  auto r = db.QueryResult(1);
  ASSERT_TRUE(r.ok());
  for (const auto& n : *r) {
    EXPECT_GE(n.row->at(2).as_int(), 3);
    EXPECT_GT(n.row->at(0).as_string(), "i005");
  }
  auto tx = db.Write();
  ASSERT_TRUE(tx->Edit("issue", R("i006", "t", 6), R("i006", "t", 0)).ok());
  ASSERT_TRUE(tx->Edit("issue", R("i007", "t", 0), R("i007", "t", 5)).ok());
  Fold(*tx->Commit());
  ExpectConsistent();
}

TEST_F(DbTest, FailedOpRollsBackWholeTxn) {
  Seed(3);
  Live(1, Q(R"({"table":"issue"})"));
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("issue", R("new", "t", 1)).ok());
  auto s = tx->Add("issue", R("i000", "dup", 1));
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(tx->open());
  auto rows = db.TableRows("issue");
  EXPECT_EQ(rows->size(), 3u);
  auto tx2 = db.Write();
  EXPECT_TRUE(tx2->Add("issue", R("new", "t", 1)).ok());
  auto b = tx2->Commit();
  ASSERT_TRUE(b.ok());
  Fold(*b);
  ExpectConsistent();
}

TEST_F(DbTest, ClearErrors) {
  Seed(1);
  auto tx = db.Write();
  auto s = tx->Add("nope", R("a", "t", 1));
  EXPECT_NE(std::string(s.message()).find("unknown table \"nope\""), std::string::npos) << s;
  tx = db.Write();
  s = tx->Add("issue", {Value::String("a")});
  EXPECT_NE(std::string(s.message()).find("row has 1 cells, expected 4"), std::string::npos) << s;
  tx = db.Write();
  s = tx->Add("issue", {Value::String("a"), Value::Int(3), Value::Int(1), Value::Null()});
  EXPECT_NE(std::string(s.message()).find("column \"title\" expects"), std::string::npos) << s;
  tx = db.Write();
  s = tx->Remove("issue", R("absent", "t", 1));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  tx = db.Write();
  s = tx->Remove("issue", R("i000", "other", 0));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  auto q = db.RegisterQuery(
      7, Q(R"({"table":"issue","where":{"type":"simple","op":"=","left":{"type":"column","name":"nope"},"right":{"type":"literal","value":1}}})"));
  EXPECT_NE(std::string(q.status().message()).find("$.where.left.name: unknown column \"nope\""),
            std::string::npos)
      << q.status();
  q = db.RegisterQuery(
      7, Q(R"({"table":"issue","where":{"type":"simple","op":"=","left":{"type":"column","name":"priority"},"right":{"type":"literal","value":"x"}}})"));
  EXPECT_NE(std::string(q.status().message()).find("type mismatch"), std::string::npos)
      << q.status();
  EXPECT_FALSE(db.HasQuery(7));
  auto bad = ParseAstText(R"({"table":"issue","where":{"type":"simple","op":"~","left":{"type":"column","name":"id"},"right":{"type":"literal","value":1}}})");
  EXPECT_NE(std::string(bad.status().message()).find("$.where.op: unknown operator"),
            std::string::npos)
      << bad.status();
  bad = ParseAstText("{not json");
  EXPECT_FALSE(bad.ok());
}

TEST_F(DbTest, ExactlyConfirmedPredictionDeliversNothing) {
  Seed(4);
  Live(1, Q(R"({"table":"issue","orderBy":[["title","asc"]]})"));
  // Optimistic prediction.
  auto tx = db.Write();
  ASSERT_TRUE(tx->Edit("issue", R("i001", "t", 1), R("i001", "predicted", 1)).ok());
  Fold(*tx->Commit());
  EXPECT_EQ(db.SyncRows("issue")->at(1), R("i001", "t", 1));
  // The server confirms exactly: delta == prediction; nothing is pending afterwards.
  ServerDeltaOp d{"issue", ServerDeltaOp::Type::kEdit, R("i001", "predicted", 1), R("i001", "t", 1)};
  ASSERT_TRUE(db.ServerBatchBegin({d}).ok());
  auto b = db.ServerBatchEnd();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
  EXPECT_EQ(db.SyncRows("issue")->at(1), R("i001", "predicted", 1));
  ExpectConsistent();
}

TEST_F(DbTest, RebaseRewindsAndReinvocationsCoalesce) {
  Seed(4);
  Live(1, Q(R"({"table":"issue"})"));
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("issue", R("opt", "mine", 1)).ok());
  Fold(*tx->Commit());
  // Server adds another row; our prediction is still pending → rewind, re-apply it.
  ServerDeltaOp d{"issue", ServerDeltaOp::Type::kAdd, R("srv", "theirs", 2), {}};
  ASSERT_TRUE(db.ServerBatchBegin({d}).ok());
  auto re = db.Write();
  ASSERT_TRUE(re->Add("issue", R("opt", "mine", 1)).ok());
  auto inside = re->Commit();
  ASSERT_TRUE(inside.ok());
  EXPECT_TRUE(inside->empty());  // buffered into the cycle
  auto b = db.ServerBatchEnd();
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 1u);
  ASSERT_EQ((*b)[0].events.size(), 1u);  // only the server's row; "opt" net unchanged
  Fold(*b);
  ExpectConsistent();
  EXPECT_EQ(db.SyncRows("issue")->size(), 5u);
  EXPECT_EQ(db.TableRows("issue")->size(), 6u);
}

TEST_F(DbTest, LocalTablesRejectServerDeltas) {
  ASSERT_TRUE(db.RegisterTable("draft", IssueSpec(), true).ok());
  ServerDeltaOp d{"draft", ServerDeltaOp::Type::kAdd, R("a", "t", 1), {}};
  auto s = db.ServerBatchBegin({d});
  EXPECT_NE(std::string(s.message()).find("local-only"), std::string::npos) << s;
  EXPECT_FALSE(db.poisoned());
}

// A rollback restores every kind of staged write: the compact undo of a fresh write (a pk absent
// from head, the sync overlay and the net change — write_txn.h UndoStep) interleaved with full
// records on the same pks (an edit of a row added in this txn, a re-add after a remove).
TEST_F(DbTest, RollbackRestoresFreshWritesInterleavedWithFullRecords) {
  Seed(3);
  Live(1, Q(R"({"table":"issue"})"));
  const auto head0 = db.TableRows("issue");
  const auto sync0 = db.SyncRows("issue");
  ASSERT_TRUE(head0.ok() && sync0.ok());
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("issue", R("new1", "t", 1)).ok());                        // fresh
  ASSERT_TRUE(tx->Edit("issue", R("new1", "t", 1), R("new1", "u", 2)).ok());    // full, same pk
  ASSERT_TRUE(tx->Edit("issue", R("i000", "t", 0), R("moved", "t", 0)).ok());   // fresh new pk
  ASSERT_TRUE(tx->Remove("issue", R("i001", "t", 1)).ok());
  ASSERT_TRUE(tx->Add("issue", R("i001", "again", 5)).ok());                    // full: re-add
  ASSERT_TRUE(tx->Add("issue", R("new2", "t", 3)).ok());                        // fresh
  tx->Rollback();
  EXPECT_EQ(*db.TableRows("issue"), *head0);
  EXPECT_EQ(*db.SyncRows("issue"), *sync0);
  auto tx2 = db.Write();
  ASSERT_TRUE(tx2->Add("issue", R("new1", "v", 4)).ok());
  auto b = tx2->Commit();
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].events.size(), 1u);  // only this txn's add: nothing of the rolled-back one
  Fold(*b);
  ExpectConsistent();
}

}  // namespace
}  // namespace rindle

namespace rindle {
namespace {

// Indexes drop a repeated column, so a correlation that repeats one (childField [owner, owner])
// must probe only its first occurrence; probing position by position sought the pk column with
// the second key value and skipped the run (found by EngineProps.RebaseWithReappliedPrediction
// FoldsToFreshNested on the index-sharing change).
TEST_F(DbTest, CorrelationRepeatingAColumnFindsItsRun) {
  auto tx = db.Write();
  for (const RowValues& r : {R("a", "x", 1, "x"), R("b", "y", 1, "z"), R("c", "x", 2, "q"),
                             R("d", "q", 3, "x")}) {
    ASSERT_TRUE(tx->Add("issue", r).ok());
  }
  ASSERT_TRUE(tx->Commit().ok());
  Live(1, Q(R"({"table":"issue","orderBy":[["id","asc"]],
    "where":{"type":"correlatedSubquery","op":"EXISTS","related":{
      "correlation":{"parentField":["title","owner"],"childField":["owner","owner"]},
      "subquery":{"table":"issue","alias":"e"}}},
    "related":[{"correlation":{"parentField":["owner","owner"],"childField":["title","title"]},
      "subquery":{"table":"issue","alias":"r"}}]})"));
  auto ids = [&]() {
    std::vector<std::string> out;
    auto r = db.QueryResult(1);
    EXPECT_TRUE(r.ok());
    for (const TreeNode& n : *r) {
      out.push_back((*n.row)[0].as_string());
      for (const TreeNode& c : n.relationships.at(0).second) {
        out.push_back("r:" + (*c.row)[0].as_string());
      }
    }
    return out;
  };
  // a: title == owner == x and an issue owned by x exists; its r children have title x.
  EXPECT_EQ(ids(), (std::vector<std::string>{"a", "r:a", "r:c"}));
  auto tx2 = db.Write();
  ASSERT_TRUE(tx2->Add("issue", R("e", "z", 1, "z")).ok());  // b is owned by z
  auto b = tx2->Commit();
  ASSERT_TRUE(b.ok());
  Fold(*b);
  ExpectConsistent();
  EXPECT_EQ(ids(), (std::vector<std::string>{"a", "r:a", "r:c", "e", "r:e"}));
}

}  // namespace
}  // namespace rindle
