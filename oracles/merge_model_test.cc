// merge_model_test.cc — the naive merge model (merge_model.h): winner tiers, rewinds and
// fences, probes and error paths, each on hand-built rows.
#include "oracles/merge_model.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

// t [id string pk, status string, n number]
Schema TestSchema() {
  TableSpec t;
  t.columns = {{"id", ColumnType::kString, false},
               {"status", ColumnType::kString, false},
               {"n", ColumnType::kNumber, true}};
  t.primary_key = {0};
  TableSpec l = t;
  return {{"t", t}, {"loc", l}};
}

RowValues R(const std::string& id, const std::string& status, int64_t n = 0) {
  return {Value::String(id), Value::String(status), Value::Int(n)};
}

ModelOp Add(const RowValues& row) { return {"t", ModelOp::Kind::kAdd, row, {}}; }
ModelOp Edit(const RowValues& o, const RowValues& n) { return {"t", ModelOp::Kind::kEdit, n, o}; }
ModelOp Remove(const RowValues& row) { return {"t", ModelOp::Kind::kRemove, row, {}}; }

ModelScope ColEq(const std::string& status) {
  ModelScope s;
  s.kind = ModelScope::Kind::kColEq;
  s.col = 1;
  s.value = Value::String(status);
  return s;
}

std::optional<RowValues> VisibleRow(const MergeModel& m, const std::string& id) {
  PlainTable t = m.VisibleTable("t");
  auto it = t.find({Value::String(id)});
  if (it == t.end()) return std::nullopt;
  return it->second;
}

TEST(MergeModelTest, PromotionChangesNothingVisible) {
  MergeModel m(TestSchema(), {"loc"});
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Add(R("a", "open"))}).ok());
  const PlainTables before = m.Visible();
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ModelScope{}).ok());
  EXPECT_TRUE(PlainTablesEqual(before, m.Visible()));
  EXPECT_EQ(m.ProvenanceOf("t", R("a", "x")).value(), "daemon");
}

TEST(MergeModelTest, WinnerTiers) {
  MergeModel m(TestSchema(), {});
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Add(R("a", "open", 1)), Add(R("b", "open", 1))}).ok());
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ColEq("done")).ok());
  ASSERT_TRUE(m.ServerBatchBegin("room:doc:1", {Add(R("a", "done", 2)), Add(R("b", "open", 2)),
                                                Add(R("c", "open", 2))}).ok());
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "done", 2));  // covered room copy wins
  EXPECT_EQ(*VisibleRow(m, "b"), R("b", "open", 1));  // uncovered: the daemon
  EXPECT_EQ(*VisibleRow(m, "c"), R("c", "open", 2));  // only the room holds it
  EXPECT_EQ(m.ProvenanceOf("t", R("c", "x")).value(), "room:doc:1");
  ASSERT_TRUE(m.FreezeSource("t", "daemon").ok());
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "open", 1));  // frozen wins if present
  EXPECT_EQ(m.ProvenanceOf("t", R("a", "x")).value(), "daemon");
  EXPECT_EQ(m.ProvenanceOf("t", R("zz", "x")).value(), std::nullopt);
  EXPECT_FALSE(m.ServerBatchBegin("daemon", {Add(R("d", "open"))}).ok());  // frozen: no deltas
  EXPECT_TRUE(m.DropHeldBack("t", "room:doc:7", R("a", "x")).ok());  // unattached: a no-op
}

TEST(MergeModelTest, RewindClearsTheOptimisticLayerAndRoutes) {
  MergeModel m(TestSchema(), {});
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ModelScope{}).ok());
  ASSERT_TRUE(m.ServerBatchBegin("room:doc:1", {Add(R("a", "open"))}).ok());
  absl::StatusOr<std::vector<std::string>> routed =
      m.Commit({Edit(R("a", "open"), R("a", "done")), Add(R("n", "open"))});
  ASSERT_TRUE(routed.ok()) << routed.status();
  EXPECT_EQ(*routed, (std::vector<std::string>{"room:doc:1", "daemon"}));
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "done"));
  EXPECT_EQ(m.ProvenanceOf("t", R("n", "x")).value(), std::nullopt);  // not routed yet
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {}).ok());
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "open"));
  EXPECT_FALSE(VisibleRow(m, "n").has_value());
  // A failing write leaves nothing staged.
  EXPECT_FALSE(m.Commit({Add(R("q", "open")), Add(R("a", "x"))}).ok());
  EXPECT_FALSE(VisibleRow(m, "q").has_value());
}

TEST(MergeModelTest, HoldBackSurvivesTheRewindUntilTheEcho) {
  MergeModel m(TestSchema(), {});
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Add(R("a", "open"))}).ok());
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ModelScope{}).ok());
  ASSERT_TRUE(m.Commit({Edit(R("a", "open"), R("a", "done"))}).ok());
  EXPECT_FALSE(m.HoldBackChangesVisible("t", "daemon", R("a", "done"), false));
  ASSERT_TRUE(m.HoldBack("t", "daemon", R("a", "done")).ok());
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {}).ok());  // no echo yet: still parked
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "done"));
  ModelHeldBackInfo info{false, R("a", "open")};
  EXPECT_EQ(m.HeldBackState("t", "daemon", R("a", "?")).value(), info);
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Edit(R("a", "open"), R("a", "done"))}).ok());
  EXPECT_EQ(m.HeldBackState("t", "daemon", R("a", "?")).value(), std::nullopt);  // fenced
  // Unattached source: nothing parked, no error.
  EXPECT_EQ(m.HeldBackState("t", "room:doc:9", R("a", "?")).value(), std::nullopt);
}

TEST(MergeModelTest, TombstoneMasksUntilTheBaselineLacksThePk) {
  MergeModel m(TestSchema(), {});
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Add(R("a", "open"))}).ok());
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ModelScope{}).ok());
  ASSERT_TRUE(m.Commit({Remove(R("a", "open"))}).ok());
  EXPECT_FALSE(m.HoldBackChangesVisible("t", "daemon", R("a", "open"), true));
  ASSERT_TRUE(m.HoldBackAbsent("t", "daemon", R("a", "open")).ok());
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {}).ok());
  EXPECT_FALSE(VisibleRow(m, "a").has_value());  // no resurrection
  absl::StatusOr<bool> dropped = m.DropHeldBack("t", "daemon", R("a", "open"));
  ASSERT_TRUE(dropped.ok() && *dropped);
  EXPECT_EQ(*VisibleRow(m, "a"), R("a", "open"));  // the drop unmasks
  ASSERT_TRUE(m.HoldBackAbsent("t", "daemon", R("a", "open")).ok());
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Remove(R("a", "open"))}).ok());
  EXPECT_EQ(m.HeldBackState("t", "daemon", R("a", "?")).value(), std::nullopt);
}

TEST(MergeModelTest, RemoveRoomAndWritableMatches) {
  MergeModel m(TestSchema(), {"loc"});
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", ColEq("done")).ok());
  EXPECT_TRUE(m.WritableMatches("t", "room:doc:1", R("a", "done")).value());
  EXPECT_FALSE(m.WritableMatches("t", "room:doc:1", R("a", "open")).value());
  EXPECT_FALSE(m.WritableMatches("t", "daemon", R("a", "open")).ok());
  EXPECT_FALSE(m.WritableMatches("t", "room:doc:2", R("a", "open")).ok());
  EXPECT_FALSE(m.WritableMatches("t", "room:doc:1", {Value::String("a")}).ok());
  EXPECT_FALSE(m.WritableMatches("nope", "room:doc:1", R("a", "open")).ok());
  ASSERT_TRUE(m.ServerBatchBegin("room:doc:1", {Add(R("a", "done"))}).ok());
  ASSERT_TRUE(m.RemoveRoomSource("t", "room:doc:1").ok());
  EXPECT_FALSE(VisibleRow(m, "a").has_value());
  EXPECT_FALSE(m.RemoveRoomSource("t", "room:doc:1").ok());
  EXPECT_FALSE(m.AddRoomSource("loc", "room:doc:1", ModelScope{}).ok());
  EXPECT_FALSE(m.AddRoomSource("t", "daemon", ModelScope{}).ok());
  EXPECT_FALSE(m.ServerBatchBegin("room:doc:1", {}).ok());  // attached nowhere now
}

TEST(MergeModelTest, PredicateScopeAndErrors) {
  MergeModel m(TestSchema(), {});
  ModelScope p;
  p.kind = ModelScope::Kind::kPredicate;
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = SimpleOp::kGt;
  c.left.kind = ValuePosition::Kind::kColumn;
  c.left.column = "n";
  c.right.literal = Value::Int(5);
  p.where = c;
  ASSERT_TRUE(m.AddRoomSource("t", "room:doc:1", p).ok());
  EXPECT_TRUE(m.WritableMatches("t", "room:doc:1", R("a", "x", 6)).value());
  EXPECT_FALSE(m.WritableMatches("t", "room:doc:1", R("a", "x", 5)).value());
  Condition bad = c;
  bad.left.column = "nope";
  p.where = bad;
  EXPECT_FALSE(m.AddRoomSource("t", "room:doc:2", p).ok());
  Condition sub;
  sub.type = Condition::Type::kCorrelatedSubquery;
  p.where = sub;
  EXPECT_FALSE(m.AddRoomSource("t", "room:doc:2", p).ok());
  // A failed delta changes nothing.
  ASSERT_TRUE(m.ServerBatchBegin("daemon", {Add(R("a", "open"))}).ok());
  EXPECT_FALSE(m.ServerBatchBegin("daemon", {Add(R("b", "open")), Add(R("a", "x"))}).ok());
  EXPECT_FALSE(VisibleRow(m, "b").has_value());
}

}  // namespace
}  // namespace rindle
