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
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/cli/result_io.h"
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
    const double rate = elapsed > 0 ? static_cast<double>(stats.done) / elapsed : 0;
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

}  // namespace

int RunCampaign(const CampaignOptions& options) {
  SeedCursor cursor(options.seeds, options.shard);
  const uint64_t total = cursor.total();

  std::FILE* out = std::fopen(options.out_path.c_str(), "a");
  if (out == nullptr) {
    std::fprintf(stderr, "rindle-sim fuzz: --out \"%s\": cannot open for appending: %s\n",
                 options.out_path.c_str(), std::strerror(errno));
    return 2;
  }

  RunOptions base;
  if (options.max_steps > 0) base.max_steps = options.max_steps;
  WorkerPool pool(base);

  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_sa;
  ::sigaction(SIGINT, &sa, &old_sa);

  const auto start = Clock::now();
  Stats stats;
  Progress progress(!options.quiet, total, options.time_budget_ms);
  int exit_code = 0;
  bool budget_spent = false;

  auto more_seeds = [&] {
    if (cursor.done() || g_interrupted) return false;
    if (options.time_budget_ms && SecondsSince(start) * 1000.0 >= *options.time_budget_ms) {
      budget_spent = true;
      return false;
    }
    return true;
  };

  auto record = [&](const RunResult& r) {
    ++stats.done;
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

  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  while (true) {
    // Keep `jobs` workers alive while seeds remain, and give every idle one a seed.
    while (more_seeds() && pool.live() < jobs && pool.live() < total - stats.done) {
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
      if (more_seeds()) {
        (void)pool.Assign(id, *cursor.Next());  // a dead worker reports the seed as lost
      } else {
        pool.Finish(id);
      }
    }
    if (pool.live() == 0) break;
    if (g_interrupted) break;

    for (WorkerPool::Event& e : pool.Poll(250)) {
      if (!e.exited) {
        record(e.result);
      } else if (e.lost_seed && !g_interrupted && !e.by_sigint) {
        record(CrashResult(*e.lost_seed, e.how));
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

  const double elapsed = SecondsSince(start);
  std::printf(
      "\nrindle-sim fuzz: %llu seeds run, %llu passed, %llu failed in %s (%.2f seeds/s)%s\n",
              static_cast<unsigned long long>(stats.done),
              static_cast<unsigned long long>(stats.done - stats.failed),
              static_cast<unsigned long long>(stats.failed), FormatDuration(elapsed).c_str(),
              elapsed > 0 ? static_cast<double>(stats.done) / elapsed : 0.0,
              interrupted    ? " — interrupted"
              : budget_spent ? " — time budget reached"
                             : "");
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

  if (interrupted) return 130;
  if (exit_code != 0) return exit_code;
  return stats.failed > 0 ? 1 : 0;
}

}  // namespace rindle::sim::cli
