// workload_bench.cc — the shared performance workload (../shared/bench/README.md) through our
// engine and, in the same invocation, through the real engine (@rindle/wasm in Node), side by
// side on the same data files.
//
//   node ../shared/bench/gen.mjs all /tmp/bench-data          # the normative data files
//   node bench/gen_scale.mjs 1M 1000000 /tmp/bench-data       # optional: the 1M scale
//   ./build/bench/workload_bench --data /tmp/bench-data [--scale 1k|10k|100k|1M|all|A,B]
//                                [--runs 3] [--real auto|off] [--no-warmup]
//
// Procedure (bench-workload.json "procedure"): register the four tables; bulk-load every row of
// rows-<scale>.jsonl in ONE write txn (parsed in chunks of 10,000 lines between timed segments,
// so parsing is not timed and the parsed rows never all live at once — as the real engine's
// harness does); register the ten queries in queryId order (hydrate, timed per query); apply each
// line of txns-<scale>.jsonl as one write txn (timed: the commit alone and open+stage+commit);
// then a fresh one-shot evaluation of every query at the final state (txn.Query(ast), 5
// repetitions, median).
//
// Every run is a fresh child process: ours is this program re-executed with --child (so its peak
// RSS — VmHWM, read after each phase — is the engine's, not the parent's), the real engine's is
// bench/real_engine_driver.mjs under Node (its process peak RSS and wasm linear memory). Per
// repetition the two alternate (even reps ours first, odd reps the real one first), so machine
// drift hits both alike; each figure is the median over --runs and the ratio is taken between
// those two medians of THIS invocation. Without Node or the installed package
// (scripts/install-node-deps.sh) the real engine's stored figures (bench-results-<scale>.json,
// an earlier day) are printed instead, labelled as such. Output units: milliseconds, MB
// (10^6 bytes); txns/s = count / total txn seconds. Errors: a missing or malformed file, or a
// failed child run, exits 2 naming it.
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
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

// This thread's CPU time, ms: on a machine shared with other jobs, the wall figures of the two
// engines are compared within one alternating run; the CPU figure says what our engine itself
// spent (printed for ours only: Node's GC and compiler threads make its CPU time incomparable).
double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

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

json ParseLine(const std::string& line, const std::string& where) {
  try {
    return json::parse(line);
  } catch (const std::exception& e) {
    Die(where + ": " + e.what());
  }
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

// ---- the child: one run of our engine, figures as one JSON line --------------------------------

// This process's peak and current resident set, bytes (/proc/self/status VmHWM / VmRSS).
std::pair<double, double> ResidentBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  double hwm = 0, rss = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::atof(line.c_str() + 6) * 1024;
    if (line.rfind("VmRSS:", 0) == 0) rss = std::atof(line.c_str() + 6) * 1024;
  }
  return {hwm, rss};
}

json Phase() {
  const auto [hwm, rss] = ResidentBytes();
  return {{"hwm", hwm}, {"rss", rss}};
}

// Stages every row of `path` into one txn, 10,000 parsed lines at a time; returns the timed ms
// (the Add calls and the commit; parsing excluded).
double LoadRows(Db& db, const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(path + ": cannot open (generate the data: node ../shared/bench/gen.mjs all DIR)");
  double ms = 0;
  auto tx = db.Write();
  std::string line;
  size_t n = 0;
  std::getline(in, line);  // header
  ++n;
  std::vector<std::pair<std::string, RowValues>> chunk;
  while (in) {
    chunk.clear();
    while (chunk.size() < 10000 && std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      const std::string where = path + ":" + std::to_string(n);
      const json j = ParseLine(line, where);
      chunk.emplace_back(j[0].get<std::string>(), Row(j[1], where));
    }
    const auto t0 = Clock::now();
    for (auto& [table, row] : chunk) {
      if (auto s = tx->Add(table, std::move(row)); !s.ok()) Die("load: " + std::string(s.message()));
    }
    ms += MsSince(t0);
  }
  const auto c0 = Clock::now();
  if (!tx->Commit().ok()) Die("load commit");
  return ms + MsSince(c0);
}

struct TxnOp {
  std::string op, table;
  RowValues row, old;
};
using ParsedTxns = std::vector<std::pair<std::string, std::vector<TxnOp>>>;

ParsedTxns ReadTxns(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(path + ": cannot open");
  ParsedTxns out;
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (++n == 1 || line.empty()) continue;  // header
    const std::string where = path + ":" + std::to_string(n);
    const json t = ParseLine(line, where);
    std::vector<TxnOp> ops;
    for (const json& o : t["ops"]) {
      TxnOp op{o["op"].get<std::string>(), o["table"].get<std::string>(), Row(o["row"], where), {}};
      if (op.op == "edit") op.old = Row(o["old"], where);
      ops.push_back(std::move(op));
    }
    out.emplace_back(t["kind"].get<std::string>(), std::move(ops));
  }
  return out;
}

json ApplyTxns(Db& db, const ParsedTxns& txns) {
  std::vector<double> commit_ms, txn_ms;
  std::map<std::string, std::vector<double>> by_kind;
  size_t events = 0;
  const double cpu0 = CpuMs();
  for (const auto& [kind, ops] : txns) {
    const auto t1 = Clock::now();
    auto tx = db.Write();
    for (const TxnOp& op : ops) {
      absl::Status s = op.op == "add"      ? tx->Add(op.table, op.row)
                       : op.op == "remove" ? tx->Remove(op.table, op.row)
                                           : tx->Edit(op.table, op.old, op.row);
      if (!s.ok()) Die("txn (" + kind + "): " + std::string(s.message()));
    }
    const auto c0 = Clock::now();
    auto batches = tx->Commit();
    const double c = MsSince(c0);
    txn_ms.push_back(MsSince(t1));
    if (!batches.ok()) Die("commit: " + std::string(batches.status().message()));
    for (const auto& b : *batches) events += b.events.size();
    commit_ms.push_back(c);
    by_kind[kind].push_back(c);
  }
  const double cpu = CpuMs() - cpu0;  // includes the untimed destruction of txns and batches
  double total = 0;
  for (double t : txn_ms) total += t;
  json kinds = json::object();
  for (const auto& [k, v] : by_kind) kinds[k] = Median(v);
  return {{"count", txn_ms.size()},
          {"events", events},
          {"commitMedian", Median(commit_ms)},
          {"commitP99", Rank(commit_ms, 0.99)},
          {"commitMax", Rank(commit_ms, 1.0)},
          {"txnsPerSec", total > 0 ? static_cast<double>(txn_ms.size()) / (total / 1000) : 0},
          {"cpuMs", cpu},
          {"commitMedianByKind", kinds}};
}

// The txns undone: each txn's ops inverted (add <-> remove, edit old <-> new), txns and ops in
// reverse order, so applying `txns` then these returns every table to its state before.
ParsedTxns InverseTxns(const ParsedTxns& txns) {
  ParsedTxns out;
  for (auto t = txns.rbegin(); t != txns.rend(); ++t) {
    std::vector<TxnOp> ops;
    for (auto op = t->second.rbegin(); op != t->second.rend(); ++op) {
      if (op->op == "edit") ops.push_back({"edit", op->table, op->old, op->row});
      else ops.push_back({op->op == "add" ? "remove" : "add", op->table, op->row, {}});
    }
    out.emplace_back(t->first + " (undo)", std::move(ops));
  }
  return out;
}

// --txn-loops N (profiling only, not part of the procedure): after the txn phase, N more rounds
// of (the txns undone, the txns again) — a steady commit-path load for `perf record`; reports
// our thread's CPU µs per txn over the rounds.
json ProfileTxnLoop(Db& db, const ParsedTxns& txns, int loops) {
  const ParsedTxns undo = InverseTxns(txns);
  const double cpu0 = CpuMs();
  const auto t0 = Clock::now();
  for (int i = 0; i < loops; ++i) {
    ApplyTxns(db, undo);
    ApplyTxns(db, txns);
  }
  const double n = 2.0 * loops * static_cast<double>(txns.size());
  return {{"loops", loops}, {"cpuUsPerTxn", (CpuMs() - cpu0) * 1e3 / n},
          {"wallUsPerTxn", MsSince(t0) * 1e3 / n}};
}

json ChildRun(const Schema& schema, const std::vector<std::pair<int64_t, Ast>>& queries,
              const std::string& rows_path, const std::string& txns_path, int txn_loops) {
  json out;
  const ParsedTxns txns = ReadTxns(txns_path);  // parsed before anything is timed
  out["phases"]["start"] = Phase();
  Db db;
  for (const char* t : {"user", "issue", "comment", "tag"}) {
    if (!db.RegisterTable(t, schema.at(t), false).ok()) Die(std::string("register ") + t);
  }
  const double load_cpu0 = CpuMs();
  out["loadMs"] = LoadRows(db, rows_path);
  out["loadCpuMs"] = CpuMs() - load_cpu0;  // includes the untimed parsing
  out["phases"]["load"] = Phase();
  double hydrate = 0, hydrate_cpu = 0;
  for (const auto& [qid, ast] : queries) {
    const auto q0 = Clock::now();
    const double cpu0 = CpuMs();
    auto snap = db.RegisterQuery(qid, ast);
    const double ms = MsSince(q0);
    out["hydrateCpuByQuery"][std::to_string(qid)] = CpuMs() - cpu0;
    hydrate_cpu += CpuMs() - cpu0;
    if (!snap.ok()) Die("query " + std::to_string(qid) + ": " + std::string(snap.status().message()));
    out["hydrateByQuery"][std::to_string(qid)] = ms;
    hydrate += ms;
  }
  out["hydrateMs"] = hydrate;
  out["hydrateCpuMs"] = hydrate_cpu;
  out["phases"]["hydrate"] = Phase();
  out["txns"] = ApplyTxns(db, txns);
  out["phases"]["txns"] = Phase();
  if (txn_loops > 0) out["txnLoop"] = ProfileTxnLoop(db, txns, txn_loops);
  for (const auto& [qid, ast] : queries) {
    std::vector<double> reps;
    for (int r = 0; r < 5; ++r) {
      auto tx = db.Write();
      const auto f0 = Clock::now();
      auto res = tx->Query(ast);
      reps.push_back(MsSince(f0));
      if (!res.ok()) Die("fresh query " + std::to_string(qid));
      tx->Rollback();
    }
    out["freshByQuery"][std::to_string(qid)] = Median(reps);
  }
  out["phases"]["fresh"] = Phase();
  out["peakRssBytes"] = ResidentBytes().first;
  out["engine"] = "rindle-sim engine";
  return out;
}

// ---- the parent: alternate child runs, print side by side --------------------------------------

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `cmd` (a shell command line) and returns its stdout's last non-empty line, parsed.
json RunChild(const std::string& cmd, const std::string& what) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) Die(what + ": cannot start: " + cmd);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  std::istringstream lines(out);
  std::string line, last;
  while (std::getline(lines, line)) if (!line.empty()) last = line;
  if (rc != 0 || last.empty()) Die(what + " failed (exit " + std::to_string(rc) + "): " + cmd);
  return ParseLine(last, what + " output");
}

struct RealEngine {
  bool available = false;
  std::string why_not;  // when not available
  std::string node, driver, modules;
};

RealEngine FindRealEngine(const std::string& mode, const std::string& node) {
  RealEngine r;
  r.node = node;
  r.driver = std::string(RINDLE_SOURCE_DIR) + "/bench/real_engine_driver.mjs";
  r.modules = std::string(RINDLE_SOURCE_DIR) + "/conformance/node/node_modules";
  if (mode == "off") {
    r.why_not = "--real off";
    return r;
  }
  if (std::system((Quote(node) + " --version >/dev/null 2>&1").c_str()) != 0) {
    r.why_not = "no `" + node + "` on PATH";
  } else if (!std::ifstream(r.modules + "/@rindle/wasm/package.json")) {
    r.why_not = "@rindle/wasm is not installed (run scripts/install-node-deps.sh)";
  } else {
    r.available = true;
  }
  return r;
}

// One figure of a run (nullopt when the run does not have it).
using Getter = std::function<std::optional<double>(const json&)>;

Getter Path(std::vector<std::string> path) {
  return [path](const json& run) -> std::optional<double> {
    const json* j = &run;
    for (const std::string& k : path) {
      if (!j->is_object() || !j->contains(k)) return std::nullopt;
      j = &(*j)[k];
    }
    if (!j->is_number()) return std::nullopt;
    return j->get<double>();
  };
}

std::optional<double> MedianOf(const std::vector<json>& runs, const Getter& get) {
  std::vector<double> v;
  for (const json& r : runs) {
    if (auto x = get(r)) v.push_back(*x);
  }
  if (v.empty()) return std::nullopt;
  return Median(v);
}

std::string Fmt(std::optional<double> v) {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), *v >= 100 ? "%.0f" : *v >= 1 ? "%.2f" : "%.4f", *v);
  return buf;
}

// The stored figures of the real engine, re-keyed like a driver run (the fallback).
json StoredRealRun(const std::string& shared_bench, const std::string& scale) {
  std::ifstream in(shared_bench + "/bench-results-" + scale + ".json");
  if (!in) return json();
  const json r = json::parse(in, nullptr, false);
  if (!r.is_object() || !r.contains("summary")) return json();
  const json& s = r["summary"];
  json out;
  auto copy = [&](const json& from, std::vector<std::string> path, const std::string& to_a,
                  const std::string& to_b = "") {
    if (auto v = Path(std::move(path))(from)) {
      if (to_b.empty()) out[to_a] = *v; else out[to_a][to_b] = *v;
    }
  };
  copy(s, {"bulkLoad", "totalMs"}, "loadMs");
  copy(s, {"hydrate", "totalMs"}, "hydrateMs");
  copy(s, {"txns", "commitMs", "median"}, "txns", "commitMedian");
  copy(s, {"txns", "commitMs", "p99"}, "txns", "commitP99");
  copy(s, {"txns", "commitMs", "max"}, "txns", "commitMax");
  copy(s, {"txns", "txnsPerSec"}, "txns", "txnsPerSec");
  out["date"] = r.value("date", "?");
  return out;
}

struct Figure {
  const char* name;
  Getter get;
  bool higher_is_better;
  double scale = 1;  // printed = value * scale
};

std::vector<Figure> MainFigures() {
  return {
      {"load ms", Path({"loadMs"}), false},
      {"hydrate ms (10 queries)", Path({"hydrateMs"}), false},
      {"commit median ms", Path({"txns", "commitMedian"}), false},
      {"commit p99 ms", Path({"txns", "commitP99"}), false},
      {"commit max ms", Path({"txns", "commitMax"}), false},
      {"txns/s", Path({"txns", "txnsPerSec"}), true},
      {"peak RSS MB", Path({"peakRssBytes"}), false, 1e-6},
      {"RSS after load MB", Path({"phases", "load", "rss"}), false, 1e-6},
      {"wasm heap MB (real)", Path({"peakWasmBytes"}), false, 1e-6},
  };
}

void PrintLine(const std::string& what, std::optional<double> ours, std::optional<double> real,
               bool higher_is_better) {
  std::string ratio;
  if (ours && real && *ours > 0 && *real > 0) {
    ratio = Fmt(higher_is_better ? *ours / *real : *real / *ours) + "x";
  }
  std::printf("  %-30s %14s %14s %10s\n", what.c_str(), Fmt(ours).c_str(), Fmt(real).c_str(),
              ratio.c_str());
}

std::optional<double> Scaled(std::optional<double> v, double s) {
  if (v) *v *= s;
  return v;
}

void PrintScale(const std::string& sc, const std::vector<json>& ours, const std::vector<json>& real,
                const std::string& real_label, const std::vector<std::pair<int64_t, std::string>>& qs) {
  std::printf("\nscale %s: %zu run(s) each, medians (ms unless noted); real = %s\n", sc.c_str(),
              ours.size(), real_label.c_str());
  std::printf("  %-30s %14s %14s %10s\n", "figure", "rindle-sim", "@rindle/wasm", "ours/real");
  for (const Figure& f : MainFigures()) {
    PrintLine(f.name, Scaled(MedianOf(ours, f.get), f.scale), Scaled(MedianOf(real, f.get), f.scale),
              f.higher_is_better);
  }
  // Our thread's CPU over the whole txn phase: the figure to compare our engine before and after
  // a change on a shared machine (Node's CPU time is not comparable: GC and compiler threads).
  PrintLine("txn phase thread CPU ms (ours)", MedianOf(ours, Path({"txns", "cpuMs"})),
            std::nullopt, false);
  std::printf("  per run (in run order), txns/s ours | real:");
  for (size_t i = 0; i < ours.size(); ++i) {
    std::printf(" %s|%s", Fmt(Path({"txns", "txnsPerSec"})(ours[i])).c_str(),
                i < real.size() ? Fmt(Path({"txns", "txnsPerSec"})(real[i])).c_str() : "-");
  }
  std::printf("\n  per query: hydrate ms ours / real (ratio), fresh ms ours / real\n");
  for (const auto& [qid, name] : qs) {
    const std::string k = std::to_string(qid);
    const auto ho = MedianOf(ours, Path({"hydrateByQuery", k}));
    const auto hr = MedianOf(real, Path({"hydrateByQuery", k}));
    std::string ratio = ho && hr && *ho > 0 ? Fmt(*hr / *ho) + "x" : "";
    std::printf("    q%-2lld %-26s %10s %10s %8s   %10s %10s\n", static_cast<long long>(qid),
                name.c_str(), Fmt(ho).c_str(), Fmt(hr).c_str(), ratio.c_str(),
                Fmt(MedianOf(ours, Path({"freshByQuery", k}))).c_str(),
                Fmt(MedianOf(real, Path({"freshByQuery", k}))).c_str());
  }
  std::printf("  commit median ms by txn kind (all ten queries live): ours / real\n");
  if (ours.empty() || !ours[0]["txns"].contains("commitMedianByKind")) return;
  for (const auto& [kind, v] : ours[0]["txns"]["commitMedianByKind"].items()) {
    std::printf("    %-36s %10s %10s\n", kind.c_str(),
                Fmt(MedianOf(ours, Path({"txns", "commitMedianByKind", kind}))).c_str(),
                Fmt(MedianOf(real, Path({"txns", "commitMedianByKind", kind}))).c_str());
  }
}

struct ScaleResult {
  std::string scale;
  std::vector<json> ours, real;
};

void PrintScalingTable(const std::vector<ScaleResult>& results) {
  std::printf("\nscaling (medians; ours | real)\n");
  std::printf("  %-6s %17s %19s %15s %15s %17s %15s\n", "scale", "load ms", "hydrate ms",
              "commit med ms", "commit p99 ms", "txns/s", "peak RSS MB");
  for (const ScaleResult& r : results) {
    std::printf("  %-6s", r.scale.c_str());
    for (const Figure& f : MainFigures()) {
      const std::string n = f.name;
      if (n == "commit max ms" || n.rfind("RSS after", 0) == 0 || n.rfind("wasm", 0) == 0) continue;
      const std::string cell = Fmt(Scaled(MedianOf(r.ours, f.get), f.scale)) + " | " +
                               Fmt(Scaled(MedianOf(r.real, f.get), f.scale));
      std::printf(" %17s", cell.c_str());
    }
    std::printf("\n");
  }
}

struct Options {
  std::string data, scale_arg = "all", real_mode = "auto", node = "node", child_scale;
  int runs = 3, txn_loops = 0;
  bool warmup = true;
  std::set<int64_t> only_queries;  // --queries (profiling only): empty = all ten
};

Options ParseFlags(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + ": expected a value");
      return argv[++i];
    };
    if (a == "--data") o.data = next();
    else if (a == "--scale") o.scale_arg = next();
    else if (a == "--runs") o.runs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--real") o.real_mode = next();
    else if (a == "--node") o.node = next();
    else if (a == "--no-warmup") o.warmup = false;
    else if (a == "--child") o.child_scale = next();
    else if (a == "--txn-loops") o.txn_loops = std::max(0, std::atoi(next().c_str()));
    else if (a == "--queries") {
      std::stringstream ss(next());
      std::string id;
      while (std::getline(ss, id, ',')) {
        if (!id.empty()) o.only_queries.insert(std::atoll(id.c_str()));
      }
    }
    else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: workload_bench --data DIR [--scale 1k|10k|100k|1M|all|A,B,...] [--runs N]\n"
          "                      [--real auto|off] [--node PATH] [--no-warmup]\n"
          "DIR holds rows-<scale>.jsonl and txns-<scale>.jsonl from\n"
          "  node ../shared/bench/gen.mjs all DIR   (1M: node bench/gen_scale.mjs 1M 1000000 DIR)\n"
          "--real auto runs the real engine (Node + conformance/node/node_modules) beside ours,\n"
          "alternating per run; without them it prints the stored figures, labelled.\n"
          "--no-warmup skips the real engine's 1k warm-up pass in its process.\n"
          "Profiling: workload_bench --data DIR --child 100k --txn-loops N runs ours alone and,\n"
          "after the txn phase, N rounds of the txns undone and redone (for perf record);\n"
          "--queries 1,5 registers only those query ids (what one query's upkeep costs).\n");
      std::exit(0);
    } else {
      Die("unknown flag " + a + " (see --help)");
    }
  }
  if (o.data.empty()) Die("--data DIR is required (see --help)");
  if (o.real_mode != "auto" && o.real_mode != "off") Die("--real: expected auto or off");
  return o;
}

std::vector<std::string> Scales(const std::string& arg) {
  if (arg == "all") return {"1k", "10k", "100k"};
  std::vector<std::string> out;
  std::stringstream ss(arg);
  std::string s;
  while (std::getline(ss, s, ',')) {
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

ScaleResult RunScale(const Options& o, const RealEngine& real, const std::string& self,
                     const std::string& sc, const std::string& workload_path) {
  ScaleResult res{sc, {}, {}};
  const std::string rows = o.data + "/rows-" + sc + ".jsonl";
  const std::string txns = o.data + "/txns-" + sc + ".jsonl";
  if (!std::ifstream(rows) || !std::ifstream(txns)) Die(rows + " / " + txns + ": missing");
  const std::string ours_cmd = Quote(self) + " --data " + Quote(o.data) + " --child " + Quote(sc);
  std::string real_cmd = Quote(real.node) + " --expose-gc " + Quote(real.driver) + " --modules " +
                         Quote(real.modules) + " --workload " + Quote(workload_path) + " --rows " +
                         Quote(rows) + " --txns " + Quote(txns);
  const std::string wr = o.data + "/rows-1k.jsonl", wt = o.data + "/txns-1k.jsonl";
  if (o.warmup && std::ifstream(wr) && std::ifstream(wt)) {
    real_cmd += " --warmup-rows " + Quote(wr) + " --warmup-txns " + Quote(wt);
  }
  for (int r = 0; r < o.runs; ++r) {
    const bool ours_first = r % 2 == 0;
    for (int k = 0; k < 2; ++k) {
      if ((k == 0) == ours_first) {
        std::fprintf(stderr, "[%s run %d] ours...\n", sc.c_str(), r + 1);
        res.ours.push_back(RunChild(ours_cmd, "our run"));
      } else if (real.available) {
        std::fprintf(stderr, "[%s run %d] real engine...\n", sc.c_str(), r + 1);
        res.real.push_back(RunChild(real_cmd, "real engine run"));
      }
    }
  }
  return res;
}

}  // namespace
}  // namespace rindle

int main(int argc, char** argv) {
  using namespace rindle;
  const Options o = ParseFlags(argc, argv);
  const std::string shared_bench = std::string(RINDLE_SHARED_DIR) + "/bench";
  const std::string workload_path = shared_bench + "/bench-workload.json";
  const json workload = ReadJsonFile(workload_path);
  const json app_schema = ReadJsonFile(std::string(RINDLE_FIXTURES_DIR) + "/app/app-schema.json");
  auto schema = SchemaFromJson(app_schema, "app-schema.json");
  if (!schema.ok()) Die(std::string(schema.status().message()));
  std::vector<std::pair<int64_t, Ast>> queries;
  std::vector<std::pair<int64_t, std::string>> names;
  for (const json& q : workload["queries"]) {
    auto ast = ParseAst(q["ast"]);
    if (!ast.ok()) Die("bench-workload.json query " + q["name"].get<std::string>() + ": " +
                       std::string(ast.status().message()));
    if (!o.only_queries.empty() && !o.only_queries.contains(q["queryId"].get<int64_t>())) continue;
    queries.emplace_back(q["queryId"].get<int64_t>(), *ast);
    names.emplace_back(q["queryId"].get<int64_t>(), q["class"].get<std::string>());
  }
  if (!o.child_scale.empty()) {
    const std::string base = o.data + "/";
    const json out = ChildRun(*schema, queries, base + "rows-" + o.child_scale + ".jsonl",
                              base + "txns-" + o.child_scale + ".jsonl", o.txn_loops);
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  const RealEngine real = FindRealEngine(o.real_mode, o.node);
  std::vector<char> self(4096);
  const ssize_t len = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (len <= 0) Die("cannot find this program (/proc/self/exe)");
  const std::string self_path(self.data(), static_cast<size_t>(len));
  std::printf("workload_bench: %s\n", real.available
                                          ? "real engine run side by side, alternating per run"
                                          : ("real engine NOT run (" + real.why_not +
                                             "): its stored figures shown instead").c_str());
  std::vector<ScaleResult> results;
  for (const std::string& sc : Scales(o.scale_arg)) {
    ScaleResult r = RunScale(o, real, self_path, sc, workload_path);
    std::string label = "this run (" + std::string(real.available ? "Node " : "") + "side by side)";
    if (!real.available) {
      const json stored = StoredRealRun(shared_bench, sc);
      if (!stored.is_null()) r.real.push_back(stored);
      label = stored.is_null() ? "none (no stored figures for this scale)"
                               : "STORED figures from " + stored.value("date", "?") +
                                     " (bench-results-" + sc + ".json), NOT this run";
    }
    PrintScale(sc, r.ours, r.real, label, names);
    std::fflush(stdout);
    results.push_back(std::move(r));
  }
  PrintScalingTable(results);
  return 0;
}
