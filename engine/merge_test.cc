// merge_test.cc — focused tests of the multi-source merge (seed 000 §merge; merge.h,
// source_set.h): promotion, winner tiering, per-source rebase, hold-backs and tombstones, drop /
// freeze / remove delivering compensating deltas, provenance, writable scopes, routed commit
// sources, and errors leaving the Db unchanged. Every test folds the delivered batches into a
// view and checks it against the pipeline's materialization.
#include <gtest/gtest.h>

#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "engine/testing/merge_fixture.h"

namespace rindle {
namespace {

using merge_fixture::TSpec;
using merge_fixture::R;

constexpr char kRoomA[] = "room:doc:A";
constexpr char kRoomB[] = "room:doc:B";

ServerDeltaOp Add(RowValues r) { return {"t", ServerDeltaOp::Type::kAdd, std::move(r), {}}; }
ServerDeltaOp Rem(RowValues r) { return {"t", ServerDeltaOp::Type::kRemove, std::move(r), {}}; }
ServerDeltaOp Ed(RowValues o, RowValues n) {
  return {"t", ServerDeltaOp::Type::kEdit, std::move(n), std::move(o)};
}

WritableScope All() { return {}; }
WritableScope None() {
  WritableScope w;
  w.kind = WritableScope::Kind::kNone;
  return w;
}
WritableScope ColEq(int col, Value v) {
  WritableScope w;
  w.kind = WritableScope::Kind::kColEq;
  w.col = col;
  w.value = std::move(v);
  return w;
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.RegisterTable("t", TSpec(), false).ok());
    ASSERT_TRUE(db.RegisterTable("loc", TSpec(), true).ok());
    auto ast = ParseAstText(R"({"table":"t","orderBy":[["id","asc"]]})");
    ASSERT_TRUE(ast.ok());
    auto snap = db.RegisterQuery(1, *ast);
    ASSERT_TRUE(snap.ok());
    view.emplace(snap->shape);
    ASSERT_TRUE(view->Apply(snap->events).ok());
  }
  // One whole cycle from `source`; returns the delivered batches (folded into the view).
  std::vector<QueryBatch> Batch(std::string_view source, const std::vector<ServerDeltaOp>& d) {
    absl::Status s = db.ServerBatchBegin(source, d);
    EXPECT_TRUE(s.ok()) << s;
    auto b = db.ServerBatchEnd();
    EXPECT_TRUE(b.ok()) << b.status();
    Fold(*b);
    return *b;
  }
  void Fold(const std::vector<QueryBatch>& batches) {
    for (const auto& b : batches) {
      ASSERT_EQ(b.query_id, 1);
      absl::Status s = view->Apply(b.events);
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  // The folded view == the pipeline's materialization; returns the visible rows.
  std::vector<RowValues> Visible() {
    auto r = db.QueryResult(1);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(view->RawJson(), TreeToJson(*r));
    std::vector<RowValues> out;
    for (const auto& n : *r) out.push_back(*n.row);
    return out;
  }
  std::optional<std::string> Prov(const RowValues& row) {
    auto p = db.ProvenanceOf("t", row);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : std::nullopt;
  }
  std::vector<QueryBatch> Commit(const std::function<void(WriteTxn&)>& f) {
    auto tx = db.Write();
    f(*tx);
    auto b = tx->Commit();
    EXPECT_TRUE(b.ok()) << b.status();
    Fold(*b);
    return *b;
  }
  Db db;
  std::optional<ResultView> view;
};

using Rows = std::vector<RowValues>;

TEST_F(MergeTest, PromotionChangesNothingVisible) {
  Batch("daemon", {Add(R("a", 1)), Add(R("b", 2))});
  EXPECT_FALSE(db.IsMerged("t"));
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  EXPECT_TRUE(db.IsMerged("t"));
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("b", 2)}));
  EXPECT_EQ(*db.SourceRows("t", "daemon"), (Rows{R("a", 1), R("b", 2)}));
  EXPECT_TRUE(db.SourceRows("t", kRoomA)->empty());
  EXPECT_EQ(Prov(R("a", 0)), "daemon");
  // An empty room batch rewinds and changes nothing.
  EXPECT_TRUE(Batch(kRoomA, {}).empty());
}

TEST_F(MergeTest, CoveringRoomWinsNoneLeavesTheDaemonAuthoritative) {
  Batch("daemon", {Add(R("a", 1)), Add(R("b", 2))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  ASSERT_TRUE(db.AddRoomSource("t", kRoomB, None()).ok());
  Batch(kRoomA, {Add(R("a", 10))});
  Batch(kRoomB, {Add(R("b", 20)), Add(R("c", 30))});
  // a: room A covers its copy; b: B is `none`, the daemon stays; c: only B holds it (tier 4).
  EXPECT_EQ(Visible(), (Rows{R("a", 10), R("b", 2), R("c", 30)}));
  EXPECT_EQ(Prov(R("a", 0)), kRoomA);
  EXPECT_EQ(Prov(R("b", 0)), "daemon");
  EXPECT_EQ(Prov(R("c", 0)), kRoomB);
  EXPECT_EQ(Prov(R("zz", 0)), std::nullopt);
}

TEST_F(MergeTest, ColEqScopeCoversOnlyMatchingRows) {
  Batch("daemon", {Add(R("a", 1, "x")), Add(R("b", 2, "y"))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, ColEq(2, Value::String("x"))).ok());
  Batch(kRoomA, {Add(R("a", 10, "x")), Add(R("b", 20, "x"))});
  // b's room copy has owner x, so it is covered (the scope is evaluated on the room's copy).
  EXPECT_EQ(Visible(), (Rows{R("a", 10, "x"), R("b", 20, "x")}));
  Batch(kRoomA, {Ed(R("b", 20, "x"), R("b", 21, "y"))});
  EXPECT_EQ(Visible(), (Rows{R("a", 10, "x"), R("b", 2, "y")}));
  EXPECT_EQ(*db.WritableMatches("t", kRoomA, R("q", 0, "x")), true);
  EXPECT_EQ(*db.WritableMatches("t", kRoomA, R("q", 0)), false);  // null never matches
}

TEST_F(MergeTest, FrozenSourceWinsIfPresentAndFreezeDelivers) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("a", 10)), Add(R("b", 20))});
  EXPECT_EQ(Visible(), (Rows{R("a", 10), R("b", 20)}));
  auto b = db.FreezeSource("t", "daemon");
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 1u);
  Fold(*b);
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("b", 20)}));
  EXPECT_EQ(Prov(R("a", 0)), "daemon");
  // A frozen source takes no more batches; nothing changes on the error.
  EXPECT_EQ(db.ServerBatchBegin("daemon", {Add(R("c", 3))}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(db.in_server_batch());
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("b", 20)}));
}

TEST_F(MergeTest, CoveringRoomsTieToTheLowerKey) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomB, All()).ok());
  Batch(kRoomB, {Add(R("a", 20))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("a", 10))});
  EXPECT_EQ(Visible(), (Rows{R("a", 10)}));
  EXPECT_EQ(Prov(R("a", 0)), kRoomA);
}

TEST_F(MergeTest, HiddenRoomRowEmitsNothing) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, None()).ok());
  EXPECT_TRUE(Batch(kRoomA, {Add(R("a", 10))}).empty());
  EXPECT_TRUE(Batch(kRoomA, {Ed(R("a", 10), R("a", 11))}).empty());
  EXPECT_TRUE(Batch(kRoomA, {Rem(R("a", 11))}).empty());
  EXPECT_EQ(Visible(), (Rows{R("a", 1)}));
  EXPECT_TRUE(db.SourceRows("t", kRoomA)->empty());
}

TEST_F(MergeTest, PerSourceFoldChecksTheSourceBaselineAndRewindsTheOptimisticLayer) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  // The room's baseline lacks a: removing it there is a precondition failure.
  EXPECT_EQ(db.ServerBatchBegin(kRoomA, {Rem(R("a", 1))}).code(),
            absl::StatusCode::kFailedPrecondition);
  Commit([](WriteTxn& tx) { ASSERT_TRUE(tx.Add("t", R("z", 9)).ok()); });
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("z", 9)}));
  // The room confirms z; the optimistic z is rewound and re-invoked inside the cycle: the exact
  // confirmation delivers nothing.
  ASSERT_TRUE(db.ServerBatchBegin(kRoomA, {Add(R("z", 9))}).ok());
  {
    auto tx = db.Write();
    EXPECT_EQ(tx->Add("t", R("z", 9)).code(), absl::StatusCode::kAlreadyExists);
  }
  auto b = db.ServerBatchEnd();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("z", 9)}));
  EXPECT_EQ(Prov(R("z", 0)), kRoomA);
  EXPECT_EQ(*db.SourceRows("t", "daemon"), (Rows{R("a", 1)}));
}

TEST_F(MergeTest, HoldBackKeepsAnEchoedRowThroughTheSourceRewindUntilItsEcho) {
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("a", 1))});
  Commit([](WriteTxn& tx) { ASSERT_TRUE(tx.Edit("t", R("a", 1), R("a", 5)).ok()); });
  ASSERT_TRUE(db.HoldBack("t", kRoomA, R("a", 5)).ok());
  auto st = db.HeldBackState("t", kRoomA, R("a", 0));
  ASSERT_TRUE(st.ok() && st->has_value());
  EXPECT_FALSE((*st)->absent);
  EXPECT_EQ((*st)->baseline, R("a", 1));
  // The room's next rewind (without the echo, nothing re-invoked) does not flash-revert a.
  EXPECT_TRUE(Batch(kRoomA, {}).empty());
  EXPECT_EQ(Visible(), (Rows{R("a", 5)}));
  EXPECT_TRUE(db.HeldBackState("t", kRoomA, R("a", 0))->has_value());
  // The echo lands: the parked row equals the baseline and drops; nothing visible changes.
  EXPECT_TRUE(Batch(kRoomA, {Ed(R("a", 1), R("a", 5))}).empty());
  EXPECT_FALSE(db.HeldBackState("t", kRoomA, R("a", 0))->has_value());
  EXPECT_EQ(Visible(), (Rows{R("a", 5)}));
}

TEST_F(MergeTest, InstallingAHoldBackNeverChangesWhatIsVisible) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  // No optimistic write shows a=7: the install still emits nothing and head keeps a=1 ...
  ASSERT_TRUE(db.HoldBack("t", kRoomA, R("a", 7)).ok());
  ASSERT_TRUE(db.HoldBackAbsent("t", "daemon", R("a", 1)).ok());
  EXPECT_EQ(Visible(), (Rows{R("a", 1)}));
  EXPECT_EQ(Prov(R("a", 0)), kRoomA);
  // ... until the next rewind shows the confirmed layer.
  Batch("daemon", {});
  EXPECT_EQ(Visible(), (Rows{R("a", 7)}));
}

TEST_F(MergeTest, TombstoneMasksThePkUntilTheSourceBaselineLacksIt) {
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("a", 1))});
  Commit([](WriteTxn& tx) { ASSERT_TRUE(tx.Remove("t", R("a", 1)).ok()); });
  ASSERT_TRUE(db.HoldBackAbsent("t", kRoomA, R("a", 1)).ok());
  EXPECT_TRUE((*db.HeldBackState("t", kRoomA, R("a", 0)))->absent);
  // Two rewinds of the room without the delete echo: a must not resurrect, the tombstone stays.
  EXPECT_TRUE(Batch(kRoomA, {}).empty());
  EXPECT_TRUE(Batch(kRoomA, {Add(R("b", 2))}).size() == 1);
  EXPECT_EQ(Visible(), (Rows{R("b", 2)}));
  EXPECT_TRUE(db.HeldBackState("t", kRoomA, R("a", 0))->has_value());
  EXPECT_EQ(Prov(R("a", 0)), std::nullopt);
  // The delete echoes: the tombstone drops, a stays gone.
  EXPECT_TRUE(Batch(kRoomA, {Rem(R("a", 1))}).empty());
  EXPECT_FALSE(db.HeldBackState("t", kRoomA, R("a", 0))->has_value());
  EXPECT_EQ(Visible(), (Rows{R("b", 2)}));
}

TEST_F(MergeTest, DropHeldBackDeliversOrFoldsIntoTheOpenCycle) {
  Batch("daemon", {Add(R("a", 1)), Add(R("b", 2))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  ASSERT_TRUE(db.HoldBack("t", kRoomA, R("a", 5)).ok());
  ASSERT_TRUE(db.HoldBackAbsent("t", "daemon", R("b", 2)).ok());
  Batch("daemon", {});  // the rewind shows the parked layer: a=5, b masked
  EXPECT_EQ(Visible(), (Rows{R("a", 5)}));
  // The fence drops a's hold-back: the masked daemon row becomes visible, delivered now.
  auto d = db.DropHeldBack("t", kRoomA, R("a", 0));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 1u);
  Fold(*d);
  EXPECT_EQ(Visible(), (Rows{R("a", 1)}));
  // Dropping the tombstone inside an open cycle returns nothing; End delivers it.
  ASSERT_TRUE(db.ServerBatchBegin(kRoomA, {}).ok());
  auto d2 = db.DropHeldBack("t", "daemon", R("b", 0));
  ASSERT_TRUE(d2.ok());
  EXPECT_TRUE(d2->empty());
  auto e = db.ServerBatchEnd();
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->size(), 1u);
  Fold(*e);
  EXPECT_EQ(Visible(), (Rows{R("a", 1), R("b", 2)}));
  // Nothing parked: a no-op.
  EXPECT_TRUE(db.DropHeldBack("t", kRoomA, R("a", 0))->empty());
}

TEST_F(MergeTest, ProvenanceIgnoresAnOpenTxnsStagedRows) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("b", 2))});
  auto tx = db.Write();
  ASSERT_TRUE(tx->Add("t", R("z", 9)).ok());
  ASSERT_TRUE(tx->Remove("t", R("b", 2)).ok());
  EXPECT_EQ(Prov(R("z", 0)), std::nullopt);
  EXPECT_EQ(Prov(R("b", 0)), kRoomA);
  EXPECT_EQ(Prov(R("a", 0)), "daemon");
  // The merge's writing calls refuse to run under the open txn.
  EXPECT_EQ(db.HoldBack("t", kRoomA, R("a", 3)).code(), absl::StatusCode::kFailedPrecondition);
  tx->Rollback();
}

TEST_F(MergeTest, RemoveRoomSourceEmitsTheCompensatingDeltas) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("a", 10)), Add(R("b", 20))});
  auto b = db.RemoveRoomSource("t", kRoomA);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 1u);
  Fold(*b);
  EXPECT_EQ(Visible(), (Rows{R("a", 1)}));
  EXPECT_EQ(Prov(R("a", 0)), "daemon");
  // Gone: no slice, non-failing hold-back state, a batch from it is an unknown source.
  EXPECT_FALSE(db.HeldBackState("t", kRoomA, R("a", 0))->has_value());
  EXPECT_EQ(db.ServerBatchBegin(kRoomA, {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(db.RemoveRoomSource("t", kRoomA).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(MergeTest, CommitTrackedReportsTheSourceEachWriteRoutedThrough) {
  Batch("daemon", {Add(R("a", 1))});
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  Batch(kRoomA, {Add(R("b", 2))});
  auto tx = db.Write();
  ASSERT_TRUE(tx->Edit("t", R("a", 1), R("a", 3)).ok());
  ASSERT_TRUE(tx->Remove("t", R("b", 2)).ok());  // captured before the remove erases b
  ASSERT_TRUE(tx->Add("t", R("n", 4)).ok());
  ASSERT_TRUE(tx->Add("loc", R("l", 5)).ok());
  auto c = tx->CommitTrackedWrites();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->sources, (std::vector<std::string>{"daemon", kRoomA, "daemon", "daemon"}));
  Fold(c->batches);
  Visible();
}

TEST_F(MergeTest, WritableMatchesErrorsExactlyWhereTheSeedSays) {
  EXPECT_EQ(db.WritableMatches("t", kRoomA, R("a", 1)).status().code(),
            absl::StatusCode::kNotFound);  // Collapsed: not attached
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, None()).ok());
  EXPECT_EQ(db.WritableMatches("zz", kRoomA, R("a", 1)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(db.WritableMatches("t", kRoomB, R("a", 1)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(db.WritableMatches("t", kRoomA, {Value::String("a")}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(db.WritableMatches("t", "daemon", R("a", 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*db.WritableMatches("t", kRoomA, R("a", 1)), false);
  ASSERT_TRUE(db.FreezeSource("t", kRoomA).ok());
  EXPECT_EQ(*db.WritableMatches("t", kRoomA, R("a", 1)), false);  // frozen still answers
}

TEST_F(MergeTest, ErrorsNameTheCallTableAndSourceAndChangeNothing) {
  Batch("daemon", {Add(R("a", 1))});
  auto s = db.AddRoomSource("loc", kRoomA, All());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("loc"), std::string::npos) << s;
  EXPECT_EQ(db.AddRoomSource("t", "daemon", All()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(db.AddRoomSource("t", "room:", All()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(db.AddRoomSource("t", kRoomA, ColEq(7, Value::Int(1))).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(db.IsMerged("t"));  // nothing promoted by a failing add
  // A correlated subquery is not row-local.
  auto cond = ParseCondition(nlohmann::json::parse(
      R"({"type":"correlatedSubquery","op":"EXISTS","related":{"correlation":)"
      R"({"parentField":["id"],"childField":["id"]},"subquery":{"table":"t","alias":"x"}}})"),
      "$");
  ASSERT_TRUE(cond.ok()) << cond.status();
  WritableScope p;
  p.kind = WritableScope::Kind::kPredicate;
  p.where = *cond;
  s = db.AddRoomSource("t", kRoomA, p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("correlated"), std::string::npos) << s;
  EXPECT_FALSE(db.IsMerged("t"));
  ASSERT_TRUE(db.AddRoomSource("t", kRoomA, All()).ok());
  EXPECT_EQ(db.AddRoomSource("t", kRoomA, All()).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(db.HoldBack("t", kRoomB, R("a", 1)).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(db.HoldBack("t", kRoomA, {Value::String("a")}).code(),
            absl::StatusCode::kInvalidArgument);
  s = db.ServerBatchBegin(kRoomA, {Add(R("b", 2)), Add(R("b", 3))});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(kRoomA), std::string::npos) << s;
  EXPECT_NE(s.message().find("delta[1]"), std::string::npos) << s;
  EXPECT_TRUE(db.SourceRows("t", kRoomA)->empty());
  // A room delta naming a table the room is not attached to.
  ASSERT_TRUE(db.RegisterTable("u", TSpec(), false).ok());
  const ServerDeltaOp on_u{std::string("u"), ServerDeltaOp::Type::kAdd, R("q", 1), {}};
  EXPECT_EQ(db.ServerBatchBegin(kRoomA, {on_u}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(db.HoldBack("u", "daemon", R("q", 1)).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Visible(), (Rows{R("a", 1)}));
}

}  // namespace
}  // namespace rindle
