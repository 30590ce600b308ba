// trace_data_test.cc — the canonical trace covers data (trace_data.h): one changed cell of one
// seed row changes the digest while the event sequence stays the same; a run's trace holds its
// seed tables, applied write-sets, delivered rows, checkpoints and every injected fault with
// its parameters; the readable detail reaches the file only, so a trace file changes no digest
// and its canonical lines hash to the digest.
#include "sim/run/trace_data.h"

#include <fstream>
#include <string>
#include <vector>

#include "base/str_util.h"
#include "gtest/gtest.h"
#include "sim/run/runner.h"
#include "sim/run/trace.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/workload/schema.h"
#include "xxhash.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

std::vector<std::string> FileLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The event sequence: every canonical line with its data hashes (and the file's detail) taken
// out — what the trace said before it covered data.
std::vector<json> EventSequence(const std::vector<std::string>& lines) {
  std::vector<json> events;
  for (const std::string& line : lines) {
    json j = json::parse(line);
    for (const char* key : {"hash", "detail", "views", "local_views", "store"}) j.erase(key);
    events.push_back(std::move(j));
  }
  return events;
}

RunResult RunTraced(const Scenario& s, const std::string& name) {
  RunOptions o;
  o.trace_path = testing::TempDir() + "/" + name;
  return RunScenario(s, o);
}

// Seed 3 delivers its first comment row to a view (a snapshot's rows), so the drifted body
// reaches rows lines and view checkpoints, not only the seed line. No query filters or sorts
// on comment.body, so the run takes the same path.
TEST(TraceDataTest, OneSeedCellChangesTheDigestNotTheEventSequence) {
  auto base = GenerateScenario(3);
  ASSERT_TRUE(base.ok()) << base.status();
  auto schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok()) << schema.status();
  const int body = schema->at("comment").ColumnIndex("body");
  ASSERT_GE(body, 0);
  ASSERT_FALSE(base->seed_rows["comment"].empty());
  Scenario drifted = *base;
  Value& cell = drifted.seed_rows["comment"][0][static_cast<size_t>(body)];
  cell = Value::String(cell.as_string() + " (drifted)");

  const RunResult a = RunTraced(*base, "drift_a.jsonl");
  const RunResult b = RunTraced(drifted, "drift_b.jsonl");
  ASSERT_TRUE(a.ok) << a.property << ": " << a.message;
  ASSERT_TRUE(b.ok) << b.property << ": " << b.message;
  EXPECT_NE(a.digest, b.digest);
  const std::vector<std::string> la = FileLines(testing::TempDir() + "/drift_a.jsonl");
  const std::vector<std::string> lb = FileLines(testing::TempDir() + "/drift_b.jsonl");
  EXPECT_EQ(EventSequence(la), EventSequence(lb));
  EXPECT_EQ(a.steps, b.steps);
  // The drift shows past the seed line: in delivered rows and in view checkpoints.
  int seed_diffs = 0, rows_diffs = 0, checkpoint_diffs = 0;
  for (size_t i = 0; i < std::min(la.size(), lb.size()); ++i) {
    if (la[i] == lb[i]) continue;
    const std::string ev = json::parse(la[i]).value("ev", "");
    seed_diffs += ev == "seed";
    rows_diffs += ev == "rows";
    checkpoint_diffs += ev == "checkpoint";
  }
  EXPECT_EQ(seed_diffs, 1);
  EXPECT_GT(rows_diffs, 0);
  EXPECT_GT(checkpoint_diffs, 0);
}

TEST(TraceDataTest, TheSameSeedTwiceGivesTheSameDigestWithOrWithoutATraceFile) {
  for (uint64_t seed : {3, 7}) {
    RunOptions plain;
    plain.seed = seed;
    RunOptions traced = plain;
    traced.trace_path = testing::TempDir() + "/same_seed.jsonl";
    const RunResult a = RunSeed(plain);
    const RunResult b = RunSeed(plain);
    const RunResult c = RunSeed(traced);
    EXPECT_EQ(a.digest, b.digest) << "seed " << seed;
    EXPECT_EQ(a.digest, c.digest) << "seed " << seed << ": the trace file changed the digest";
    // The file's canonical lines are exactly what the digest covers.
    std::string canonical;
    for (const std::string& line : FileLines(traced.trace_path)) {
      canonical += CanonicalLine(line) + "\n";
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(canonical.data(), canonical.size())));
    EXPECT_EQ(std::string(hex), a.digest) << "seed " << seed;
  }
}

TEST(TraceDataTest, TheTraceHoldsDataLinesAndEveryFaultWithItsParameters) {
  auto scenario = GenerateScenario(3);
  ASSERT_TRUE(scenario.ok());
  const RunResult r = RunTraced(*scenario, "kinds.jsonl");
  ASSERT_TRUE(r.ok) << r.message;
  std::map<std::string, int> kinds;
  std::vector<json> faults;
  json an_apply, a_rows;
  for (const std::string& line : FileLines(testing::TempDir() + "/kinds.jsonl")) {
    json j = json::parse(line);
    const std::string ev = j.value("ev", "");
    ++kinds[ev];
    if (ev == "fault") faults.push_back(j);
    if (ev == "apply" && an_apply.is_null() && j["writes"].get<int>() > 0) an_apply = j;
    if (ev == "rows" && a_rows.is_null()) a_rows = j;
    if (ev == "checkpoint") kinds[StrCat("checkpoint@", j.value("at", ""))]++;
  }
  EXPECT_EQ(kinds["seed"], static_cast<int>(scenario->seed_rows.size()));
  EXPECT_GT(kinds["apply"], 0);
  EXPECT_GT(kinds["rows"], 0);
  EXPECT_EQ(kinds["checkpoint@end"], 1);
  EXPECT_EQ(kinds["checkpoint@step"], static_cast<int>(r.steps / DataTracer::kCheckpointEvery));
  EXPECT_GT(kinds["fault_counters"], 0);
  // Every scenario fault that fired (before the heal) is a fault line with its parameters.
  std::vector<json> expected;
  for (const ScenarioFault& f : scenario->faults) {
    if (f.t_ms > scenario->config.safety_ms) continue;
    json j = FaultToJson(f);
    j["ev"] = "fault";
    expected.push_back(j);
  }
  EXPECT_EQ(faults, expected);
  // Readable: the applied rows and the delivered rows name table, pk and columns.
  ASSERT_FALSE(an_apply.is_null());
  const json& row = an_apply["detail"]["rows"][0];
  EXPECT_TRUE(row.contains("table")) << an_apply;
  EXPECT_TRUE(row["pk"].is_object()) << an_apply;
  EXPECT_TRUE(row["row"].is_object()) << an_apply;
  ASSERT_FALSE(a_rows.is_null());
  const json& op = a_rows["detail"]["ops"][0];
  EXPECT_TRUE(op["row"].is_object()) << a_rows;
  EXPECT_TRUE(op["pk"].is_object()) << a_rows;
}

}  // namespace
}  // namespace rindle::sim
