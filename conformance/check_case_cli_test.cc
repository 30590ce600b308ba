// check_case_cli_test.cc — `rindle-sim check-case` and `gen-cases` through the built binary
// (RINDLE_SIM_BINARY): one line per case, the documented exit codes (0 all pass, 1 a case
// fails, 2 usage or input errors), zql-diff files accepted, and seeded generation that is
// deterministic.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "conformance/json_file.h"
#include "conformance/peer_case.h"
#include "gtest/gtest.h"
#include "cli/run_binary_for_test.h"

namespace rindle::conformance {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::rindle::testing::CommandOutcome;

const fs::path kRindleWasmDir = fs::path(RINDLE_FIXTURES_DIR) / "rindle-wasm";

CommandOutcome Cli(const std::string& args) {
  return ::rindle::testing::RunCommand(RINDLE_SIM_BINARY, args);
}

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// A fresh scratch directory for one test, under the test's private TempDir()
// (base/testing/test_main.cc gives every test its own).
fs::path Scratch(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / ("check_case_cli_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CheckCaseCli, HelpAndUsage) {
  for (const char* args : {"check-case --help", "gen-cases --help", "help check-case"}) {
    CommandOutcome o = Cli(args);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "Usage")) << o.output;
  }
  CommandOutcome none = Cli("check-case");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Contains(none.output, "expected one or more case files")) << none.output;
  const std::string x = (fs::path(::testing::TempDir()) / "x").string();
  EXPECT_EQ(Cli("gen-cases --out '" + x + "'").exit_code, 2);
  CommandOutcome seeds = Cli("gen-cases --seeds 5..1 --out '" + x + "'");
  EXPECT_EQ(seeds.exit_code, 2);
  EXPECT_TRUE(Contains(seeds.output, "--seeds")) << seeds.output;
}

TEST(CheckCaseCli, PassingCasesPrintPassAndExitZero) {
  const std::string a = (kRindleWasmDir / "case-0015.json").string();
  const std::string b = (kRindleWasmDir / "case-0016.json").string();
  CommandOutcome o = Cli("check-case '" + a + "' '" + b + "'");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "pass s1-case-0015\n")) << o.output;
  EXPECT_TRUE(Contains(o.output, "pass s1-case-0016\n")) << o.output;
  EXPECT_TRUE(Contains(o.output, "2 cases, 2 passed, 0 failed")) << o.output;
}

TEST(CheckCaseCli, ACorruptedExpectedFileFailsWithStepAndDiff) {
  const fs::path dir = Scratch("corrupt");
  fs::copy_file(kRindleWasmDir / "case-0015.json", dir / "case-0015.json");
  absl::StatusOr<json> e = ReadJsonFile((kRindleWasmDir / "case-0015.expected.json").string());
  ASSERT_TRUE(e.ok()) << e.status();
  (*e)["txns"][4]["data"][1]["name"] = "CORRUPTED";
  ASSERT_TRUE(WriteJsonFile((dir / "case-0015.expected.json").string(), *e).ok());
  // A passing case beside it, and a non-case file the directory walk skips.
  fs::copy_file(kRindleWasmDir / "case-0016.json", dir / "case-0016.json");
  fs::copy_file(kRindleWasmDir / "case-0016.expected.json", dir / "case-0016.expected.json");
  fs::copy_file(kRindleWasmDir / "index.json", dir / "index.json");
  CommandOutcome o = Cli("check-case '" + dir.string() + "'");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "FAIL s1-case-0015 step=txn 4\n")) << o.output;
  EXPECT_TRUE(Contains(o.output, "$[1].name")) << o.output;
  EXPECT_TRUE(Contains(o.output, "CORRUPTED")) << o.output;
  EXPECT_TRUE(Contains(o.output, "pass s1-case-0016")) << o.output;
  EXPECT_TRUE(Contains(o.output, "2 cases, 1 passed, 1 failed, 0 input errors")) << o.output;
}

TEST(CheckCaseCli, UnreadableOrMalformedInputExitsTwo) {
  const fs::path dir = Scratch("malformed");
  CommandOutcome missing = Cli("check-case '" + (dir / "nope.json").string() + "'");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "ERROR " + (dir / "nope.json").string() + ": cannot open"))
      << missing.output;

  std::ofstream(dir / "garbage.json") << "{not json";
  CommandOutcome garbage = Cli("check-case '" + (dir / "garbage.json").string() + "'");
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_TRUE(Contains(garbage.output, "not valid JSON")) << garbage.output;

  // An input without its recorded result names the missing file and how to record it.
  fs::copy_file(kRindleWasmDir / "case-0015.json", dir / "case-0015.json");
  CommandOutcome alone = Cli("check-case '" + (dir / "case-0015.json").string() + "'");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_TRUE(Contains(alone.output, "case-0015.expected.json")) << alone.output;
  EXPECT_TRUE(Contains(alone.output, "record.mjs")) << alone.output;

  std::ofstream(dir / "other.json") << R"({"hello": 1})";
  CommandOutcome other = Cli("check-case '" + (dir / "other.json").string() + "'");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(Contains(other.output, "not a case")) << other.output;
}

TEST(CheckCaseCli, AcceptsZqlDiffCases) {
  const fs::path dir = Scratch("zql");
  std::ofstream(dir / "push__tiny.json") << R"({"kind":"push","input":{
      "sources":{"t":{"columns":{"id":{"type":"number"},"v":{"type":"string"}},"primaryKeys":["id"]}},
      "sourceContents":{"t":[{"id":1,"v":"a"}]},"ast":{"table":"t","orderBy":[["v","desc"]]},
      "pushes":[["t",{"type":"add","row":{"id":2,"v":"b"}}],
                ["t",{"type":"edit","oldRow":{"id":1,"v":"a"},"row":{"id":1,"v":"c"}}]]},
      "expected":{"data":[{"id":1,"v":"c"},{"id":2,"v":"b"}]}})";
  CommandOutcome o = Cli("check-case '" + (dir / "push__tiny.json").string() + "'");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "pass push__tiny")) << o.output;
}

TEST(GenCasesCli, TheSameSeedsWriteTheSameValidCases) {
  const fs::path a = Scratch("gen_a"), b = Scratch("gen_b");
  CommandOutcome o1 = Cli("gen-cases --seeds 7..9 --out '" + a.string() + "'");
  ASSERT_EQ(o1.exit_code, 0) << o1.output;
  EXPECT_TRUE(Contains(o1.output, "wrote 3 cases (seeds 7..9)")) << o1.output;
  ASSERT_EQ(Cli("gen-cases --seeds 7..9 --out '" + b.string() + "'").exit_code, 0);
  for (const char* f : {"case-000007.json", "case-000008.json", "case-000009.json"}) {
    const std::string text = Slurp(a / f);
    EXPECT_FALSE(text.empty()) << f;
    EXPECT_EQ(text, Slurp(b / f)) << f;
    absl::StatusOr<PeerCase> c = LoadPeerCase((a / f).string());
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_GE(c->txns.size(), 6u);
    EXPECT_EQ(c->rows.size(), 4u);
  }
  EXPECT_NE(Slurp(a / "case-000007.json"), Slurp(a / "case-000008.json"));
}

}  // namespace
}  // namespace rindle::conformance
