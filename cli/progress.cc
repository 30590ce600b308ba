// progress.cc — see progress.h.
#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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

}  // namespace rindle::sim::cli
