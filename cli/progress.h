// progress.h — what a fuzz campaign shows while it runs and when it ends: the tallies
// (CampaignStats), the live progress line on stderr (Progress: redrawn 4×/s on a terminal, a
// line at most every 10 s in a log), the counters table and the duration format. Progress
// holds the redraw state; the rest are values and printers. Wall-clock time only reaches
// stderr/stdout here, never a run (ARCHITECTURE.md §2).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rindle::sim::cli {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start);

// "12.3s", "4m05s", "1h02m03s".
std::string FormatDuration(double seconds);

struct CampaignStats {
  uint64_t done = 0;
  uint64_t resumed = 0;  // of `done`: results read back by --resume (not run now)
  uint64_t failed = 0;
  std::vector<uint64_t> failed_seeds;
  std::map<std::string, int64_t> counter_totals;
  std::map<std::string, int64_t> counter_seeds;  // seeds in which the counter fired
  // Seeds in which each action kind ("action.<kind>") and fault kind ("fault.<kind>") of the
  // kinds table fired (AddSeedCounters; a mutate fires as "action.<mutator>").
  std::map<std::string, int64_t> kind_seeds;
};

// Adds one seed's counters (run now, or read back from the results file) to the tallies.
void AddSeedCounters(CampaignStats& stats, const std::map<std::string, int64_t>& counters);

class Progress {
 public:
  // `total` seeds (UINT64_MAX with a budget: unknown); `budget_ms` the --time budget.
  Progress(bool enabled, uint64_t total, std::optional<int64_t> budget_ms);

  // Redraws when due or when `force`: on a terminal 4 times a second; otherwise (a log) a line
  // at most every 10 s when seeds finished, and at least every minute.
  void Update(const CampaignStats& stats, bool force);

  // Erases the live line before other output (tty only).
  void Clear();

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

// The counters table (summed over the seeds, and in how many seeds each fired) on stdout.
void PrintCounters(const CampaignStats& stats);

// The health section on stdout: every action kind and fault kind of the kinds table
// (scenario_kinds.h) with the seeds it fired in, every property (property_names.h) with the
// seeds it was checked in and its checked / skipped step counts (check.<p>.checked/.skipped);
// "NEVER FIRED" marks a kind with no firing and a property never checked, "WARNING" a property
// skipped in more than a tenth of the steps it could have run in. Properties that are run
// verdicts or uncounted action-time checks (fold, flush-on-enqueue) are listed as "not counted".
// merge_target (`fuzz --target merge`): the merge operations (merge.* counters) instead of the
// kinds, and only the merge-* properties (the client target lists every other one).
void PrintHealth(const CampaignStats& stats, bool merge_target = false);

}  // namespace rindle::sim::cli
