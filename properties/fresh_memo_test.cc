// fresh_memo_test.cc — FreshMemo answers exactly what FreshQuery answers: a repeated question is a
// hit, and any change the oracle could see (a cell, a row, an EXISTS child table, a literal of
// the AST, a double's bits) is a miss; TreesSame is cell-exact.
#include "properties/fresh_memo.h"

#include <string>

#include "engine/ast_json.h"
#include "gtest/gtest.h"
#include "oracles/fresh_query.h"

namespace rindle::props {
namespace {

Schema TestSchema() {
  auto s = SchemaFromJson(nlohmann::json::parse(R"({"tables": {
    "item": {"columns": [{"name": "id", "type": "number", "nullable": false},
                         {"name": "name", "type": "string", "nullable": true}],
             "primaryKey": ["id"]},
    "note": {"columns": [{"name": "id", "type": "number", "nullable": false},
                         {"name": "itemId", "type": "number", "nullable": true}],
             "primaryKey": ["id"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

Ast Parse(const std::string& text) {
  auto ast = ParseAstText(text);
  EXPECT_TRUE(ast.ok()) << ast.status();
  return *ast;
}

void Put(PlainTables& t, const std::string& table, RowValues row) {
  t[table][RowValues{row[0]}] = std::move(row);
}

constexpr char kWithNotes[] =
    R"({"table":"item","where":{"type":"correlatedSubquery","op":"EXISTS","related":{
        "correlation":{"parentField":["id"],"childField":["itemId"]},
        "subquery":{"table":"note","alias":"n"}}}})";

TEST(FreshMemoTest, AnswersAsTheOracleAndMissesOnAnyVisibleChange) {
  const Schema schema = TestSchema();
  const Ast ast = Parse(kWithNotes);
  PlainTables tables;
  Put(tables, "item", {Value::Int(1), Value::String("a")});
  Put(tables, "item", {Value::Int(2), Value::String("b")});
  Put(tables, "note", {Value::Int(10), Value::Int(1)});
  FreshMemo memo;
  auto check = [&] {
    const auto& got = memo.Query(ast, tables, schema);
    const auto want = FreshQuery(ast, tables, schema);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_TRUE(TreesSame(*got, *want));
  };
  check();
  EXPECT_EQ(memo.misses(), 1);
  check();  // the same question
  EXPECT_EQ(memo.hits(), 1);
  Put(tables, "note", {Value::Int(11), Value::Int(2)});  // only the EXISTS child table changed
  check();
  EXPECT_EQ(memo.misses(), 2);
  Put(tables, "item", {Value::Int(1), Value::String("A")});  // one cell
  check();
  EXPECT_EQ(memo.misses(), 3);
  Put(tables, "item", {Value::Int(1), Value::String("a")});  // back to an earlier content
  tables["note"].erase(RowValues{Value::Int(11)});
  check();
  EXPECT_EQ(memo.hits(), 2);
  {
    FreshMemo::Scope scope(&memo, tables);
    check();
    check();
  }
  EXPECT_EQ(memo.hits(), 4);
  tables["other"];  // a table the AST does not read changes nothing
  check();
  EXPECT_EQ(memo.hits(), 5);
  EXPECT_EQ(memo.misses(), 3);
}

TEST(FreshMemoTest, AnAstDifferingInOneLiteralIsAnotherQuestion) {
  const Schema schema = TestSchema();
  auto name_is = [](const std::string& lit) {
    return Parse(R"({"table":"item","where":{"type":"simple","op":"=",)"
                 R"("left":{"type":"column","name":"name"},"right":{"type":"literal","value":)" +
                 lit + "}}}");
  };
  const Ast a = name_is(R"("a")");
  const Ast b = name_is(R"("b")");
  EXPECT_TRUE(AstEqual(a, name_is(R"("a")")));
  EXPECT_FALSE(AstEqual(a, b));
  EXPECT_FALSE(AstEqual(Parse(kWithNotes), a));
  PlainTables tables;
  Put(tables, "item", {Value::Int(1), Value::String("a")});
  Put(tables, "item", {Value::Int(2), Value::String("b")});
  FreshMemo memo;
  ASSERT_TRUE(memo.Query(a, tables, schema).ok());
  const auto& rb = memo.Query(b, tables, schema);
  ASSERT_TRUE(rb.ok());
  ASSERT_EQ(rb->size(), 1u);
  EXPECT_EQ((*(*rb)[0].row)[1].as_string(), "b");
  EXPECT_EQ(memo.misses(), 2);
}

TEST(FreshMemoTest, TablesAndTreesCompareCellExact) {
  PlainTable x, y;
  x[{Value::Int(1)}] = {Value::Int(1), Value::Number(0.5)};
  y[{Value::Int(1)}] = {Value::Int(1), Value::Number(0.5)};
  EXPECT_TRUE(PlainTableSame(x, y));
  y[{Value::Int(1)}] = {Value::Int(1), Value::String("0.5")};
  EXPECT_FALSE(PlainTableSame(x, y));
  y[{Value::Int(1)}] = {Value::Int(1), Value::Null()};
  EXPECT_FALSE(PlainTableSame(x, y));
  auto row = [](RowValues v) { return MakeRow(std::move(v)); };
  std::vector<TreeNode> t1{{row({Value::Int(1), Value::Bool(true)}), {{"n", {}}}}};
  std::vector<TreeNode> t2{{row({Value::Int(1), Value::Bool(true)}), {{"n", {}}}}};
  EXPECT_TRUE(TreesSame(t1, t2));
  t2[0].relationships[0].first = "m";
  EXPECT_FALSE(TreesSame(t1, t2));
  std::vector<TreeNode> t3{{row({Value::Int(1), Value::Int(1)}), {{"n", {}}}}};
  EXPECT_FALSE(TreesSame(t1, t3));
}

}  // namespace
}  // namespace rindle::props
