// catalog_test.cc — every entry of the app's recorded query catalog builds (recorded and drawn
// literals), matches its recorded AST when its literals are kept, and runs on the engine over the
// seed data — plain and as the authority's footprint; shapes classify back to their entry. The
// simulator's own shapes (sim_catalog.h) are in the catalog, and the seed data gives their
// null-sensitive and one()+limit parts rows to act on.
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
#include "sim/workload/sim_catalog.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

TEST(CatalogTest, HoldsEveryManifestEntryAndTheFeaturesTheIssueNames) {
  std::set<std::string> features;
  for (const CatalogEntry& e : Catalog()) features.insert(e.features.begin(), e.features.end());
  EXPECT_EQ(Catalog().size(), 27u + SimCatalogShapes().size());
  for (const char* f : {"NOT EXISTS", "EXISTS", "related-limit", "start-exclusive",
                        "start-inclusive", "one", "related-one", "IN", "NOT IN", "LIKE", "ILIKE",
                        "NOT LIKE", "NOT ILIKE", "or", "related-nested-2", "IS NULL", "nullable",
                        "one-limit"}) {
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

TEST(CatalogTest, SimShapesFollowTheManifestAndMeetRowsTheyMustExclude) {
  const std::vector<CatalogEntry>& all = Catalog();
  const std::vector<SimCatalogShape>& sim = SimCatalogShapes();
  ASSERT_GE(all.size(), sim.size());
  for (size_t i = 0; i < sim.size(); ++i) {
    const CatalogEntry& e = all[all.size() - sim.size() + i];
    EXPECT_EQ(e.key, sim[i].key);
    EXPECT_FALSE(e.app);
    EXPECT_TRUE(IsCatalogQueryName(e.key));
    EXPECT_EQ(QueryShape(RemoteQuery{e.key, json(nullptr)}), e.key);
  }
  // Over the seed data: unowned issues exist (the rows NOT IN / != must exclude), the owner
  // filters keep the owned ones, and the limited one() holds one row while its where matches more.
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok()) << schema.status();
  Db db;
  for (const auto& [name, spec] : *schema) ASSERT_TRUE(db.RegisterTable(name, spec, false).ok());
  Rng seed_rng(3);
  const SeedRows rows = SeedData(seed_rng);
  size_t unowned = 0;
  {
    auto tx = db.Write();
    for (const auto& [table, list] : rows)
      for (const RowValues& r : list) ASSERT_TRUE(tx->Add(table, r).ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  constexpr size_t kOwner = 4;  // issue: id, title, status, priority, ownerId, ...
  for (const RowValues& r : rows.at("issue")) unowned += r[kOwner].is_null() ? 1 : 0;
  EXPECT_GE(unowned, 1u);
  int64_t qid = 0;
  for (const char* key : {"issues-owner-not-in", "issues-owner-ne"}) {
    SCOPED_TRACE(key);
    absl::StatusOr<Ast> ast = BuildCatalogQuery({key, json(nullptr)});
    ASSERT_TRUE(ast.ok()) << ast.status();
    ASSERT_TRUE(db.RegisterQuery(++qid, *ast).ok());
    absl::StatusOr<std::vector<TreeNode>> tree = db.QueryResult(qid);
    ASSERT_TRUE(tree.ok()) << tree.status();
    EXPECT_FALSE(tree->empty());
    for (const TreeNode& n : *tree) EXPECT_FALSE((*n.row)[kOwner].is_null()) << (*n.row)[0].DebugString();
  }
  size_t open = 0;  // issues the limited one()'s where (status IN todo, in-progress, review) keeps
  for (const RowValues& r : rows.at("issue")) {
    const std::string st = r[2].as_string();
    open += (st == "todo" || st == "in-progress" || st == "review") ? 1 : 0;
  }
  EXPECT_GE(open, 2u);
  absl::StatusOr<Ast> next = BuildCatalogQuery({"issue-next-one-limited", json(nullptr)});
  ASSERT_TRUE(next.ok()) << next.status();
  ASSERT_TRUE(next->one && next->limit && *next->limit > 1);
  ASSERT_TRUE(db.RegisterQuery(++qid, *next).ok());
  absl::StatusOr<std::vector<TreeNode>> one = db.QueryResult(qid);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->size(), 1u);
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
