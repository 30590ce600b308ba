// results_test.cc — the built `rindle-sim` binary (RINDLE_SIM_BINARY): `--version`, the
// reproduce commands of failures, and the results file (header, per-line options, strict
// reading, refusals, the lock). Each test works in its own temporary directory.
#include <fcntl.h>
#include <sys/file.h>
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

Outcome RunCli(const std::string& args) {
  return ::rindle::testing::RunCommand(RINDLE_SIM_BINARY, args);
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

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

}  // namespace
