// trace_hash_test.cc — the stable row hashes of the canonical trace (trace_hash.h): equal data
// hash equal, any changed cell, kind, order or table name changes the hash, and the encoding is
// pinned so a build or platform change that moved every digest would be seen here first.
#include "sim/run/trace_hash.h"

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

RowValues IssueRow(std::string title) {
  return {Value::String("i1"), Value::String(std::move(title)), Value::Int(3), Value::Null(),
          Value::Bool(true), Value::Number(2.5)};
}

TEST(TraceHashTest, EqualRowsHashEqualAndOneCellChangesIt) {
  const std::vector<RowValues> a = {IssueRow("x"), IssueRow("y")};
  EXPECT_EQ(HashTableRows("issue", a), HashTableRows("issue", a));
  EXPECT_EQ(HashTableRows("issue", a).size(), 16u);
  std::vector<RowValues> b = a;
  b[1][1] = Value::String("z");
  EXPECT_NE(HashTableRows("issue", a), HashTableRows("issue", b));
  EXPECT_NE(HashTableRows("issue", a), HashTableRows("tag", a));
  EXPECT_NE(HashTableRows("issue", a), HashTableRows("issue", {a[1], a[0]}));  // order counts
}

TEST(TraceHashTest, KindsAndBoundariesAreEncoded) {
  auto one = [](RowValues r) { return HashTableRows("t", {std::move(r)}); };
  EXPECT_NE(one({Value::Int(1)}), one({Value::String("1")}));
  EXPECT_NE(one({Value::Int(1)}), one({Value::Bool(true)}));
  EXPECT_NE(one({Value::Null()}), one({Value::String("")}));
  EXPECT_NE(one({Value::String("ab"), Value::String("c")}),
            one({Value::String("a"), Value::String("bc")}));
  EXPECT_EQ(one({Value::Number(3.0)}), one({Value::Int(3)}));  // Value normalizes 3.0 to 3
}

TEST(TraceHashTest, RowOpsWriteSetsAndTreesSeeEveryValue) {
  RowOp add{RowOp::Kind::kAdd, "issue", IssueRow("x"), {}};
  RowOp edit{RowOp::Kind::kEdit, "issue", IssueRow("y"), IssueRow("x")};
  EXPECT_NE(HashRowOps({add}), HashRowOps({edit}));
  RowOp edit2 = edit;
  edit2.old_row[1] = Value::String("w");
  EXPECT_NE(HashRowOps({edit}), HashRowOps({edit2}));

  WriteSet ws;
  ws["issue"]["[\"i1\"]"] = WriteRecord{"issue", {Value::String("i1")}, IssueRow("x"), {}};
  WriteSet ws2 = ws;
  (*ws2["issue"]["[\"i1\"]"].row)[2] = Value::Int(4);
  EXPECT_NE(HashWriteSet(ws), HashWriteSet(ws2));
  WriteSet removed = ws;
  removed["issue"]["[\"i1\"]"].row.reset();
  EXPECT_NE(HashWriteSet(ws), HashWriteSet(removed));

  TreeNode leaf{MakeRow(IssueRow("c")), {}};
  TreeNode root{MakeRow(IssueRow("p")), {{"comments", {leaf}}}};
  TreeNode root2 = root;
  root2.relationships[0].second[0].row = MakeRow(IssueRow("d"));
  EXPECT_NE(HashTree({root}), HashTree({root2}));
  EXPECT_NE(HashTree({root}), HashTree({}));
}

// Pinned: the encoding and XXH3-64 are part of the trace format. If this changes on purpose,
// every digest changes with it — update the value and say why in the commit.
TEST(TraceHashTest, EncodingIsPinned) {
  EXPECT_EQ(HashTableRows("issue", {IssueRow("x")}), "6d2e4a682ca9eb05");
  EXPECT_EQ(HashTableRows("", {}), "d0a66a65c7528968");
}

}  // namespace
}  // namespace rindle::sim
