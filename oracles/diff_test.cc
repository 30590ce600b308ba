// diff_test.cc — JsonDiff: empty on equality, readable path + expected/actual otherwise.
#include "oracles/diff.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

TEST(JsonDiffTest, EmptyWhenEqualIncludingIntVersusDouble) {
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":[1,2,{"b":null}]})"),
                     json::parse(R"({"a":[1,2.0,{"b":null}]})")),
            "");
}

TEST(JsonDiffTest, NamesThePathAndBothSides) {
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":[1,{"b":"x"}]})"), json::parse(R"({"a":[1,{"b":"y"}]})")),
            "$.a[1].b: expected \"x\", got \"y\"");
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":1})"), json::parse(R"({"b":1})")),
            "$.a: expected 1, got (missing)\n$.b: expected (missing), got 1");
  EXPECT_EQ(JsonDiff(json::parse("[1]"), json::parse("[1,2]")),
            "$: expected 1 elements, got 2\n$[1]: expected (missing), got 2");
  EXPECT_EQ(JsonDiff(json::parse("null"), json::parse("{}")), "$: expected null, got {}");
}

TEST(JsonDiffTest, StopsAfterMaxLines) {
  const std::string d = JsonDiff(json::parse("[1,2,3,4]"), json::parse("[5,6,7,8]"), 2);
  EXPECT_EQ(d, "$[0]: expected 1, got 5\n$[1]: expected 2, got 6");
}

// Row diffs name table, primary key and column instead of `$.issue[1][1]`.
TEST(TablesDiffTest, NamesTablePkAndColumn) {
  Schema schema;
  schema["issue"] = *TableSpecFromJson(
      json::parse(R"({"columns":[{"name":"id","type":"string"},{"name":"title","type":"string"},
                     {"name":"n","type":"number"}],"primaryKey":["id"]})"),
      "test");
  const json expected = json::parse(R"({"issue":[["a","x",1],["b","y",2],["c","z",3]]})");
  const json actual = json::parse(R"({"issue":[["a","x",1.0],["b","Y",2],["d","w",4]]})");
  EXPECT_EQ(TablesDiff(expected, actual, schema),
            "issue[id=\"b\"].title: expected \"y\", got \"Y\"\n"
            "issue[id=\"c\"]: expected row {\"id\":\"c\",\"n\":3,\"title\":\"z\"}, "
            "got (missing)\n"
            "issue[id=\"d\"]: expected (missing), got row "
            "{\"id\":\"d\",\"n\":4,\"title\":\"w\"}");
  EXPECT_EQ(TablesDiff(expected, expected, schema), "");
}

TEST(TablesDiffTest, UnknownTableFallsBackToPositionalPaths) {
  const json expected = json::parse(R"({"other":[[1,2]]})");
  const json actual = json::parse(R"({"other":[[1,3]]})");
  EXPECT_EQ(TablesDiff(expected, actual, Schema{}), "$.other[0][1]: expected 2, got 3");
}

}  // namespace
}  // namespace rindle
