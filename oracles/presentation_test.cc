// presentation_test.cc — engine/presentation.h: the "data" format of fixtures/README.md
// (column selection, one / count / hidden relationships, EXISTS never shown). The full check
// against the real engine's recorded data is FreshQueryFixtures in fresh_query_test.cc.
#include "engine/presentation.h"

#include "engine/ast_json.h"
#include "gtest/gtest.h"
#include "oracles/diff.h"
#include "oracles/fresh_query.h"
#include "oracles/plain_store.h"

namespace rindle {
namespace {

using json = nlohmann::json;

class PresentationTest : public ::testing::Test {
 protected:
  PresentationTest() {
    auto s = SchemaFromJson(json::parse(R"({"tables": {
      "issue": {"columns": [{"name": "id", "type": "string", "nullable": false},
                            {"name": "title", "type": "string", "nullable": false},
                            {"name": "rank", "type": "number", "nullable": true},
                            {"name": "ownerId", "type": "string", "nullable": true}],
                "primaryKey": ["id"]},
      "user": {"columns": [{"name": "id", "type": "string", "nullable": false},
                           {"name": "name", "type": "string", "nullable": false}],
               "primaryKey": ["id"]},
      "issueLabel": {"columns": [{"name": "issueId", "type": "string", "nullable": false},
                                 {"name": "labelId", "type": "string", "nullable": false}],
                     "primaryKey": ["issueId", "labelId"]},
      "label": {"columns": [{"name": "id", "type": "string", "nullable": false},
                            {"name": "name", "type": "string", "nullable": false}],
                "primaryKey": ["id"]}}})"),
                            "test");
    EXPECT_TRUE(s.ok()) << s.status();
    store_ = PlainStore(*s);
    auto add = [&](const std::string& t, RowValues r) {
      auto st = store_.Add(t, r);
      ASSERT_TRUE(st.ok()) << st;
    };
    add("issue", {Value::String("i1"), Value::String("one"), Value::Int(2), Value::String("u1")});
    add("issue", {Value::String("i2"), Value::String("two"), Value::Null(), Value::Null()});
    add("user", {Value::String("u1"), Value::String("Ann")});
    add("label", {Value::String("l1"), Value::String("bug")});
    add("label", {Value::String("l2"), Value::String("ui")});
    add("issueLabel", {Value::String("i1"), Value::String("l2")});
    add("issueLabel", {Value::String("i1"), Value::String("l1")});
  }

  json Data(const std::string& ast_text) {
    auto ast = ParseAstText(ast_text);
    EXPECT_TRUE(ast.ok()) << ast.status();
    if (!ast.ok()) return nullptr;
    const Schema& schema = store_.schema();
    TableLookup lookup = [&schema](std::string_view t) -> const TableSpec* {
      auto it = schema.find(std::string(t));
      return it == schema.end() ? nullptr : &it->second;
    };
    EXPECT_TRUE(ValidateAst(*ast, lookup).ok()) << ValidateAst(*ast, lookup);
    auto tree = FreshQuery(*ast, store_.tables(), schema);
    EXPECT_TRUE(tree.ok()) << tree.status();
    if (!tree.ok()) return nullptr;
    return PresentData(*tree, *ast, lookup);
  }

  void ExpectData(const std::string& ast_text, const std::string& expected) {
    const json want = json::parse(expected);
    const json got = Data(ast_text);
    EXPECT_EQ(JsonDiff(want, got), "") << got.dump();
  }

  PlainStore store_;
};

TEST_F(PresentationTest, EveryColumnWithoutSelectAndNullsAsNull) {
  ExpectData(R"({"table":"issue"})",
             R"([{"id":"i1","title":"one","rank":2,"ownerId":"u1"},
                 {"id":"i2","title":"two","rank":null,"ownerId":null}])");
}

TEST_F(PresentationTest, SelectAddsThePkAndOrderByColumns) {
  ExpectData(R"({"table":"issue","select":["title"]})",
             R"([{"id":"i1","title":"one"},{"id":"i2","title":"two"}])");
  ExpectData(R"({"table":"issue","select":["title"],"orderBy":[["rank","desc"]]})",
             R"([{"id":"i1","title":"one","rank":2},{"id":"i2","title":"two","rank":null}])");
}

TEST_F(PresentationTest, TopLevelOneIsTheRowOrNull) {
  ExpectData(R"({"table":"issue","one":true})",
             R"({"id":"i1","title":"one","rank":2,"ownerId":"u1"})");
  ExpectData(
      R"({"table":"issue","one":true,"where":{"type":"simple","op":"=","left":{"type":"column","name":"id"},"right":{"type":"literal","value":"zz"}}})",
      "null");
}

TEST_F(PresentationTest, RelationshipsArraysOneAndCount) {
  ExpectData(R"({"table":"issue","select":["id"],"related":[
      {"correlation":{"parentField":["ownerId"],"childField":["id"]},
       "subquery":{"table":"user","alias":"owner","one":true}},
      {"correlation":{"parentField":["ownerId"],"childField":["id"]},
       "subquery":{"table":"user","alias":"owners","select":["id"]}},
      {"correlation":{"parentField":["id"],"childField":["issueId"]},
       "subquery":{"table":"issueLabel","alias":"labelCount","aggregate":"count"}}]})",
             R"([{"id":"i1","owner":{"id":"u1","name":"Ann"},"owners":[{"id":"u1"}],"labelCount":2},
                 {"id":"i2","owner":null,"owners":[],"labelCount":0}])");
}

TEST_F(PresentationTest, HiddenJunctionLevelsAreLifted) {
  ExpectData(R"({"table":"issue","select":["id"],"related":[
      {"correlation":{"parentField":["id"],"childField":["issueId"]}, "hidden":true,
       "subquery":{"table":"issueLabel","alias":"labels","related":[
         {"correlation":{"parentField":["labelId"],"childField":["id"]},
          "subquery":{"table":"label","alias":"labels"}}]}}]})",
             R"([{"id":"i1","labels":[{"id":"l1","name":"bug"},{"id":"l2","name":"ui"}]},
                 {"id":"i2","labels":[]}])");
}

TEST_F(PresentationTest, ExistsNeverAppears) {
  ExpectData(R"({"table":"issue","select":["id"],"where":{"type":"correlatedSubquery","op":"EXISTS",
      "related":{"correlation":{"parentField":["ownerId"],"childField":["id"]},
                 "subquery":{"table":"user","alias":"owner"}}}})",
             R"([{"id":"i1"}])");
}

TEST_F(PresentationTest, NestedRelationshipsPresentRecursively) {
  ExpectData(R"({"table":"user","related":[
      {"correlation":{"parentField":["id"],"childField":["ownerId"]},
       "subquery":{"table":"issue","alias":"issues","select":["id"],"related":[
         {"correlation":{"parentField":["id"],"childField":["issueId"]},
          "subquery":{"table":"issueLabel","alias":"links","limit":1}}]}}]})",
             R"([{"id":"u1","name":"Ann","issues":[{"id":"i1","links":[{"issueId":"i1","labelId":"l1"}]}]}])");
}

}  // namespace
}  // namespace rindle
