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
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
  };

  // Waits up to `timeout_ms` (-1: forever) for worker output; returns what happened. Returns
  // early, possibly empty, when a signal interrupts the wait.
  std::vector<Event> Poll(int timeout_ms);

  // Sends SIGTERM to every live worker and reaps them (no events).
  void TerminateAll();

 private:
  struct Worker {
    pid_t pid = -1;
    int in_fd = -1;   // parent → worker (seeds); -1 once closed
    int out_fd = -1;  // worker → parent (results); -1 once the worker is reaped
    std::string buffer;
    std::optional<uint64_t> outstanding;
  };

  void Reap(size_t id, Event* event);

  RunOptions base_;
  Job job_;
  std::vector<Worker> workers_;
};

// The RunResult recorded for a seed whose worker died.
RunResult CrashResult(uint64_t seed, const std::string& how);

// Runs one seed in a forked child and returns its result (a CrashResult if the child died).
RunResult RunIsolated(const RunOptions& options);
// Runs job(options) in a forked child (a CrashResult for options.seed if the child died).
RunResult RunIsolated(const RunOptions& options, WorkerPool::Job job);

}  // namespace rindle::sim::cli
