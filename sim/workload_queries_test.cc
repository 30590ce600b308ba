// workload_queries_test.cc — the named-query builders reproduce the real query builder's ASTs
// (fixtures/app), and SingleTableOnly strips exactly the multi-table parts.
#include "sim/workload_queries.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "engine/ast_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/workload_schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

std::string AppDir() { return std::string(RINDLE_FIXTURES_DIR) + "/app"; }

// "app-queries/issuesPage.json" → <fixtures>/app/queries/issuesPage.json
std::string QueryFile(const std::string& manifest_file) {
  return AppDir() + "/queries/" + manifest_file.substr(manifest_file.rfind('/') + 1);
}

TableLookup LookupIn(const Schema& schema) {
  return [&schema](std::string_view t) -> const TableSpec* {
    auto it = schema.find(std::string(t));
    return it == schema.end() ? nullptr : &it->second;
  };
}

TEST(WorkloadQueriesTest, EveryRemoteManifestEntryBuildsTheRecordedAst) {
  const json manifest = ReadJson(AppDir() + "/app-queries-manifest.json");
  const QueryContext ctx{manifest["params"]["me"].get<std::string>()};
  int checked = 0;
  for (const auto& [key, entry] : manifest["queries"].items()) {
    if (entry["remote"].is_null()) continue;
    SCOPED_TRACE(key);
    RemoteQuery q{entry["remote"]["name"].get<std::string>(), entry["remote"]["args"]};
    absl::StatusOr<Ast> built = BuildNamedQuery(q, ctx);
    ASSERT_TRUE(built.ok()) << built.status();
    const json expected = ReadJson(QueryFile(entry["file"].get<std::string>()));
    // Parsed JSON objects compare key-order-insensitively; arrays in order.
    EXPECT_EQ(AstToJson(*built), expected)
        << "built:    " << AstToJson(*built).dump() << "\nexpected: " << expected.dump();
    ++checked;
  }
  EXPECT_EQ(checked, 13);
}

TEST(WorkloadQueriesTest, BuiltQueriesValidateAgainstTheAppSchema) {
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok()) << schema.status();
  for (const RemoteQuery& q : WorkloadQueries()) {
    SCOPED_TRACE(q.name + " " + q.args.dump());
    absl::StatusOr<Ast> ast = BuildNamedQuery(q, QueryContext{"u01"});
    ASSERT_TRUE(ast.ok()) << ast.status();
    EXPECT_TRUE(ValidateAst(*ast, LookupIn(*schema)).ok()) << ValidateAst(*ast, LookupIn(*schema));
    const Ast single = SingleTableOnly(*ast);
    EXPECT_TRUE(single.related.empty());
    EXPECT_FALSE(single.where && ConditionHasSubquery(*single.where));
    EXPECT_TRUE(ValidateAst(single, LookupIn(*schema)).ok());
  }
}

TEST(WorkloadQueriesTest, WorkloadQueriesCoverTheAppScreens) {
  std::set<std::string> names;
  std::set<int64_t> page_limits;
  std::set<std::string> axes;
  for (const RemoteQuery& q : WorkloadQueries()) {
    names.insert(q.name);
    if (q.name == "issuesPage") {
      page_limits.insert(q.args["limit"].get<int64_t>());
      for (const json& f : q.args["filter"]) axes.insert(f["axis"].get<std::string>());
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"issueDetail", "issuesPage", "myIssues",
                                          "recentComments", "tagOptions", "users"}));
  EXPECT_TRUE(page_limits.count(50) && page_limits.count(20));
  EXPECT_TRUE(axes.count("status") && axes.count("priority") && axes.count("title"));
}

TEST(WorkloadQueriesTest, UnknownNameIsInvalidArgumentListingTheKnownOnes) {
  absl::StatusOr<Ast> r = BuildNamedQuery({"issuez", nullptr}, {});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("issuez"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("issuesPage"));
}

TEST(WorkloadQueriesTest, BadArgsAreInvalidArgumentNamingTheField) {
  struct Case {
    RemoteQuery q;
    std::string ctx_user;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"issuesPage", json::object()}, "u1", "limit"},
      {{"issuesPage", {{"limit", -1}, {"filter", json::array()}}}, "u1", "limit"},
      {{"issuesPage", {{"limit", 2.5}}}, "u1", "limit"},
      {{"issuesPage", {{"limit", 5}, {"filter", "status"}}}, "u1", "filter"},
      {{"issuesPage", {{"limit", 5}, {"filter", json::array({{{"axis", "colour"}, {"value", "x"}}})}}},
       "u1", "colour"},
      {{"issuesPage", {{"limit", 5}, {"filter", json::array({{{"axis", "status"}}})}}}, "u1",
       "filter[0]"},
      {{"issuesPage", {{"limit", 5}, {"sort", "asc"}}}, "u1", "sort"},
      {{"issuesPage", json::array()}, "u1", "object"},
      {{"myIssues", {{"limit", 5}}}, "", "user"},
      {{"issueDetail", ""}, "u1", "empty"},
      {{"issueDetail", 7}, "u1", "id"},
      {{"recentComments", nullptr}, "u1", "object"},
      {{"tagOptions", {{"limit", 3}}}, "u1", "no args"},
      {{"users", "x"}, "u1", "no args"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.q.name + " " + c.q.args.dump());
    absl::StatusOr<Ast> r = BuildNamedQuery(c.q, QueryContext{c.ctx_user});
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.q.name));
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.needle));
  }
}

TEST(WorkloadQueriesTest, IssueDetailAcceptsAnIdObjectToo) {
  absl::StatusOr<Ast> a = BuildNamedQuery({"issueDetail", "i007"}, {});
  absl::StatusOr<Ast> b = BuildNamedQuery({"issueDetail", {{"id", "i007"}}}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(AstToJson(*a), AstToJson(*b));
}

Condition ParseCond(const json& j) {
  absl::StatusOr<Condition> c = ParseCondition(j, "$");
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

const json kEq = {{"type", "simple"}, {"op", "="}, {"left", {{"type", "column"}, {"name", "status"}}},
                  {"right", {{"type", "literal"}, {"value", "todo"}}}};
const json kEq2 = {{"type", "simple"}, {"op", "!="}, {"left", {{"type", "column"}, {"name", "id"}}},
                   {"right", {{"type", "literal"}, {"value", "x"}}}};
const json kExists = {
    {"type", "correlatedSubquery"},
    {"op", "EXISTS"},
    {"related",
     {{"correlation", {{"parentField", {"id"}}, {"childField", {"issueId"}}}},
      {"subquery", {{"table", "tag"}, {"alias", "tag"}}}}}};

Ast IssueWhere(const json& where) {
  Ast a;
  a.table = "issue";
  a.where = ParseCond(where);
  return a;
}

json Group(const char* type, std::vector<json> conditions) {
  json arr = json::array();
  for (json& c : conditions) arr.push_back(std::move(c));
  json out = json::object();
  out["type"] = type;
  out["conditions"] = arr;
  return out;
}
json And(std::vector<json> c) { return Group("and", std::move(c)); }
json Or(std::vector<json> c) { return Group("or", std::move(c)); }

TEST(WorkloadQueriesTest, SingleTableOnlyDropsExistsFromAndKeepingTheAnd) {
  const json out = AstToJson(SingleTableOnly(IssueWhere(And({kEq, kExists}))));
  EXPECT_EQ(out["where"], And({kEq}));
}

TEST(WorkloadQueriesTest, SingleTableOnlyDropsAnAndLeftEmptyAndAnEmptyRootWhere) {
  EXPECT_FALSE(SingleTableOnly(IssueWhere(kExists)).where.has_value());
  EXPECT_FALSE(SingleTableOnly(IssueWhere(And({kExists, kExists}))).where.has_value());
  EXPECT_EQ(AstToJson(SingleTableOnly(IssueWhere(And({kEq, And({kExists})}))))["where"],
            And({kEq}));
}

TEST(WorkloadQueriesTest, SingleTableOnlyDropsAWholeOrThatContainsAnExists) {
  // or(eq, exists) alone: dropping only the EXISTS would narrow the or → drop it whole.
  EXPECT_FALSE(SingleTableOnly(IssueWhere(Or({kEq, kExists}))).where.has_value());
  // Inside an and: the or goes (even with the EXISTS nested deeper), the sibling stays.
  EXPECT_EQ(AstToJson(SingleTableOnly(IssueWhere(And({kEq2, Or({kEq, And({kExists})})}))))["where"],
            And({kEq2}));
  // An or without subqueries is kept as is, even with one condition.
  EXPECT_EQ(AstToJson(SingleTableOnly(IssueWhere(Or({kEq}))))["where"], Or({kEq}));
  EXPECT_EQ(AstToJson(SingleTableOnly(IssueWhere(And({Or({kEq, kEq2}), kExists}))))["where"],
            And({Or({kEq, kEq2})}));
}

TEST(WorkloadQueriesTest, SingleTableOnlyKeepsEverythingButRelatedAndSubqueries) {
  const json manifest = ReadJson(AppDir() + "/app-queries-manifest.json");
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok());
  for (const auto& [key, entry] : manifest["queries"].items()) {
    SCOPED_TRACE(key);
    absl::StatusOr<Ast> ast = ParseAst(ReadJson(QueryFile(entry["file"].get<std::string>())));
    ASSERT_TRUE(ast.ok()) << ast.status();
    const Ast single = SingleTableOnly(*ast);
    EXPECT_TRUE(single.related.empty());
    EXPECT_FALSE(single.where && ConditionHasSubquery(*single.where));
    EXPECT_EQ(AstTables(single), std::vector<std::string>{ast->table});
    EXPECT_TRUE(ValidateAst(single, LookupIn(*schema)).ok());
    json a = AstToJson(*ast), b = AstToJson(single);
    a.erase("related");
    a.erase("where");
    b.erase("where");
    EXPECT_EQ(a, b);
    if (ast->where && !ConditionHasSubquery(*ast->where)) {
      EXPECT_EQ(ConditionToJson(*single.where), ConditionToJson(*ast->where));
    }
  }
  // The all-axes page keeps its three row-local facets in an and.
  absl::StatusOr<Ast> all = ParseAst(ReadJson(AppDir() + "/queries/issuesPage-search-all-axes.json"));
  ASSERT_TRUE(all.ok());
  const Ast single = SingleTableOnly(*all);
  ASSERT_TRUE(single.where.has_value());
  EXPECT_EQ(single.where->type, Condition::Type::kAnd);
  EXPECT_EQ(single.where->conditions.size(), 3u);
  // or(and(..), and(.., NOT EXISTS), ILIKE) is dropped whole.
  absl::StatusOr<Ast> nesting = ParseAst(ReadJson(AppDir() + "/queries/issues-or-and-nesting.json"));
  ASSERT_TRUE(nesting.ok());
  EXPECT_FALSE(SingleTableOnly(*nesting).where.has_value());
}

}  // namespace
}  // namespace rindle::sim
