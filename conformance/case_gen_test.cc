// case_gen_test.cc — the seeded case generator without Node: the same seed gives the same case,
// every generated op is valid against the state it applies to (adds of fresh pks, removes and
// edit `old` rows equal to the stored rows — checked on the plain-store oracle), and the txns
// hit parents and children with every op kind, including sort-moving and correlation edits.
#include "conformance/case_gen.h"

#include <map>
#include <set>
#include <string>

#include "base/str_util.h"
#include "gtest/gtest.h"
#include "oracles/plain_store.h"

namespace rindle::conformance {
namespace {

CaseGenInputs Inputs() {
  absl::StatusOr<CaseGenInputs> in = LoadCaseGenInputs(std::string(RINDLE_FIXTURES_DIR) + "/app");
  EXPECT_TRUE(in.ok()) << in.status();
  return in.ok() ? *in : CaseGenInputs{};
}

TEST(CaseGenTest, TheSameSeedGivesTheSameCase) {
  const CaseGenInputs in = Inputs();
  ASSERT_EQ(in.queries.size(), 27u);
  auto a = GenerateCase(in, 42), b = GenerateCase(in, 42), c = GenerateCase(in, 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(PeerCaseToJson(*a), PeerCaseToJson(*b));
  EXPECT_NE(PeerCaseToJson(*a), PeerCaseToJson(*c));
  EXPECT_EQ(a->name, "gen-42");
}

TEST(CaseGenTest, OpsAreValidAndHitParentsAndChildren) {
  const CaseGenInputs in = Inputs();
  std::set<std::string> kinds;  // "edit comment.issueId", "add tag", ...
  std::set<std::string> queries;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    absl::StatusOr<PeerCase> c = GenerateCase(in, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    queries.insert(c->extra["query"]["name"].get<std::string>());
    PlainStore store(c->schema);
    for (const auto& [table, rows] : c->rows) {
      for (const RowValues& r : rows) ASSERT_TRUE(store.Add(table, r).ok()) << "seed " << seed;
    }
    for (size_t t = 0; t < c->txns.size(); ++t) {
      ASSERT_FALSE(c->txns[t].empty());
      for (const RowOp& op : c->txns[t]) {
        absl::Status s;
        std::string kind = StrCat(RowOpKindName(op.kind), " ", op.table);
        switch (op.kind) {
          case RowOp::Kind::kAdd: s = store.Add(op.table, op.row); break;
          case RowOp::Kind::kRemove: s = store.Remove(op.table, op.row); break;
          case RowOp::Kind::kEdit: {
            s = store.Edit(op.table, op.old_row, op.row);
            const TableSpec& spec = c->schema.at(op.table);
            for (size_t i = 0; i < spec.columns.size(); ++i) {
              if (op.old_row[i] != op.row[i]) StrAppend(&kind, ".", spec.columns[i].name);
            }
            break;
          }
        }
        ASSERT_TRUE(s.ok()) << "seed " << seed << " txn " << t << ": " << s;
        kinds.insert(kind);
      }
    }
  }
  for (const char* k :
       {"add issue", "remove issue", "edit issue.createdAt", "edit issue.ownerId", "edit issue.id",
        "add comment", "remove comment", "edit comment.issueId", "edit comment.createdAt",
        "edit comment.authorId", "add tag", "remove tag", "edit tag.issueId", "edit tag.name",
        "add user", "edit user.name"}) {
    EXPECT_TRUE(kinds.count(k)) << "no \"" << k << "\" op in seeds 1..60";
  }
  EXPECT_GE(queries.size(), 20u);
}

TEST(CaseGenTest, InputErrorsNameTheFile) {
  absl::StatusOr<CaseGenInputs> in = LoadCaseGenInputs("/nonexistent/app");
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.status().message().find("/nonexistent/app/app-schema.json"), std::string::npos)
      << in.status();
}

}  // namespace
}  // namespace rindle::conformance
