// tree_diff_test.cc — TreeDiff names table, pk and column at every level of a query result
// (issue 15 "Readable failures"), reports a reordering as such, and is empty on equal trees.
#include "oracles/tree_diff.h"

#include "engine/ast_json.h"
#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

Schema TestSchema() {
  auto s = SchemaFromJson(json::parse(R"({"tables": {
    "issue": {"columns": [{"name": "id", "type": "string"}, {"name": "title", "type": "string"}],
              "primaryKey": ["id"]},
    "comment": {"columns": [{"name": "id", "type": "string"}, {"name": "issueId", "type": "string"},
                            {"name": "body", "type": "string"}],
                "primaryKey": ["id"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

Ast IssuesWithComments() {
  auto ast = ParseAstText(R"({"table": "issue", "orderBy": [["id", "asc"]], "related": [
      {"correlation": {"parentField": ["id"], "childField": ["issueId"]},
       "subquery": {"table": "comment", "alias": "comments", "orderBy": [["id", "asc"]]}}]})");
  EXPECT_TRUE(ast.ok()) << ast.status();
  return *ast;
}

TreeNode Node(RowValues row) { return TreeNode{MakeRow(std::move(row)), {}}; }

TreeNode IssueNode(const std::string& id, const std::string& title,
                   std::vector<TreeNode> comments) {
  TreeNode n = Node({Value::String(id), Value::String(title)});
  n.relationships.push_back({"comments", std::move(comments)});
  return n;
}

TreeNode Comment(const std::string& id, const std::string& issue, const std::string& body) {
  return Node({Value::String(id), Value::String(issue), Value::String(body)});
}

class TreeDiffTest : public ::testing::Test {
 protected:
  Schema schema_ = TestSchema();
  Ast ast_ = IssuesWithComments();
};

TEST_F(TreeDiffTest, EmptyOnEqualTrees) {
  std::vector<TreeNode> t = {IssueNode("i1", "a", {Comment("c1", "i1", "x")})};
  EXPECT_EQ(TreeDiff(t, t, ast_, schema_), "");
}

TEST_F(TreeDiffTest, NamesTablePkAndColumnAtEveryLevel) {
  std::vector<TreeNode> e = {IssueNode("i1", "a", {Comment("c1", "i1", "x")}),
                             IssueNode("i2", "b", {})};
  std::vector<TreeNode> a = {IssueNode("i1", "A", {Comment("c1", "i1", "y")}),
                             IssueNode("i3", "c", {})};
  EXPECT_EQ(TreeDiff(e, a, ast_, schema_),
            "issue[id=\"i1\"].title: expected \"a\", got \"A\"\n"
            "issue[id=\"i1\"].comments → comment[id=\"c1\"].body: expected \"x\", got \"y\"\n"
            "issue[id=\"i2\"]: expected row {\"id\":\"i2\",\"title\":\"b\"}, got (missing)\n"
            "issue[id=\"i3\"]: expected (missing), got row {\"id\":\"i3\",\"title\":\"c\"}");
}

TEST_F(TreeDiffTest, AReorderingIsReportedAsSuch) {
  std::vector<TreeNode> e = {IssueNode("i1", "a", {}), IssueNode("i2", "b", {})};
  std::vector<TreeNode> a = {IssueNode("i2", "b", {}), IssueNode("i1", "a", {})};
  EXPECT_EQ(TreeDiff(e, a, ast_, schema_),
            "issue: same rows in another order: expected [id=\"i1\" id=\"i2\"], got [id=\"i2\" "
            "id=\"i1\"]");
}

TEST_F(TreeDiffTest, ProjectedRowsUseTheSelectsNamesAndStopAtMaxLines) {
  auto ast = ParseAstText(R"({"table": "issue", "select": ["title"]})");
  ASSERT_TRUE(ast.ok()) << ast.status();
  std::vector<TreeNode> e = {Node({Value::String("a")}), Node({Value::String("b")})};
  std::vector<TreeNode> a = {Node({Value::String("a")})};
  EXPECT_EQ(TreeDiff(e, a, *ast, schema_),
            "issue[[\"b\"]]: expected row {\"title\":\"b\"}, got (missing)");
  std::vector<TreeNode> many_e, many_a;
  for (int i = 0; i < 9; ++i) {
    many_e.push_back(IssueNode(std::string(1, 'i').append(std::to_string(i)), "a", {}));
    many_a.push_back(IssueNode(std::string(1, 'i').append(std::to_string(i)), "b", {}));
  }
  const std::string d = TreeDiff(many_e, many_a, ast_, schema_, 3);
  EXPECT_EQ(std::count(d.begin(), d.end(), '\n'), 2) << d;
}

}  // namespace
}  // namespace rindle
