// workload_bench.cc — the shared performance workload (../shared/bench/README.md) through our
// engine, printing the same figures the real engine's results give, side by side.
//
//   node ../shared/bench/gen.mjs all /tmp/bench-data          # the normative data files
//   ./build/bench/workload_bench --data /tmp/bench-data [--scale 1k|10k|100k|all] [--runs 3]
//
// Procedure (bench-workload.json "procedure"): register the four tables; bulk-load every row of
// rows-<scale>.jsonl in ONE write txn (parsing is not timed); register the ten queries in queryId
// order (hydrate, timed per query); apply each line of txns-<scale>.jsonl as one write txn (timed:
// the commit alone and open+stage+commit); then a fresh one-shot evaluation of every query at the
// final state (txn.Query(ast), 5 repetitions, median). Every figure is the median over --runs
// runs. Output units: milliseconds; txns/s = count / total txn seconds. Beside each figure: the
// real engine's (bench-results-<scale>.json, @rindle/wasm@0.9.0) and the ratio.
// Errors: a missing or malformed file exits 2 naming the file and line.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "workload_bench: %s\n", msg.c_str());
  std::exit(2);
}

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(path + ": cannot open");
  try {
    return json::parse(in);
  } catch (const std::exception& e) {
    Die(path + ": " + e.what());
  }
}

std::vector<json> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(path + ": cannot open (generate the data: node ../shared/bench/gen.mjs all DIR)");
  std::vector<json> out;
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      out.push_back(json::parse(line));
    } catch (const std::exception& e) {
      Die(path + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  return out;
}

RowValues Row(const json& j, const std::string& where) {
  auto r = RowFromJson(j, where);
  if (!r.ok()) Die(where + ": " + std::string(r.status().message()));
  return *r;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Rank(std::vector<double> v, double q) {  // nearest rank, as the procedure's notes
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<size_t>(k, 1) - 1];
}

struct RunFigures {
  double load_ms = 0, hydrate_ms = 0, commit_median = 0, commit_p99 = 0, commit_max = 0,
         txns_per_s = 0;
  std::map<int64_t, double> hydrate_by_query, fresh_by_query;
  std::map<std::string, double> commit_median_by_kind;
};

RunFigures RunOnce(const Schema& schema, const std::vector<json>& rows,
                   const std::vector<json>& txns, const std::vector<std::pair<int64_t, Ast>>& queries) {
  RunFigures f;
  Db db;
  for (const char* t : {"user", "issue", "comment", "tag"}) {
    if (!db.RegisterTable(t, schema.at(t), false).ok()) Die(std::string("register ") + t);
  }
  // Parse every row first (parsing is not timed), then one timed txn.
  std::vector<std::pair<std::string, RowValues>> parsed;
  parsed.reserve(rows.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    parsed.emplace_back(rows[i][0].get<std::string>(), Row(rows[i][1], "rows line " + std::to_string(i + 1)));
  }
  auto t0 = Clock::now();
  {
    auto tx = db.Write();
    for (auto& [table, row] : parsed) {
      if (auto s = tx->Add(table, std::move(row)); !s.ok()) Die("load: " + std::string(s.message()));
    }
    if (!tx->Commit().ok()) Die("load commit");
  }
  f.load_ms = MsSince(t0);
  for (const auto& [qid, ast] : queries) {
    auto q0 = Clock::now();
    auto snap = db.RegisterQuery(qid, ast);
    if (!snap.ok()) Die("query " + std::to_string(qid) + ": " + std::string(snap.status().message()));
    f.hydrate_by_query[qid] = MsSince(q0);
    f.hydrate_ms += f.hydrate_by_query[qid];
  }
  // Parse the txns (not timed).
  struct Op { std::string op, table; RowValues row, old; };
  std::vector<std::pair<std::string, std::vector<Op>>> parsed_txns;
  for (size_t i = 1; i < txns.size(); ++i) {
    std::vector<Op> ops;
    for (const json& o : txns[i]["ops"]) {
      Op op;
      op.op = o["op"].get<std::string>();
      op.table = o["table"].get<std::string>();
      op.row = Row(o["row"], "txns line " + std::to_string(i + 1));
      if (op.op == "edit") op.old = Row(o["old"], "txns line " + std::to_string(i + 1));
      ops.push_back(std::move(op));
    }
    parsed_txns.emplace_back(txns[i]["kind"].get<std::string>(), std::move(ops));
  }
  std::vector<double> commit_ms, txn_ms;
  std::map<std::string, std::vector<double>> by_kind;
  size_t events = 0;
  for (const auto& [kind, ops] : parsed_txns) {
    auto t1 = Clock::now();
    auto tx = db.Write();
    for (const Op& op : ops) {
      absl::Status s = op.op == "add"      ? tx->Add(op.table, op.row)
                       : op.op == "remove" ? tx->Remove(op.table, op.row)
                                           : tx->Edit(op.table, op.old, op.row);
      if (!s.ok()) Die("txn (" + kind + "): " + std::string(s.message()));
    }
    auto c0 = Clock::now();
    auto batches = tx->Commit();
    const double c = MsSince(c0);
    txn_ms.push_back(MsSince(t1));
    if (!batches.ok()) Die("commit: " + std::string(batches.status().message()));
    for (const auto& b : *batches) events += b.events.size();
    commit_ms.push_back(c);
    by_kind[kind].push_back(c);
  }
  (void)events;
  f.commit_median = Median(commit_ms);
  f.commit_p99 = Rank(commit_ms, 0.99);
  f.commit_max = Rank(commit_ms, 1.0);
  double total = 0;
  for (double t : txn_ms) total += t;
  f.txns_per_s = total > 0 ? static_cast<double>(txn_ms.size()) / (total / 1000) : 0;
  for (const auto& [k, v] : by_kind) f.commit_median_by_kind[k] = Median(v);
  for (const auto& [qid, ast] : queries) {
    std::vector<double> reps;
    for (int r = 0; r < 5; ++r) {
      auto tx = db.Write();
      auto f0 = Clock::now();
      auto res = tx->Query(ast);
      reps.push_back(MsSince(f0));
      if (!res.ok()) Die("fresh query " + std::to_string(qid));
      tx->Rollback();
    }
    f.fresh_by_query[qid] = Median(reps);
  }
  return f;
}

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : v >= 1 ? "%.2f" : "%.4f", v);
  return buf;
}

double Real(const json& results, std::initializer_list<const char*> path) {
  const json* j = &results;
  for (const char* k : path) {
    if (!j->is_object() || !j->contains(k)) return std::nan("");
    j = &(*j)[k];
  }
  return j->is_number() ? j->get<double>() : std::nan("");
}

void Line(const char* what, double ours, double real, bool higher_is_better) {
  std::string ratio = "";
  if (!std::isnan(real) && ours > 0 && real > 0) {
    ratio = Fmt(higher_is_better ? ours / real : real / ours) + "x";
  }
  std::printf("  %-28s %14s %14s %10s\n", what, Fmt(ours).c_str(),
              std::isnan(real) ? "-" : Fmt(real).c_str(), ratio.c_str());
}

}  // namespace
}  // namespace rindle

int main(int argc, char** argv) {
  using namespace rindle;
  std::string data, scale_arg = "all";
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + ": expected a value");
      return argv[++i];
    };
    if (a == "--data") data = next();
    else if (a == "--scale") scale_arg = next();
    else if (a == "--runs") runs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--help" || a == "-h") {
      std::printf("usage: workload_bench --data DIR [--scale 1k|10k|100k|all] [--runs N]\n"
                  "DIR holds rows-<scale>.jsonl and txns-<scale>.jsonl from\n"
                  "  node ../shared/bench/gen.mjs all DIR\n");
      return 0;
    } else {
      Die("unknown flag " + a + " (see --help)");
    }
  }
  if (data.empty()) Die("--data DIR is required (see --help)");
  const std::string shared_bench = std::string(RINDLE_SHARED_DIR) + "/bench";
  const json workload = ReadJsonFile(shared_bench + "/bench-workload.json");
  const json app_schema = ReadJsonFile(std::string(RINDLE_FIXTURES_DIR) + "/app/app-schema.json");
  auto schema = SchemaFromJson(app_schema, "app-schema.json");
  if (!schema.ok()) Die(std::string(schema.status().message()));
  std::vector<std::pair<int64_t, Ast>> queries;
  std::map<int64_t, std::string> names;
  for (const json& q : workload["queries"]) {
    auto ast = ParseAst(q["ast"]);
    if (!ast.ok()) Die("bench-workload.json query " + q["name"].get<std::string>() + ": " +
                       std::string(ast.status().message()));
    queries.emplace_back(q["queryId"].get<int64_t>(), *ast);
    names[q["queryId"].get<int64_t>()] = q["class"].get<std::string>();
  }
  std::vector<std::string> scales;
  if (scale_arg == "all") scales = {"1k", "10k", "100k"};
  else scales = {scale_arg};
  for (const std::string& sc : scales) {
    const std::vector<json> rows = ReadLines(data + "/rows-" + sc + ".jsonl");
    const std::vector<json> txns = ReadLines(data + "/txns-" + sc + ".jsonl");
    std::vector<RunFigures> all;
    for (int r = 0; r < runs; ++r) all.push_back(RunOnce(*schema, rows, txns, queries));
    auto med = [&](auto get) {
      std::vector<double> v;
      for (const RunFigures& f : all) v.push_back(get(f));
      return Median(v);
    };
    const json real = [&] {
      std::ifstream in(shared_bench + "/bench-results-" + sc + ".json");
      return in ? json::parse(in, nullptr, false) : json();
    }();
    std::printf("\nscale %s: %zu rows, %zu txns, %d run(s), medians (ms unless noted)\n", sc.c_str(),
                rows.size() - 1, txns.size() - 1, runs);
    std::printf("  %-28s %14s %14s %10s\n", "figure", "rindle-sim", "@rindle/wasm", "ours/real");
    Line("load ms", med([](const RunFigures& f) { return f.load_ms; }),
         Real(real, {"summary", "bulkLoad", "totalMs"}), false);
    Line("hydrate ms (10 queries)", med([](const RunFigures& f) { return f.hydrate_ms; }),
         Real(real, {"summary", "hydrate", "totalMs"}), false);
    Line("commit median ms", med([](const RunFigures& f) { return f.commit_median; }),
         Real(real, {"summary", "txns", "commitMs", "median"}), false);
    Line("commit p99 ms", med([](const RunFigures& f) { return f.commit_p99; }),
         Real(real, {"summary", "txns", "commitMs", "p99"}), false);
    Line("commit max ms", med([](const RunFigures& f) { return f.commit_max; }),
         Real(real, {"summary", "txns", "commitMs", "max"}), false);
    Line("txns/s", med([](const RunFigures& f) { return f.txns_per_s; }),
         Real(real, {"summary", "txns", "txnsPerSec"}), true);
    std::printf("  per query: hydrate ms / fresh ms at the final state\n");
    for (const auto& [qid, ast] : queries) {
      std::printf("    q%-2lld %-26s %10s %10s\n", static_cast<long long>(qid), names[qid].c_str(),
                  Fmt(med([&](const RunFigures& f) { return f.hydrate_by_query.at(qid); })).c_str(),
                  Fmt(med([&](const RunFigures& f) { return f.fresh_by_query.at(qid); })).c_str());
    }
    std::printf("  commit median ms by txn kind (all ten queries live)\n");
    for (const auto& [kind, v] : all[0].commit_median_by_kind) {
      std::printf("    %-36s %10s\n", kind.c_str(),
                  Fmt(med([&](const RunFigures& f) { return f.commit_median_by_kind.at(kind); })).c_str());
    }
  }
  return 0;
}
