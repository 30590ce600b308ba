// inputs_test.cc — issue 15's "User files get destroyed" and "Every bad input refused", through
// the built binary (RINDLE_SIM_BINARY): outputs never truncate a user's file before the inputs
// were read, an output equal to an input is refused, hostile input files get exit 2 with a
// clear error (file, JSON path, what was expected), an empty replay folder is an error, and
// check-case's malformed cases are input errors, not engine failures.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

namespace rindle::sim::cli {
namespace {

namespace fs = std::filesystem;
using ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;

CommandOutcome Cli(const std::string& args) {
  return ::rindle::testing::RunCommand(RINDLE_SIM_BINARY, args);
}

// A fresh private directory (mkdtemp: unique across processes and build trees).
std::string Scratch() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/inputs_test.XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

std::string Slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Put(const std::string& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string Q(const std::string& p) { return "'" + p + "'"; }

// A generated scenario file of seed 1 in `dir`.
std::string Scenario(const std::string& dir) {
  const std::string path = dir + "/s.json";
  CommandOutcome o = Cli("run --seed 1 --emit-scenario " + Q(path));
  EXPECT_EQ(o.exit_code, 0) << o.output;
  return path;
}

size_t Entries(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

TEST(InputsTest, ShrinkOutEqualToItsScenarioKeepsTheFile) {
  const std::string dir = Scratch();
  const std::string s = Scenario(dir);
  const std::string before = Slurp(s);
  ASSERT_FALSE(before.empty());
  for (const std::string& out : {s, dir + "/./s.json"}) {
    CommandOutcome o = Cli("shrink --scenario " + Q(s) + " --out " + Q(out));
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_TRUE(Contains(o.output, "is the same file as --scenario")) << o.output;
    EXPECT_EQ(Slurp(s), before);  // before the fix: s.json was left empty
  }
}

TEST(InputsTest, AnInputErrorNeverTruncatesAnOutput) {
  const std::string dir = Scratch();
  const std::string out = dir + "/out.json";
  Put(out, "precious");
  CommandOutcome o = Cli("shrink --scenario " + Q(dir + "/missing.json") + " --out " + Q(out));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_EQ(Slurp(out), "precious");
  // run: the trace was truncated before --emit-scenario failed.
  const std::string trace = dir + "/trace.txt";
  Put(trace, "precious");
  o = Cli("run --seed 1 --trace " + Q(trace) + " --emit-scenario " + Q(dir + "/no/dir/x.json"));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_EQ(Slurp(trace), "precious");
  EXPECT_EQ(Entries(dir), 2u);  // no temporary left behind
}

TEST(InputsTest, RunRefusesOutputsOnItsInputOrOnEachOther) {
  const std::string dir = Scratch();
  const std::string s = Scenario(dir);
  const std::string before = Slurp(s);
  for (const char* flag : {"--emit-scenario", "--trace", "--report", "--timeline"}) {
    CommandOutcome o = Cli("run --scenario " + Q(s) + " " + flag + " " + Q(s));
    EXPECT_EQ(o.exit_code, 2) << flag << o.output;
    EXPECT_TRUE(Contains(o.output, "is the same file as --scenario")) << o.output;
    EXPECT_EQ(Slurp(s), before) << flag;
  }
  const std::string t = dir + "/t.out";
  CommandOutcome o = Cli("run --seed 1 --trace " + Q(t) + " --timeline " + Q(t));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, "--timeline \"" + t + "\": is the same file as --trace"))
      << o.output;
}

TEST(InputsTest, RunWritesItsOutputsInPlaceWithoutTemporaries) {
  const std::string dir = Scratch();
  const std::string trace = dir + "/trace.txt";
  const std::string timeline = dir + "/timeline.html";
  Put(trace, "old");
  CommandOutcome o = Cli("run --seed 1 --trace " + Q(trace) + " --timeline " + Q(timeline));
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "trace: " + trace)) << o.output;
  EXPECT_NE(Slurp(trace), "old");
  EXPECT_FALSE(Slurp(trace).empty());
  EXPECT_FALSE(Slurp(timeline).empty());
  EXPECT_EQ(Entries(dir), 2u);
}

TEST(InputsTest, ReplayOfAFolderWithoutScenariosFails) {
  const std::string dir = Scratch();
  CommandOutcome o = Cli("replay " + Q(dir));
  EXPECT_EQ(o.exit_code, 2) << o.output;  // before the fix: 0, "0 files"
  EXPECT_TRUE(Contains(o.output, "ERROR " + dir + ": holds no *.json scenario files")) << o.output;
}

// A scenario file whose text is `s.json`'s with `from` replaced by `to`.
std::string Edited(const std::string& dir, const std::string& name, const std::string& from,
                   const std::string& to) {
  std::string text = Slurp(Scenario(dir));
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  Put(dir + "/" + name, text);
  return dir + "/" + name;
}

TEST(InputsTest, HostileScenarioFilesAreRefusedNamingFileAndField) {
  const std::string dir = Scratch();
  const std::string dup = Edited(dir, "dup.json", "\"expect\": \"pass\"",
                                 "\"expect\": \"fail\", \"property\": \"crash\", \"expect\": \"pass\"");
  const std::string prop = Edited(dir, "prop.json", "\"expect\": \"pass\"",
                                  "\"expect\": \"fail\", \"property\": \"view==frsh\"");
  const std::string expect = Edited(dir, "expect.json", "\"expect\": \"pass\"", "\"expect\": \"maybe\"");
  const std::string deep = dir + "/deep.json";
  Put(deep, std::string(5000, '[') + std::string(5000, ']'));
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {dup, "$.expect: duplicate key \"expect\""},
      {prop, "field \"property\": expected a known property name"},
      {expect, "field \"expect\": expected \"pass\" or \"fail\""},
      {deep, "nested deeper than 256 levels"},
      {fifo, "is a FIFO (named pipe) (expected a regular JSON file)"},
      {"/dev/zero", "is a character device (expected a regular JSON file)"},
  };
  for (const auto& [file, message] : cases) {
    for (const char* cmd : {"run --scenario ", "replay ", "shrink --scenario "}) {
      CommandOutcome o = Cli(cmd + Q(file));
      EXPECT_EQ(o.exit_code, 2) << cmd << file << "\n" << o.output;
      EXPECT_TRUE(Contains(o.output, file)) << o.output;
      EXPECT_TRUE(Contains(o.output, message)) << cmd << file << "\n" << o.output;
    }
  }
}

// A copy of fixtures/rindle-wasm/case-0000 (and its recording) in `dir`, with `from` replaced
// by `to` in the input.
std::string Case(const std::string& dir, const std::string& from, const std::string& to) {
  const std::string src = std::string(RINDLE_FIXTURES_DIR) + "/rindle-wasm/case-0000";
  std::string text = Slurp(src + ".json");
  if (!from.empty()) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  Put(dir + "/case-0000.json", text);
  Put(dir + "/case-0000.expected.json", Slurp(src + ".expected.json"));
  return dir + "/case-0000.json";
}

TEST(InputsTest, CheckCaseInputErrorsExitTwoWithFileAndPath) {
  {
    const std::string dir = Scratch();
    CommandOutcome o = Cli("check-case " + Q(Case(dir, "", "")));
    EXPECT_EQ(o.exit_code, 0) << o.output;  // the unmodified copy passes
  }
  const std::pair<std::string, std::string> edits[] = {
      // a table the schema lacks (before the fix: FAIL step=hydrate, exit 1)
      {"\"ast\":{\"table\":\"issue\"", "\"ast\":{\"table\":\"nope\""},
      // a duplicate key
      {"\"format\":", "\"name\":\"x\",\"format\":"},
  };
  const char* expected[] = {": $.ast: the engine refused the case's input", "duplicate key"};
  for (size_t i = 0; i < 2; ++i) {
    const std::string dir = Scratch();
    const std::string file = Case(dir, edits[i].first, edits[i].second);
    CommandOutcome o = Cli("check-case " + Q(file));
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_TRUE(Contains(o.output, "ERROR " + file)) << o.output;
    EXPECT_TRUE(Contains(o.output, expected[i])) << o.output;
  }
  CommandOutcome zero = Cli("check-case /dev/zero");
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_TRUE(Contains(zero.output, "ERROR /dev/zero: is a character device")) << zero.output;
}

TEST(InputsTest, GenCasesLeavesNoTemporaries) {
  const std::string dir = Scratch();
  CommandOutcome o = Cli("gen-cases --seeds 1..3 --out " + Q(dir));
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(Entries(dir), 3u);
}

}  // namespace
}  // namespace rindle::sim::cli
