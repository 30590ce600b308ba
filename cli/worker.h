// worker.h — process isolation for seed runs: a pool of forked worker processes, each running
// RunSeed for one seed at a time, so a crash (a failed CHECK aborts) costs one seed, not the
// campaign, and nothing can leak between campaign seeds through process state. Holds state: the
// live workers, their pipes and outstanding seeds. Not thread-safe (the CLI is single-threaded).
//
// Protocol: the parent writes one line per job into a worker's input pipe — a decimal seed,
// optionally followed by a space and a trace file path the run writes its trace to; the worker
// answers with one JSON line on its result pipe (result_io.h worker line, with counters); when
// its input closes it exits 0. The worker is a fork() of the CLI (no exec) that never returns
// into the CLI: it leaves through _exit().
//
// A worker that dies with a seed outstanding yields an exit event carrying that seed and a
// description of how it died ("killed by signal 6 (Aborted)"); the caller records it as a
// failure of property "crash" (see CrashResult). SIGPIPE is ignored in the parent so a dead
// worker surfaces as an exit event, never as a parent crash.
//
// Each worker's stderr goes to its own unlinked temporary file (no path is ever left behind):
// after each event the parent takes what the seed wrote (Event::err), passes it on to its own
// stderr and empties the file, so a crash's CHECK message is known with its seed.
// Per-seed deadline (set_seed_timeout_ms): a worker busy on one seed for longer is killed
// (SIGKILL); its exit event says timed_out. Progress: each worker shares one page with the
// parent (mmap MAP_SHARED before the fork) where its run stores the step it is in
// (RunOptions::progress); an exit event with a seed outstanding carries that step, so a crash
// or a timeout names the step the seed reached.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/result_io.h"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

class WorkerPool {
 public:
  // A worker's job for one seed; `options` is base with seed (and trace_path) replaced.
  using Job = std::function<RunResult(const RunOptions& options)>;
  // Every worker runs job(base) — RunSeed by default — with base.seed replaced by the seed it
  // is sent.
  explicit WorkerPool(RunOptions base, Job job = nullptr);
  ~WorkerPool();  // kills (SIGKILL) and reaps any worker still alive
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Forks a new worker; returns its id.
  absl::StatusOr<size_t> Spawn();

  // Sends `seed` to idle worker `id`. An error means the worker is gone (its exit event
  // follows from Poll).
  absl::Status Assign(size_t id, uint64_t seed, const std::string& trace_path = "");

  // Closes worker `id`'s input: it exits once its outstanding seed (if any) is answered.
  void Finish(size_t id);

  // Live workers with an open input and no outstanding seed.
  std::vector<size_t> Idle() const;
  size_t live() const;
  size_t busy() const;

  struct Event {
    size_t worker = 0;
    bool exited = false;        // false: `result` holds a finished seed
    RunResult result;           // when !exited
    std::optional<uint64_t> lost_seed;  // when exited with a seed outstanding
    std::string how;            // when exited: "exited with status 0", "killed by signal 6 (...)"
    bool by_sigint = false;     // when exited: killed by SIGINT (user interrupt)
    bool timed_out = false;     // when exited: killed by this pool for the seed deadline
    bool killed_from_outside = false;  // when exited: SIGKILL/SIGTERM not sent by this pool
    double busy_s = 0;          // when exited with a seed: wall-clock seconds spent on it
    int64_t last_step = 0;      // when exited with a seed: the step it was in (0: none begun)
    std::string err;            // what the worker wrote to stderr for this seed
  };

  // 0 (the default): no deadline.
  void set_seed_timeout_ms(int64_t ms) { seed_timeout_ms_ = ms; }

  // Waits up to `timeout_ms` (-1: forever) for worker output; returns what happened. Returns
  // early, possibly empty, when a signal interrupts the wait.
  std::vector<Event> Poll(int timeout_ms);

  // Sends SIGTERM to every live worker and reaps them (no events).
  void TerminateAll();

 private:
  using Clock = std::chrono::steady_clock;
  struct Worker {
    pid_t pid = -1;
    int err_fd = -1;  // the worker's stderr (an unlinked temporary file); -1 once reaped
    Clock::time_point assigned_at;
    bool killed_by_us = false;  // SIGKILLed for the deadline
    int in_fd = -1;   // parent → worker (seeds); -1 once closed
    int out_fd = -1;  // worker → parent (results); -1 once the worker is reaped
    std::string buffer;
    std::optional<uint64_t> outstanding;
    std::atomic<int64_t>* progress = nullptr;  // the shared page (see the header); or null
  };

  void Reap(size_t id, Event* event);
  std::string TakeStderr(Worker& w);
  int PollTimeout(int timeout_ms) const;
  void KillOverdue();

  RunOptions base_;
  Job job_;
  std::vector<Worker> workers_;
  int64_t seed_timeout_ms_ = 0;
  bool terminating_ = false;
};

// The RunResult recorded for a seed whose worker died; `err` is what it wrote to stderr (its
// last line, a CHECK's message, leads the failure message).
// `last_step` (> 0: the step it was in) becomes the result's step and is named in the message.
RunResult CrashResult(uint64_t seed, const std::string& how, const std::string& err = "",
                      int64_t last_step = 0);

// The RunResult (property "timeout") recorded for a seed killed for the per-seed deadline.
RunResult TimeoutResult(uint64_t seed, int64_t timeout_ms, double busy_s, const RunFlags& flags,
                        int64_t last_step = 0);

// TEST-ONLY knobs (regression tests of the crash, hang and kill paths: cli/run_exit_test.cc,
// cli/workers_test.cc). Never set them outside tests; nothing changes when they are unset.
//   RINDLE_SIM_TEST_CRASH_AT_STEP=N[:S]  run N steps, then fail a real RINDLE_CHECK
//   RINDLE_SIM_TEST_HANG_AT_STEP=N[:S]   run N steps, then sleep forever
//   RINDLE_SIM_TEST_KILL_AT_STEP=N[:S]   run N steps, then SIGKILL itself — only when the file
//                                        named by RINDLE_SIM_TEST_KILL_MARKER does not exist
//                                        yet (it is created first), so a retry passes
// With ":S" only seed S is affected. Honoured by `run`'s child and by fuzz workers.
struct TestFault {
  enum Kind { kNone, kCrash, kHang, kKill } kind = kNone;
  int64_t at_step = 0;
};
TestFault TestFaultFor(uint64_t seed);
// Acts out `fault` (not kNone) after the cut run that produced `r`; never returns.
[[noreturn]] void EnactTestFault(const TestFault& fault, const RunResult& r);

// Runs one seed in a forked child and returns its result (a CrashResult if the child died).
RunResult RunIsolated(const RunOptions& options);
// Runs job(options) in a forked child (a CrashResult for options.seed if the child died).
RunResult RunIsolated(const RunOptions& options, WorkerPool::Job job);

}  // namespace rindle::sim::cli
