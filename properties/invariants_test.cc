// invariants_test.cc — CheckPresentedMatchesFresh (invariants.h): a view compared as its user
// sees it — a cell no level presents never matters, a missing related child always does (the
// convergence check of mutant 027: a projection that drops a child's correlation column).
#include "properties/invariants.h"

#include "engine/ast_json.h"
#include "gtest/gtest.h"

namespace rindle::props {
namespace {

using json = nlohmann::json;

class PresentedTest : public ::testing::Test {
 protected:
  PresentedTest() {
    auto s = SchemaFromJson(json::parse(R"({"tables": {
      "issue": {"columns": [{"name": "id", "type": "string", "nullable": false},
                            {"name": "title", "type": "string", "nullable": false},
                            {"name": "body", "type": "string", "nullable": true}],
                "primaryKey": ["id"]},
      "comment": {"columns": [{"name": "id", "type": "string", "nullable": false},
                              {"name": "issueId", "type": "string", "nullable": false},
                              {"name": "text", "type": "string", "nullable": true}],
                  "primaryKey": ["id"]}}})"),
                            "test");
    EXPECT_TRUE(s.ok()) << s.status();
    schema_ = *s;
    auto ast = ParseAst(json::parse(R"({"table": "issue", "select": ["id", "title"],
      "orderBy": [["id", "asc"]],
      "related": [{"correlation": {"parentField": ["id"], "childField": ["issueId"]},
                   "subquery": {"table": "comment", "alias": "comments", "select": ["id", "text"],
                                "orderBy": [["id", "asc"]]}}]})"));
    EXPECT_TRUE(ast.ok()) << ast.status();
    ast_ = *ast;
    store_["issue"].emplace(RowValues{S("i1")}, RowValues{S("i1"), S("t"), S("secret")});
    store_["comment"].emplace(RowValues{S("c1")}, RowValues{S("c1"), S("i1"), S("hi")});
  }
  static Value S(const char* s) { return Value::String(s); }
  using Rels = std::vector<std::pair<std::string, std::vector<TreeNode>>>;
  static TreeNode Node(RowValues row, Rels rel) {
    return TreeNode{MakeRow(std::move(row)), std::move(rel)};
  }

  Schema schema_;
  Ast ast_;
  PlainTables store_;
};

TEST_F(PresentedTest, ACellNoLevelPresentsNeverMatters) {
  // The issue's body and the comment's issueId are presented by no level: what the client
  // stored there (absent under projection, or another view's value) is not what a user sees.
  TreeNode comment = Node({S("c1"), Value::Null(), S("hi")}, {});
  TreeNode issue = Node({S("i1"), S("t"), Value::Null()}, {{"comments", {comment}}});
  EXPECT_EQ(CheckPresentedMatchesFresh("v", {issue}, ast_, store_, schema_, "convergence"),
            std::nullopt);
}

TEST_F(PresentedTest, AMissingRelatedChildIsAViolation) {
  // Mutant 027's symptom: the comment arrived without issueId, so the client's view has none.
  TreeNode issue = Node({S("i1"), S("t"), Value::Null()}, {{"comments", {}}});
  auto v = CheckPresentedMatchesFresh("v", {issue}, ast_, store_, schema_, "convergence");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "convergence");
  EXPECT_NE(v->message.find("comments"), std::string::npos) << v->message;
}

TEST_F(PresentedTest, APresentedCellThatDiffersIsAViolation) {
  TreeNode comment = Node({S("c1"), S("i1"), S("bye")}, {});
  TreeNode issue = Node({S("i1"), S("t"), S("secret")}, {{"comments", {comment}}});
  EXPECT_TRUE(
      CheckPresentedMatchesFresh("v", {issue}, ast_, store_, schema_, "convergence").has_value());
}

}  // namespace
}  // namespace rindle::props
