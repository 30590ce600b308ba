// merge_test.cc — `rindle-sim merge` (cli/merge.h; issue 15 "Campaigns across machines"): two
// shards merge to the lines and the counters/health summary of a one-machine campaign over the
// same seeds, failures keep their reproduce commands, and every bad input is refused (exit 2,
// naming the file) before any output is written.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::WriteFile;

// A short step budget makes the seeds quick, and some of them fail `liveness` — merge must
// carry failures and their options (--max-steps) into the reproduce commands.
constexpr char kCampaign[] = "fuzz --seeds 1..4 --max-steps 300 --determinism-check 0 --quiet";

// From the counters table on: what a one-machine campaign and a merge both print.
std::string CountersOn(const std::string& out) {
  std::string s = out.substr(std::min(out.find("counters ("), out.size()));
  return s.substr(0, s.find("junit:"));
}

// The lines after the header, sorted (a campaign writes them in completion order).
std::string SeedLines(const std::string& text) {
  std::string body = text.substr(text.find('\n') + 1);
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < body.size()) {
    size_t nl = body.find('\n', at);
    lines.push_back(body.substr(at, nl - at));
    at = nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// `text` with its first `from` replaced by `to` (concatenation: GCC 12's -Wrestrict misfires on
// std::string::replace with a longer replacement).
std::string Replaced(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) return text;
  return text.substr(0, at) + to + text.substr(at + from.size());
}

class MergeTest : public ::testing::Test {
 protected:
  // One set of shard files and one one-machine campaign for the whole suite.
  static void SetUpTestSuite() {
    // Per process: ctest runs each test of the suite as its own process, in parallel, and each
    // runs this set-up; a shared directory let one process delete another's shard files.
    dir_ = new std::string(::testing::TempDir() + "/merge_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(*dir_);
    std::filesystem::create_directories(*dir_);
    for (int i = 0; i < 2; ++i) {
      RunCli(std::string(kCampaign) + " --shard " + std::to_string(i) + "/2 --out '" + *dir_ +
             "/s" + std::to_string(i) + ".jsonl'");
    }
    *(all_ = new CommandOutcome) =
        RunCli(std::string(kCampaign) + " --out '" + *dir_ + "/all.jsonl'");
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete all_;
  }
  static std::string P(const std::string& name) { return *dir_ + "/" + name; }
  // P(name) quoted for the shell.
  static std::string Q(const std::string& name) {
    std::string q = "'";
    q.append(P(name)).append("'");
    return q;
  }
  static CommandOutcome Merge(const std::string& args) { return RunCli("merge " + args); }

  static std::string* dir_;
  static CommandOutcome* all_;
};
std::string* MergeTest::dir_ = nullptr;
CommandOutcome* MergeTest::all_ = nullptr;

TEST_F(MergeTest, ShardsMergeToTheOneMachineCampaign) {
  const std::string out = P("merged.jsonl");
  std::filesystem::remove(out);
  CommandOutcome m = Merge(Q("s0.jsonl") + " " + Q("s1.jsonl") + " --out " + Q("merged.jsonl") +
                           " --junit " + Q("merged.xml"));
  ASSERT_EQ(m.exit_code, all_->exit_code) << m.output << "\n---\n" << all_->output;
  EXPECT_TRUE(Contains(m.output, "rindle-sim merge: 2 results files, 4 seeds")) << m.output;
  EXPECT_EQ(CountersOn(m.output), CountersOn(all_->output));
  EXPECT_EQ(SeedLines(ReadFile(out)), SeedLines(ReadFile(P("all.jsonl"))));
  EXPECT_EQ(ReadFile(out).substr(0, ReadFile(out).find('\n')),
            ReadFile(P("all.jsonl")).substr(0, ReadFile(P("all.jsonl")).find('\n')));
  if (all_->exit_code == 1) {
    EXPECT_TRUE(Contains(m.output, "reproduce: rindle-sim run --seed ")) << m.output;
    EXPECT_TRUE(Contains(m.output, "--max-steps 300")) << m.output;
  }
  EXPECT_TRUE(Contains(ReadFile(P("merged.xml")), "<testsuite")) << ReadFile(P("merged.xml"));
}

TEST_F(MergeTest, ASeedInTwoFilesWithTheSameResultCountsOnce) {
  CommandOutcome m = Merge(Q("s0.jsonl") + " " + Q("all.jsonl") + " --out " + Q("dup.jsonl"));
  EXPECT_EQ(m.exit_code, all_->exit_code) << m.output;
  EXPECT_TRUE(Contains(m.output, "4 seeds")) << m.output;
  EXPECT_TRUE(Contains(m.output, "duplicates: 2 seeds")) << m.output;
}

TEST_F(MergeTest, BadInputsAreRefusedBeforeAnythingIsWritten) {
  const std::string s0 = ReadFile(P("s0.jsonl"));
  const std::string header = s0.substr(0, s0.find('\n') + 1);
  const std::string body = s0.substr(s0.find('\n') + 1);
  WriteFile(P("torn.jsonl"), s0 + "{\"seed\": 9, \"ok\": tr");
  WriteFile(P("empty.jsonl"), "");
  WriteFile(P("options.jsonl"),
            Replaced(header, "\"max_steps\":300", "\"max_steps\":301") + body);
  WriteFile(P("build.jsonl"), Replaced(header, "\"commit\":\"", "\"commit\":\"zz") + body);
  std::string flipped = s0;
  const size_t digest = flipped.find("\"digest\":\"", header.size()) + 10;
  flipped[digest] = flipped[digest] == '0' ? '1' : '0';
  WriteFile(P("conflict.jsonl"), flipped);
  struct Case {
    std::string inputs, expect;
  };
  for (const Case& c : {Case{"torn.jsonl", "its last line is torn"},
                        Case{"empty.jsonl", "no results header"},
                        Case{"options.jsonl", "--max-steps: the file has"},
                        Case{"build.jsonl", "made by another build"},
                        Case{"conflict.jsonl", "disagree"}}) {
    const std::string out = P("refused.jsonl");
    std::filesystem::remove(out);
    CommandOutcome m = Merge(Q("s0.jsonl") + " " + Q(c.inputs) + " --out " + Q("refused.jsonl"));
    EXPECT_EQ(m.exit_code, 2) << c.inputs << "\n" << m.output;
    EXPECT_TRUE(Contains(m.output, c.expect)) << c.inputs << "\n" << m.output;
    EXPECT_TRUE(Contains(m.output, c.inputs)) << "names the file: " << m.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.inputs;
  }
}

TEST_F(MergeTest, UsageErrorsNeverTouchAnInput) {
  const std::string before = ReadFile(P("s0.jsonl"));
  CommandOutcome a = Merge(Q("s0.jsonl") + " --out " + Q("s0.jsonl"));
  EXPECT_EQ(a.exit_code, 2) << a.output;
  EXPECT_TRUE(Contains(a.output, "is an input")) << a.output;
  CommandOutcome b = Merge(Q("s0.jsonl") + " --out " + Q("x.jsonl") + " --junit " + Q("s0.jsonl"));
  EXPECT_EQ(b.exit_code, 2) << b.output;
  EXPECT_TRUE(Contains(b.output, "--junit")) << b.output;
  CommandOutcome c = Merge(Q("s0.jsonl"));
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_TRUE(Contains(c.output, "--out: required")) << c.output;
  CommandOutcome d = Merge("--out " + Q("x.jsonl"));
  EXPECT_EQ(d.exit_code, 2) << d.output;
  CommandOutcome e = Merge(Q("missing.jsonl") + " --out " + Q("x.jsonl"));
  EXPECT_EQ(e.exit_code, 2) << e.output;
  EXPECT_TRUE(Contains(e.output, "missing.jsonl")) << e.output;
  EXPECT_EQ(ReadFile(P("s0.jsonl")), before);
}

}  // namespace
