// Tests of Table's storage by row reference (issue 16): head and sync overlay are searched by pk
// cells taken at the pk columns (not the leading cells), iterate in pk order, and the overlay
// keeps its entry for a pk with neither a head nor a sync row.
#include "engine/table.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

Value S(const char* s) { return Value::String(s); }

// Columns (name, org, n); pk (org, name): not the leading column first.
TableSpec Spec() {
  TableSpec spec;
  spec.columns = {{"name", ColumnType::kString, false},
                  {"org", ColumnType::kString, false},
                  {"n", ColumnType::kNumber, true}};
  spec.primary_key = {1, 0};
  return spec;
}

TEST(TableTest, HeadIsKeyedByThePkColumnsInPkOrder) {
  Table t("t", Spec(), /*local=*/true);
  t.Put({S("o2"), S("b")}, MakeRow({S("b"), S("o2"), Value::Int(1)}), true);
  t.Put({S("o1"), S("z")}, MakeRow({S("z"), S("o1"), Value::Int(2)}), true);
  t.Put({S("o1"), S("a")}, MakeRow({S("a"), S("o1"), Value::Int(3)}), true);
  ASSERT_EQ(t.size(), 3u);
  const std::vector<RowValues> head = t.HeadRows();
  EXPECT_EQ(RowDebugString(head[0]), R"(["a","o1",3])");
  EXPECT_EQ(RowDebugString(head[1]), R"(["z","o1",2])");
  EXPECT_EQ(RowDebugString(head[2]), R"(["b","o2",1])");
  EXPECT_EQ(t.Find({S("o1"), S("b")}), nullptr);
  ASSERT_NE(t.Find({S("o2"), S("b")}), nullptr);

  // Replacing the row at a pk keeps one entry and returns the previous row.
  Row old = t.Put({S("o2"), S("b")}, MakeRow({S("b"), S("o2"), Value::Int(9)}), true);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ((*old)[2], Value::Int(1));
  EXPECT_EQ((*t.Find({S("o2"), S("b")}))[2], Value::Int(9));
  EXPECT_EQ(t.size(), 3u);
  Row removed = t.Put({S("o1"), S("z")}, nullptr, true);
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ((*removed)[2], Value::Int(2));
  EXPECT_EQ(t.size(), 2u);
}

TEST(TableTest, IndexesHoldTheHeadRowsThemselves) {
  Table t("t", Spec(), /*local=*/true);
  Row r = MakeRow({S("a"), S("o1"), Value::Int(3)});
  t.Put({S("o1"), S("a")}, r, true);
  const std::vector<SortPart> by_n = {{2, true}, {1, false}, {0, false}};
  const RowIndexSet& idx = t.AcquireIndex(by_n);
  ASSERT_EQ(idx.size(), 1u);
  EXPECT_EQ(idx.begin()->row.get(), r.get());  // a reference, not a copy
  EXPECT_EQ(t.Find({S("o1"), S("a")}).get(), r.get());
  t.ReleaseIndex(by_n);
}

TEST(TableTest, OverlayRecordsTheFirstPreWriteRowOfATrackedTable) {
  Table t("t", Spec(), /*local=*/false);
  const RowValues pk = {S("o1"), S("a")};
  t.Put(pk, MakeRow({S("a"), S("o1"), Value::Int(1)}), /*optimistic=*/false);  // synced
  EXPECT_TRUE(t.sync_overlay().empty());
  t.Put(pk, MakeRow({S("a"), S("o1"), Value::Int(2)}), true);
  t.Put(pk, MakeRow({S("a"), S("o1"), Value::Int(3)}), true);
  ASSERT_EQ(t.sync_overlay().size(), 1u);
  EXPECT_EQ((*t.SyncFind(pk))[2], Value::Int(1));
  EXPECT_EQ(t.spec().PkOf(*t.sync_overlay().begin()->first), pk);
  // A fresh optimistic add: sync has no row there.
  const RowValues pk2 = {S("o0"), S("q")};
  t.Put(pk2, MakeRow({S("q"), S("o0"), Value::Int(5)}), true);
  EXPECT_EQ(t.SyncFind(pk2), nullptr);
  ASSERT_TRUE(t.OverlayEntry(pk2).has_value());
  EXPECT_EQ(*t.OverlayEntry(pk2), nullptr);
  const std::vector<RowValues> sync = t.SyncRows();
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(RowDebugString(sync[0]), R"(["a","o1",1])");
  // Removing the added row leaves neither head nor sync: the entry stays (sync is absent).
  t.Put(pk2, nullptr, true);
  ASSERT_TRUE(t.OverlayEntry(pk2).has_value());
  EXPECT_EQ(t.spec().PkOf(*t.sync_overlay().begin()->first), pk2);  // (o0, q) sorts first
  t.ClearSyncOverlay();
  EXPECT_FALSE(t.OverlayEntry(pk).has_value());
}

TEST(TableTest, SetOverlayEntryRestoresEntriesForAnyPk) {
  Table t("t", Spec(), /*local=*/false);
  const RowValues gone = {S("o9"), S("g")};  // in neither head nor sync
  t.SetOverlayEntry(gone, Row());
  ASSERT_TRUE(t.OverlayEntry(gone).has_value());
  EXPECT_EQ(*t.OverlayEntry(gone), nullptr);
  EXPECT_EQ(t.spec().PkOf(*t.sync_overlay().begin()->first), gone);
  const Row synced = MakeRow({S("g"), S("o9"), Value::Int(4)});
  t.SetOverlayEntry(gone, synced);
  EXPECT_EQ(t.SyncFind(gone).get(), synced.get());
  EXPECT_EQ(t.sync_overlay().size(), 1u);
  t.SetOverlayEntry(gone, std::nullopt);
  EXPECT_TRUE(t.sync_overlay().empty());
  EXPECT_EQ(t.SyncFind(gone), nullptr);
}

}  // namespace
}  // namespace rindle
