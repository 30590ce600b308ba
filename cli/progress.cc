// progress.cc — see progress.h.
#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "properties/property_names.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/workload/mutators.h"

namespace rindle::sim::cli {

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

Progress::Progress(bool enabled, uint64_t total, std::optional<int64_t> budget_ms)
    : enabled_(enabled), tty_(::isatty(STDERR_FILENO) == 1), total_(total),
      budget_ms_(budget_ms), start_(Clock::now()), last_(start_ - std::chrono::hours(1)) {}

void Progress::Update(const CampaignStats& stats, bool force) {
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

void Progress::Clear() {
  if (enabled_ && tty_ && shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

void PrintCounters(const CampaignStats& stats) {
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

void AddSeedCounters(CampaignStats& stats, const std::map<std::string, int64_t>& counters) {
  auto fired = [&](const std::string& name) {
    auto it = counters.find(name);
    return it != counters.end() && it->second != 0;
  };
  for (const auto& [name, count] : counters) {
    stats.counter_totals[name] += count;
    stats.counter_seeds[name] += count != 0 ? 1 : 0;
  }
  for (const ActionKindSpec& spec : ActionKindTable()) {
    bool any = fired("action." + std::string(spec.name));
    if (spec.kind == ScenarioAction::Kind::kMutate) {
      for (const std::string& m : WorkloadMutatorNames()) any = any || fired("action." + m);
    }
    stats.kind_seeds["action." + std::string(spec.name)] += any ? 1 : 0;
  }
  for (const FaultKindSpec& spec : FaultKindTable()) {
    const std::string name = "fault." + std::string(spec.name);
    stats.kind_seeds[name] += fired(name) ? 1 : 0;
  }
}

namespace {

// The property names that have no check counters: the runner's and the worker's verdicts (crash
// and timeout judge every seed but count nothing: timeout used to show "never checked") and the
// action-time checks of folds and flush-on-enqueue. The simulator's other action-time checks
// (channel-isolation, room-context-leak, room-stuck) count check.<p>.checked where they run
// (Simulation::CheckNow), so an uncounted one of them shows as never checked.
bool IsCountedProperty(std::string_view name) {
  for (std::string_view verdict : {"crash", "timeout", "fold", "flush-on-enqueue", "liveness",
                                   "nondeterminism", "setup", "workload", "merge-error",
                                   "merge-setup"}) {
    if (verdict == name) return false;
  }
  return true;
}

int64_t Lookup(const std::map<std::string, int64_t>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

// The merge target's operations and paths (merge_runner.h counters), so a dead one shows.
const std::vector<std::string_view> kMergeOperations = {
    "query", "add_room", "remove_room", "server_batch.daemon", "server_batch.room", "write",
    "reinvoke", "hold_back", "hold_back_absent", "drop", "drop.in_cycle", "drop.noop", "freeze",
    "fence.row", "fence.tombstone", "writable_matches", "provenance"};

void PrintKindRows(const CampaignStats& stats, const char* what, const std::string& prefix,
                   const std::vector<std::string_view>& names) {
  std::printf("  %s (seeds fired in, of %llu):\n", what,
              static_cast<unsigned long long>(stats.done));
  for (std::string_view name : names) {
    const int64_t seeds = Lookup(stats.kind_seeds, prefix + std::string(name));
    std::printf("    %-28s %8lld%s\n", std::string(name).c_str(), static_cast<long long>(seeds),
                seeds == 0 ? "  NEVER FIRED" : "");
  }
}

}  // namespace

void PrintHealth(const CampaignStats& stats, bool merge_target) {
  std::printf("health:\n");
  std::vector<std::string_view> actions, faults;
  for (const ActionKindSpec& spec : ActionKindTable()) actions.push_back(spec.name);
  for (const FaultKindSpec& spec : FaultKindTable()) faults.push_back(spec.name);
  if (merge_target) {
    std::printf("  merge operations (seeds fired in, of %llu):\n",
                static_cast<unsigned long long>(stats.done));
    for (std::string_view op : kMergeOperations) {
      const int64_t seeds = Lookup(stats.counter_seeds, "merge." + std::string(op));
      std::printf("    %-28s %8lld%s\n", std::string(op).c_str(), static_cast<long long>(seeds),
                  seeds == 0 ? "  NEVER FIRED" : "");
    }
  } else {
    PrintKindRows(stats, "action kinds", "action.", actions);
    PrintKindRows(stats, "fault kinds", "fault.", faults);
  }
  std::printf("  properties (seeds checked in, of %llu; steps checked; steps skipped):\n",
              static_cast<unsigned long long>(stats.done));
  for (std::string_view name : props::kPropertyNames) {
    // Each target lists its own properties: the merge ones are named merge-*.
    if ((name.substr(0, 6) == "merge-") != merge_target) continue;
    const std::string key = "check." + std::string(name);
    const bool counted = stats.counter_totals.count(key + ".checked") > 0 ||
                         stats.counter_totals.count(key + ".skipped") > 0;
    if (!counted && !IsCountedProperty(name)) {
      std::printf("    %-28s %8s  (a run verdict or action-time check: not counted)\n",
                  std::string(name).c_str(), "-");
      continue;
    }
    const int64_t checked = Lookup(stats.counter_totals, key + ".checked");
    const int64_t skipped = Lookup(stats.counter_totals, key + ".skipped");
    const int64_t seeds = Lookup(stats.counter_seeds, key + ".checked");
    std::string flag;
    if (checked == 0) flag = "  NEVER FIRED (never checked)";
    if (skipped * 10 > checked + skipped) {
      absl::StrAppend(&flag, absl::StrFormat("  WARNING: skipped in %.1f%% of its steps",
                                             100.0 * skipped / (checked + skipped)));
    }
    std::printf("    %-28s %8lld %12lld %10lld%s\n", std::string(name).c_str(),
                static_cast<long long>(seeds), static_cast<long long>(checked),
                static_cast<long long>(skipped), flag.c_str());
  }
}

}  // namespace rindle::sim::cli
