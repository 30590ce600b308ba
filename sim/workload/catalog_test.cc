// catalog_test.cc — every entry of the app's recorded query catalog builds (recorded and drawn
// literals), matches its recorded AST when its literals are kept, and runs on the engine over the
// seed data — plain and as the authority's footprint; shapes classify back to their entry.
#include "sim/workload/catalog.h"

#include <set>
#include <string>

#include "engine/ast_json.h"
#include "engine/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/authority/footprint_query.h"
#include "sim/workload/generator.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

TEST(CatalogTest, HoldsEveryManifestEntryAndTheFeaturesTheIssueNames) {
  std::set<std::string> features;
  for (const CatalogEntry& e : Catalog()) features.insert(e.features.begin(), e.features.end());
  EXPECT_EQ(Catalog().size(), 27u);
  for (const char* f : {"NOT EXISTS", "EXISTS", "related-limit", "start-exclusive",
                        "start-inclusive", "one", "related-one", "IN", "NOT IN", "LIKE", "ILIKE",
                        "NOT LIKE", "NOT ILIKE", "or", "related-nested-2", "IS NULL"}) {
    EXPECT_TRUE(features.count(f)) << f;
  }
}

TEST(CatalogTest, EveryEntryBuildsRunsAndFootprintsOnTheEngine) {
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok()) << schema.status();
  Db db;
  for (const auto& [name, spec] : *schema) ASSERT_TRUE(db.RegisterTable(name, spec, false).ok());
  Rng seed_rng(3);
  {
    auto tx = db.Write();
    for (const auto& [table, rows] : SeedData(seed_rng))
      for (const RowValues& r : rows) ASSERT_TRUE(tx->Add(table, r).ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  int64_t qid = 0;
  Rng rng(11);
  for (const CatalogEntry& e : Catalog()) {
    std::vector<RemoteQuery> instances;
    instances.push_back(e.app ? e.remote : RemoteQuery{e.key, json(nullptr)});
    for (int k = 0; k < 8; ++k) instances.push_back(DrawCatalogQuery(rng, e.key));
    for (const RemoteQuery& q : instances) {
      SCOPED_TRACE(e.key + " " + q.args.dump());
      EXPECT_EQ(QueryShape(q).substr(0, 10), e.key.substr(0, 10));
      absl::StatusOr<Ast> ast = BuildNamedQuery(q, QueryContext{"u03"});
      ASSERT_TRUE(ast.ok()) << ast.status();
      if (&q == &instances[0]) {
        EXPECT_EQ(AstToJson(*ast), e.recorded);
      }
      ASSERT_TRUE(db.RegisterQuery(++qid, *ast).ok());
      ASSERT_TRUE(db.QueryResult(qid).ok());
      ASSERT_TRUE(db.RegisterQuery(++qid, FootprintQuery(*ast)).ok());
    }
  }
}

TEST(CatalogTest, LiteralSlotsAreSubstitutedPositionallyAndChecked) {
  const CatalogEntry* e = FindCatalogEntry("issues-priority-in");
  ASSERT_NE(e, nullptr);
  const std::vector<LiteralSlot> slots = LiteralSlots(e->recorded);
  ASSERT_EQ(slots.size(), 1u);
  EXPECT_EQ(slots[0].column, "priority");
  absl::StatusOr<Ast> ast =
      BuildCatalogQuery({"issues-priority-in", json{{"literals", {json::array({"low"})}}}});
  ASSERT_TRUE(ast.ok()) << ast.status();
  EXPECT_EQ(ConditionToJson(*ast->where)["right"]["value"], json::array({"low"}));
  EXPECT_THAT(std::string(BuildCatalogQuery({"issues-priority-in", json{{"literals", {"low"}}}})
                              .status()
                              .message()),
              HasSubstr("literals[0]"));
  EXPECT_THAT(std::string(BuildCatalogQuery({"issues-priority-in", json{{"literals", json::array()}}})
                              .status()
                              .message()),
              HasSubstr("1 literal slots"));
  EXPECT_FALSE(BuildCatalogQuery({"issuesPage", json(nullptr)}).ok());  // an app entry
  const std::vector<LiteralSlot> cursor = LiteralSlots(FindCatalogEntry("issues-cursor-inclusive")->recorded);
  ASSERT_EQ(cursor.size(), 2u);
  EXPECT_EQ(cursor[0].column, "createdAt");
  EXPECT_EQ(cursor[1].column, "id");
}

}  // namespace
}  // namespace rindle::sim
