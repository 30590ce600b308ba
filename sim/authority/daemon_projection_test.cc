// daemon_projection_test.cc — the authority's projected and wide hellos (daemon.h Projection):
// which columns a projected subscription ships, that its rows are positional against the hello,
// that a change to an unshipped column sends nothing, the wide hello's extra column, epochs on
// frames, and the per-client coverage mask the convergence check applies to the store; the
// simulation's policy keys each registration's choice by (client, query, ordinal), not by order.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "properties/invariants.h"
#include "sim/authority/daemon.h"
#include "sim/authority/footprint_query.h"
#include "sim/workload/mutators.h"
#include "sim/workload/query_resolution.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

Ast IssueWhereStatusByCreated() {
  Ast a;
  a.table = "issue";
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = SimpleOp::kEq;
  c.left.kind = ValuePosition::Kind::kColumn;
  c.left.column = "status";
  c.right.literal = Value::String("open");
  a.where = c;
  a.order_by = {{"createdAt", false}};
  return a;
}

TEST(ProjectedColumns, PkPlusEveryReferencedColumnInSchemaOrder) {
  auto schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok());
  Ast a = IssueWhereStatusByCreated();
  a.select = std::vector<std::string>{"id"};  // a `select` view shows only what it names
  // EXISTS comment where body = 'x' (correlation issue.id = comment.issueId).
  auto sub = std::make_shared<Ast>();
  sub->table = "comment";
  Condition body;
  body.type = Condition::Type::kSimple;
  body.left.kind = ValuePosition::Kind::kColumn;
  body.left.column = "body";
  body.right.literal = Value::String("x");
  sub->where = body;
  Condition exists;
  exists.type = Condition::Type::kCorrelatedSubquery;
  exists.related.correlation = {{"id"}, {"issueId"}};
  exists.related.subquery = sub;
  Condition both;
  both.type = Condition::Type::kAnd;
  both.conditions = {*a.where, exists};
  a.where = both;
  const auto cols = ProjectedColumns(a, *schema);
  // issue [id, title, status, priority, ownerId, createdAt, updatedAt]
  EXPECT_EQ(cols.at("issue"), (std::vector<int>{0, 2, 5}));
  // comment [id, issueId, authorId, body, createdAt]
  EXPECT_EQ(cols.at("comment"), (std::vector<int>{0, 1, 3}));
}

// Regression (seed 49, issues-cursor-exclusive): a level the view SHOWS without a `select`
// ships every column. Before, issues-status-ne-done (no select) shipped issue [id, status,
// updatedAt]; the client then evaluated the cursor query's `start` over that row's null
// createdAt and kept a row the authority excludes.
TEST(ProjectedColumns, ShownLevelWithoutSelectShipsEveryColumn) {
  auto schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok());
  const std::vector<int> all_issue = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_EQ(ProjectedColumns(IssueWhereStatusByCreated(), *schema).at("issue"), all_issue);
  auto ne_done = ResolveRemoteQuery(
      RemoteQuery{"issues-status-ne-done", nlohmann::json{{"literals", nlohmann::json::array({"review"})}}}, "c0", "u01");
  ASSERT_TRUE(ne_done.ok()) << ne_done.status();
  EXPECT_EQ(ProjectedColumns(FootprintQuery(*ne_done), *schema).at("issue"), all_issue);

  // Root with a select; a shown related without one (every column), a count related and a
  // hidden related (correlation only), an EXISTS witness (what its where reads).
  Ast a = IssueWhereStatusByCreated();
  a.select = std::vector<std::string>{"id"};
  auto related = [](std::string table, std::string child) {
    CorrelatedSubquery r;
    r.correlation = {{"id"}, {std::move(child)}};
    auto sub = std::make_shared<Ast>();
    sub->table = std::move(table);
    r.subquery = sub;
    return r;
  };
  a.related.push_back(related("tag", "issueId"));
  CorrelatedSubquery count = related("comment", "issueId");
  std::const_pointer_cast<Ast>(count.subquery)->aggregate = "count";
  a.related.push_back(count);
  auto cols = ProjectedColumns(a, *schema);
  EXPECT_EQ(cols.at("issue"), (std::vector<int>{0, 2, 5}));
  EXPECT_EQ(cols.at("tag"), (std::vector<int>{0, 1, 2}));      // [id, issueId, name]
  EXPECT_EQ(cols.at("comment"), (std::vector<int>{0, 1}));     // [id, issueId, ...]
  a.related.back().hidden = true;
  std::const_pointer_cast<Ast>(a.related.back().subquery)->aggregate.reset();
  EXPECT_EQ(ProjectedColumns(a, *schema).at("comment"), (std::vector<int>{0, 1}));
  Ast e = IssueWhereStatusByCreated();
  e.select = std::vector<std::string>{"id"};
  Condition exists;
  exists.type = Condition::Type::kCorrelatedSubquery;
  exists.related = related("comment", "issueId");
  e.where = exists;
  EXPECT_EQ(ProjectedColumns(FootprintQuery(e), *schema).at("comment"), (std::vector<int>{0, 1}));
}

struct Harness {
  std::vector<std::pair<std::string, ServerFrame>> frames;
  std::map<std::string, int64_t> counters;
  std::unique_ptr<DaemonAuthority> daemon;
  explicit Harness(ProjectionChoice choice) {
    auto schema = LoadAppSchema();
    RINDLE_CHECK(schema.ok());
    daemon = std::make_unique<DaemonAuthority>(
        *schema, ServerMutators(), std::map<std::string, std::string>{{"c0", "u01"}},
        [this](const std::string& c, ServerFrame f) { frames.emplace_back(c, std::move(f)); },
        &counters);
    daemon->SetProjectionPolicy([choice](const std::string&, int64_t qid, const RemoteQuery&,
                                         int64_t) {
      return qid == kLmidQid ? ProjectionChoice::kFull : choice;
    });
    RowValues tag = {Value::String("t1"), Value::String("i1"), Value::String("bug")};
    RINDLE_CHECK(daemon->Seed({{"tag", {tag}}}).ok());
    daemon->Connect("c0");
  }
  std::vector<ServerFrame> Data(int64_t qid) const {
    std::vector<ServerFrame> out;
    for (const auto& [c, f] : frames) {
      if (f.kind == ServerFrame::Kind::kData && f.qid == qid) out.push_back(f);
    }
    return out;
  }
};

TEST(DaemonProjection, ProjectedHelloAndPositionalRows) {
  Harness h(ProjectionChoice::kProjected);
  h.daemon->Register("c0", 7, RemoteQuery{"tagOptions", nullptr});
  ASSERT_TRUE(h.daemon->health().ok()) << h.daemon->health();
  auto data = h.Data(7);
  ASSERT_EQ(data.size(), 2u);
  ASSERT_EQ(data[0].event.type, NormalizedEvent::Type::kHello);
  ASSERT_EQ(data[0].event.tables.size(), 1u);
  // tag [id, issueId, name]: the query reads name (orderBy, select) — issueId is dropped.
  EXPECT_EQ(data[0].event.tables[0].columns, (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(data[0].epoch, 1);
  ASSERT_EQ(data[1].event.type, NormalizedEvent::Type::kSnapshot);
  ASSERT_EQ(data[1].event.ops.size(), 1u);
  EXPECT_EQ(data[1].event.ops[0].row,
            (RowValues{Value::String("t1"), Value::String("bug")}));
  EXPECT_EQ(data[1].epoch, 1);
  // The coverage masks issueId; the masked store nulls it.
  auto cov = h.daemon->Coverage("c0");
  ASSERT_EQ(cov.size(), 1u);
  EXPECT_EQ(cov.begin()->second, (std::vector<bool>{true, false, true}));
  PlainTables store;
  store["tag"].emplace(RowValues{Value::String("t1")},
                       RowValues{Value::String("t1"), Value::String("i1"), Value::String("bug")});
  store["tag"].emplace(RowValues{Value::String("t2")},
                       RowValues{Value::String("t2"), Value::String("i2"), Value::String("x")});
  PlainTables masked = props::MaskStore(store, cov, /*covered_only=*/false);
  EXPECT_EQ(masked["tag"].at({Value::String("t1")}),
            (RowValues{Value::String("t1"), Value::Null(), Value::String("bug")}));
  EXPECT_EQ(masked["tag"].at({Value::String("t2")}), store["tag"].at({Value::String("t2")}));
  PlainTables only = props::MaskStore(store, cov, /*covered_only=*/true);
  EXPECT_EQ(only["tag"].size(), 1u);
  // A re-registration is a new epoch.
  h.daemon->Register("c0", 7, RemoteQuery{"tagOptions", nullptr});
  data = h.Data(7);
  ASSERT_EQ(data.size(), 4u);
  EXPECT_EQ(data[2].epoch, 2);
  EXPECT_EQ(data[3].epoch, 2);
}

// Regression (seed 49 and kin): every view of a client evaluates every row the client holds,
// so a projected subscription ships each column ANY of the session's subscriptions reads, and
// one that a later registration out-reads is re-shipped wider (a new epoch). Before, tagOptions
// kept shipping tag [id, name] and issueDetail's tags level read a null issueId on t1.
TEST(DaemonProjection, LaterReaderWidensEarlierProjectedSubscription) {
  Harness h(ProjectionChoice::kProjected);
  h.daemon->Register("c0", 7, RemoteQuery{"tagOptions", nullptr});
  ASSERT_EQ(h.Data(7).size(), 2u);
  h.daemon->Register("c0", 8, RemoteQuery{"issueDetail", nlohmann::json("i1")});
  ASSERT_TRUE(h.daemon->health().ok()) << h.daemon->health();
  auto data = h.Data(7);
  ASSERT_EQ(data.size(), 4u);
  ASSERT_EQ(data[2].event.type, NormalizedEvent::Type::kHello);
  EXPECT_EQ(data[2].epoch, 2);
  EXPECT_EQ(data[2].event.tables[0].columns,
            (std::vector<std::string>{"id", "issueId", "name"}));
  ASSERT_EQ(data[3].event.type, NormalizedEvent::Type::kSnapshot);
  ASSERT_EQ(data[3].event.ops.size(), 1u);
  EXPECT_EQ(data[3].event.ops[0].row,
            (RowValues{Value::String("t1"), Value::String("i1"), Value::String("bug")}));
  EXPECT_EQ(h.counters["authority.widened_hello"], 1);
  EXPECT_EQ(h.daemon->Coverage("c0").at({"tag", {Value::String("t1")}}),
            (std::vector<bool>{true, true, true}));
  // A registration that reads nothing new re-ships nothing.
  h.daemon->Register("c0", 9, RemoteQuery{"tagOptions", nullptr});
  EXPECT_EQ(h.Data(7).size(), 4u);
  EXPECT_EQ(h.counters["authority.widened_hello"], 1);
}

TEST(DaemonProjection, FullAndWideHellos) {
  Harness full(ProjectionChoice::kFull);
  full.daemon->Register("c0", 3, RemoteQuery{"tagOptions", nullptr});
  auto data = full.Data(3);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0].event.tables[0].columns,
            (std::vector<std::string>{"id", "issueId", "name"}));
  EXPECT_EQ(data[1].event.ops[0].row.size(), 3u);
  EXPECT_EQ(full.daemon->Coverage("c0").begin()->second, (std::vector<bool>{true, true, true}));

  Harness wide(ProjectionChoice::kWide);
  wide.daemon->Register("c0", 3, RemoteQuery{"tagOptions", nullptr});
  data = wide.Data(3);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0].event.tables[0].columns,
            (std::vector<std::string>{"id", kServerOnlyColumn, "issueId", "name"}));
  ASSERT_EQ(data[1].event.ops[0].row.size(), 4u);
  EXPECT_EQ(data[1].event.ops[0].row[0], Value::String("t1"));
  EXPECT_EQ(data[1].event.ops[0].row[2], Value::String("i1"));
  EXPECT_EQ(wide.daemon->Coverage("c0").begin()->second, (std::vector<bool>{true, true, true}));
}

// Issue 15 "shrinks that reach the minimum": a registration's projection does not depend on
// the registrations before it (a shrink candidate without one retain re-rolls nothing else).
TEST(SimProjectionPolicyTest, ChoiceIsKeyedByClientQueryAndOrdinalNotByOrder) {
  auto query = [](int i) { return RemoteQuery{"issues", {{"limit", i}}}; };
  int projecting_seeds = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    ProjectionPolicy all = SimProjectionPolicy(Rng(seed).Fork("projection"));
    ProjectionPolicy fewer = SimProjectionPolicy(Rng(seed).Fork("projection"));
    if (all == nullptr) continue;
    ++projecting_seeds;
    std::map<std::pair<std::string, int>, ProjectionChoice> full;
    for (int i = 0; i < 12; ++i) {
      for (const std::string c : {"c0", "c1"}) full[{c, i}] = all(c, 1 + i, query(i), 1);
    }
    // Every other query left out, and the rest registered under other qids.
    for (int i = 1; i < 12; i += 2) {
      for (const std::string c : {"c1", "c0"}) {
        EXPECT_EQ(fewer(c, 100 + i, query(i), 1), (full[{c, i}])) << "seed " << seed << c << i;
      }
    }
    EXPECT_EQ(all("c0", kLmidQid, query(0), 1), ProjectionChoice::kFull);
  }
  EXPECT_GT(projecting_seeds, 5);
}

}  // namespace
}  // namespace rindle::sim
