// run_binary_for_test.h — test-only helpers: runs a command line, capturing stdout+stderr and the
// exit code (128+signal when killed), and the small file/text helpers every test that drives the
// built rindle-sim binary as a separate process needs (RunCli when RINDLE_SIM_BINARY is defined,
// Contains, Match, ReadFile, WriteFile, TestDir). Header-only, stateless.
#pragma once

#include <sys/wait.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace rindle::testing {

struct CommandOutcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `'binary' args 2>&1` through the shell.
inline CommandOutcome RunCommand(const std::string& binary, const std::string& args) {
  const std::string cmd = "'" + binary + "' " + args + " 2>&1";
  CommandOutcome out;
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The first capture group of `re` in `output`, or "".
inline std::string Match(const std::string& output, const std::string& re) {
  std::smatch m;
  if (std::regex_search(output, m, std::regex(re))) return m[1];
  return "";
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A fresh directory `TempDir()/<prefix><test name>` (emptied if it exists).
inline std::string TestDir(const std::string& prefix) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "/" + prefix + t->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

#ifdef RINDLE_SIM_BINARY
inline CommandOutcome RunCli(const std::string& args) {
  return RunCommand(RINDLE_SIM_BINARY, args);
}
#endif

}  // namespace rindle::testing
