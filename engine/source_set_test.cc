// source_set_test.cc — the writable scopes and the winner tiering on their own (source_set.h),
// and the seeded agreement loop the issue asks for: for random rows and random row-local
// conditions, WritableMatches of a `predicate` room equals the query filter's verdict (a live
// query with that where holds the row).
#include "engine/source_set.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "base/rng.h"
#include "base/source_key.h"
#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/testing/merge_fixture.h"

namespace rindle {
namespace {

using merge_fixture::TSpec;
using merge_fixture::R;

SourceSlice Slice(std::vector<RowValues> rows, WritableScope::Kind kind, bool frozen = false) {
  SourceSlice s;
  for (auto& r : rows) s.baseline.emplace(RowValues{r[0]}, MakeRow(r));
  WritableScope w;
  w.kind = kind;
  auto c = CompiledScope::Compile(w, "t", TSpec(), "test");
  EXPECT_TRUE(c.ok());
  s.scope = *c;
  s.frozen = frozen;
  return s;
}

std::string WinnerOf(const SourceSet& set, const std::string& id) {
  SourceWinner w = Winner(set, {Value::String(id)});
  return w.source == nullptr ? "-" : *w.source;
}

TEST(WinnerTest, Tiers) {
  SourceSet set;
  set["daemon"] = Slice({R("a", 1), R("b", 1), R("c", 1)}, WritableScope::Kind::kNone);
  set["daemon"].scope.reset();
  set["room:doc:1"] = Slice({R("a", 2), R("d", 2)}, WritableScope::Kind::kNone);
  set["room:doc:2"] = Slice({R("b", 3), R("d", 3)}, WritableScope::Kind::kAll);
  set["room:doc:3"] = Slice({R("c", 4), R("b", 4)}, WritableScope::Kind::kNone, true);
  EXPECT_EQ(WinnerOf(set, "a"), "daemon");      // `none` leaves the daemon authoritative
  EXPECT_EQ(WinnerOf(set, "b"), "room:doc:3");  // frozen wins if present
  EXPECT_EQ(WinnerOf(set, "c"), "room:doc:3");
  EXPECT_EQ(WinnerOf(set, "d"), "room:doc:2");  // covering room over an uncovering one
  EXPECT_EQ(WinnerOf(set, "e"), "-");
  // A tombstone masks a source's copy; a parked row replaces it.
  set["room:doc:3"].held[{Value::String("b")}] = nullptr;
  EXPECT_EQ(WinnerOf(set, "b"), "room:doc:2");
  set["daemon"].held[{Value::String("e")}] = MakeRow(R("e", 9));
  EXPECT_EQ(WinnerOf(set, "e"), "daemon");
  set["room:doc:1"].baseline.erase({Value::String("a")});
  set["daemon"].baseline.erase({Value::String("a")});
  EXPECT_EQ(WinnerOf(set, "a"), "-");
}

TEST(CompiledScopeTest, ColEqIsSqlEquality) {
  WritableScope w;
  w.kind = WritableScope::Kind::kColEq;
  w.col = 1;
  w.value = Value::Int(3);
  auto c = CompiledScope::Compile(w, "t", TSpec(), "test");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->Covers(R("a", 3)));
  EXPECT_FALSE(c->Covers(R("a", 4)));
  w.col = 2;
  w.value = Value::Null();
  c = CompiledScope::Compile(w, "t", TSpec(), "test");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->Covers(R("a", 3)));  // null = null is not true in SQL
  w.col = -1;
  EXPECT_FALSE(CompiledScope::Compile(w, "t", TSpec(), "test").ok());
  w.kind = WritableScope::Kind::kPredicate;
  EXPECT_FALSE(CompiledScope::Compile(w, "t", TSpec(), "test").ok());  // no where
}

// --- the agreement loop ---

const char* const kIds[] = {"a", "ab", "B", "b%", "c_d", ""};
const char* const kOwners[] = {"x", "X", "xy", "y"};

std::string Lit(sim::Rng& rng, int col) {
  if (rng.Chance(1, 8)) return "null";
  if (col == 1) return absl::StrCat(rng.Range(-1, 4));
  const char* s = col == 0 ? kIds[rng.Below(6)] : kOwners[rng.Below(4)];
  return nlohmann::json(std::string(s)).dump();
}

std::string Leaf(sim::Rng& rng) {
  const int col = static_cast<int>(rng.Below(3));
  const char* const names[] = {"id", "v", "owner"};
  std::vector<std::string> ops = {"=", "!=", "<", "<=", ">", ">=", "IS", "IS NOT", "IN", "NOT IN"};
  if (col != 1) {
    for (const char* op : {"LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"}) ops.push_back(op);
  }
  const std::string op = rng.Pick(ops);
  std::string right;
  if (op == "IN" || op == "NOT IN") {
    right = "[";
    const int n = static_cast<int>(rng.Range(0, 3));
    for (int i = 0; i < n; ++i) {
      std::string l = Lit(rng, col);
      if (l == "null") l = col == 1 ? "0" : "\"x\"";
      absl::StrAppend(&right, i ? "," : "", l);
    }
    absl::StrAppend(&right, "]");
  } else if (op.find("LIKE") != std::string::npos) {
    const char* const pats[] = {"%", "a%", "%b", "_", "x%", "X", "%\\%", "c\\_d"};
    right = nlohmann::json(std::string(pats[rng.Below(8)])).dump();
  } else if (col != 1 && rng.Chance(1, 5)) {
    // Column against column (both strings).
    return absl::StrCat(R"({"type":"simple","op":")", op, R"(","left":{"type":"column","name":")",
                        names[col], R"("},"right":{"type":"column","name":")",
                        names[col == 0 ? 2 : 0], R"("}})");
  } else {
    right = Lit(rng, col);
  }
  return absl::StrCat(R"({"type":"simple","op":")", op, R"(","left":{"type":"column","name":")",
                      names[col], R"("},"right":{"type":"literal","value":)", right, "}}");
}

std::string Cond(sim::Rng& rng, int depth) {
  if (depth == 0 || rng.Chance(1, 3)) return Leaf(rng);
  std::string out = absl::StrCat(R"({"type":")", rng.Chance(1, 2) ? "and" : "or",
                                 R"(","conditions":[)");
  const int n = static_cast<int>(rng.Range(0, 3));
  for (int i = 0; i < n; ++i) absl::StrAppend(&out, i ? "," : "", Cond(rng, depth - 1));
  return out + "]}";
}

std::vector<RowValues> RandomRows(sim::Rng& rng) {
  std::vector<RowValues> rows;
  for (int i = 0; i < 6; ++i) {
    std::optional<std::string> owner;
    if (!rng.Chance(1, 4)) owner = kOwners[rng.Below(4)];
    rows.push_back(R(kIds[i], rng.Range(-1, 4), owner));
  }
  return rows;
}

// One trial: returns the number of rows checked (0 when the condition is not a valid where).
int AgreementTrial(sim::Rng& rng) {
  const std::string text = Cond(rng, 2);
  auto cond = ParseCondition(nlohmann::json::parse(text), "$");
  RINDLE_CHECK_MSG(cond.ok(), text);
  Db db;
  RINDLE_CHECK(db.RegisterTable("t", TSpec(), false).ok());
  std::vector<ServerDeltaOp> adds;
  const std::vector<RowValues> rows = RandomRows(rng);
  for (const auto& r : rows) adds.push_back({"t", ServerDeltaOp::Type::kAdd, r, {}});
  RINDLE_CHECK(db.ServerBatchBegin(adds).ok());
  RINDLE_CHECK(db.ServerBatchEnd().ok());
  Ast ast;
  ast.table = "t";
  ast.where = *cond;
  auto snap = db.RegisterQuery(1, ast);
  WritableScope w;
  w.kind = WritableScope::Kind::kPredicate;
  w.where = *cond;
  absl::Status added = db.AddRoomSource("t", RoomSourceKey("doc:1"), w);
  // Routing and querying accept exactly the same conditions.
  EXPECT_EQ(snap.ok(), added.ok()) << text << "\n" << snap.status() << "\n" << added;
  if (!snap.ok()) return 0;
  std::set<std::string> in_query;
  auto result = db.QueryResult(1);
  RINDLE_CHECK(result.ok());
  for (const auto& n : *result) in_query.insert((*n.row)[0].as_string());
  for (const auto& r : rows) {
    auto m = db.WritableMatches("t", RoomSourceKey("doc:1"), r);
    EXPECT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(*m, in_query.contains(r[0].as_string())) << text << "\nrow " << RowDebugString(r);
    if (::testing::Test::HasFailure()) return 0;
  }
  return static_cast<int>(rows.size());
}

TEST(WritableAgreementTest, PredicateScopeAgreesWithTheQueryFilter) {
  sim::Rng rng(0x14'0000);
  int checked = 0;
  for (int trial = 0; trial < 1500 && !::testing::Test::HasFailure(); ++trial) {
    checked += AgreementTrial(rng);
  }
  // Most random conditions are valid wheres: the loop really compared rows.
  EXPECT_GT(checked, 1500 * 6 / 2);
}

}  // namespace
}  // namespace rindle
