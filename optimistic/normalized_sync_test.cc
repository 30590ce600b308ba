// NormalizedSync: cross-query refcount, snapshot diff, projection by name, net deltas, GC.
#include "optimistic/normalized_sync.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

Schema TestSchema() {
  Schema s;
  s["issue"] = TableSpec{{{"id", ColumnType::kString, false},
                          {"title", ColumnType::kString, true},
                          {"status", ColumnType::kString, true}},
                         {0}};
  s["draft"] = TableSpec{{{"id", ColumnType::kString, false}}, {0}};
  return s;
}

RowValues I(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title), Value::Null()};
}
RowOp Add(RowValues r) { return RowOp{RowOp::Kind::kAdd, "issue", std::move(r), {}}; }
RowOp Remove(RowValues r) { return RowOp{RowOp::Kind::kRemove, "issue", std::move(r), {}}; }
RowOp Edit(RowValues o, RowValues n) { return RowOp{RowOp::Kind::kEdit, "issue", std::move(n), std::move(o)}; }

class NormalizedSyncTest : public ::testing::Test {
 protected:
  Schema schema_ = TestSchema();
  std::set<std::string> local_{"draft"};
  NormalizedSync sync_{&schema_, &local_};
};

TEST_F(NormalizedSyncTest, SharedRowIsRefcountedAndGcdWhenTheLastQueryDrops) {
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I("a", "x")), Add(I("b", "y"))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(I("a", "x"))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 2u);  // a once, b once
  EXPECT_EQ(sync_.RefCount("issue", {Value::String("a")}), 2);
  sync_.DropQuery(1);
  d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kRemove);
  EXPECT_EQ(d[0].row, I("b", "y"));
  sync_.DropQuery(2);
  d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].row, I("a", "x"));
  EXPECT_EQ(sync_.row_count(), 0u);
}

TEST_F(NormalizedSyncTest, SnapshotDiffsAgainstTheQidsPreviousSet) {
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I("a", "x")), Add(I("b", "y"))}).ok());
  sync_.TakeDelta();
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I("b", "y2")), Add(I("c", "z"))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 3u);  // (table, pk) order: a removed, b edited, c added
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kRemove);
  EXPECT_EQ(d[1].type, ServerDeltaOp::Type::kEdit);
  EXPECT_EQ(d[1].old_row, I("b", "y"));
  EXPECT_EQ(d[1].row, I("b", "y2"));
  EXPECT_EQ(d[2].type, ServerDeltaOp::Type::kAdd);
}

TEST_F(NormalizedSyncTest, BatchChangesNetToOneDeltaAndAddThenRemoveIsNothing) {
  ASSERT_TRUE(sync_.Rehydrate(1, {}).ok());
  ASSERT_TRUE(sync_.ApplyBatch(1, {Add(I("a", "x"))}).ok());
  ASSERT_TRUE(sync_.ApplyBatch(1, {Edit(I("a", "x"), I("a", "x2")), Remove(I("a", "x2"))}).ok());
  EXPECT_TRUE(sync_.TakeDelta().empty());
  // A pk-moving edit releases the old pk and holds the new one.
  ASSERT_TRUE(sync_.ApplyBatch(1, {Add(I("a", "x"))}).ok());
  sync_.TakeDelta();
  ASSERT_TRUE(sync_.ApplyBatch(1, {Edit(I("a", "x"), I("b", "x"))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kRemove);
  EXPECT_EQ(d[1].type, ServerDeltaOp::Type::kAdd);
  EXPECT_EQ(sync_.RefCount("issue", {Value::String("b")}), 1);
}

TEST_F(NormalizedSyncTest, ProjectionMapsColumnsByNameAndNullsTheRest) {
  ASSERT_TRUE(sync_.SetProjection(1, {WireTable{"issue", {"title", "id"}}}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add({Value::String("hello"), Value::String("a")})}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].row, I("a", "hello"));
  // Identity projection clears the map: full rows are taken verbatim again.
  ASSERT_TRUE(sync_.SetProjection(1, {WireTable{"issue", {"id", "title", "status"}}}).ok());
  ASSERT_TRUE(sync_.ApplyBatch(1, {Add(I("b", "w"))}).ok());
  EXPECT_EQ(sync_.TakeDelta().size(), 1u);
}

TEST_F(NormalizedSyncTest, MalformedFramesAreErrorsNamingWhatAndChangeNothing) {
  auto s = sync_.SetProjection(1, {WireTable{"issue", {"id", "titel"}}});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("titel"), std::string_view::npos);
  EXPECT_NE(s.message().find("id, title, status"), std::string_view::npos);
  s = sync_.SetProjection(1, {WireTable{"issue", {"title"}}});
  EXPECT_NE(s.message().find("primary-key column \"id\""), std::string_view::npos);
  s = sync_.ApplyBatch(1, {Add(I("a", "x")), RowOp{RowOp::Kind::kAdd, "draft", {Value::String("d")}, {}}});
  EXPECT_NE(s.message().find("local-only"), std::string_view::npos);
  s = sync_.ApplyBatch(1, {RowOp{RowOp::Kind::kAdd, "nope", {}, {}}});
  EXPECT_NE(s.message().find("unknown table \"nope\""), std::string_view::npos);
  EXPECT_TRUE(sync_.TakeDelta().empty());
  EXPECT_EQ(sync_.row_count(), 0u);
}

}  // namespace
}  // namespace rindle
