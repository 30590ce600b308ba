// plain_store_test.cc — PlainStore preconditions and PlainMutationTx keyed-writer semantics.
#include "oracles/plain_store.h"

#include "engine/ast_json.h"
#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

Schema TestSchema() {
  auto s = SchemaFromJson(json::parse(R"({"tables": {
    "issue": {"columns": [{"name": "id", "type": "string", "nullable": false},
                          {"name": "title", "type": "string", "nullable": false},
                          {"name": "ownerId", "type": "string", "nullable": true},
                          {"name": "meta", "type": "json", "nullable": true}],
              "primaryKey": ["id"]},
    "pair": {"columns": [{"name": "a", "type": "number", "nullable": false},
                         {"name": "b", "type": "number", "nullable": false},
                         {"name": "v", "type": "boolean", "nullable": true}],
             "primaryKey": ["a", "b"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

RowValues Issue(const std::string& id, const std::string& title, Value owner = Value::Null()) {
  return {Value::String(id), Value::String(title), std::move(owner), Value::Null()};
}

TEST(PlainStoreTest, AddGetRemoveEdit) {
  PlainStore store(TestSchema());
  ASSERT_TRUE(store.Add("issue", Issue("i1", "one")).ok());
  auto got = store.Get("issue", {Value::String("i1")});
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((**got)[1], Value::String("one"));
  EXPECT_FALSE(store.Get("issue", {Value::String("nope")})->has_value());

  ASSERT_TRUE(store.Edit("issue", Issue("i1", "one"), Issue("i1", "uno")).ok());
  EXPECT_EQ((*store.Get("issue", {Value::String("i1")}).value())[1], Value::String("uno"));
  ASSERT_TRUE(store.Remove("issue", Issue("i1", "uno")).ok());
  EXPECT_TRUE(store.tables().at("issue").empty());
}

TEST(PlainStoreTest, PreconditionsFailWithoutChangingAnything) {
  PlainStore store(TestSchema());
  ASSERT_TRUE(store.Add("issue", Issue("i1", "one")).ok());
  ASSERT_TRUE(store.Add("issue", Issue("i2", "two")).ok());
  const json before = store.ToJson();

  auto dup = store.Add("issue", Issue("i1", "again"));
  EXPECT_EQ(dup.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(dup.message().find("\"issue\""), std::string::npos);
  EXPECT_EQ(store.Remove("issue", Issue("i9", "x")).code(), absl::StatusCode::kFailedPrecondition);
  // Remove of a row that differs from the stored one.
  EXPECT_EQ(store.Remove("issue", Issue("i1", "other")).code(),
            absl::StatusCode::kFailedPrecondition);
  // Edit whose old row is stale.
  EXPECT_EQ(store.Edit("issue", Issue("i1", "stale"), Issue("i1", "x")).code(),
            absl::StatusCode::kFailedPrecondition);
  // Edit moving the pk onto an existing row.
  EXPECT_EQ(store.Edit("issue", Issue("i1", "one"), Issue("i2", "x")).code(),
            absl::StatusCode::kFailedPrecondition);
  // Width, type, null pk, unknown table.
  EXPECT_EQ(store.Add("issue", {Value::String("i3")}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Add("issue", {Value::String("i3"), Value::Int(3), Value::Null(), Value::Null()})
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Add("issue", Issue("", "x", Value::Null())).ok(), true);  // "" is a valid pk
  ASSERT_TRUE(store.Remove("issue", Issue("", "x")).ok());
  auto unknown = store.Add("nope", Issue("i3", "x"));
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("issue, pair"), std::string::npos);  // lists valid tables
  EXPECT_EQ(store.ToJson(), before);
}

TEST(PlainStoreTest, EditMayMoveThePk) {
  PlainStore store(TestSchema());
  ASSERT_TRUE(store.Add("issue", Issue("i1", "one")).ok());
  ASSERT_TRUE(store.Edit("issue", Issue("i1", "one"), Issue("i5", "one")).ok());
  EXPECT_FALSE(store.Get("issue", {Value::String("i1")})->has_value());
  EXPECT_TRUE(store.Get("issue", {Value::String("i5")})->has_value());
}

TEST(PlainStoreTest, CompositePkOrdersNumerically) {
  PlainStore store(TestSchema());
  ASSERT_TRUE(store.Add("pair", {Value::Int(10), Value::Int(1), Value::Null()}).ok());
  ASSERT_TRUE(store.Add("pair", {Value::Int(2), Value::Number(1.5), Value::Bool(true)}).ok());
  ASSERT_TRUE(store.Add("pair", {Value::Int(2), Value::Int(1), Value::Bool(false)}).ok());
  std::vector<RowValues> pks;
  for (const auto& [pk, row] : store.tables().at("pair")) pks.push_back(pk);
  ASSERT_EQ(pks.size(), 3u);
  EXPECT_EQ(pks[0], (RowValues{Value::Int(2), Value::Int(1)}));
  EXPECT_EQ(pks[1], (RowValues{Value::Int(2), Value::Number(1.5)}));
  EXPECT_EQ(pks[2], (RowValues{Value::Int(10), Value::Int(1)}));
}

TEST(PlainMutationTxTest, StagesUntilCommit) {
  PlainStore store(TestSchema());
  PlainMutationTx tx(&store);
  ASSERT_TRUE(tx.Insert("issue", json{{"id", "i1"}, {"title", "one"}}).ok());
  // Read-your-writes inside the tx, nothing in the store yet.
  EXPECT_TRUE(tx.Get("issue", {Value::String("i1")})->has_value());
  EXPECT_TRUE(store.tables().at("issue").empty());
  tx.Commit();
  EXPECT_EQ(store.tables().at("issue").size(), 1u);
}

TEST(PlainMutationTxTest, AnUncommittedTxLeavesNoTrace) {
  PlainStore store(TestSchema());
  ASSERT_TRUE(store.Add("issue", Issue("i1", "one")).ok());
  const json before = store.ToJson();
  {
    PlainMutationTx tx(&store);
    ASSERT_TRUE(tx.Delete("issue", json{{"id", "i1"}}).ok());
    ASSERT_TRUE(tx.Insert("issue", json{{"id", "i2"}, {"title", "two"}}).ok());
  }
  EXPECT_EQ(store.ToJson(), before);
}

TEST(PlainMutationTxTest, AFailingOpLeavesTheStagedStateAsItWas) {
  PlainStore store(TestSchema());
  PlainMutationTx tx(&store);
  ASSERT_TRUE(tx.Insert("issue", json{{"id", "i1"}, {"title", "one"}}).ok());
  const json staged = tx.staged().ToJson();
  EXPECT_FALSE(tx.Insert("issue", json{{"id", "i1"}, {"title", "dup"}}).ok());
  EXPECT_FALSE(tx.Update("issue", json{{"id", "i1"}, {"title", 5}}).ok());
  EXPECT_FALSE(tx.Upsert("issue", json{{"id", "i1"}}).ok());  // title is required
  EXPECT_EQ(tx.staged().ToJson(), staged);
}

TEST(PlainMutationTxTest, KeyedWriters) {
  PlainStore store(TestSchema());
  PlainMutationTx tx(&store);
  // insert: omitted nullable columns are null; a json object is stored as its dump.
  ASSERT_TRUE(tx.Insert("issue", json{{"id", "i1"}, {"title", "one"}, {"meta", {{"k", 1}}}}).ok());
  auto row = tx.GetRow("issue", json{{"id", "i1"}});
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value());
  EXPECT_EQ((**row)["ownerId"], nullptr);
  EXPECT_EQ((**row)["meta"], "{\"k\":1}");
  // insert of an existing pk fails.
  EXPECT_EQ(tx.Insert("issue", json{{"id", "i1"}, {"title", "x"}}).code(),
            absl::StatusCode::kFailedPrecondition);
  // update overwrites named columns only; no-op when absent.
  ASSERT_TRUE(tx.Update("issue", json{{"id", "i1"}, {"ownerId", "u1"}}).ok());
  EXPECT_EQ((*tx.GetRow("issue", json{{"id", "i1"}}).value())["title"], "one");
  EXPECT_EQ((*tx.GetRow("issue", json{{"id", "i1"}}).value())["ownerId"], "u1");
  ASSERT_TRUE(tx.Update("issue", json{{"id", "nope"}, {"title", "x"}}).ok());
  EXPECT_FALSE(tx.Get("issue", {Value::String("nope")})->has_value());
  // upsert replaces the whole row (omitted nullable → null), or adds.
  ASSERT_TRUE(tx.Upsert("issue", json{{"id", "i1"}, {"title", "uno"}}).ok());
  EXPECT_EQ((*tx.GetRow("issue", json{{"id", "i1"}}).value())["ownerId"], nullptr);
  ASSERT_TRUE(tx.Upsert("issue", json{{"id", "i2"}, {"title", "two"}}).ok());
  // insertIgnore keeps the existing row.
  ASSERT_TRUE(tx.InsertIgnore("issue", json{{"id", "i2"}, {"title", "ignored"}}).ok());
  EXPECT_EQ((*tx.GetRow("issue", json{{"id", "i2"}}).value())["title"], "two");
  ASSERT_TRUE(tx.InsertIgnore("issue", json{{"id", "i3"}, {"title", "three"}}).ok());
  // delete: no-op when absent.
  ASSERT_TRUE(tx.Delete("issue", json{{"id", "i3"}}).ok());
  ASSERT_TRUE(tx.Delete("issue", json{{"id", "i3"}}).ok());
  EXPECT_FALSE(tx.Get("issue", {Value::String("i3")})->has_value());
  tx.Commit();
  EXPECT_EQ(store.tables().at("issue").size(), 2u);
}

TEST(PlainMutationTxTest, UnknownNamesListTheValidOnes) {
  PlainStore store(TestSchema());
  PlainMutationTx tx(&store);
  auto col = tx.Insert("issue", json{{"id", "i1"}, {"title", "t"}, {"bogus", 1}});
  EXPECT_EQ(col.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(col.message().find("bogus"), std::string::npos);
  EXPECT_NE(col.message().find("id, title, ownerId, meta"), std::string::npos);
  auto table = tx.Delete("nope", json{{"id", "i1"}});
  EXPECT_EQ(table.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(table.message().find("issue, pair"), std::string::npos);
  auto missing_pk = tx.Update("issue", json{{"title", "t"}});
  EXPECT_EQ(missing_pk.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing_pk.message().find("\"id\""), std::string::npos);
  EXPECT_FALSE(tx.Insert("issue", json::array()).ok());
}

TEST(PlainMutationTxTest, QueryReadsTheStagedState) {
  PlainStore store(TestSchema());
  PlainMutationTx tx(&store);
  ASSERT_TRUE(tx.Insert("issue", json{{"id", "i2"}, {"title", "b"}}).ok());
  ASSERT_TRUE(tx.Insert("issue", json{{"id", "i1"}, {"title", "a"}}).ok());
  auto ast = ParseAstText(R"({"table":"issue","orderBy":[["title","desc"]]})");
  ASSERT_TRUE(ast.ok());
  auto tree = tx.Query(*ast);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->size(), 2u);
  EXPECT_EQ((*(*tree)[0].row)[0], Value::String("i2"));
}

}  // namespace
}  // namespace rindle
