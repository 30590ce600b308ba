// cli_test.cc — the built `rindle-sim` binary (RINDLE_SIM_BINARY): help and usage errors exit
// with the documented codes and clear messages; `replay` reports a corrupt scenario as ERROR
// and keeps going. Nothing here depends on what a simulated seed does.
#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"
#include "base/str_util.h"
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

TEST(CliTest, HelpExitsZeroForTheBinaryAndEachCommand) {
  for (const char* args : {"--help", "help", "fuzz --help", "run --help", "replay --help",
                           "shrink --help", "help fuzz", "help shrink"}) {
    Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "Usage")) << args << "\n" << o.output;
  }
}

TEST(CliTest, NoArgumentsOrUnknownCommandIsAUsageError) {
  EXPECT_EQ(RunCli("").exit_code, 2);
  Outcome o = RunCli("frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(Contains(o.output, "unknown command \"frobnicate\"")) << o.output;
}

TEST(CliTest, BadSeedsValueExitsTwoNamingTheFlag) {
  for (const char* value : {"5..2", "abc", "1..", "..3", "-1..4", "1...3"}) {
    Outcome o = RunCli(std::string("fuzz --quiet --out /dev/null --seeds '") + value + "'");
    EXPECT_EQ(o.exit_code, 2) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "--seeds")) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "A..B")) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, value)) << value << "\n" << o.output;
  }
}

TEST(CliTest, OtherBadFlagsExitTwo) {
  Outcome missing = RunCli("fuzz --quiet");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(Contains(missing.output, "--seeds")) << missing.output;

  Outcome jobs = RunCli("fuzz --seeds 1..2 --jobs 0");
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_TRUE(Contains(jobs.output, "--jobs")) << jobs.output;

  Outcome shard = RunCli("fuzz --seeds 1..2 --shard 3/3");
  EXPECT_EQ(shard.exit_code, 2);
  EXPECT_TRUE(Contains(shard.output, "--shard")) << shard.output;

  Outcome unknown = RunCli("fuzz --seeds 1..2 --sedes 3");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.output, "unknown flag --sedes")) << unknown.output;

  Outcome run = RunCli("run --seed nope");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "--seed: expected an unsigned integer")) << run.output;

  EXPECT_EQ(RunCli("run").exit_code, 2);
  EXPECT_EQ(RunCli("replay").exit_code, 2);
}

TEST(CliTest, ReplayReportsCorruptFilesAndKeepsGoing) {
  const std::string dir = testing::TempDir() + "/cli_test_corpus";
  std::remove((dir + "/a-corrupt.json").c_str());
  std::remove((dir + "/b-bad-field.json").c_str());
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/a-corrupt.json") << R"({"format": "rindle-scenario/1", "seed": )";
  std::ofstream(dir + "/b-bad-field.json")
      << R"({"format": "rindle-scenario/1", "seed": "seven", "expect": "pass"})";
  std::ofstream(dir + "/c-good.json")
      << R"({"format": "rindle-scenario/1", "seed": 2, "expect": "pass", "note": "valid"})";

  Outcome o = RunCli("replay '" + dir + "'");
  EXPECT_NE(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR " + dir + "/a-corrupt.json: not valid JSON"))
      << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR " + dir + "/b-bad-field.json: field \"seed\""))
      << o.output;
  EXPECT_TRUE(Contains(o.output, "2 errors")) << o.output;
  // The good file after the corrupt ones still ran.
  EXPECT_TRUE(Contains(o.output, "PASS " + dir + "/c-good.json")) << o.output;
}

TEST(CliTest, ReplayOfAMissingPathIsAnError) {
  Outcome o = RunCli("replay /nonexistent/corpus-dir");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR /nonexistent/corpus-dir")) << o.output;
}


std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// The `digest=...` of a run's output.
std::string DigestOf(const std::string& output) {
  std::smatch m;
  if (std::regex_search(output, m, std::regex("digest=([0-9a-f]{16})"))) return m[1];
  return "";
}

TEST(CliTest, RunScenarioReplaysTheSeedsDigestWithoutTheGenerator) {
  for (int seed : {2, 6, 19}) {
    const std::string file = testing::TempDir() + "/cli_emit_" + std::to_string(seed) + ".json";
    Outcome a = RunCli("run --seed " + std::to_string(seed) + " --emit-scenario '" + file + "'");
    ASSERT_NE(DigestOf(a.output), "") << a.output;
    Outcome b = RunCli("run --scenario '" + file + "'");
    EXPECT_EQ(b.exit_code, a.exit_code) << b.output;
    EXPECT_EQ(DigestOf(b.output), DigestOf(a.output)) << "seed " << seed << "\n" << b.output;
    nlohmann::json doc = nlohmann::json::parse(ReadFile(file));
    EXPECT_EQ(doc["format"], "rindle-scenario/2");
    EXPECT_FALSE(doc["actions"].empty());
  }
}

TEST(CliTest, RunScenarioWithABadFieldExitsTwoNamingFileAndField) {
  const std::string file = testing::TempDir() + "/cli_bad_scenario.json";
  ASSERT_EQ(RunCli("run --seed 2 --emit-scenario '" + file + "'").exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(ReadFile(file));
  doc["faults"] = nlohmann::json::array({{{"kind", "meteor"}, {"t", 5}}});
  std::ofstream(file, std::ios::trunc) << doc.dump();
  Outcome o = RunCli("run --scenario '" + file + "'");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, file)) << o.output;
  EXPECT_TRUE(Contains(o.output, "field \"faults[0].kind\": expected \"link_break\"")) << o.output;
  EXPECT_TRUE(Contains(o.output, "\"meteor\"")) << o.output;
}

// Tag balance of an XML/XHTML document: every element opened is closed in order.
std::string CheckWellFormed(const std::string& doc) {
  std::vector<std::string> stack;
  std::regex tag(R"(<(/?)([A-Za-z][A-Za-z0-9:-]*)([^<>]*?)(/?)>)");
  const std::string body = std::regex_replace(doc, std::regex(R"(<!DOCTYPE[^>]*>|<\?xml[^>]*\?>)"), "");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    if (m[4] == "/") continue;  // self-closing
    if (m[1] == "/") {
      if (stack.empty() || stack.back() != m[2]) {
        return "unbalanced </" + m[2].str() + "> (open: " + (stack.empty() ? "none" : stack.back()) + ")";
      }
      stack.pop_back();
    } else {
      stack.push_back(m[2]);
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  // Text outside tags must not hold a raw '<' or an unescaped '&'.
  const std::string text = std::regex_replace(body, tag, "");
  if (text.find('<') != std::string::npos) return "stray '<' in text";
  if (std::regex_search(text, std::regex(R"(&(?!amp;|lt;|gt;|quot;|#39;))"))) return "raw '&'";
  return "";
}

TEST(CliTest, TimelineIsTheOldNameOfReportAndWritesTheSamePage) {
  const std::string dir = TestDir("cli_timeline_");
  Outcome a = RunCli("run --seed 6 --timeline '" + dir + "/a.html'");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  Outcome b = RunCli("run --seed 6 --report '" + dir + "/b.html'");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_TRUE(Contains(b.output, "report: " + dir + "/b.html")) << b.output;
  const std::string html = ReadFile(dir + "/b.html");
  EXPECT_EQ(ReadFile(dir + "/a.html"), html);
  EXPECT_TRUE(Contains(html, "<canvas id=\"tl\"")) << html.substr(0, 500);
  EXPECT_TRUE(Contains(html, "\"lanes\":[\"authority\",\"authority/c0\",\"c0\""));
  EXPECT_TRUE(Contains(html, "No property failed"));
  Outcome both = RunCli("run --seed 6 --report '" + dir + "/c.html' --timeline '" + dir +
                        "/d.html'");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_TRUE(Contains(both.output, "--timeline is the old name of --report")) << both.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/c.html"));
}

TEST(CliTest, ReportShowsTheFailingStep) {
  // A step budget too small for the run: it fails `liveness`, and the report shows where.
  const std::string file = TestDir("cli_report_") + "/fail.html";
  Outcome o = RunCli("run --seed 6 --max-steps 120 --report '" + file + "'");
  ASSERT_EQ(o.exit_code, 1) << o.output;
  const std::string html = ReadFile(file);
  EXPECT_TRUE(Contains(html, "<span class=\"prop\">liveness</span> failed at step"))
      << html.substr(0, 2000);
  EXPECT_TRUE(Contains(html, "data-step=\"120\""));
  EXPECT_TRUE(Contains(html, "not quiescent after 120 steps"));
}

TEST(CliTest, ShrinkWritesAScenarioThatReplaysToTheSameProperty) {
  const std::string dir = testing::TempDir() + "/cli_shrink";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string original = dir + "/original.json";
  ASSERT_EQ(RunCli("run --seed 3 --swarm off --emit-scenario '" + original + "'").exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(ReadFile(original));
  doc["max_steps"] = 150;  // every busy run now fails `liveness`
  std::ofstream(original, std::ios::trunc) << doc.dump();
  const std::string shrunk = dir + "/shrunk.json";
  Outcome o = RunCli("shrink --quiet --scenario '" + original + "' --max-runs 150 --out '" +
                     shrunk + "'");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "steps:")) << o.output;
  nlohmann::json out = nlohmann::json::parse(ReadFile(shrunk));
  EXPECT_EQ(out["expect"], "fail");
  EXPECT_EQ(out["property"], "liveness");
  EXPECT_EQ(out["seed"], 3);
  EXPECT_LT(out["actions"].size(), doc["actions"].size());
  Outcome replay = RunCli("run --scenario '" + shrunk + "'");
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
  EXPECT_TRUE(Contains(replay.output, "property=liveness")) << replay.output;
  Outcome judged = RunCli("replay '" + shrunk + "'");
  EXPECT_EQ(judged.exit_code, 0) << judged.output;
  EXPECT_TRUE(Contains(judged.output, "PASS")) << judged.output;
  // A passing seed has nothing to shrink.
  Outcome pass = RunCli("shrink --quiet --seed 2 --out '" + dir + "/none.json'");
  EXPECT_EQ(pass.exit_code, 1) << pass.output;
  EXPECT_TRUE(Contains(pass.output, "nothing to shrink")) << pass.output;
}

std::map<uint64_t, std::string> ResultLinesBySeed(const std::string& path, int* duplicates) {
  std::map<uint64_t, std::string> by_seed;
  *duplicates = 0;
  for (const std::string& line : Lines(ReadFile(path))) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      continue;  // a torn line from the kill
    }
    if (!j.contains("seed")) continue;  // the header
    const uint64_t seed = j["seed"].get<uint64_t>();
    if (!by_seed.emplace(seed, line).second) ++*duplicates;
  }
  return by_seed;
}

// SPEC: a killed campaign resumed with --resume loses no finding and repeats no seed.
// --resume cuts a torn last line off (that seed runs again, the file stays valid JSON lines)
// and refuses a file with corrupt complete lines; --junit may not overwrite the results file.
TEST(CliTest, ResumeCutsATornTailAndRefusesACorruptFile) {
  const std::string dir = ::testing::TempDir();
  const std::string out = dir + "/resume-torn.jsonl";
  std::remove(out.c_str());
  Outcome first = RunCli("fuzz --seeds 1..3 --jobs 1 --quiet --determinism-check 0 --out '" + out + "'");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::string text;
  {
    std::ifstream in(out);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(text.size(), 20u);
  {
    std::ofstream cut(out, std::ios::trunc);
    cut << text.substr(0, text.size() - 20);  // the last line loses its end
  }
  Outcome resumed =
      RunCli("fuzz --seeds 1..4 --jobs 1 --quiet --determinism-check 0 --resume --out '" + out + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("torn last line was cut off"), std::string::npos) << resumed.output;
  std::ifstream in(out);
  std::string line;
  std::set<uint64_t> seeds;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    nlohmann::json j = nlohmann::json::parse(line);  // every line parses
    if (lines == 1) continue;                         // the header
    seeds.insert(j["seed"].get<uint64_t>());
  }
  EXPECT_EQ(lines, 5);
  EXPECT_EQ(seeds, (std::set<uint64_t>{1, 2, 3, 4}));

  {
    std::ofstream app(out, std::ios::app);
    app << "not a result\n";
  }
  Outcome corrupt = RunCli("fuzz --seeds 1..5 --jobs 1 --quiet --resume --out '" + out + "'");
  EXPECT_EQ(corrupt.exit_code, 2) << corrupt.output;
  EXPECT_NE(corrupt.output.find("line 6"), std::string::npos) << corrupt.output;

  Outcome same = RunCli("fuzz --seeds 1..2 --quiet --out '" + out + "' --junit '" + out + "'");
  EXPECT_EQ(same.exit_code, 2) << same.output;
  EXPECT_NE(same.output.find("--junit: must differ"), std::string::npos) << same.output;
}

TEST(CliTest, ResumeAfterSigkillLosesNothingAndRepeatsNothing) {
  const std::string out = testing::TempDir() + "/cli_resume.jsonl";
  std::remove(out.c_str());
  // A small step budget makes some seeds fail `liveness`: findings to keep.
  const std::string args = "fuzz --seeds 1..24 --jobs 2 --max-steps 900 --determinism-check 0.2 "
                           "--quiet --out '" + out + "'";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl("/bin/sh", "sh", "-c", ("exec '" RINDLE_SIM_BINARY "' " + args).c_str(),
            static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  // The header and 5 seeds.
  while (Lines(ReadFile(out)).size() < 6 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the campaign finished before it could be killed";
  int dups = 0;
  const std::map<uint64_t, std::string> before = ResultLinesBySeed(out, &dups);
  ASSERT_GE(before.size(), 5u);
  ASSERT_LT(before.size(), 24u) << "the campaign finished before it could be killed";
  EXPECT_EQ(dups, 0);

  Outcome resumed = RunCli(args + " --resume");
  EXPECT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.output;
  EXPECT_TRUE(Contains(resumed.output, ::rindle::StrCat("resumed: ", before.size(), " seeds")))
      << resumed.output;
  const std::map<uint64_t, std::string> after = ResultLinesBySeed(out, &dups);
  EXPECT_EQ(dups, 0) << "a seed was run twice";
  ASSERT_EQ(after.size(), 24u);
  EXPECT_EQ(after.begin()->first, 1u);
  EXPECT_EQ(after.rbegin()->first, 24u);
  for (const auto& [seed, line] : before) {
    EXPECT_EQ(after.at(seed), line) << "seed " << seed << "'s result changed or was lost";
  }
  // Every failure found before the kill is in the resumed campaign's failed list.
  for (const auto& [seed, line] : before) {
    if (Contains(line, "\"ok\":false")) {
      const std::string needle = ::rindle::StrCat(" ", seed);
      EXPECT_TRUE(Contains(resumed.output, needle)) << resumed.output;
    }
  }
}

TEST(CliTest, JUnitSummaryListsEverySeedAndFailure) {
  const std::string xml = testing::TempDir() + "/cli_junit.xml";
  Outcome o = RunCli("fuzz --seeds 5..8 --max-steps 300 --quiet --determinism-check 0 --out "
                     "/dev/null --junit '" + xml + "'");
  EXPECT_EQ(o.exit_code, 1) << o.output;  // 300 steps is too few for some of these seeds
  const std::string text = ReadFile(xml);
  EXPECT_EQ(CheckWellFormed(text), "");
  EXPECT_TRUE(Contains(text, "tests=\"4\"")) << text;
  for (int seed = 5; seed <= 8; ++seed) {
    EXPECT_TRUE(Contains(text, ::rindle::StrCat("name=\"seed ", seed, "\""))) << text;
  }
  EXPECT_TRUE(Contains(text, "<failure type=\"liveness\"")) << text;
}

// `--trace /dev/null` (and the other outputs) write the device in place: the temp-and-rename
// that keeps a user's file whole must not replace the device node (as root it would).
TEST(CliTest, OutputsToDevNullLeaveItADevice) {
  Outcome o = RunCli("run --seed 2 --trace /dev/null");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  Outcome e = RunCli("run --seed 2 --emit-scenario /dev/null --report /dev/stdout");
  EXPECT_EQ(e.exit_code, 0) << e.output;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced by a regular file";
}

TEST(CliTest, DeterminismCheckRunsSeedsTwice) {
  Outcome o = RunCli("fuzz --seeds 1..3 --quiet --determinism-check 1 --out /dev/null");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "determinism: 3 seeds run twice, 0 mismatches")) << o.output;
  Outcome bad = RunCli("fuzz --seeds 1..3 --determinism-check 1.5 --out /dev/null");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.output, "--determinism-check: expected a fraction")) << bad.output;
}

TEST(CliTest, AutoShrinkWritesEachFailureIntoPending) {
  const std::string dir = testing::TempDir() + "/cli_auto_shrink";
  std::filesystem::remove_all(dir);
  Outcome o = RunCli("fuzz --seeds 6..6 --max-steps 300 --quiet --determinism-check 0 --out "
                     "/dev/null --auto-shrink --shrink-time 20s --corpus '" + dir + "'");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  const std::string file = dir + "/pending/seed-6-liveness.json";
  ASSERT_TRUE(std::filesystem::exists(file)) << o.output;
  nlohmann::json doc = nlohmann::json::parse(ReadFile(file));
  EXPECT_EQ(doc["expect"], "fail");
  EXPECT_EQ(doc["property"], "liveness");
  EXPECT_EQ(doc["max_steps"], 300);  // the campaign's budget travels with the scenario
  Outcome replay = RunCli("replay '" + file + "'");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
}

}  // namespace
