// run_binary_for_test.h — test-only helper: runs a command line, capturing stdout+stderr and the
// exit code (128+signal when killed). Used by the CLI and determinism tests to drive the built
// rindle-sim binary as a separate process. Header-only, stateless.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

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

}  // namespace rindle::testing
