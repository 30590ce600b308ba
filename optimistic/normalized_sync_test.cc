// NormalizedSync: cross-query refcount, snapshot diff, projection by name (narrower and wider
// hellos), the per-row column union across queries, net deltas, GC.
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
  s["label"] = TableSpec{{{"id", ColumnType::kString, false},
                          {"name", ColumnType::kString, false}},
                         {0}};
  return s;
}

RowValues I(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title), Value::Null()};
}
RowValues I3(const std::string& id, const std::string& title, const std::string& status) {
  return {Value::String(id), Value::String(title), Value::String(status)};
}
RowValues S(std::initializer_list<const char*> cells) {
  RowValues r;
  for (const char* c : cells) r.push_back(Value::String(c));
  return r;
}
const RowValues kPkA = {Value::String("a")};
// A hello table by name and columns (the advertised pk, if any, is not NormalizedSync's concern).
WireTable W(const std::string& name, std::vector<std::string> columns) {
  WireTable t;
  t.name = name;
  t.columns = std::move(columns);
  return t;
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

TEST_F(NormalizedSyncTest, NarrowerHelloMapsColumnsByNameAndLeavesTheRestAbsent) {
  // status is the schema's third column but the hello's second: positional would misplace it.
  ASSERT_TRUE(sync_.SetProjection(1, {W("issue", {"id", "status"})}).ok());
  EXPECT_TRUE(sync_.HasProjection(1, "issue"));
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(S({"a", "open"}))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kAdd);
  EXPECT_EQ(d[0].row, (RowValues{Value::String("a"), Value::Null(), Value::String("open")}));
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, false, true}));
  // A full-width row no longer fits this qid's hello.
  auto s = sync_.ApplyBatch(1, {Add(I3("b", "t", "open"))});
  EXPECT_NE(s.message().find("3 cells, the hello has 2"), std::string_view::npos) << s;
}

TEST_F(NormalizedSyncTest, WiderHelloDropsTheServersExtraColumn) {
  ASSERT_TRUE(
      sync_.SetProjection(1, {W("issue", {"id", "title", "priority", "status"})}).ok());
  EXPECT_TRUE(sync_.HasProjection(1, "issue"));
  RowValues wire = {Value::String("a"), Value::String("x"), Value::Int(5), Value::String("open")};
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(wire)}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].row, I3("a", "x", "open"));
  // An expansion still covers every schema column.
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, true}));
}

TEST_F(NormalizedSyncTest, SkewedHelloIsRejectedNamingItAndChangesNothing) {
  ASSERT_TRUE(sync_.SetProjection(7, {W("issue", {"id", "title"})}).ok());
  auto s = sync_.SetProjection(7, {W("issue", {"id", "status", "title"})});  // reordered
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("qid 7"), std::string_view::npos) << s;
  EXPECT_NE(s.message().find("\"issue\""), std::string_view::npos) << s;
  EXPECT_NE(s.message().find("[id, status, title]"), std::string_view::npos) << s;
  EXPECT_NE(s.message().find("[id, title, status]"), std::string_view::npos) << s;
  // Renamed and widened-with-a-reorder are skews too; a repeated column is ambiguous.
  EXPECT_FALSE(sync_.SetProjection(7, {W("issue", {"id", "name", "status"})}).ok());
  EXPECT_FALSE(
      sync_.SetProjection(7, {W("issue", {"id", "status", "extra", "title"})}).ok());
  s = sync_.SetProjection(7, {W("issue", {"id", "title", "title"})});
  EXPECT_NE(s.message().find("repeat column \"title\""), std::string_view::npos) << s;
  // The earlier two-column map still applies.
  ASSERT_TRUE(sync_.Rehydrate(7, {Add(S({"a", "x"}))}).ok());
  EXPECT_EQ(sync_.Row("issue", kPkA), I("a", "x"));
}

TEST_F(NormalizedSyncTest, IdentityHelloClearsAPriorMap) {
  ASSERT_TRUE(
      sync_.SetProjection(1, {W("issue", {"id", "title", "priority", "status"})}).ok());
  // The server contracted back to our exact layout: rows are taken verbatim again.
  ASSERT_TRUE(sync_.SetProjection(1, {W("issue", {"id", "title", "status"})}).ok());
  EXPECT_FALSE(sync_.HasProjection(1, "issue"));
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());
  EXPECT_EQ(sync_.Row("issue", kPkA), I3("a", "x", "open"));
}

TEST_F(NormalizedSyncTest, UncoveredNonNullableColumnIsAbsentNotInvalid) {
  ASSERT_TRUE(sync_.SetProjection(1, {W("label", {"id"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {RowOp{RowOp::Kind::kAdd, "label", S({"l"}), {}}}).ok());
  EXPECT_EQ(sync_.Row("label", {Value::String("l")}),
            (RowValues{Value::String("l"), Value::Null()}));
  // A covered cell is still checked.
  ASSERT_TRUE(sync_.SetProjection(2, {W("label", {"id", "name"})}).ok());
  auto s = sync_.ApplyBatch(
      2, {RowOp{RowOp::Kind::kAdd, "label", {Value::String("m"), Value::Null()}, {}}});
  EXPECT_NE(s.message().find("column \"name\" expects non-null"), std::string_view::npos) << s;
}

TEST_F(NormalizedSyncTest, EditThroughAProjectedQueryKeepsTheOtherCells) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].row, I3("a", "x", "open"));  // the projected qid did not null status
  EXPECT_EQ(sync_.RefCount("issue", kPkA), 2);
  ASSERT_TRUE(sync_.ApplyBatch(2, {Edit(S({"a", "x"}), S({"a", "y"}))}).ok());
  d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kEdit);
  EXPECT_EQ(d[0].old_row, I3("a", "x", "open"));
  EXPECT_EQ(d[0].row, I3("a", "y", "open"));
}

TEST_F(NormalizedSyncTest, DropQueryOfTheFullQueryNarrowsTheRowToTheProjectedColumns) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());
  // The full query delivers a newer title; qid 2 still covers title, so it must survive.
  ASSERT_TRUE(sync_.ApplyBatch(1, {Edit(I3("a", "x", "open"), I3("a", "z", "open"))}).ok());
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, true}));
  sync_.TakeDelta();
  sync_.DropQuery(1);
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kEdit);
  EXPECT_EQ(d[0].old_row, I3("a", "z", "open"));
  EXPECT_EQ(d[0].row, I("a", "z"));  // status absent ⇒ null
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(sync_.RefCount("issue", kPkA), 1);
  EXPECT_FALSE(sync_.HasQuery(1));
}

TEST_F(NormalizedSyncTest, DropQueryOfTheLastReferenceGcsTheRow) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());
  sync_.DropQuery(1);
  sync_.TakeDelta();
  sync_.DropQuery(2);
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kRemove);
  EXPECT_EQ(d[0].row, I("a", "x"));
  EXPECT_EQ(sync_.row_count(), 0u);
  EXPECT_FALSE(sync_.Presence("issue", kPkA).has_value());
  EXPECT_FALSE(sync_.HasProjection(2, "issue"));
}

TEST_F(NormalizedSyncTest, RemoveByOneOfTwoProjectedQueriesNarrowsToTheOthersColumns) {
  ASSERT_TRUE(sync_.SetProjection(1, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "status"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(S({"a", "x"}))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "open"}))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].row, I3("a", "x", "open"));  // the union of both projections
  ASSERT_TRUE(sync_.ApplyBatch(1, {Remove(S({"a", "x"}))}).ok());
  d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kEdit);
  EXPECT_EQ(d[0].row, (RowValues{Value::String("a"), Value::Null(), Value::String("open")}));
}

TEST_F(NormalizedSyncTest, RehydrateNarrowsRowsItReleasesOrNoLongerCovers) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open")), Add(I3("b", "y", "done"))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  sync_.TakeDelta();
  // qid 1's new snapshot names b only: a is released and narrows to qid 2's columns.
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("b", "y", "done"))}).ok());
  auto d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].type, ServerDeltaOp::Type::kEdit);
  EXPECT_EQ(d[0].row, I("a", "x"));
  // qid 1 re-hellos narrower: its sole row b drops the column it no longer carries.
  ASSERT_TRUE(sync_.SetProjection(1, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(S({"b", "y"}))}).ok());
  d = sync_.TakeDelta();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].old_row, I3("b", "y", "done"));
  EXPECT_EQ(d[0].row, I("b", "y"));
  EXPECT_EQ(sync_.Presence("issue", {Value::String("b")}), (std::vector<bool>{true, true, false}));
}

TEST_F(NormalizedSyncTest, AbsentCellIsNullAndAPresenceOnlyChangeEmitsNothing) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  EXPECT_EQ(sync_.Row("issue", kPkA), I("a", "x"));
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, false}));
  sync_.TakeDelta();
  // A full query delivers status = null: present now, but the visible row is unchanged.
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I("a", "x"))}).ok());
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, true}));
  EXPECT_TRUE(sync_.TakeDelta().empty());
  sync_.DropQuery(1);
  EXPECT_EQ(sync_.Presence("issue", kPkA), (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(sync_.TakeDelta().empty());
}

TEST_F(NormalizedSyncTest, DeltaNetsToNothingWhenTheRowEndsWhereItStarted) {
  ASSERT_TRUE(sync_.SetProjection(2, {W("issue", {"id", "title"})}).ok());
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());
  ASSERT_TRUE(sync_.Rehydrate(2, {Add(S({"a", "x"}))}).ok());
  sync_.TakeDelta();
  sync_.DropQuery(1);  // narrows a to (a, x, absent)…
  EXPECT_EQ(sync_.Row("issue", kPkA), I("a", "x"));
  ASSERT_TRUE(sync_.Rehydrate(1, {Add(I3("a", "x", "open"))}).ok());  // …and widens it back
  EXPECT_TRUE(sync_.TakeDelta().empty());
  EXPECT_EQ(sync_.RefCount("issue", kPkA), 2);
}

TEST_F(NormalizedSyncTest, MalformedFramesAreErrorsNamingWhatAndChangeNothing) {
  auto s = sync_.SetProjection(1, {W("issue", {"id", "titel"})});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("titel"), std::string_view::npos);
  EXPECT_NE(s.message().find("id, title, status"), std::string_view::npos);
  s = sync_.SetProjection(1, {W("issue", {"title"})});
  EXPECT_NE(s.message().find("primary-key column \"id\""), std::string_view::npos);
  EXPECT_FALSE(sync_.HasProjection(1, "issue"));
  s = sync_.ApplyBatch(1, {Add(I("a", "x")), RowOp{RowOp::Kind::kAdd, "draft", {Value::String("d")}, {}}});
  EXPECT_NE(s.message().find("local-only"), std::string_view::npos);
  s = sync_.ApplyBatch(1, {RowOp{RowOp::Kind::kAdd, "nope", {}, {}}});
  EXPECT_NE(s.message().find("unknown table \"nope\""), std::string_view::npos);
  EXPECT_TRUE(sync_.TakeDelta().empty());
  EXPECT_EQ(sync_.row_count(), 0u);
}

}  // namespace
}  // namespace rindle
