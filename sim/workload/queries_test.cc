// workload_queries_test.cc — the named-query builders reproduce the real query builder's ASTs
// (fixtures/app).
#include "sim/workload/queries.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "engine/ast_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/workload/schema.h"

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

}  // namespace
}  // namespace rindle::sim
