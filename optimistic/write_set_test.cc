// The seed 002 H-ii coalescing matrix on WriteRecord, and union-never-shrink merging.
#include "optimistic/write_set.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

RowValues R(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title)};
}
RowValues Pk(const std::string& id) { return {Value::String(id)}; }

const WriteRecord& Only(const WriteSet& ws) {
  EXPECT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws.begin()->second.size(), 1u);
  return ws.begin()->second.begin()->second;
}

TEST(WriteSetTest, FirstRemoveCarriesTheVisiblePreImageElseTheAssertedRow) {
  WriteSet ws;
  RecordRemove(ws, "t", Pk("a"), R("a", "base"), R("a", "base"));
  EXPECT_EQ(*Only(ws).old_row, R("a", "base"));
  EXPECT_FALSE(Only(ws).row.has_value());
  WriteSet absent;
  RecordRemove(absent, "t", Pk("a"), std::nullopt, R("a", "asserted"));
  EXPECT_EQ(*Only(absent).old_row, R("a", "asserted"));
}

TEST(WriteSetTest, EditAfterAddCollapsesToAnInsertWithoutPreImage) {
  WriteSet ws;
  RecordAdd(ws, "t", Pk("a"), R("a", "1"));
  RecordEdit(ws, "t", Pk("a"), R("a", "2"), R("a", "1"), R("a", "1"));
  EXPECT_EQ(*Only(ws).row, R("a", "2"));
  EXPECT_FALSE(Only(ws).old_row.has_value());
}

TEST(WriteSetTest, EditAfterRemoveCollapsesToAReInsertWithoutPreImage) {
  WriteSet ws;
  RecordRemove(ws, "t", Pk("a"), R("a", "base"), R("a", "base"));
  RecordEdit(ws, "t", Pk("a"), R("a", "2"), std::nullopt, R("a", "x"));
  EXPECT_EQ(*Only(ws).row, R("a", "2"));
  EXPECT_FALSE(Only(ws).old_row.has_value());
}

TEST(WriteSetTest, EditAfterEditKeepsTheFirstPreImage) {
  WriteSet ws;
  RecordEdit(ws, "t", Pk("a"), R("a", "1"), R("a", "base"), R("a", "base"));
  RecordEdit(ws, "t", Pk("a"), R("a", "2"), R("a", "1"), R("a", "1"));
  EXPECT_EQ(*Only(ws).row, R("a", "2"));
  EXPECT_EQ(*Only(ws).old_row, R("a", "base"));
}

TEST(WriteSetTest, RemoveAfterEditKeepsTheOriginalPreImage) {
  WriteSet ws;
  RecordEdit(ws, "t", Pk("a"), R("a", "1"), R("a", "base"), R("a", "base"));
  RecordRemove(ws, "t", Pk("a"), R("a", "1"), R("a", "1"));
  EXPECT_FALSE(Only(ws).row.has_value());
  EXPECT_EQ(*Only(ws).old_row, R("a", "base"));
}

TEST(WriteSetTest, RemoveAfterRemoveKeepsTheOriginalPreImage) {
  WriteSet ws;
  RecordRemove(ws, "t", Pk("a"), R("a", "base"), R("a", "base"));
  RecordAdd(ws, "t", Pk("a"), R("a", "re"));
  // add-after-remove dropped the pre-image; a remove now pins the transient re-added row.
  RecordRemove(ws, "t", Pk("a"), R("a", "re"), R("a", "re"));
  EXPECT_EQ(*Only(ws).old_row, R("a", "re"));
  WriteSet twice;
  RecordRemove(twice, "t", Pk("a"), R("a", "base"), R("a", "base"));
  RecordRemove(twice, "t", Pk("a"), std::nullopt, R("a", "other"));
  EXPECT_EQ(*Only(twice).old_row, R("a", "base"));
}

TEST(WriteSetTest, RemoveAfterAddKeepsTheTransientRow) {
  WriteSet ws;
  RecordAdd(ws, "t", Pk("a"), R("a", "new"));
  RecordRemove(ws, "t", Pk("a"), R("a", "new"), R("a", "new"));
  EXPECT_FALSE(Only(ws).row.has_value());
  EXPECT_EQ(*Only(ws).old_row, R("a", "new"));
}

TEST(WriteSetTest, AddAfterRemoveDropsThePreImage) {
  WriteSet ws;
  RecordRemove(ws, "t", Pk("a"), R("a", "base"), R("a", "base"));
  RecordAdd(ws, "t", Pk("a"), R("a", "re"));
  EXPECT_EQ(*Only(ws).row, R("a", "re"));
  EXPECT_FALSE(Only(ws).old_row.has_value());
}

TEST(WriteSetTest, PkMovingEditIsKeyedByTheNewPkWithTheCallersOldRow) {
  WriteSet ws;
  RecordEdit(ws, "t", Pk("b"), R("b", "x"), std::nullopt, R("a", "x"));
  const WriteRecord& r = Only(ws);
  EXPECT_EQ(r.pk, Pk("b"));
  EXPECT_EQ(*r.old_row, R("a", "x"));
}

TEST(WriteSetTest, MergeIsUnionNeverShrinkAndNewestWins) {
  WriteSet acc;
  RecordAdd(acc, "t", Pk("a"), R("a", "1"));
  RecordAdd(acc, "u", Pk("z"), R("z", "1"));
  WriteSet fresh;
  RecordAdd(fresh, "t", Pk("a"), R("a", "2"));
  RecordAdd(fresh, "t", Pk("b"), R("b", "1"));
  MergeWriteSet(acc, fresh);
  EXPECT_EQ(Touched(acc), (std::set<std::string>{"t", "u"}));
  EXPECT_EQ(*PriorWrite(acc, "t", Pk("a"))->row, R("a", "2"));
  EXPECT_NE(PriorWrite(acc, "t", Pk("b")), nullptr);
  EXPECT_NE(PriorWrite(acc, "u", Pk("z")), nullptr);
  WriteSet empty;
  MergeWriteSet(acc, empty);  // a re-run that no-ops keeps everything
  EXPECT_EQ(Flatten(acc).size(), 3u);
}

}  // namespace
}  // namespace rindle
