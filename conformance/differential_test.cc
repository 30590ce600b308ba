// differential_test.cc — the Node differential against the real engine: 500 seeded cases
// (`rindle-sim gen-cases --seeds 1..500`, conformance/case_gen.h) are recorded by
// @rindle/wasm@0.9.0 itself (conformance/node/record.mjs) and then run through our engine
// (`rindle-sim check-case`): after hydration and after every txn our data must equal the real
// engine's (or its fresh requery where its incremental result was wrong). Skips — never passes
// silently — when Node or the pinned package (scripts/install-node-deps.sh) is absent.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "conformance/json_file.h"
#include "base/str_util.h"
#include "gtest/gtest.h"
#include "cli/run_binary_for_test.h"

namespace rindle::conformance {
namespace {

namespace fs = std::filesystem;
using ::rindle::testing::CommandOutcome;

constexpr int kFirstSeed = 1;
constexpr int kLastSeed = 500;
constexpr char kPinned[] = "0.9.0";

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// The first `max_lines` lines of `text` that start a FAIL or ERROR report, with their details.
std::string FirstFailures(const std::string& text, int max_lines) {
  std::istringstream in(text);
  std::string line, out;
  bool in_failure = false;
  int lines = 0;
  while (std::getline(in, line) && lines < max_lines) {
    if (line.rfind("FAIL ", 0) == 0 || line.rfind("ERROR ", 0) == 0) in_failure = true;
    else if (line.rfind("pass ", 0) == 0 || line.rfind("check-case:", 0) == 0) in_failure = false;
    if (in_failure) {
      StrAppend(&out, line, "\n");
      ++lines;
    }
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(NodeDifferential, OurEngineMatchesTheRealEngineOnSeededCases) {
  const fs::path node_dir = RINDLE_CONFORMANCE_NODE_DIR;
  CommandOutcome node = ::rindle::testing::RunCommand("node", "--version");
  if (node.exit_code != 0) {
    GTEST_SKIP() << "SKIPPED: Node.js is not installed (`node --version` exited "
                 << node.exit_code << "); the differential against @rindle/wasm@" << kPinned
                 << " needs it";
  }
  const fs::path pkg = node_dir / "node_modules" / "@rindle" / "wasm" / "package.json";
  absl::StatusOr<nlohmann::json> meta = ReadJsonFile(pkg.string());
  if (!meta.ok() || meta->value("version", "") != kPinned) {
    GTEST_SKIP() << "SKIPPED: @rindle/wasm@" << kPinned << " is not installed in "
                 << node_dir.string() << " (" << (meta.ok() ? "wrong version" : "missing")
                 << "); run scripts/install-node-deps.sh";
  }

  const fs::path dir = fs::path(::testing::TempDir()) / "rindle_node_differential";
  fs::remove_all(dir);
  const std::string seeds = StrCat(kFirstSeed, "..", kLastSeed);
  const auto t0 = std::chrono::steady_clock::now();
  CommandOutcome gen = ::rindle::testing::RunCommand(
      RINDLE_SIM_BINARY, StrCat("gen-cases --seeds ", seeds, " --out '", dir.string(), "'"));
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  const double gen_s = Seconds(t0);

  const auto t1 = std::chrono::steady_clock::now();
  CommandOutcome rec = ::rindle::testing::RunCommand(
      "node", StrCat("'", (node_dir / "record.mjs").string(), "' '", dir.string(), "'"));
  ASSERT_EQ(rec.exit_code, 0) << rec.output;
  const double rec_s = Seconds(t1);

  const auto t2 = std::chrono::steady_clock::now();
  CommandOutcome check =
      ::rindle::testing::RunCommand(RINDLE_SIM_BINARY, StrCat("check-case '", dir.string(), "'"));
  const double check_s = Seconds(t2);
  std::string summary;
  if (size_t at = check.output.rfind("check-case:"); at != std::string::npos) {
    summary = check.output.substr(at);
  }
  std::printf("node differential: %d cases, seeds %s, real engine @rindle/wasm@%s\n"
              "  generate %.1fs, record (node) %.1fs, check %.1fs\n  %s  %s",
              kLastSeed - kFirstSeed + 1, seeds.c_str(), kPinned, gen_s, rec_s, check_s,
              rec.output.c_str(), summary.c_str());
  EXPECT_TRUE(Contains(check.output, StrCat(kLastSeed - kFirstSeed + 1, " cases")))
      << summary;
  EXPECT_EQ(check.exit_code, 0) << summary << "first failures (of seeds " << seeds
                                << "; reproduce with rindle-sim gen-cases --seeds N):\n"
                                << FirstFailures(check.output, 60);
  if (check.exit_code == 0) {
    fs::remove_all(dir);
  } else {
    std::printf("the cases and their recordings are kept in %s\n", dir.string().c_str());
  }
}

}  // namespace
}  // namespace rindle::conformance
