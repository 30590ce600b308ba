// results_test.cc — the built `rindle-sim` binary (RINDLE_SIM_BINARY): `--version`, the
// reproduce commands of failures, and the results file (header, per-line options, strict
// reading, refusals, the lock). Each test works in its own temporary directory.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using Outcome = ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;
using ::rindle::testing::Match;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::TestDir;
using ::rindle::testing::WriteFile;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

// A fresh directory for one test (TEST_TMPDIR is private per run; the name per test).
std::string TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "/results_test_" + info->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ResultsTest, VersionPrintsTheVersionAndTheCommit) {
  for (const char* args : {"--version", "version"}) {
    Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_TRUE(std::regex_search(
        o.output, std::regex(R"(^rindle-sim \S+ \(commit ([0-9a-f]{4,40}(-dirty)?|unknown)\)\n$)")))
        << o.output;
  }
}

// The reproduce commands a fuzz campaign prints (each failure line, the failed-seeds summary,
// JUnit) carry --max-steps and --swarm off, and running the printed command fails the same
// way. Before: "reproduce with: rindle-sim run --seed N", which passes (the flags dropped).
TEST(ResultsTest, PrintedReproduceCommandReproducesTheFailure) {
  const std::string dir = TestDir();
  const std::string xml = dir + "/junit.xml";
  Outcome o = RunCli("fuzz --seeds 5..6 --max-steps 300 --swarm off --quiet "
                     "--determinism-check 0 --out '" + dir + "/r.jsonl' --junit '" + xml + "'");
  ASSERT_EQ(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "reproduce with: rindle-sim run --seed N --max-steps 300 "
                                 "--swarm off)")) << o.output;
  const std::string junit = ReadFile(xml);
  std::smatch m;
  const std::regex line_re(
      R"(seed=(\d+) property=(\S+) step=(\d+)[^\n]*\n  reproduce: (rindle-sim run [^\n]*)\n)");
  int checked = 0;
  for (auto it = std::sregex_iterator(o.output.begin(), o.output.end(), line_re);
       it != std::sregex_iterator(); ++it) {
    const std::string seed = (*it)[1], property = (*it)[2], step = (*it)[3], cmd = (*it)[4];
    EXPECT_EQ(cmd, "rindle-sim run --seed " + seed + " --max-steps 300 --swarm off");
    EXPECT_TRUE(Contains(junit, "reproduce: " + cmd + "</failure>")) << junit;
    Outcome again = RunCli(cmd.substr(std::string("rindle-sim ").size()));
    EXPECT_EQ(again.exit_code, 1) << cmd << "\n" << again.output;
    EXPECT_TRUE(Contains(again.output, "property=" + property + " step=" + step))
        << cmd << "\n" << again.output;
    // The command without the campaign's options (what was printed before) passes.
    EXPECT_EQ(RunCli("run --seed " + seed + " --swarm off").exit_code, 0);
    ++checked;
  }
  EXPECT_EQ(checked, 2) << o.output;
}

// `--room-views` is a scenario property, not the environment: it reaches the generated
// scenario (config.room_views), the results header, the printed reproduce command (which then
// fails the same way) and a resume under the other setting is refused. On is the default (the
// emitted scenario says so and `run --seed 7` gives `--room-views on`'s digest); off, the emitted
// scenario has no room_views. Before: only RINDLE_SIM_ROOM_VIEWS in the environment turned the
// plane on, and no command showed it.
TEST(ResultsTest, RoomViewsFlagReachesTheScenarioAndTheReproduceCommand) {
  const std::string dir = TestDir();
  const std::string out = dir + "/r.jsonl";
  Outcome o = RunCli("fuzz --seeds 5..5 --max-steps 300 --room-views off --quiet "
                     "--determinism-check 0 --out '" + out + "'");
  ASSERT_EQ(o.exit_code, 1) << o.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.output, m, std::regex(
      R"(seed=5 property=(\S+) step=(\d+)[^\n]*\n  reproduce: (rindle-sim run [^\n]*)\n)")))
      << o.output;
  const std::string property = m[1], step = m[2], cmd = m[3];
  EXPECT_EQ(cmd, "rindle-sim run --seed 5 --max-steps 300 --room-views off");
  Outcome again = RunCli(cmd.substr(std::string("rindle-sim ").size()));
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_TRUE(Contains(again.output, "property=" + property + " step=" + step)) << again.output;
  EXPECT_FALSE(Contains(again.output, "room_views.enabled")) << again.output;
  const nlohmann::json header = nlohmann::json::parse(Lines(ReadFile(out))[0]);
  EXPECT_EQ(header["options"]["room_views"], false) << header.dump();
  Outcome resume = RunCli("fuzz --seeds 5..6 --max-steps 300 --quiet --resume --out '" + out +
                          "'");
  EXPECT_EQ(resume.exit_code, 2) << resume.output;
  EXPECT_TRUE(Contains(resume.output, "--room-views: the file has false, this campaign true"))
      << resume.output;

  const std::string on_file = dir + "/on.json", off_file = dir + "/off.json";
  ASSERT_NE(RunCli("run --seed 7 --room-views on --emit-scenario '" + on_file + "'").exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(on_file))["config"]["room_views"], true);
  Outcome off = RunCli("run --seed 7 --room-views off --emit-scenario '" + off_file + "'");
  EXPECT_FALSE(nlohmann::json::parse(ReadFile(off_file))["config"].contains("room_views"));
  EXPECT_FALSE(Contains(off.output, "room_views.enabled")) << off.output;
  const std::string default_file = dir + "/default.json";
  Outcome by_default = RunCli("run --seed 7 --emit-scenario '" + default_file + "'");
  EXPECT_EQ(nlohmann::json::parse(ReadFile(default_file))["config"]["room_views"], true);
  EXPECT_TRUE(Contains(by_default.output, "room_views.enabled")) << by_default.output;
  Outcome explicit_on = RunCli("run --seed 7 --room-views on");
  const std::regex digest_re("digest=([0-9a-f]{16})");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(by_default.output, a, digest_re)) << by_default.output;
  ASSERT_TRUE(std::regex_search(explicit_on.output, b, digest_re)) << explicit_on.output;
  EXPECT_EQ(a[1], b[1]);
  EXPECT_EQ(RunCli("run --seed 7 --room-views maybe").exit_code, 2);
  EXPECT_EQ(RunCli("shrink --seed 7 --room-views maybe").exit_code, 2);
}

// A results file starts with a header (format, version, commit, options) and each seed line
// carries the options; --resume under other options is refused naming the option and both
// values, and the file is left as it was.
TEST(ResultsTest, ResultsFileRecordsOptionsAndResumeRefusesOtherOptions) {
  const std::string dir = TestDir();
  const std::string out = dir + "/r.jsonl";
  Outcome first = RunCli("fuzz --seeds 1..2 --max-steps 5000 --quiet --determinism-check 0 "
                         "--out '" + out + "'");
  ASSERT_TRUE(first.exit_code == 0 || first.exit_code == 1) << first.output;
  const std::string text = ReadFile(out);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  nlohmann::json header = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(header["rindle_results"], 1);
  EXPECT_TRUE(Contains(RunCli("--version").output,
                       "rindle-sim " + header["version"].get<std::string>() + " (commit " +
                           header["commit"].get<std::string>() + ")"));
  EXPECT_TRUE(header["commit"].is_string());
  const nlohmann::json options = {{"max_steps", 5000}, {"room_views", true}, {"swarm", true}};
  EXPECT_EQ(header["options"], options);
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(nlohmann::json::parse(lines[i])["options"], options) << lines[i];
  }
  Outcome steps = RunCli("fuzz --seeds 1..3 --quiet --resume --out '" + out + "'");
  EXPECT_EQ(steps.exit_code, 2) << steps.output;
  EXPECT_TRUE(Contains(steps.output, "--max-steps: the file has 5000, this campaign 200000"))
      << steps.output;
  Outcome swarm = RunCli("fuzz --seeds 1..3 --max-steps 5000 --swarm off --quiet --resume "
                         "--out '" + out + "'");
  EXPECT_EQ(swarm.exit_code, 2) << swarm.output;
  EXPECT_TRUE(Contains(swarm.output, "--swarm: the file has true, this campaign false"))
      << swarm.output;
  EXPECT_EQ(ReadFile(out), text);
  Outcome same = RunCli("fuzz --seeds 1..3 --max-steps 5000 --quiet --determinism-check 0 "
                        "--resume --out '" + out + "'");
  EXPECT_TRUE(same.exit_code == 0 || same.exit_code == 1) << same.output;
  EXPECT_TRUE(Contains(same.output, "resumed: 2 seeds")) << same.output;
  EXPECT_EQ(Lines(ReadFile(out)).size(), 4u);
}

// Without --resume an existing non-empty results file is refused and left alone (before: the
// campaign appended a second line for every seed); an empty one is used.
TEST(ResultsTest, WithoutResumeAnExistingResultsFileIsRefusedNotAppendedTo) {
  const std::string dir = TestDir();
  const std::string out = dir + "/r.jsonl";
  const std::string args = "fuzz --seeds 1..2 --quiet --determinism-check 0 --out '" + out + "'";
  WriteFile(out, "");
  ASSERT_EQ(RunCli(args).exit_code, 0);
  const std::string text = ReadFile(out);
  Outcome again = RunCli(args);
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_TRUE(Contains(again.output, "\"" + out + "\": already holds results; use --resume"))
      << again.output;
  EXPECT_EQ(ReadFile(out), text);
}

// --resume reads strictly: every malformed file is refused naming the file and the line, and
// is left as it was. Before: 6.9 was read as seed 6, a failure followed by a pass counted as
// passed, a file without a header was resumed over.
TEST(ResultsTest, ResumeRefusesBadSeedsConflictsAndForeignHeaders) {
  const std::string dir = TestDir();
  const std::string out = dir + "/r.jsonl";
  const std::string args = "fuzz --seeds 1..2 --max-steps 300 --quiet --determinism-check 0 "
                           "--out '" + out + "'";
  ASSERT_EQ(RunCli(args).exit_code, 1);  // 300 steps: both seeds fail liveness
  const std::vector<std::string> good = Lines(ReadFile(out));
  ASSERT_EQ(good.size(), 3u);
  const std::string header = good[0];
  nlohmann::json failed = nlohmann::json::parse(good[1]);
  nlohmann::json passed = failed;
  passed["ok"] = true;
  passed["property"] = "";
  auto with_seed = [&](const std::string& seed_literal) {
    std::string line = failed.dump();
    return std::regex_replace(line, std::regex(R"("seed":\d+)"), "\"seed\":" + seed_literal);
  };
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {header + "\n" + with_seed("6.9") + "\n", "line 2: field \"seed\": expected an integer"},
      {header + "\n" + with_seed("-1") + "\n", "line 2: field \"seed\""},
      {header + "\n" + with_seed("\"6\"") + "\n", "line 2: field \"seed\""},
      {header + "\n" + with_seed("1e3") + "\n", "line 2: field \"seed\""},
      {header + "\n" + with_seed("18446744073709551616") + "\n", "line 2: field \"seed\""},
      {header + "\n" + good[1] + "\nnot json\n", "line 3: not JSON"},
      {good[1] + "\n" + good[2] + "\n", "line 1: not a rindle-sim results file"},
      {"{\"rindle_results\":2,\"options\":{}}\n", "line 1: results format 2 is not supported"},
      {header + "\n" + good[1] + "\n" + passed.dump() + "\n",
       "line 3: seed 1 conflicts with line 2 (liveness vs passed)"},
  };
  for (const Case& c : cases) {
    WriteFile(out, c.text);
    Outcome o = RunCli(args + " --resume");
    EXPECT_EQ(o.exit_code, 2) << c.text << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "\"" + out + "\" " + c.expected)) << c.text << "\n" << o.output;
    EXPECT_EQ(ReadFile(out), c.text);
  }
  // The largest 64-bit seed is exact; an identical duplicate is accepted; a torn last line is
  // cut off and that seed runs again.
  WriteFile(out, header + "\n" + good[1] + "\n" + good[1] + "\n" +
                     with_seed("18446744073709551615") + "\n" +
                     good[2].substr(0, good[2].size() / 2));
  Outcome ok = RunCli(args + " --resume");
  EXPECT_EQ(ok.exit_code, 1) << ok.output;
  EXPECT_TRUE(Contains(ok.output, "2 seeds already in")) << ok.output;  // 1 and 2^64-1
  EXPECT_TRUE(Contains(ok.output, "torn last line was cut off")) << ok.output;
  EXPECT_TRUE(Contains(ok.output, "failed seeds (reproduce with: rindle-sim run --seed N "
                                  "--max-steps 300): 1 2\n")) << ok.output;
}

// Two campaigns cannot write one results file: while one holds it, a second is refused (exit
// 2, naming the file) and nothing is written. Before: both appended, every seed twice.
TEST(ResultsTest, ALockedResultsFileIsRefused) {
  const std::string dir = TestDir();
  const std::string out = dir + "/r.jsonl";
  WriteFile(out, "");
  const int fd = ::open(out.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  ASSERT_EQ(::fcntl(fd, F_SETLK, &lock), 0);  // as a running campaign holds it
  for (const char* extra : {"", " --resume"}) {
    Outcome o = RunCli(std::string("fuzz --seeds 1..2 --quiet --out '") + out + "'" + extra);
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_TRUE(Contains(o.output, "\"" + out + "\": another campaign is writing this results "
                                   "file")) << o.output;
    // (not ReadFile: closing any descriptor of the file would drop this process's lock)
    EXPECT_EQ(std::filesystem::file_size(out), 0u);
  }
  ::close(fd);
  Outcome free = RunCli("fuzz --seeds 1..2 --quiet --determinism-check 0 --out '" + out + "'");
  EXPECT_EQ(free.exit_code, 0) << free.output;
}

}  // namespace
