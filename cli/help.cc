// help.cc — see help.h. The texts are what `rindle-sim <command> --help` prints, verbatim.
#include "cli/help.h"

#include <cstdio>

namespace rindle::sim::cli {

const char kMainHelp[] = R"(rindle-sim — deterministic simulation and property testing for the Rindle sync
engine.

Usage:
  rindle-sim fuzz   --seeds A..B [--jobs N] [--out FILE] ...   run a fuzz campaign
  rindle-sim run    --seed S | --scenario FILE                  run one seed or scenario
  rindle-sim replay DIR|FILE...                                 replay corpus scenarios
  rindle-sim shrink --seed S | --scenario FILE                  shrink a failing scenario
  rindle-sim merge  FILE... --out FILE                          merge shard results files
  rindle-sim check-case FILE|DIR...                             run recorded engine cases
  rindle-sim gen-cases --seeds A..B --out DIR                   write seeded engine cases
  rindle-sim <command> --help                                   help for one command
  rindle-sim --version                                          version and git commit

Every seed is a whole simulated deployment (authority, clients, faulty network) in virtual
time; the same seed always gives the same run and the same trace digest.

Exit codes: 0 ok, 1 a property failed, 2 usage or input error.
)";

const char kFuzzHelp[] = R"(rindle-sim fuzz — run a campaign of seeds.

Usage:
  rindle-sim fuzz --seeds A..B [options]
  rindle-sim fuzz --time BUDGET [--seeds A..B] [options]

Options:
  --seeds A..B     inclusive seed range (unsigned integers, A <= B), or one seed N
  --time BUDGET    wall-clock budget (90, 90s, 15m, 2h): no new seed starts after it;
                   without --seeds the campaign counts up from a base seed printed at
                   the start: --base-seed B, or today's UTC date × 10^6 (20261201000000
                   on 2026-12-01), so each night runs new seeds and stays repeatable
  --base-seed B    with --time and no --seeds: the first seed (repeat a night's campaign)
  --jobs N         worker processes running seeds in parallel (default 1)
  --shard I/N      run only the seeds with seed % N == I (0 <= I < N), to split one
                   campaign over N machines
  --out FILE       results file (default rindle-sim-results.jsonl): a header line
                   {rindle_results, version, commit, options}, then one JSON line per seed
                   appended the moment it finishes: {seed, ok, property, step, message,
                   digest, steps, virtual_ms, options}. An existing non-empty file is
                   refused without --resume; a file another campaign is writing (locked)
                   is refused
  --max-steps K    per-seed event budget (a run not quiescent by then fails `liveness`)
  --swarm on|off   swarm testing: each seed draws which action and fault kinds are on and
                   their rates (default on); off runs the default mix
  --room-views on|off
                   on: every seed's scenario drives the rooms' view plane (retarget into
                   rooms, late joins, demotes; config.room_views); default on
  --resume         continue a killed campaign: seeds already in the results file are not
                   run again (and their results are kept); a torn last line is cut off
                   (that seed runs again); a file made under other --max-steps/--swarm/
                   --room-views, a foreign or missing header, a bad seed or a conflicting
                   duplicate line refuse the resume (naming the line)
  --junit FILE     also write a JUnit XML summary (one testcase per seed)
  --determinism-check F
                   the fraction of seeds run twice in separate workers, comparing trace
                   digests (default 0.05; 0 turns it off); a mismatch fails the seed with
                   property `nondeterminism`, both digests and the first differing line
  --auto-shrink    after the seeds, group the failures by property and message shape
                   (numbers ignored) and shrink one seed per group (its lowest) into
                   <corpus>/pending/, --jobs groups at a time; the other seeds are listed
                   as its members, and --junit links each failure to its group's file
  --corpus DIR     where --auto-shrink writes (default corpus, files go to DIR/pending/)
  --shrink-time T  --auto-shrink budget per group (default 60s)
  --seed-timeout T wall-clock deadline per seed (default 300s; 0 = none): a seed still
                   running is killed and fails with property `timeout`
  --quiet          no live progress line on stderr
  --target T       client (default): the simulated deployment; merge: the engine's
                   multi-source merge (rooms, hold-backs, provenance) against the naive merge
                   model, counters merge.* and check.merge-* (README "--target merge")

Failing seeds are printed as they are found, with the command that reproduces them:
  seed=<n> property=<name> step=<k> <message>
    reproduce: rindle-sim run --seed <n> [--max-steps K] [--swarm off] [--room-views off]
A crashed run (e.g. a failed CHECK) fails its seed with property `crash`, the CHECK message
as its message; a worker killed from outside (kill -9) has its seed run once more first. The
campaign goes on.
At the end: seeds run/passed/failed, elapsed time, seeds/s, and the summed action and fault
counters. Exit 0 if every seed passed, 1 if any failed, 2 on usage errors.
)";

const char kRunHelp[] = R"(rindle-sim run — run one seed or one scenario; print its result and digest.

Usage:
  rindle-sim run --seed S [options]
  rindle-sim run --scenario FILE [options]

Options:
  --seed S               generate the scenario of seed S (unsigned integer) and run it
  --scenario FILE        run a saved scenario (corpus/README.md) without the generator;
                         a scenario emitted by --seed S gives the same digest as --seed S
  --emit-scenario FILE   write the scenario that runs (rindle-scenario/2 JSON)
  --note TEXT            with --emit-scenario: the scenario's one-line note
  --swarm on|off         with --seed: swarm testing (each seed draws which action and
                         fault kinds are on, and their rates; default on) or the default mix
  --room-views on|off    with --seed: the generated scenario drives the rooms' view plane
                         (config.room_views; default on); a scenario file carries its own
  --trace FILE           write the full trace, one JSON object per line: every action,
                         frame, push, ack, injected fault (with its parameters) and applied
                         write; rows appear as hashes (what the digest covers) and, in a
                         line's "detail", readable as table, pk and columns
  --report FILE.html     write the failure report: one self-contained HTML page (works
                         offline) with the failure's expected-versus-actual lines, a
                         zoomable, filterable timeline (a lane per client and per
                         authority channel; every message, loss, duplicate and ack;
                         fault windows shaded) and the step list, the failing step
                         selected (README "Reading a failure report")
  --timeline FILE.html   the old name of --report (the same page)
  --steps                print the scenario's steps (one line per action and fault)
  --max-steps K          event budget (a run not quiescent by then fails `liveness`)
  --target merge         run a merge-campaign seed or merge scenario file instead (no
                         --trace, --timeline, --swarm, --room-views or --note)

Prints `seed=S ok digest=... steps=... virtual_ms=...`, or on failure
`seed=S property=<name> step=<k> <message>` followed by the digest line, then the counters.
Exit 0 if the run passed, 1 if a property failed, 2 on usage or input errors.
)";

const char kShrinkHelp[] = R"(rindle-sim shrink — shrink a failing seed or scenario to a small one that
still fails the same property.

Usage:
  rindle-sim shrink --seed S [options]
  rindle-sim shrink --scenario FILE [options]

Options:
  --seed S          generate seed S's scenario (with --swarm on|off, default on, and
                    --room-views on|off, default on) and shrink it
  --scenario FILE   shrink a saved scenario (rindle-scenario/2, or a /1 seed-only file)
  --max-runs N      at most N simulation runs (default 2000)
  --time BUDGET     wall-clock budget (60, 60s, 5m; default 60s)
  --out FILE        where to write the result (default corpus/seed-<S>-<property>.json)
  --corpus DIR      the directory the default output goes to (default corpus)
  --quiet           no progress line on stderr
  --target merge    shrink a merge-campaign seed or scenario (ddmin over actions, deltas,
                    in-cycle actions and txn ops; default output corpus/merge-seed-<S>-<p>.json)

Passes: ddmin over faults and actions, fault kinds off one at a time, fewer clients, ddmin
over seed rows, then simplifications (no loss/duplication, minimum latency, shorter fault
windows and delays, shorter strings, smaller integers), repeated until nothing changes or
the budget is spent. Every candidate runs in its own process. Prints the minimal scenario
as a list of steps and writes it with "expect": "fail", the property and its message.
Exit 0 shrunk and written, 1 the scenario does not fail, 2 usage or input error.
)";

const char kReplayHelp[] = R"(rindle-sim replay — replay saved scenarios (corpus/*.json).

Usage:
  rindle-sim replay DIR|FILE...

A directory replays every *.json file in it (sorted, not recursive). One line per file:
  PASS <file>: ...     the run met the scenario's expectation
  FAIL <file>: ...     it did not (a scenario with "expect": "fail" documents a known bug
                       and passes only while the run still fails that property)
  ERROR <file>: ...    the file could not be read or is not a valid scenario
A bad file does not stop the others. Format: corpus/README.md.
Exit 0 if every file passed, 1 if any failed, 2 if any file is unreadable or invalid.
)";

int Usage(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "rindle-sim%s%s: %s\nTry 'rindle-sim%s%s --help'.\n",
               command.empty() ? "" : " ", command.c_str(), message.c_str(),
               command.empty() ? "" : " ", command.c_str());
  return 2;
}

int Help(const char* text) {
  std::fputs(text, stdout);
  return 0;
}

const char kMergeHelp[] = R"(rindle-sim merge — combine the results files of one campaign split over machines.

Usage:
  rindle-sim merge FILE... --out MERGED [--junit FILE]

Each FILE is a `fuzz --out` results file (e.g. of `fuzz --shard I/N` on N machines). All are
read and checked before anything is written: each needs its header and no torn last line,
and all must come from one build (commit) and the same run-changing options (--max-steps,
--swarm, --room-views). A seed found in two files must have the same result there.

Prints the summary a one-machine campaign prints over the same seeds (seeds, failures with
reproduce commands, the counters table, the health section) and writes MERGED: the header,
then one line per seed in seed order. MERGED is written whole, then renamed into place; it
must not be one of the inputs.

Options:
  --out FILE     the merged results file (required)
  --junit FILE   also write a JUnit XML summary of every seed

Exit codes: 0 every seed passed, 1 a seed failed, 2 usage or input error.
)";

}  // namespace rindle::sim::cli
