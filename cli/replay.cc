// replay.cc — see replay.h.
#include "cli/replay.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli/target_merge.h"
#include "cli/worker.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace rindle::sim::cli {
namespace {

// The *.json files directly in `dir`, sorted; sets `ec` when the folder cannot be listed.
std::vector<std::string> ScenarioFilesIn(const std::string& dir, std::error_code& ec) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json" && !entry.is_directory()) {
      found.push_back(entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

// A merge target's file (target_merge.h): one PASS / FAIL line, or the load error.
template <class Error>
void ReplayMerge(const std::string& file, int& passed, int& failed, Error& error) {
  absl::StatusOr<ScenarioVerdict> v = ReplayMergeFile(file);
  if (!v.ok()) return error(file, std::string(v.status().message()));
  ++(v->pass ? passed : failed);
  std::printf("%s %s: %s\n", v->pass ? "PASS" : "FAIL", file.c_str(), v->explanation.c_str());
  std::fflush(stdout);
}

}  // namespace

int RunReplay(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  int passed = 0;
  int failed = 0;
  int errors = 0;
  int files = 0;

  auto error = [&](const std::string& file, std::string message) {
    ++errors;
    // Load errors already start with the file name; print it once.
    if (message.rfind(file + ": ", 0) == 0) message.erase(0, file.size() + 2);
    std::printf("ERROR %s: %s\n", file.c_str(), message.c_str());
    std::fflush(stdout);
  };

  auto replay_file = [&](const std::string& file) {
    ++files;
    if (IsMergeScenarioFile(file)) return ReplayMerge(file, passed, failed, error);
    absl::StatusOr<Scenario> scenario = LoadScenario(file);
    if (!scenario.ok()) {
      error(file, std::string(scenario.status().message()));
      return;
    }
    RunOptions options;
    options.seed = scenario->seed;
    const Scenario loaded = *scenario;
    RunResult result = RunIsolated(
        options, [loaded](const RunOptions& o) { return RunScenario(loaded, o); });
    ScenarioVerdict verdict = JudgeScenario(*scenario, result);
    if (verdict.pass) {
      ++passed;
      std::printf("PASS %s: %s\n", file.c_str(), verdict.explanation.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", file.c_str(), verdict.explanation.c_str());
    }
    std::fflush(stdout);
  };

  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      const std::vector<std::string> found = ScenarioFilesIn(path, ec);
      if (ec) {
        error(path, "cannot list directory: " + ec.message());
        continue;
      }
      if (found.empty()) {  // an empty corpus proves nothing: an error, never a green replay
        ++files;
        error(path, "holds no *.json scenario files (expected a folder of scenario files)");
        continue;
      }
      for (const std::string& file : found) replay_file(file);
    } else if (fs::exists(path, ec)) {
      replay_file(path);
    } else {
      ++files;
      error(path, "no such file or directory (expected a scenario .json file or a directory "
                  "of them)");
    }
  }

  std::printf("replay: %d files, %d passed, %d failed, %d errors\n", files, passed, failed,
              errors);
  if (failed > 0) return 1;
  if (errors > 0) return 2;
  return 0;
}

}  // namespace rindle::sim::cli
