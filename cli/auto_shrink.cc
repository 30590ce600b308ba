// auto_shrink.cc — see auto_shrink.h.
#include "cli/auto_shrink.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <utility>

#include "base/str_util.h"
#include "cli/shrink_command.h"

namespace rindle::sim::cli {

std::string MessageShape(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    const bool digit = c >= '0' && c <= '9';
    if (!digit) {
      out += c;
    } else if (out.empty() || out.back() != '#') {
      out += '#';
    }
  }
  return out;
}

std::vector<FailureGroup> GroupFailures(const std::vector<RunResult>& results) {
  std::vector<const RunResult*> failures;
  for (const RunResult& r : results) {
    if (r.ok || r.property == "nondeterminism" || r.property == "setup") continue;
    failures.push_back(&r);
  }
  std::sort(failures.begin(), failures.end(),
            [](const RunResult* a, const RunResult* b) { return a->seed < b->seed; });
  std::map<std::pair<std::string, std::string>, size_t> index;  // (property, shape) → group
  std::vector<FailureGroup> groups;
  for (const RunResult* r : failures) {
    std::pair<std::string, std::string> key{r->property, MessageShape(r->message)};
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key.first, key.second, r->seed, {}});
    std::vector<uint64_t>& members = groups[it->second].members;
    if (members.empty() || members.back() != r->seed) members.push_back(r->seed);
  }
  return groups;
}

namespace {

ShrinkCommandOptions GroupShrink(const FailureGroup& g, const AutoShrinkOptions& options,
                                 const std::string& path) {
  ShrinkCommandOptions so;
  so.seed = g.representative;
  so.swarm = options.swarm;
  so.room_views = options.room_views;
  so.merge = options.merge;
  so.max_runs = options.max_runs;
  so.time_budget_ms = options.time_budget_ms;
  so.out_path = path;
  // Shrinks side by side would interleave their progress lines: only a lone one shows it.
  so.quiet = options.quiet || options.jobs > 1;
  so.print_steps = false;
  so.max_steps = options.max_steps;
  return so;
}

// One line per group (auto_shrink.h); the other members on the next.
void PrintGroup(const FailureGroup& g, const std::string& outcome) {
  std::printf("auto-shrink: seed %llu (%s, %zu seed%s) %s\n",
              static_cast<unsigned long long>(g.representative), g.property.c_str(),
              g.members.size(), g.members.size() == 1 ? "" : "s", outcome.c_str());
  if (g.members.size() > 1) {
    std::string others;
    for (size_t i = 1; i < g.members.size(); ++i) {
      StrAppend(&others, i == 1 ? "" : ", ", g.members[i]);
    }
    std::printf("  same failure shape, not shrunk again: %s\n", others.c_str());
  }
  std::fflush(stdout);
}

// The shrink in a child whose stdout is /dev/null (the parent prints the group's line); -1
// when fork fails.
pid_t SpawnShrink(const ShrinkCommandOptions& so) {
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
  const int code = RunShrinkCommand(so);
  std::fflush(nullptr);
  ::_exit(code);
}

}  // namespace

ShrinkLinks RunAutoShrink(const std::vector<FailureGroup>& groups,
                          const AutoShrinkOptions& options) {
  const std::string pending = StrCat(options.corpus_dir, "/pending");
  std::error_code ec;
  if (!groups.empty()) std::filesystem::create_directories(pending, ec);
  ShrinkLinks links;
  auto done = [&](size_t i, const std::string& path, int code) {
    const FailureGroup& g = groups[i];
    const bool shrunk = code == 0 && std::filesystem::exists(path, ec);
    for (uint64_t seed : g.members) links[seed] = {shrunk ? path : "", g.representative};
    PrintGroup(g, shrunk ? StrCat("-> ", path)
                         : StrCat("could not be shrunk (exit ", code, ")"));
  };
  std::map<pid_t, std::pair<size_t, std::string>> running;  // child → (group, its file)
  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  size_t next = 0;
  while (next < groups.size() || !running.empty()) {
    if (next < groups.size() && running.size() < jobs) {
      const size_t i = next++;
      const std::string path = StrCat(pending, "/seed-", groups[i].representative, "-",
                                      PropertySlug(groups[i].property), ".json");
      if (std::filesystem::exists(path, ec)) {  // shrunk before (a resumed campaign)
        done(i, path, 0);
        continue;
      }
      const ShrinkCommandOptions so = GroupShrink(groups[i], options, path);
      const pid_t pid = SpawnShrink(so);
      if (pid < 0) {
        done(i, path, RunShrinkCommand(so));
      } else {
        running[pid] = {i, path};
      }
      continue;
    }
    // Poll our own children only (never waitpid(-1): other children are not ours to reap).
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      if (::waitpid(it->first, &status, WNOHANG) != it->first) {
        ++it;
        continue;
      }
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      done(it->second.first, it->second.second, code);
      it = running.erase(it);
      reaped = true;
    }
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return links;
}

}  // namespace rindle::sim::cli
