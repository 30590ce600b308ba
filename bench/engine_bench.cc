// engine_bench.cc — incremental vs fresh cost of the engine over the app's `issue` table.
//
// Data: N synthetic issues (N = 1k, 10k, 100k) shaped like the app benchmark workload
// (/work/shared/bench/bench-workload.json: the same status / priority / title domains,
// createdAt rising with the issue number over [0, 60), updatedAt = createdAt + up to 5 s),
// drawn from a tiny private LCG so every run sees the same rows. Seven single-table app queries
// are kept live on the Db (kQueries below).
//
//   BM_OneRowWrite/<N>          one write txn of ONE issue op + Commit, cycling through the six
//                               kinds below — the incremental cost of a write with the queries
//                               live. Per iteration: open + stage + commit (events produced).
//   BM_OneRowWriteKind/<N>/<k>  the same, one kind only (k = 0 status edit, 1 priority edit,
//                               2 title edit, 3 touch, 4 remove/add alternating).
//   BM_OneRowWriteOneQuery/<N>/<q>  the mixed writes with only query q live (q = -1: none, the
//                               table and its indexes alone) — which query's upkeep grows with N.
//   BM_FreshRecompute/<N>       every query evaluated from scratch through the Db
//                               (RegisterQuery = validate + build + hydrate, then DestroyQuery):
//                               what a non-incremental engine pays per write.
//   BM_FreshRecomputeQuery/<N>/<q>  the same for query q alone.
//   BM_LikeMatchPerRow/ci:<0|1>  SqlLikeMatch(title, '%crash%') alone, per row (LIKE / ILIKE).
//   BM_FreshQueryOracle/<N>     every query evaluated by rindle::FreshQuery (the brute-force
//                               oracle, oracles/fresh_query.h) over a PlainTables copy.
//
// Write kinds (each also sets updatedAt = now, a clock later than every row, so the row jumps
// to the top of the updatedAt-ordered queries):
//   edit-status    status → another status: moves the row into/out of status = 'review'
//                  (its window) and status != 'done' (unlimited).
//   edit-priority  priority → another priority: crosses priority IN (urgent, high) limit 15.
//   edit-title     toggles a title between matching and not matching ILIKE '%crash%'.
//   touch          updatedAt only: reorders the updatedAt-ordered queries.
//   remove         removes an issue (often one inside a limit window → refill from below).
//   add            adds a new issue with createdAt = now (enters the createdAt-desc windows).
// The issue each op targets: 1/3 uniform over all live issues, 1/3 one of the 200 newest
// (inside the createdAt-desc windows), 1/3 one of the 64 most recently written (inside the
// updatedAt-desc windows) — so most ops hit a window edge, not just a far-away row.
//
// Counters: rows = table size N; events = change events per iteration (sum over the batches);
// result_rows = root rows of all queries (fresh benchmarks).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/ivm/like.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"
#include "oracles/fresh_query.h"
#include "oracles/plain_store.h"

#ifndef RINDLE_FIXTURES_DIR
#error "RINDLE_FIXTURES_DIR must be defined (bench/CMakeLists.txt)"
#endif

namespace rindle {
namespace {

// ---- deterministic randomness ------------------------------------------------------------------

class Lcg {
 public:
  explicit Lcg(uint64_t seed) : x_(seed * 2862933555777941757ULL + 3037000493ULL) {}
  uint32_t Next() {
    x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(x_ >> 33);
  }
  // Uniform-ish in [lo, hi] (modulo bias is irrelevant here).
  int64_t Int(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double Unit() { return static_cast<double>(Next()) / 2147483648.0; }  // [0, 1)

 private:
  uint64_t x_;
};

// ---- the app's domains (bench-workload.json "domains") -----------------------------------------

constexpr const char* kTitles[] = {
    "Fix login bug",     "Login page crash",      "Add dark mode",  "dark mode toggle broken",
    "Improve search",    "Search is slow",        "Crash on startup", "crash when offline",
    "100% CPU on idle",  "snake_case config keys", "Update docs",   "docs: typo in README",
    "Refactor auth",     "AUTH token expiry",     "Kanban drag & drop", "Emoji \xF0\x9F\x8E\x89 in title",
    "\xC3\x9Cnicode sort order", "zzz last",      "A first",        "login"};
constexpr int kNumTitles = sizeof(kTitles) / sizeof(kTitles[0]);
constexpr const char* kStatuses[] = {"backlog", "todo", "in-progress", "review", "done"};
constexpr const char* kPriorities[] = {"urgent", "high", "medium", "low"};

// Column indices of the issue table (fixtures/app/app-schema.json).
constexpr int kId = 0, kTitle = 1, kStatus = 2, kPriority = 3, kOwner = 4, kCreated = 5,
              kUpdated = 6;

// ---- the live queries (single-table app queries) -----------------------------------------------

struct QueryDef {
  const char* name;
  const char* json;
};

constexpr QueryDef kQueries[] = {
    {"status=review by updatedAt desc limit 50",
     R"({"table":"issue","where":{"type":"simple","op":"=","left":{"type":"column","name":"status"},
        "right":{"type":"literal","value":"review"}},
        "orderBy":[["updatedAt","desc"],["id","asc"]],"limit":50})"},
    {"priority IN (urgent, high) by createdAt desc limit 15",
     R"({"table":"issue","where":{"type":"simple","op":"IN","left":{"type":"column","name":"priority"},
        "right":{"type":"literal","value":["urgent","high"]}},
        "orderBy":[["createdAt","desc"],["id","asc"]],"limit":15})"},
    {"title ILIKE '%crash%' by createdAt desc limit 50",
     R"({"table":"issue","where":{"type":"simple","op":"ILIKE","left":{"type":"column","name":"title"},
        "right":{"type":"literal","value":"%crash%"}},
        "orderBy":[["createdAt","desc"],["id","asc"]],"limit":50})"},
    {"status != done by updatedAt desc (no limit)",
     R"({"table":"issue","where":{"type":"simple","op":"!=","left":{"type":"column","name":"status"},
        "right":{"type":"literal","value":"done"}},
        "orderBy":[["updatedAt","desc"],["id","asc"]]})"},
    {"issuesPage: all by createdAt desc limit 50",
     R"({"table":"issue","orderBy":[["createdAt","desc"],["id","asc"]],"limit":50})"},
    {"myIssues: ownerId = u03 by createdAt desc limit 25",
     R"({"table":"issue","where":{"type":"simple","op":"=","left":{"type":"column","name":"ownerId"},
        "right":{"type":"literal","value":"u03"}},
        "orderBy":[["createdAt","desc"],["id","asc"]],"limit":25})"},
    {"status=review AND priority=urgent by createdAt desc limit 50",
     R"({"table":"issue","where":{"type":"and","conditions":[
          {"type":"simple","op":"=","left":{"type":"column","name":"status"},
           "right":{"type":"literal","value":"review"}},
          {"type":"simple","op":"=","left":{"type":"column","name":"priority"},
           "right":{"type":"literal","value":"urgent"}}]},
        "orderBy":[["createdAt","desc"],["id","asc"]],"limit":50})"},
};
constexpr int kNumQueries = sizeof(kQueries) / sizeof(kQueries[0]);

// ---- the fixture: one Db per scale, built once and reused by every benchmark of that scale -----

// prefix + k left-padded with '0' to `width` digits (i001, u03). Built by append: GCC 12's
// -Wrestrict misfires on `"literal" + std::string&&`.
std::string PaddedId(char prefix, int64_t k, size_t width) {
  const std::string digits = std::to_string(k);
  std::string out(1, prefix);
  if (digits.size() < width) out.append(width - digits.size(), '0');
  out.append(digits);
  return out;
}
std::string IssueId(int64_t k) { return PaddedId('i', k, 3); }

bool MatchesCrash(const std::string& title) {
  // Every "crash" spelling in kTitles is "crash" or "Crash".
  return title.find("crash") != std::string::npos || title.find("Crash") != std::string::npos;
}

struct Fixture {
  int64_t n = 0;
  Schema schema;
  std::unique_ptr<Db> db;
  std::vector<Ast> queries;
  // Bookkeeping of the current rows so every op can name the exact stored row.
  std::vector<RowValues> rows;  // by issue number - 1
  std::vector<char> alive;
  int64_t live = 0;
  std::vector<int64_t> recent;  // ring of recently written issue numbers - 1
  size_t recent_pos = 0;
  Lcg rng{12345};
  int64_t clock = 0;  // write counter; now = 100 + clock / 1000
  uint64_t op_seq = 0;
  bool remove_next = true;  // kind 4 alternates remove / add
  std::string error;
};

constexpr uint32_t kAllQueries = (1u << kNumQueries) - 1;

// `mask`: which of kQueries are registered live (bit q → qid q + 1).
absl::Status MakeFixture(int64_t n, uint32_t mask, Fixture& f) {
  f.n = n;
  std::ifstream in(RINDLE_FIXTURES_DIR "/app/app-schema.json");
  if (!in) return absl::NotFoundError("cannot open " RINDLE_FIXTURES_DIR "/app/app-schema.json");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(e.what());
  }
  absl::StatusOr<Schema> schema = SchemaFromJson(j, "app-schema.json");
  if (!schema.ok()) return schema.status();
  auto it = schema->find("issue");
  if (it == schema->end()) return absl::NotFoundError("app-schema.json has no issue table");
  f.schema[it->first] = it->second;
  f.db = std::make_unique<Db>();
  if (absl::Status s = f.db->RegisterTable("issue", it->second, false); !s.ok()) return s;

  // Synthetic issues, like bench-workload.json's generator (stream 1), with our own LCG.
  Lcg rng(1);
  f.rows.reserve(static_cast<size_t>(n));
  auto txn = f.db->Write();
  for (int64_t k = 1; k <= n; ++k) {
    const std::string title = std::string(kTitles[rng.Int(0, kNumTitles - 1)]) + " #" +
                              std::to_string(k);
    const char* status = kStatuses[rng.Int(0, 4)];
    const char* priority = kPriorities[rng.Int(0, 3)];
    const bool unassigned = rng.Unit() < 0.05;
    const int64_t owner = rng.Int(1, 50);
    const double u = rng.Unit();
    const double created_ms = std::floor(((static_cast<double>(k) - 1 + u) * 60000.0) /
                                         static_cast<double>(n));
    const double updated_ms = created_ms + static_cast<double>(rng.Int(0, 4999));
    const std::string owner_id = PaddedId('u', owner, 2);
    RowValues row = {Value::String(IssueId(k)),
                     Value::String(title),
                     Value::String(status),
                     Value::String(priority),
                     Value::String(unassigned ? "unassigned" : owner_id),
                     Value::Number(created_ms / 1000.0),
                     Value::Number(updated_ms / 1000.0)};
    if (absl::Status s = txn->Add("issue", row); !s.ok()) return s;
    f.rows.push_back(std::move(row));
  }
  absl::StatusOr<std::vector<QueryBatch>> committed = txn->Commit();
  if (!committed.ok()) return committed.status();
  f.alive.assign(static_cast<size_t>(n), 1);
  f.live = n;

  for (int q = 0; q < kNumQueries; ++q) {
    absl::StatusOr<Ast> ast = ParseAstText(kQueries[q].json);
    if (!ast.ok()) return ast.status();
    if ((mask & (1u << q)) == 0) {
      f.queries.push_back(*std::move(ast));
      continue;
    }
    absl::StatusOr<QuerySnapshot> snap = f.db->RegisterQuery(q + 1, *ast);
    if (!snap.ok()) return snap.status();
    f.queries.push_back(*std::move(ast));
  }
  return absl::OkStatus();
}

// The all-queries fixture of each scale lives for the whole run; a fixture with another query
// set is kept only until a different one is asked for (benchmarks run in registration order).
Fixture& GetFixture(int64_t n, uint32_t mask = kAllQueries) {
  static std::map<int64_t, std::unique_ptr<Fixture>> fixtures;
  static std::unique_ptr<Fixture> other;
  static std::pair<int64_t, uint32_t> other_key{-1, 0};
  std::unique_ptr<Fixture>* slot = &fixtures[n];
  if (mask != kAllQueries) {
    if (other_key != std::make_pair(n, mask)) other.reset();
    other_key = {n, mask};
    slot = &other;
  }
  if (!*slot) {
    *slot = std::make_unique<Fixture>();
    if (absl::Status s = MakeFixture(n, mask, **slot); !s.ok()) (*slot)->error = s.ToString();
  }
  return **slot;
}

// ---- write ops ----------------------------------------------------------------------------------

enum Kind { kEditStatus = 0, kEditPriority, kEditTitle, kTouch, kRemoveOrAdd, kNumKinds };
constexpr const char* kKindNames[] = {"edit-status", "edit-priority", "edit-title", "touch",
                                      "remove/add"};

// A live issue (index into rows): uniform, among the 200 newest, or recently written.
int64_t PickIssue(Fixture& f) {
  const int64_t total = static_cast<int64_t>(f.rows.size());
  for (;;) {
    int64_t idx;
    switch (f.rng.Int(0, 2)) {
      case 0: idx = f.rng.Int(0, total - 1); break;
      case 1: idx = f.rng.Int(total > 200 ? total - 200 : 0, total - 1); break;
      default:
        if (f.recent.empty()) continue;
        idx = f.recent[static_cast<size_t>(f.rng.Int(0, static_cast<int64_t>(f.recent.size()) - 1))];
        break;
    }
    if (f.alive[static_cast<size_t>(idx)]) return idx;
  }
}

void NoteRecent(Fixture& f, int64_t idx) {
  if (f.recent.size() < 64) {
    f.recent.push_back(idx);
  } else {
    f.recent[f.recent_pos] = idx;
    f.recent_pos = (f.recent_pos + 1) % f.recent.size();
  }
}

Value Now(Fixture& f) {
  ++f.clock;
  return Value::Number(100.0 + static_cast<double>(f.clock) / 1000.0);
}

// One txn with one op of `kind`, committed. Returns the number of change events.
absl::StatusOr<int64_t> OneWrite(Fixture& f, int kind) {
  auto txn = f.db->Write();
  if (kind == kRemoveOrAdd) {
    const bool remove = f.remove_next && f.live > f.n / 2;
    f.remove_next = !f.remove_next;
    if (remove) {
      const int64_t idx = PickIssue(f);
      if (absl::Status s = txn->Remove("issue", f.rows[static_cast<size_t>(idx)]); !s.ok()) return s;
      f.alive[static_cast<size_t>(idx)] = 0;
      --f.live;
    } else {
      const int64_t k = static_cast<int64_t>(f.rows.size()) + 1;
      const Value now = Now(f);
      RowValues row = {Value::String(IssueId(k)),
                       Value::String(std::string(kTitles[f.rng.Int(0, kNumTitles - 1)]) + " #" +
                                     std::to_string(k)),
                       Value::String(kStatuses[f.rng.Int(0, 4)]),
                       Value::String(kPriorities[f.rng.Int(0, 3)]),
                       Value::String(PaddedId('u', f.rng.Int(1, 50), 2)),
                       now,
                       now};
      if (absl::Status s = txn->Add("issue", row); !s.ok()) return s;
      f.rows.push_back(std::move(row));
      f.alive.push_back(1);
      ++f.live;
      NoteRecent(f, k - 1);
    }
  } else {
    const int64_t idx = PickIssue(f);
    RowValues& cur = f.rows[static_cast<size_t>(idx)];
    RowValues next = cur;
    switch (kind) {
      case kEditStatus: {
        int s = 0;
        while (cur[kStatus].as_string() != kStatuses[s]) ++s;
        next[kStatus] = Value::String(kStatuses[(s + f.rng.Int(1, 4)) % 5]);
        break;
      }
      case kEditPriority: {
        int p = 0;
        while (cur[kPriority].as_string() != kPriorities[p]) ++p;
        next[kPriority] = Value::String(kPriorities[(p + f.rng.Int(1, 3)) % 4]);
        break;
      }
      case kEditTitle:
        next[kTitle] = Value::String(
            std::string(MatchesCrash(cur[kTitle].as_string()) ? "Update docs" : "Crash on startup") +
            " #" + std::to_string(idx + 1));
        break;
      default:
        break;
    }
    next[kUpdated] = Now(f);
    if (absl::Status s = txn->Edit("issue", cur, next); !s.ok()) return s;
    cur = std::move(next);
    NoteRecent(f, idx);
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) return batches.status();
  int64_t events = 0;
  for (const QueryBatch& b : *batches) events += static_cast<int64_t>(b.events.size());
  return events;
}

// ---- benchmarks ---------------------------------------------------------------------------------

void RunWrites(benchmark::State& state, Fixture& f, int fixed_kind) {
  int64_t events = 0;
  for (auto _ : state) {
    // The mixed cycle: edit-status, edit-priority, edit-title, touch, remove, add.
    const int step = static_cast<int>(f.op_seq++ % 6);
    const int kind = fixed_kind >= 0 ? fixed_kind : (step < kRemoveOrAdd ? step : kRemoveOrAdd);
    absl::StatusOr<int64_t> ev = OneWrite(f, kind);
    if (!ev.ok()) {
      state.SkipWithError(ev.status().ToString().c_str());
      return;
    }
    events += *ev;
  }
  state.counters["rows"] = static_cast<double>(f.n);
  state.counters["events"] = benchmark::Counter(static_cast<double>(events),
                                                benchmark::Counter::kAvgIterations);
}

void BM_OneRowWrite(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  RunWrites(state, f, -1);
}

void BM_OneRowWriteKind(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  const int kind = static_cast<int>(state.range(1));
  state.SetLabel(kKindNames[kind]);
  RunWrites(state, f, kind);
}

// Writes (the mixed cycle) with only query `q` live (q = -1: no live query, the table alone).
void BM_OneRowWriteOneQuery(benchmark::State& state) {
  const int q = static_cast<int>(state.range(1));
  Fixture& f = GetFixture(state.range(0), q < 0 ? 0u : (1u << q));
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  state.SetLabel(q < 0 ? "no live query" : kQueries[q].name);
  RunWrites(state, f, -1);
}

void RunFresh(benchmark::State& state, int only) {
  Fixture& f = GetFixture(state.range(0));
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  int64_t result_rows = 0;
  for (auto _ : state) {
    for (int q = 0; q < kNumQueries; ++q) {
      if (only >= 0 && q != only) continue;
      absl::StatusOr<QuerySnapshot> snap = f.db->RegisterQuery(1000 + q, f.queries[q]);
      if (!snap.ok()) {
        state.SkipWithError(snap.status().ToString().c_str());
        return;
      }
      result_rows += static_cast<int64_t>(snap->events.size());
      benchmark::DoNotOptimize(snap->events.data());
      f.db->DestroyQuery(1000 + q);
    }
  }
  state.counters["rows"] = static_cast<double>(f.n);
  state.counters["result_rows"] = benchmark::Counter(static_cast<double>(result_rows),
                                                     benchmark::Counter::kAvgIterations);
}

void BM_FreshRecompute(benchmark::State& state) { RunFresh(state, -1); }

void BM_FreshRecomputeQuery(benchmark::State& state) {
  const int q = static_cast<int>(state.range(1));
  state.SetLabel(kQueries[q].name);
  RunFresh(state, q);
}

void BM_FreshQueryOracle(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  PlainTables tables;
  PlainTable& issue = tables["issue"];
  const TableSpec& spec = f.schema.at("issue");
  for (size_t i = 0; i < f.rows.size(); ++i) {
    if (f.alive[i]) issue.emplace(spec.PkOf(f.rows[i]), f.rows[i]);
  }
  int64_t result_rows = 0;
  for (auto _ : state) {
    for (int q = 0; q < kNumQueries; ++q) {
      absl::StatusOr<std::vector<TreeNode>> res = FreshQuery(f.queries[q], tables, f.schema);
      if (!res.ok()) {
        state.SkipWithError(res.status().ToString().c_str());
        return;
      }
      result_rows += static_cast<int64_t>(res->size());
      benchmark::DoNotOptimize(res->data());
    }
  }
  state.counters["rows"] = static_cast<double>(f.n);
  state.counters["result_rows"] = benchmark::Counter(static_cast<double>(result_rows),
                                                     benchmark::Counter::kAvgIterations);
}

// The LIKE matcher alone, per title (ILIKE when case_insensitive): what query 2 pays per row.
void BM_LikeMatchPerRow(benchmark::State& state) {
  const bool ci = state.range(0) != 0;
  std::vector<std::string> titles;
  for (int i = 0; i < kNumTitles; ++i) titles.push_back(std::string(kTitles[i]) + " #12345");
  size_t i = 0;
  int64_t matches = 0;
  for (auto _ : state) {
    matches += SqlLikeMatch(titles[i], "%crash%", ci) ? 1 : 0;
    if (++i == titles.size()) i = 0;
  }
  benchmark::DoNotOptimize(matches);
  state.SetLabel(ci ? "ILIKE '%crash%'" : "LIKE '%crash%'");
}

constexpr int64_t kScales[] = {1000, 10000, 100000};

void ScalesArgs(benchmark::internal::Benchmark* b) {
  b->ArgName("rows");
  for (int64_t n : kScales) b->Arg(n);
}
void ScaleKindArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "kind"});
  for (int64_t n : kScales) {
    for (int k = 0; k < kNumKinds; ++k) b->Args({n, k});
  }
}
void ScaleQueryOrNoneArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "query"});
  for (int64_t n : kScales) {
    for (int q = -1; q < kNumQueries; ++q) b->Args({n, q});
  }
}
void ScaleQueryArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "query"});
  for (int64_t n : kScales) {
    for (int q = 0; q < kNumQueries; ++q) b->Args({n, q});
  }
}

BENCHMARK(BM_OneRowWrite)->Apply(ScalesArgs)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneRowWriteKind)->Apply(ScaleKindArgs)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneRowWriteOneQuery)->Apply(ScaleQueryOrNoneArgs)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FreshRecompute)->Apply(ScalesArgs)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FreshRecomputeQuery)->Apply(ScaleQueryArgs)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LikeMatchPerRow)->ArgName("ci")->Arg(0)->Arg(1);
BENCHMARK(BM_FreshQueryOracle)->Apply(ScalesArgs)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rindle

BENCHMARK_MAIN();
