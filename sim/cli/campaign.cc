// campaign.cc — see campaign.h.
#include "sim/cli/campaign.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/determinism_guard.h"
#include "sim/cli/junit.h"
#include "sim/cli/result_io.h"
#include "sim/cli/shrink_command.h"
#include "sim/cli/worker.h"

namespace rindle::sim::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnSigint(int) { g_interrupted = 1; }

// Walks the seeds of [first, last] on the shard, in increasing order, without overflow.
class SeedCursor {
 public:
  SeedCursor(SeedRange range, Shard shard) : range_(range), step_(shard.count) {
    const uint64_t rem = range.first % shard.count;
    const uint64_t skip = (shard.index + shard.count - rem) % shard.count;
    if (skip > range.last - range.first) {
      done_ = true;
    } else {
      next_ = range.first + skip;
      total_ = (range.last - next_) / step_ + 1;
    }
  }

  std::optional<uint64_t> Next() {
    if (done_) return std::nullopt;
    const uint64_t seed = next_;
    if (range_.last - next_ < step_) {
      done_ = true;
    } else {
      next_ += step_;
    }
    return seed;
  }

  bool done() const { return done_; }
  uint64_t total() const { return total_; }

 private:
  SeedRange range_;
  uint64_t step_;
  uint64_t next_ = 0;
  uint64_t total_ = 0;
  bool done_ = false;
};

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string FormatDuration(double seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return absl::StrFormat("%dh%02dm%02ds", s / 3600, (s / 60) % 60, s % 60);
  if (s >= 60) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%.1fs", seconds);
}

struct Stats {
  uint64_t done = 0;
  uint64_t resumed = 0;  // of `done`: results read back by --resume (not run now)
  uint64_t failed = 0;
  std::vector<uint64_t> failed_seeds;
  std::map<std::string, int64_t> counter_totals;
  std::map<std::string, int64_t> counter_seeds;  // seeds in which the counter fired
};

class Progress {
 public:
  Progress(bool enabled, uint64_t total, std::optional<int64_t> budget_ms)
      : enabled_(enabled), tty_(::isatty(STDERR_FILENO) == 1), total_(total),
        budget_ms_(budget_ms), start_(Clock::now()), last_(start_ - std::chrono::hours(1)) {}

  // Redraws when due or when `force`: on a terminal 4 times a second; otherwise (a log) a line
  // at most every 10 s when seeds finished, and at least every minute.
  void Update(const Stats& stats, bool force) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (!force) {
      if (tty_ && now - last_ < std::chrono::milliseconds(250)) return;
      if (!tty_ && (now - last_ < std::chrono::seconds(10) ||
                    (stats.done == last_done_ && now - last_ < std::chrono::seconds(60)))) {
        return;
      }
    }
    last_ = now;
    last_done_ = stats.done;
    const double elapsed = SecondsSince(start_);
    const double rate =
        elapsed > 0 ? static_cast<double>(stats.done - stats.resumed) / elapsed : 0;
    std::string eta = "?";
    if (budget_ms_) {
      eta = FormatDuration(std::max(0.0, *budget_ms_ / 1000.0 - elapsed)) + " (budget)";
    } else if (rate > 0) {
      eta = FormatDuration(static_cast<double>(total_ - stats.done) / rate);
    }
    std::string total = budget_ms_ && total_ == UINT64_MAX ? "?" : absl::StrCat(total_);
    std::string line = absl::StrFormat("[fuzz] %d/%s seeds  failures=%d  %.2f seeds/s  ETA %s",
                                       stats.done, total, stats.failed, rate, eta);
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      shown_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }

  // Erases the live line before other output (tty only).
  void Clear() {
    if (enabled_ && tty_ && shown_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      shown_ = false;
    }
  }

 private:
  bool enabled_;
  bool tty_;
  uint64_t total_;
  std::optional<int64_t> budget_ms_;
  Clock::time_point start_;
  Clock::time_point last_;
  uint64_t last_done_ = UINT64_MAX;
  bool shown_ = false;
};

void PrintCounters(const Stats& stats) {
  if (stats.counter_totals.empty()) {
    std::printf("counters: none reported\n");
    return;
  }
  size_t width = 7;
  for (const auto& [name, total] : stats.counter_totals) width = std::max(width, name.size());
  std::printf("counters (summed over %llu seeds):\n",
              static_cast<unsigned long long>(stats.done));
  std::printf("  %-*s %14s %10s\n", static_cast<int>(width), "counter", "total", "in seeds");
  for (const auto& [name, total] : stats.counter_totals) {
    std::printf("  %-*s %14lld %10lld\n", static_cast<int>(width), name.c_str(),
                static_cast<long long>(total),
                static_cast<long long>(stats.counter_seeds.at(name)));
  }
}

// The results file read for --resume: its results by seed, the byte length of its complete
// lines (a torn last line — no newline, from a kill mid-write — lies beyond it), and the line
// numbers of complete lines that are not results (corruption: --resume refuses those).
struct PriorResults {
  std::map<uint64_t, RunResult> by_seed;
  uintmax_t clean_size = 0;
  bool torn_tail = false;
  std::vector<size_t> bad_lines;
};

PriorResults ReadPriorResults(const std::string& path) {
  PriorResults prior;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return prior;
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      prior.torn_tail = true;
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    prior.clean_size = pos;
    if (line.empty()) continue;
    absl::StatusOr<RunResult> r = ResultFromJsonLine(line);
    if (!r.ok()) {
      prior.bad_lines.push_back(line_no);
      continue;
    }
    prior.by_seed[r->seed] = *r;
  }
  return prior;
}

bool InShard(uint64_t seed, const CampaignOptions& o) {
  return seed >= o.seeds.first && seed <= o.seeds.last && seed % o.shard.count == o.shard.index;
}

}  // namespace

int RunCampaign(const CampaignOptions& options) {
  SeedCursor cursor(options.seeds, options.shard);
  const uint64_t total = cursor.total();

  std::map<uint64_t, RunResult> prior;
  if (options.resume) {
    PriorResults read = ReadPriorResults(options.out_path);
    if (!read.bad_lines.empty()) {
      std::fprintf(stderr,
                   "rindle-sim fuzz: --resume: \"%s\" has %zu line(s) that are not results "
                   "(first: line %zu); not resuming over a corrupt file\n",
                   options.out_path.c_str(), read.bad_lines.size(), read.bad_lines.front());
      return 2;
    }
    if (read.torn_tail) {
      // Cut the torn line off so the file stays valid JSON lines; that seed runs again.
      std::error_code ec;
      std::filesystem::resize_file(options.out_path, read.clean_size, ec);
      if (ec) {
        std::fprintf(stderr, "rindle-sim fuzz: --resume: cannot truncate \"%s\": %s\n",
                     options.out_path.c_str(), ec.message().c_str());
        return 2;
      }
    }
    prior = std::move(read.by_seed);
    std::fprintf(stderr, "rindle-sim fuzz: --resume: %zu seeds already in \"%s\"%s\n",
                 prior.size(), options.out_path.c_str(),
                 read.torn_tail ? " (a torn last line was cut off)" : "");
  }

  std::FILE* out = std::fopen(options.out_path.c_str(), "a");
  if (out == nullptr) {
    std::fprintf(stderr, "rindle-sim fuzz: --out \"%s\": cannot open for appending: %s\n",
                 options.out_path.c_str(), std::strerror(errno));
    return 2;
  }

  RunOptions base;
  if (options.max_steps > 0) base.max_steps = options.max_steps;
  base.swarm = options.swarm;
  WorkerPool pool(base);

  // Twin runs of checked seeds write their traces here.
  const std::string trace_dir =
      (std::filesystem::temp_directory_path() / absl::StrCat("rindle-sim-det-", ::getpid()))
          .string();
  if (options.determinism_per_million > 0) {
    std::error_code ec;
    std::filesystem::create_directories(trace_dir, ec);
  }
  auto twin_trace = [&](uint64_t seed, int twin) {
    return absl::StrCat(trace_dir, "/", seed, twin == 0 ? "-a" : "-b", ".jsonl");
  };

  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_sa;
  ::sigaction(SIGINT, &sa, &old_sa);

  const auto start = Clock::now();
  Stats stats;
  std::vector<RunResult> all_results;  // for JUnit
  uint64_t resumed = 0;
  for (const auto& [seed, r] : prior) {
    if (!InShard(seed, options)) continue;
    ++resumed;
    ++stats.resumed;
    ++stats.done;
    all_results.push_back(r);
    if (!r.ok) {
      ++stats.failed;
      stats.failed_seeds.push_back(r.seed);
    }
  }
  Progress progress(!options.quiet, total, options.time_budget_ms);
  int exit_code = 0;
  bool budget_spent = false;
  uint64_t checked = 0;
  uint64_t mismatches = 0;

  // Jobs: (seed, twin) with twin -1 for a single run, 0/1 for the two runs of a checked seed.
  std::deque<std::pair<uint64_t, int>> jobs_queue;
  std::map<size_t, std::pair<uint64_t, int>> running;  // worker → job
  std::map<uint64_t, RunResult> first_twin;
  std::set<uint64_t> recorded;

  auto budget_over = [&] {
    if (options.time_budget_ms && SecondsSince(start) * 1000.0 >= *options.time_budget_ms) {
      budget_spent = true;
      return true;
    }
    return false;
  };
  auto next_job = [&]() -> std::optional<std::pair<uint64_t, int>> {
    if (g_interrupted) return std::nullopt;
    if (jobs_queue.empty()) {
      if (budget_over()) return std::nullopt;
      std::optional<uint64_t> seed;
      while ((seed = cursor.Next()) && prior.count(*seed) > 0) {
      }
      if (!seed) return std::nullopt;
      if (options.determinism_per_million > 0 &&
          IsCheckedSeed(*seed, options.determinism_per_million)) {
        jobs_queue.push_back({*seed, 0});
        jobs_queue.push_back({*seed, 1});
      } else {
        jobs_queue.push_back({*seed, -1});
      }
    }
    auto job = jobs_queue.front();
    jobs_queue.pop_front();
    return job;
  };
  auto more_jobs = [&] {
    if (g_interrupted) return false;
    if (!jobs_queue.empty()) return true;
    return !cursor.done() && !budget_over();
  };

  auto record = [&](const RunResult& r) {
    if (!recorded.insert(r.seed).second) return;
    ++stats.done;
    all_results.push_back(r);
    const std::string line = DumpLine(ResultToJson(r, /*with_counters=*/false));
    if (std::fprintf(out, "%s\n", line.c_str()) < 0 || std::fflush(out) != 0) {
      progress.Clear();
      std::fprintf(stderr, "rindle-sim fuzz: --out \"%s\": write failed: %s\n",
                   options.out_path.c_str(), std::strerror(errno));
      exit_code = 2;
    }
    for (const auto& [name, count] : r.counters) {
      stats.counter_totals[name] += count;
      stats.counter_seeds[name] += count != 0 ? 1 : 0;
    }
    if (!r.ok) {
      ++stats.failed;
      stats.failed_seeds.push_back(r.seed);
      progress.Clear();
      std::printf("%s\n", FailureLine(r).c_str());
      std::fflush(stdout);
    }
    progress.Update(stats, /*force=*/false);
  };

  auto finished = [&](uint64_t seed, int twin, const RunResult& r) {
    if (twin < 0) {
      record(r);
      return;
    }
    if (!r.ok && r.property == "crash") {
      record(r);
      first_twin.erase(seed);
      return;
    }
    auto it = first_twin.find(seed);
    if (it == first_twin.end()) {
      if (!recorded.contains(seed)) first_twin[seed] = r;
      return;
    }
    const RunResult a = twin == 1 ? it->second : r;
    const RunResult b = twin == 1 ? r : it->second;
    first_twin.erase(it);
    ++checked;
    std::optional<RunResult> bad = CompareTwinRuns(a, b, twin_trace(seed, 0), twin_trace(seed, 1));
    if (bad) ++mismatches;
    record(bad ? *bad : a);
    std::error_code ec;
    std::filesystem::remove(twin_trace(seed, 0), ec);
    std::filesystem::remove(twin_trace(seed, 1), ec);
  };

  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  while (true) {
    // Keep `jobs` workers alive while work remains, and give every idle one a job.
    while (more_jobs() && pool.live() < jobs) {
      absl::StatusOr<size_t> id = pool.Spawn();
      if (!id.ok()) {
        progress.Clear();
        std::fprintf(stderr, "rindle-sim fuzz: cannot start a worker process: %s\n",
                     std::string(id.status().message()).c_str());
        if (pool.live() == 0) {
          std::fclose(out);
          ::sigaction(SIGINT, &old_sa, nullptr);
          return 2;
        }
        break;
      }
    }
    for (size_t id : pool.Idle()) {
      std::optional<std::pair<uint64_t, int>> job = next_job();
      if (!job) {
        pool.Finish(id);
        continue;
      }
      running[id] = *job;
      // A dead worker reports the seed as lost.
      (void)pool.Assign(id, job->first, job->second < 0 ? "" : twin_trace(job->first, job->second));
    }
    if (pool.live() == 0) break;
    if (g_interrupted) break;

    for (WorkerPool::Event& e : pool.Poll(250)) {
      auto it = running.find(e.worker);
      const std::pair<uint64_t, int> job =
          it == running.end() ? std::pair<uint64_t, int>{0, -1} : it->second;
      if (!e.exited) {
        if (it != running.end()) running.erase(it);
        finished(job.first, job.second, e.result);
      } else {
        if (it != running.end()) running.erase(it);
        if (e.lost_seed && !g_interrupted && !e.by_sigint) {
          finished(*e.lost_seed, job.second, CrashResult(*e.lost_seed, e.how));
        }
      }
    }
    progress.Update(stats, /*force=*/false);
  }

  const bool interrupted = g_interrupted != 0;
  if (interrupted) pool.TerminateAll();
  ::sigaction(SIGINT, &old_sa, nullptr);
  progress.Update(stats, /*force=*/true);
  progress.Clear();
  std::fclose(out);
  if (options.determinism_per_million > 0) {
    std::error_code ec;
    std::filesystem::remove_all(trace_dir, ec);
  }

  const double elapsed = SecondsSince(start);
  const uint64_t ran = stats.done - resumed;
  std::printf(
      "\nrindle-sim fuzz: %llu seeds run, %llu passed, %llu failed in %s (%.2f seeds/s)%s\n",
      static_cast<unsigned long long>(stats.done),
      static_cast<unsigned long long>(stats.done - stats.failed),
      static_cast<unsigned long long>(stats.failed), FormatDuration(elapsed).c_str(),
      elapsed > 0 ? static_cast<double>(ran) / elapsed : 0.0,
      interrupted    ? " — interrupted"
      : budget_spent ? " — time budget reached"
                     : "");
  if (resumed > 0) {
    std::printf("resumed: %llu seeds came from the results file, %llu ran now\n",
                static_cast<unsigned long long>(resumed), static_cast<unsigned long long>(ran));
  }
  if (options.determinism_per_million > 0) {
    std::printf("determinism: %llu seeds run twice, %llu mismatches\n",
                static_cast<unsigned long long>(checked),
                static_cast<unsigned long long>(mismatches));
  }
  if (!stats.failed_seeds.empty()) {
    std::sort(stats.failed_seeds.begin(), stats.failed_seeds.end());
    std::printf("failed seeds (reproduce with: rindle-sim run --seed N):");
    const size_t shown = std::min<size_t>(stats.failed_seeds.size(), 50);
    for (size_t i = 0; i < shown; ++i) {
      std::printf(" %llu", static_cast<unsigned long long>(stats.failed_seeds[i]));
    }
    if (shown < stats.failed_seeds.size()) {
      std::printf(" … and %zu more", stats.failed_seeds.size() - shown);
    }
    std::printf("\n");
  }
  std::printf("results: %s\n", options.out_path.c_str());
  PrintCounters(stats);
  std::fflush(stdout);

  if (!options.junit_path.empty()) {
    std::sort(all_results.begin(), all_results.end(),
              [](const RunResult& a, const RunResult& b) { return a.seed < b.seed; });
    if (absl::Status s = WriteJUnit(options.junit_path, all_results, elapsed); !s.ok()) {
      std::fprintf(stderr, "rindle-sim fuzz: %s\n", std::string(s.message()).c_str());
      exit_code = 2;
    } else {
      std::printf("junit: %s\n", options.junit_path.c_str());
    }
  }

  if (options.auto_shrink && !interrupted) {
    const std::string pending = absl::StrCat(options.corpus_dir, "/pending");
    for (const RunResult& r : all_results) {
      if (r.ok || r.property == "nondeterminism" || r.property == "setup") continue;
      const std::string path =
          absl::StrCat(pending, "/seed-", r.seed, "-", PropertySlug(r.property), ".json");
      std::error_code ec;
      if (std::filesystem::exists(path, ec)) continue;  // shrunk before (a resumed campaign)
      std::filesystem::create_directories(pending, ec);
      ShrinkCommandOptions so;
      so.seed = r.seed;
      so.swarm = options.swarm;
      so.max_runs = options.shrink_max_runs;
      so.time_budget_ms = options.shrink_time_ms;
      so.out_path = path;
      so.quiet = options.quiet;
      so.print_steps = false;
      so.max_steps = options.max_steps;
      std::string written;
      const int code = RunShrinkCommand(so, &written);
      if (code == 0) {
        std::printf("auto-shrink: seed %llu (%s) -> %s\n",
                    static_cast<unsigned long long>(r.seed), r.property.c_str(), written.c_str());
      } else {
        std::printf("auto-shrink: seed %llu (%s) could not be shrunk (exit %d)\n",
                    static_cast<unsigned long long>(r.seed), r.property.c_str(), code);
      }
      std::fflush(stdout);
    }
  }

  if (interrupted) return 130;
  if (exit_code != 0) return exit_code;
  return stats.failed > 0 ? 1 : 0;
}

}  // namespace rindle::sim::cli
