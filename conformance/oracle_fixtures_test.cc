// oracle_fixtures_test.cc — the fresh-query oracle (oracles/fresh_query.h) against the real
// engines' recorded results, through the conformance loaders: every fixtures/rindle-wasm case
// after hydration and after every txn, and every ../shared/fixtures/zql-diff case's final data
// (skipped, naming the folder, when it is absent). The oracle is the second, independent
// witness beside our engine: when a conformance case fails, this says whether the recorded
// data or the engine is off. (Moved here from oracles/fresh_query_test.cc so the case loading
// lives in one place.)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "conformance/peer_case.h"
#include "conformance/zql_diff_case.h"
#include "engine/ast_json.h"
#include "engine/presentation.h"
#include "gtest/gtest.h"
#include "oracles/diff.h"
#include "oracles/fresh_query.h"
#include "oracles/plain_store.h"

namespace rindle::conformance {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TableLookup LookupOf(const Schema& schema) {
  return [&schema](std::string_view t) -> const TableSpec* {
    auto it = schema.find(std::string(t));
    return it == schema.end() ? nullptr : &it->second;
  };
}

absl::StatusOr<json> Present(const PlainStore& store, const Ast& ast) {
  auto tree = FreshQuery(ast, store.tables(), store.schema());
  if (!tree.ok()) return tree.status();
  return PresentData(*tree, ast, LookupOf(store.schema()));
}

absl::Status Load(PlainStore& store, const TableRows& rows) {
  for (const auto& [table, list] : rows) {
    for (const RowValues& r : list) {
      if (absl::Status s = store.Add(table, r); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyOp(PlainStore& store, const RowOp& op) {
  switch (op.kind) {
    case RowOp::Kind::kAdd: return store.Add(op.table, op.row);
    case RowOp::Kind::kRemove: return store.Remove(op.table, op.row);
    case RowOp::Kind::kEdit: return store.Edit(op.table, op.old_row, op.row);
  }
  return absl::InternalError("unknown op");
}

TEST(FreshQueryFixtures, MatchesTheRealEngineOnEveryRindleWasmCase) {
  int cases = 0, steps = 0;
  for (int n = 0;; ++n) {
    char name[64];
    std::snprintf(name, sizeof(name), "/rindle-wasm/case-%04d.json", n);
    const std::string path = std::string(RINDLE_FIXTURES_DIR) + name;
    if (!fs::exists(path)) break;
    SCOPED_TRACE(path);
    absl::StatusOr<PeerCase> c = LoadPeerCase(path);
    ASSERT_TRUE(c.ok()) << c.status();
    absl::StatusOr<PeerExpected> e = LoadPeerExpected(ExpectedPathFor(path), *c);
    ASSERT_TRUE(e.ok()) << e.status();
    ++cases;
    ASSERT_TRUE(ValidateAst(c->ast, LookupOf(c->schema)).ok());
    PlainStore store(c->schema);
    ASSERT_TRUE(Load(store, c->rows).ok());
    auto data = Present(store, c->ast);
    ASSERT_TRUE(data.ok()) << data.status();
    ++steps;
    EXPECT_EQ(JsonDiff(e->hydrate.data, *data), "") << "hydrate";
    for (size_t t = 0; t < c->txns.size(); ++t) {
      for (const RowOp& op : c->txns[t]) {
        absl::Status s = ApplyOp(store, op);
        ASSERT_TRUE(s.ok()) << "txn " << t << ": " << s;
      }
      auto after = Present(store, c->ast);
      ASSERT_TRUE(after.ok()) << after.status();
      ++steps;
      EXPECT_EQ(JsonDiff(e->txns[t].data, *after), "") << "after txn " << t;
    }
  }
  EXPECT_EQ(cases, 40);
  EXPECT_GT(steps, 40);
}

TEST(FreshQueryFixtures, MatchesZeroZqlOnEveryZqlDiffCase) {
  const fs::path dir = fs::path(RINDLE_SHARED_DIR) / "fixtures" / "zql-diff";
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "the zql-diff fixtures folder " << dir.string() << " is absent";
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 26u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    absl::StatusOr<ZqlDiffCase> c = LoadZqlDiffCase(file);
    ASSERT_TRUE(c.ok()) << c.status();
    PlainStore store(c->schema);
    ASSERT_TRUE(Load(store, c->rows).ok());
    for (const RowOp& op : c->pushes) {
      absl::Status s = ApplyOp(store, op);
      ASSERT_TRUE(s.ok()) << s;
    }
    auto data = Present(store, c->ast);
    ASSERT_TRUE(data.ok()) << data.status();
    EXPECT_EQ(JsonDiff(c->expected_data, *data), "");
  }
}

}  // namespace
}  // namespace rindle::conformance
