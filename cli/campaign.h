// campaign.h — `rindle-sim fuzz`: runs RunSeed over a seed range in worker processes
// (worker.h), appends one JSON line per seed to the results file the moment it finishes, prints
// each failing seed at once, keeps a live progress line on stderr, and ends with a summary and
// the summed action/fault counters. Stateless entry point.
//
// Seeds: the inclusive range [first, last], restricted to seeds with seed % shard.count ==
// shard.index (so one campaign can be split over machines without coordination), and cut short
// when a wall-clock time budget runs out (no new seed starts after it; running ones finish).
// A --time campaign without --seeds counts up from a base seed (base_seed_note says where it
// came from: --base-seed, or today's UTC date × 10^6), printed on stderr at the start.
// Seeds are dispatched in increasing order; results arrive in completion order.
//
// Wall-clock time is used here only for the progress line, the budget and the summary — the
// CLI is not simulated; every seed's run is a pure function of its seed.
//
// Results file (result_io.h): a header line (format, version, commit and the run-changing
// options), then one line per seed. The file is locked (fcntl) while the campaign runs: a
// second campaign on it is refused. Without --resume an existing non-empty file is refused,
// never appended to.
// Resume (--resume): the results file is read first, strictly (result_io.h); a file made under
// other run-changing options (--max-steps, --swarm) is refused, naming the option and both
// values; every seed with a result line is neither run again nor lost (its result counts in the
// summary and the JUnit file); a torn last line (the campaign was killed mid-write) is cut off
// and that seed runs again.
// Every failure is printed with its reproduce command (`rindle-sim run --seed N` plus the
// run-changing options), as are the failed-seeds summary and the JUnit file.
// Determinism guard: seeds with IsCheckedSeed(seed, determinism_per_million) run twice in
// separate workers; differing digests record a failure of property "nondeterminism".
// Auto-shrink: after the seeds, every failed seed (except nondeterminism) without a shrunk file
// yet is shrunk (shrink_command.h) into <corpus_dir>/pending/seed-<S>-<property>.json.
// JUnit: the summary of every seed's result (junit.h), written at the end, also when
// interrupted.
//
// Workers (worker.h): a seed still running after --seed-timeout is killed and fails with
// property "timeout"; a crashed seed fails with property "crash", the last line it wrote to
// stderr (a CHECK's message) leading the message; a worker killed from outside (SIGKILL or
// SIGTERM not sent by the campaign) has its seed run once more before it counts as a crash (a
// pass on the retry is a pass; the summary counts the retried seeds). No temporary file or
// directory outlives the campaign.
//
// Exit codes: 0 every seed passed; 1 at least one seed failed (a crashed worker counts as a
// failure of property "crash"); 2 the results file cannot be opened, is locked, is refused (as
// above) or a worker cannot be started; 130 interrupted (SIGINT), after printing the summary
// of what finished.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/flags.h"

namespace rindle::sim::cli {

struct CampaignOptions {
  SeedRange seeds;
  Shard shard;
  std::string target = "client";         // "merge": the merge campaign (target_merge.h)
  int jobs = 1;
  std::string out_path = "rindle-sim-results.jsonl";
  int64_t max_steps = 0;  // 0: RunOptions' default
  bool quiet = false;     // no progress line
  std::optional<int64_t> time_budget_ms;
  bool swarm = true;                     // swarm testing (swarm.h); false: the default mix
  bool room_views = true;                // --room-views (default on): scenarios drive the room view plane
  bool resume = false;                   // skip seeds the results file already holds
  std::string junit_path;                // "" = no JUnit file
  uint32_t determinism_per_million = 50000;  // share of seeds run twice (default 5%)
  bool auto_shrink = false;
  std::string corpus_dir = "corpus";     // auto-shrink writes into <corpus_dir>/pending/
  int64_t shrink_time_ms = 60000;        // per failure
  int64_t shrink_max_runs = 2000;        // per failure
  int64_t seed_timeout_ms = 300000;      // per-seed wall-clock deadline; 0: none
  // --time without --seeds: where seeds.first came from ("from --base-seed", or the date it
  // was derived from); printed at the start so the night can be repeated. "" otherwise.
  std::string base_seed_note;
};

int RunCampaign(const CampaignOptions& options);

}  // namespace rindle::sim::cli
