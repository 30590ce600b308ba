// fresh_query_test.cc — unit tests of the fresh-query oracle's semantics: null handling,
// LIKE/ILIKE, IN, cursors, EXISTS / NOT EXISTS, nested related with limits. (Its checks against
// the real engines' recorded fixtures are conformance/oracle_fixtures_test.cc, which shares the
// case loaders of conformance/.)
#include "oracles/fresh_query.h"

#include <string>

#include "engine/ast_json.h"
#include "gtest/gtest.h"
#include "oracles/like_match.h"
#include "oracles/plain_store.h"

namespace rindle {
namespace {

using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Unit tests over a small schema.

Schema TestSchema() {
  auto s = SchemaFromJson(json::parse(R"({"tables": {
    "item": {"columns": [{"name": "id", "type": "number", "nullable": false},
                         {"name": "name", "type": "string", "nullable": true},
                         {"name": "score", "type": "number", "nullable": true},
                         {"name": "ownerId", "type": "number", "nullable": true}],
             "primaryKey": ["id"]},
    "owner": {"columns": [{"name": "id", "type": "number", "nullable": false},
                          {"name": "label", "type": "string", "nullable": true}],
              "primaryKey": ["id"]},
    "note": {"columns": [{"name": "id", "type": "number", "nullable": false},
                         {"name": "itemId", "type": "number", "nullable": true},
                         {"name": "at", "type": "number", "nullable": false}],
             "primaryKey": ["id"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

class FreshQueryTest : public ::testing::Test {
 protected:
  FreshQueryTest() : store_(TestSchema()) {
    // id, name, score, ownerId
    Add("item", {Value::Int(1), Value::String("Apple"), Value::Int(5), Value::Int(10)});
    Add("item", {Value::Int(2), Value::String("banana"), Value::Null(), Value::Int(10)});
    Add("item", {Value::Int(3), Value::Null(), Value::Number(2.5), Value::Null()});
    Add("item", {Value::Int(4), Value::String("ÉCLAIR 50%"), Value::Int(5), Value::Int(11)});
    Add("item", {Value::Int(5), Value::String("a_b"), Value::Int(1), Value::Int(12)});
    Add("owner", {Value::Int(10), Value::String("ten")});
    Add("owner", {Value::Int(11), Value::Null()});
    Add("owner", {Value::Int(12), Value::String("twelve")});
    // notes: item 1 has three, item 4 has one, a note with null itemId.
    Add("note", {Value::Int(100), Value::Int(1), Value::Int(3)});
    Add("note", {Value::Int(101), Value::Int(1), Value::Int(1)});
    Add("note", {Value::Int(102), Value::Int(1), Value::Int(2)});
    Add("note", {Value::Int(103), Value::Int(4), Value::Int(7)});
    Add("note", {Value::Int(104), Value::Null(), Value::Int(9)});
  }

  void Add(const std::string& table, RowValues row) {
    auto s = store_.Add(table, row);
    ASSERT_TRUE(s.ok()) << s;
  }

  // Root-level ids of `ast_json` (fails the test on an error).
  std::vector<int64_t> RootIds(const std::string& ast_json) {
    auto ast = ParseAstText(ast_json);
    EXPECT_TRUE(ast.ok()) << ast.status();
    if (!ast.ok()) return {};
    auto tree = FreshQuery(*ast, store_.tables(), store_.schema());
    EXPECT_TRUE(tree.ok()) << tree.status();
    std::vector<int64_t> out;
    if (!tree.ok()) return out;
    for (const TreeNode& n : *tree) out.push_back((*n.row)[0].as_int());
    return out;
  }

  absl::StatusOr<std::vector<TreeNode>> Run(const std::string& ast_json) {
    auto ast = ParseAstText(ast_json);
    if (!ast.ok()) return ast.status();
    return FreshQuery(*ast, store_.tables(), store_.schema());
  }

  static std::string Where(const std::string& col, const std::string& op, const std::string& lit) {
    return R"({"table":"item","where":{"type":"simple","op":")" + op +
           R"(","left":{"type":"column","name":")" + col +
           R"("},"right":{"type":"literal","value":)" + lit + "}}}";
  }

  PlainStore store_;
};

using Ids = std::vector<int64_t>;

TEST_F(FreshQueryTest, NoWhereReturnsEveryRowInPkOrder) {
  EXPECT_EQ(RootIds(R"({"table":"item"})"), (Ids{1, 2, 3, 4, 5}));
}

TEST_F(FreshQueryTest, ComparisonsWithNullAreFalse) {
  EXPECT_EQ(RootIds(Where("score", "=", "5")), (Ids{1, 4}));
  EXPECT_EQ(RootIds(Where("score", "!=", "5")), (Ids{3, 5}));  // null score (2) excluded
  EXPECT_EQ(RootIds(Where("score", "<", "3")), (Ids{3, 5}));
  EXPECT_EQ(RootIds(Where("score", ">=", "2.5")), (Ids{1, 3, 4}));
  EXPECT_EQ(RootIds(Where("score", "=", "null")), Ids{});
  EXPECT_EQ(RootIds(Where("score", "!=", "null")), Ids{});
  EXPECT_EQ(RootIds(Where("name", "LIKE", "null")), Ids{});
  EXPECT_EQ(RootIds(Where("name", "NOT LIKE", "\"x%\"")), (Ids{1, 2, 4, 5}));  // null name excluded
}

TEST_F(FreshQueryTest, IsAndIsNotAreNullSafe) {
  EXPECT_EQ(RootIds(Where("score", "IS", "null")), (Ids{2}));
  EXPECT_EQ(RootIds(Where("score", "IS NOT", "null")), (Ids{1, 3, 4, 5}));
  EXPECT_EQ(RootIds(Where("score", "IS", "5")), (Ids{1, 4}));
  EXPECT_EQ(RootIds(Where("score", "IS NOT", "5")), (Ids{2, 3, 5}));
}

TEST_F(FreshQueryTest, NumbersCompareAcrossIntAndDouble) {
  EXPECT_EQ(RootIds(Where("score", "=", "5.0")), (Ids{1, 4}));
  EXPECT_EQ(RootIds(Where("score", ">", "2.4")), (Ids{1, 3, 4}));
}

TEST_F(FreshQueryTest, LikeIsCaseSensitiveWithWildcardsAndEscapes) {
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"%an%\"")), (Ids{2}));
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"A%\"")), (Ids{1}));
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"a%\"")), (Ids{5}));
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"a_b\"")), (Ids{5}));
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"a\\\\_b\"")), (Ids{5}));  // escaped _ is literal
  EXPECT_EQ(RootIds(Where("name", "LIKE", "\"%50\\\\%\"")), (Ids{4}));
  EXPECT_EQ(RootIds(Where("name", "NOT LIKE", "\"%a%\"")), (Ids{1, 4}));  // "Apple" has no lowercase a
}

TEST_F(FreshQueryTest, IlikeLowercasesUnicode) {
  EXPECT_EQ(RootIds(Where("name", "ILIKE", "\"apple\"")), (Ids{1}));
  EXPECT_EQ(RootIds(Where("name", "ILIKE", "\"éclair%\"")), (Ids{4}));
  EXPECT_EQ(RootIds(Where("name", "ILIKE", "\"_clair%\"")), (Ids{4}));  // _ is one code point
  EXPECT_EQ(RootIds(Where("name", "NOT ILIKE", "\"%B%\"")), (Ids{1, 4}));
}

TEST(LikeMatchTest, Basics) {
  EXPECT_TRUE(LikeMatch("", "", false));
  EXPECT_TRUE(LikeMatch("", "%", false));
  EXPECT_FALSE(LikeMatch("", "_", false));
  EXPECT_TRUE(LikeMatch("abc", "a%c", false));
  EXPECT_TRUE(LikeMatch("abc", "%%%", false));
  EXPECT_FALSE(LikeMatch("abc", "ab", false));
  EXPECT_TRUE(LikeMatch("a%c", "a\\%c", false));
  EXPECT_FALSE(LikeMatch("abc", "a\\%c", false));
  EXPECT_TRUE(LikeMatch("a\\", "a\\", false));  // trailing backslash is literal
  EXPECT_TRUE(LikeMatch("a.c", "a.c", false));  // no regex metacharacters
  EXPECT_FALSE(LikeMatch("abc", "a.c", false));
  EXPECT_TRUE(LikeMatch("lgtm 👍", "lgtm _", false));
  EXPECT_FALSE(LikeMatch("ABC", "abc", false));
  EXPECT_TRUE(LikeMatch("ABC", "abc", true));
  EXPECT_TRUE(LikeMatch("ΣΟΦΊΑ", "σοφία", true));
  EXPECT_TRUE(LikeMatch("МОСКВА", "%сква", true));
  EXPECT_TRUE(LikeMatch("ŁÓDŹ", "łódź", true));
  EXPECT_TRUE(LikeMatch("Ÿ", "ÿ", true));
}

TEST(Utf8LowerTest, MapsTheCoveredBlocksAndKeepsInvalidBytes) {
  EXPECT_EQ(Utf8Lower("AbC"), "abc");
  EXPECT_EQ(Utf8Lower("ÀÉÎÕÜ×Þ"), "àéîõü×þ");
  EXPECT_EQ(Utf8Lower("ĀĆĹŃŽ"), "āćĺńž");
  EXPECT_EQ(Utf8Lower("ΑΒΓΆΏ"), "αβγάώ");
  EXPECT_EQ(Utf8Lower("ЁЖЯ"), "ёжя");
  EXPECT_EQ(Utf8Lower(std::string("A\xff") + "B"), std::string("a\xff") + "b");
}

TEST_F(FreshQueryTest, InAndNotInIgnoreNullsOnBothSides) {
  EXPECT_EQ(RootIds(Where("score", "IN", "[5, 1]")), (Ids{1, 4, 5}));
  EXPECT_EQ(RootIds(Where("score", "IN", "[5, null]")), (Ids{1, 4}));
  EXPECT_EQ(RootIds(Where("score", "NOT IN", "[5, 1]")), (Ids{3}));  // null score excluded
  EXPECT_EQ(RootIds(Where("score", "NOT IN", "[null]")), (Ids{1, 3, 4, 5}));
  EXPECT_EQ(RootIds(Where("score", "IN", "[]")), Ids{});
  EXPECT_EQ(RootIds(Where("score", "NOT IN", "[]")), (Ids{1, 3, 4, 5}));
}

TEST_F(FreshQueryTest, AndOrNest) {
  EXPECT_EQ(RootIds(R"({"table":"item","where":{"type":"or","conditions":[
      {"type":"simple","op":"=","left":{"type":"column","name":"id"},"right":{"type":"literal","value":1}},
      {"type":"and","conditions":[
        {"type":"simple","op":">","left":{"type":"column","name":"id"},"right":{"type":"literal","value":3}},
        {"type":"simple","op":"IS NOT","left":{"type":"column","name":"ownerId"},"right":{"type":"literal","value":11}}]}]}})"),
            (Ids{1, 5}));
  EXPECT_EQ(RootIds(R"({"table":"item","where":{"type":"and","conditions":[]}})"), (Ids{1, 2, 3, 4, 5}));
  EXPECT_EQ(RootIds(R"({"table":"item","where":{"type":"or","conditions":[]}})"), Ids{});
}

TEST_F(FreshQueryTest, OrderByIsCompletedWithThePkAndNullsSortFirst) {
  EXPECT_EQ(RootIds(R"({"table":"item","orderBy":[["score","asc"]]})"), (Ids{2, 5, 3, 1, 4}));
  EXPECT_EQ(RootIds(R"({"table":"item","orderBy":[["score","desc"]]})"), (Ids{1, 4, 3, 5, 2}));
  EXPECT_EQ(RootIds(R"({"table":"item","orderBy":[["score","desc"],["id","desc"]]})"),
            (Ids{4, 1, 3, 5, 2}));
}

TEST_F(FreshQueryTest, StartCursorExclusiveAndInclusive) {
  // Sort: score desc, id asc → 1(5) 4(5) 3(2.5) 5(1) 2(null).
  const std::string q = R"({"table":"item","orderBy":[["score","desc"]],"start":{"row":{"score":5,"id":4},"exclusive":)";
  EXPECT_EQ(RootIds(q + "true}}"), (Ids{3, 5, 2}));
  EXPECT_EQ(RootIds(q + "false}}"), (Ids{4, 3, 5, 2}));
  // A sort column missing from the cursor compares as null: {score: 5} is (5, id null), which
  // sorts before (5, 1) since null sorts first.
  const std::string p = R"({"table":"item","orderBy":[["score","desc"]],"start":{"row":{"score":5},"exclusive":)";
  EXPECT_EQ(RootIds(p + "true}}"), (Ids{1, 4, 3, 5, 2}));
  EXPECT_EQ(RootIds(p + "false}}"), (Ids{1, 4, 3, 5, 2}));
  const std::string q2 = R"({"table":"item","orderBy":[["score","asc"]],"start":{"row":{"id":3},"exclusive":)";
  // (score null, id 3): after every row with a null score and id ≤ 3, i.e. after item 2.
  EXPECT_EQ(RootIds(q2 + "true}}"), (Ids{5, 3, 1, 4}));
  // The real engine's probe: a cursor giving none of the sort columns, under a desc sort, is
  // (null, null), which sorts after every non-null createdAt → no rows.
  EXPECT_EQ(RootIds(R"({"table":"item","orderBy":[["score","desc"]],"start":{"row":{"name":"x"},"exclusive":false}})"),
            (Ids{2}));
  // Cursor + limit.
  EXPECT_EQ(RootIds(R"({"table":"item","orderBy":[["score","desc"]],"start":{"row":{"score":5,"id":1},"exclusive":true},"limit":2})"),
            (Ids{4, 3}));
}

TEST_F(FreshQueryTest, LimitAndOne) {
  EXPECT_EQ(RootIds(R"({"table":"item","limit":2})"), (Ids{1, 2}));
  EXPECT_EQ(RootIds(R"({"table":"item","limit":0})"), Ids{});
  EXPECT_EQ(RootIds(R"({"table":"item","one":true,"orderBy":[["id","desc"]]})"), (Ids{5}));
}

// SPEC §2.1: a "one" query is limit 1 presented singular — also when the wire AST carries an
// explicit limit next to it (mutant 006 materialises up to that limit).
TEST_F(FreshQueryTest, OneWithAnExplicitLimitIsStillAtMostOneRow) {
  EXPECT_EQ(RootIds(R"({"table":"item","one":true,"limit":3})"), Ids{1});
  EXPECT_EQ(RootIds(R"({"table":"item","one":true,"limit":0})"), Ids{});
  // Item 1 has three notes: a related one() with limit 3 still holds only the latest.
  auto tree = Run(R"({"table":"item","related":[{"correlation":{"parentField":["id"],"childField":["itemId"]},
      "subquery":{"table":"note","alias":"latest","orderBy":[["at","desc"]],"limit":3,"one":true}}]})");
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->size(), 5u);
  ASSERT_EQ((*tree)[0].relationships[0].second.size(), 1u);
  EXPECT_EQ((*(*tree)[0].relationships[0].second[0].row)[2].as_int(), 3);
}

std::string ExistsOn(const std::string& op, const std::string& sub_extra) {
  return R"({"table":"item","where":{"type":"correlatedSubquery","op":")" + op +
         R"(","related":{"correlation":{"parentField":["id"],"childField":["itemId"]},"subquery":{"table":"note","alias":"n")" +
         sub_extra + "}}}}";
}

TEST_F(FreshQueryTest, ExistsAndNotExists) {
  EXPECT_EQ(RootIds(ExistsOn("EXISTS", "")), (Ids{1, 4}));
  EXPECT_EQ(RootIds(ExistsOn("NOT EXISTS", "")), (Ids{2, 3, 5}));
  // The subquery's own where.
  EXPECT_EQ(RootIds(ExistsOn("EXISTS", R"(,"where":{"type":"simple","op":">","left":{"type":"column","name":"at"},"right":{"type":"literal","value":5}})")),
            (Ids{4}));
  // limit 0 means no rows.
  EXPECT_EQ(RootIds(ExistsOn("EXISTS", R"(,"limit":0)")), Ids{});
  EXPECT_EQ(RootIds(ExistsOn("NOT EXISTS", R"(,"limit":0)")), (Ids{1, 2, 3, 4, 5}));
  // The subquery's start: notes of item 1 at 1,2,3; after (3, 100) exclusive → none for item 1.
  EXPECT_EQ(RootIds(ExistsOn("EXISTS", R"(,"orderBy":[["at","asc"]],"start":{"row":{"at":3,"id":100},"exclusive":true})")),
            (Ids{4}));
}

TEST_F(FreshQueryTest, NullNeverCorrelates) {
  // Item 3 has a null ownerId; owner ids are never null, but a null parent must not match a
  // null child either: note 104 has a null itemId.
  auto tree = Run(R"({"table":"item","related":[{"correlation":{"parentField":["ownerId"],"childField":["id"]},
      "subquery":{"table":"owner","alias":"owner"}}]})");
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->size(), 5u);
  EXPECT_TRUE((*tree)[2].relationships[0].second.empty());
  EXPECT_EQ((*tree)[0].relationships[0].second.size(), 1u);
  auto notes = Run(R"({"table":"note","where":{"type":"correlatedSubquery","op":"NOT EXISTS","related":{
      "correlation":{"parentField":["itemId"],"childField":["ownerId"]},"subquery":{"table":"item","alias":"i"}}}})");
  ASSERT_TRUE(notes.ok()) << notes.status();
  // No item has ownerId 1 or 4, and the null itemId of note 104 correlates with nothing.
  EXPECT_EQ(notes->size(), 5u);
}

TEST_F(FreshQueryTest, NestedRelatedWithPerParentLimitsAndOrder) {
  auto tree = Run(R"({"table":"owner","related":[{"correlation":{"parentField":["id"],"childField":["ownerId"]},
      "subquery":{"table":"item","alias":"items","orderBy":[["id","desc"]],"limit":1,
        "related":[{"correlation":{"parentField":["id"],"childField":["itemId"]},
          "subquery":{"table":"note","alias":"notes","orderBy":[["at","desc"]],"limit":2}}]}}]})");
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->size(), 3u);
  // owner 10 → items {1, 2}, limit 1 desc → item 2, which has no notes.
  const auto& o10 = (*tree)[0].relationships;
  ASSERT_EQ(o10.size(), 1u);
  EXPECT_EQ(o10[0].first, "items");
  ASSERT_EQ(o10[0].second.size(), 1u);
  EXPECT_EQ((*o10[0].second[0].row)[0], Value::Int(2));
  EXPECT_TRUE(o10[0].second[0].relationships[0].second.empty());
  // owner 11 → item 4 → note 103.
  const auto& o11 = (*tree)[1].relationships[0].second;
  ASSERT_EQ(o11.size(), 1u);
  ASSERT_EQ(o11[0].relationships[0].second.size(), 1u);
  EXPECT_EQ((*o11[0].relationships[0].second[0].row)[0], Value::Int(103));

  // item 1's notes by at desc, limit 2 → 100 (3), 102 (2).
  auto items = Run(R"({"table":"item","where":{"type":"simple","op":"=","left":{"type":"column","name":"id"},"right":{"type":"literal","value":1}},
      "related":[{"correlation":{"parentField":["id"],"childField":["itemId"]},
        "subquery":{"table":"note","alias":"notes","orderBy":[["at","desc"]],"limit":2}}]})");
  ASSERT_TRUE(items.ok()) << items.status();
  ASSERT_EQ(items->size(), 1u);
  const auto& notes = (*items)[0].relationships[0].second;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ((*notes[0].row)[0], Value::Int(100));
  EXPECT_EQ((*notes[1].row)[0], Value::Int(102));
}

TEST_F(FreshQueryTest, ErrorsNameTheOffendingPart) {
  auto t = Run(R"({"table":"nope"})");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("nope"), std::string::npos);
  EXPECT_NE(t.status().message().find("item"), std::string::npos);  // lists the valid tables
  auto c = Run(Where("bogus", "=", "1"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("bogus"), std::string::npos);
  EXPECT_NE(c.status().message().find("$.where.left"), std::string::npos);
  auto k = Run(Where("name", "=", "1"));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("$.where.right.value: column \"name\" is string"),
            std::string::npos)
      << k.status();
  auto like = Run(Where("score", "LIKE", "\"1%\""));
  ASSERT_FALSE(like.ok());
  EXPECT_NE(like.status().message().find("needs a string column"), std::string::npos);
  auto cols = Run(R"({"table":"item","where":{"type":"simple","op":"=","left":{"type":"column","name":"name"},"right":{"type":"column","name":"score"}}})");
  ASSERT_FALSE(cols.ok());
  EXPECT_NE(cols.status().message().find("cannot compare column"), std::string::npos);
  auto cursor = Run(R"({"table":"item","start":{"row":{"zzz":1},"exclusive":true}})");
  ASSERT_FALSE(cursor.ok());
  EXPECT_NE(cursor.status().message().find("$.start.row.zzz"), std::string::npos);
  auto corr = Run(R"({"table":"item","related":[{"correlation":{"parentField":["name"],"childField":["itemId"]},
      "subquery":{"table":"note","alias":"n"}}]})");
  ASSERT_FALSE(corr.ok());
  EXPECT_NE(corr.status().message().find("$.related[0].correlation"), std::string::npos);
}

TEST(FreshQueryErrorsTest, DoNotDependOnTheData) {
  // An empty table still rejects an unknown column, deep inside an EXISTS.
  auto schema = SchemaFromJson(json::parse(R"({"tables": {
    "a": {"columns": [{"name": "id", "type": "number"}], "primaryKey": ["id"]},
    "b": {"columns": [{"name": "id", "type": "number"}, {"name": "aId", "type": "number"}],
          "primaryKey": ["id"]}}})"),
                               "test");
  ASSERT_TRUE(schema.ok()) << schema.status();
  auto ast = ParseAstText(R"({"table":"a","where":{"type":"correlatedSubquery","op":"EXISTS",
      "related":{"correlation":{"parentField":["id"],"childField":["aId"]},
        "subquery":{"table":"b","alias":"b","where":{"type":"simple","op":"=",
          "left":{"type":"column","name":"nope"},"right":{"type":"literal","value":1}}}}}})");
  ASSERT_TRUE(ast.ok()) << ast.status();
  auto tree = FreshQuery(*ast, PlainTables{}, *schema);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("$.where.related.subquery.where.left.name"),
            std::string::npos)
      << tree.status();
  EXPECT_NE(tree.status().message().find("id, aId"), std::string::npos) << tree.status();
}

}  // namespace
}  // namespace rindle
