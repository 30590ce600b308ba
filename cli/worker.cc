// worker.cc — see worker.h.
#include "cli/worker.h"

#include <sys/mman.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/check.h"
#include "cli/result_io.h"

namespace rindle::sim::cli {
namespace {

// Writes all of `data`; false on error (EPIPE when the reader is gone).
bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// RunSeed, or (test-only knobs, worker.h) a cut run followed by the requested fault.
RunResult RunSeedOrTestFault(RunOptions options) {
  const TestFault fault = TestFaultFor(options.seed);
  if (fault.kind == TestFault::kNone) return RunSeed(options);
  options.max_steps = fault.at_step;
  EnactTestFault(fault, RunSeed(options));
}

// Runs the job (RunSeed by default), turning an escaped exception into a failed result instead
// of a crash.
RunResult RunGuarded(const RunOptions& options, const WorkerPool::Job& job) {
  try {
    return job ? job(options) : RunSeedOrTestFault(options);
  } catch (const std::exception& e) {
    RunResult r;
    r.seed = options.seed;
    r.ok = false;
    r.property = "crash";
    r.message = absl::StrCat("uncaught exception: ", e.what());
    return r;
  }
}

[[noreturn]] void WorkerMain(int in_fd, int out_fd, RunOptions options,
                             const WorkerPool::Job& job) {
  const std::string base_trace = options.trace_path;
  std::string buffer;
  char chunk[256];
  for (;;) {
    size_t nl;
    while ((nl = buffer.find('\n')) == std::string::npos) {
      ssize_t n = ::read(in_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // input closed: done
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(0);
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    std::string line = buffer.substr(0, nl);
    buffer.erase(0, nl + 1);
    uint64_t seed = 0;
    const size_t space = line.find(' ');
    if (!absl::SimpleAtoi(line.substr(0, space), &seed)) _exit(3);  // protocol error
    options.seed = seed;
    // A job without a trace path writes none (or the base's): never the previous job's file.
    options.trace_path = space == std::string::npos ? base_trace : line.substr(space + 1);
    RunResult result = RunGuarded(options, job);
    result.seed = seed;
    if (!WriteAll(out_fd, DumpLine(ResultToJson(result, /*with_counters=*/true)) + "\n")) {
      _exit(4);
    }
  }
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return absl::StrCat("was killed by signal ", WTERMSIG(status), " (", name ? name : "?", ")");
  }
  return absl::StrCat("ended with wait status ", status);
}

// The last non-empty line of `text` (a CHECK's message is the last thing a crash prints).
std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const size_t nl = text.rfind('\n', end);
  const size_t begin = nl == std::string::npos ? 0 : nl + 1;
  return text.substr(begin, end + 1 - begin);
}

// "N" or "N:S" → the fault for `seed` (kNone when it does not apply or does not parse).
TestFault ParseTestFault(const char* env, TestFault::Kind kind, uint64_t seed) {
  const char* value = std::getenv(env);
  if (value == nullptr) return {};
  const std::string text = value;
  const size_t colon = text.find(':');
  TestFault fault;
  uint64_t only = 0;
  if (!absl::SimpleAtoi(text.substr(0, colon), &fault.at_step) || fault.at_step < 1) return {};
  if (colon != std::string::npos &&
      (!absl::SimpleAtoi(text.substr(colon + 1), &only) || only != seed)) {
    return {};
  }
  fault.kind = kind;
  return fault;
}

}  // namespace

TestFault TestFaultFor(uint64_t seed) {
  for (auto [env, kind] : {std::pair{"RINDLE_SIM_TEST_CRASH_AT_STEP", TestFault::kCrash},
                           std::pair{"RINDLE_SIM_TEST_HANG_AT_STEP", TestFault::kHang},
                           std::pair{"RINDLE_SIM_TEST_KILL_AT_STEP", TestFault::kKill}}) {
    TestFault f = ParseTestFault(env, kind, seed);
    if (f.kind == TestFault::kKill) {
      const char* marker = std::getenv("RINDLE_SIM_TEST_KILL_MARKER");
      const int fd = marker == nullptr ? -1 : ::open(marker, O_CREAT | O_EXCL | O_WRONLY, 0644);
      if (fd < 0) continue;  // no marker named, or killed once already
      ::close(fd);
    }
    if (f.kind != TestFault::kNone) return f;
  }
  return {};
}

void EnactTestFault(const TestFault& fault, const RunResult& r) {
  if (fault.kind == TestFault::kHang) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  if (fault.kind == TestFault::kKill) ::raise(SIGKILL);
  RINDLE_CHECK_MSG(false, absl::StrCat("test-only crash requested by "
                                       "RINDLE_SIM_TEST_CRASH_AT_STEP=",
                                       std::getenv("RINDLE_SIM_TEST_CRASH_AT_STEP"),
                                       " after step ", r.steps));
  std::abort();
}

RunResult CrashResult(uint64_t seed, const std::string& how, const std::string& err,
                      int64_t last_step) {
  RunResult r;
  r.seed = seed;
  r.ok = false;
  r.property = "crash";
  r.step = last_step;
  const std::string last = LastLine(err);
  const std::string where = last_step > 0 ? absl::StrCat(" in step ", last_step) : "";
  r.message = last.empty()
                  ? absl::StrCat("the worker process running this seed ", how, where,
                                 " (it wrote nothing to stderr)")
                  : absl::StrCat(last, " (the worker process running this seed ", how, where,
                                 ")");
  return r;
}

RunResult TimeoutResult(uint64_t seed, int64_t timeout_ms, double busy_s, const RunFlags& flags,
                        int64_t last_step) {
  RunFlags stop_before = flags;  // the campaign's own options, so the command replays this seed
  stop_before.max_steps = last_step;
  RunResult r;
  r.seed = seed;
  r.ok = false;
  r.property = "timeout";
  r.step = last_step;
  r.message = absl::StrFormat(
      "seed %u exceeded the per-seed deadline (--seed-timeout %gs): its worker was killed after "
      "%.1f s of wall-clock time, %s",
      seed, static_cast<double>(timeout_ms) / 1000.0, busy_s,
      last_step > 0 ? absl::StrCat("in step ", last_step, " (run `",
                                   ReproduceCommand(seed, stop_before),
                                   "` to stop just before the hang)")
                    : std::string("before its first step (in setup)"));
  return r;
}

WorkerPool::WorkerPool(RunOptions base, Job job) : base_(std::move(base)), job_(std::move(job)) {
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerPool::~WorkerPool() {
  for (Worker& w : workers_) {
    if (w.in_fd >= 0) ::close(w.in_fd);
    if (w.err_fd >= 0) ::close(w.err_fd);
    if (w.out_fd >= 0) {
      ::close(w.out_fd);
      ::kill(w.pid, SIGKILL);
      int status = 0;
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (w.progress != nullptr) ::munmap(w.progress, sizeof *w.progress);
  }
}

absl::StatusOr<size_t> WorkerPool::Spawn() {
  int to_child[2];
  int from_child[2];
  if (::pipe(to_child) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  if (::pipe(from_child) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  // The worker's stderr: an unlinked temporary file, appended to (see TakeStderr).
  std::FILE* err_file = std::tmpfile();
  const int err_fd = err_file == nullptr ? -1 : ::fcntl(::fileno(err_file), F_DUPFD_CLOEXEC, 0);
  if (err_file != nullptr) std::fclose(err_file);
  if (err_fd < 0 || ::fcntl(err_fd, F_SETFL, O_APPEND) != 0) {
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], err_fd}) {
      if (fd >= 0) ::close(fd);
    }
    return absl::InternalError(absl::StrCat("temporary stderr file: ", std::strerror(errno)));
  }
  // The progress page (worker.h): shared with the child, which its runs write the step into.
  void* page = ::mmap(nullptr, sizeof(std::atomic<int64_t>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  std::atomic<int64_t>* progress =
      page == MAP_FAILED ? nullptr : new (page) std::atomic<int64_t>(0);
  std::fflush(nullptr);  // the child must not re-flush the parent's buffered output
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], err_fd}) ::close(fd);
    if (progress != nullptr) ::munmap(progress, sizeof *progress);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    // Close every other worker's pipe ends: a copy held here would keep their inputs open.
    for (const Worker& w : workers_) {
      if (w.in_fd >= 0) ::close(w.in_fd);
      if (w.out_fd >= 0) ::close(w.out_fd);
      if (w.err_fd >= 0) ::close(w.err_fd);
    }
    ::close(to_child[1]);
    ::close(from_child[0]);
    ::dup2(err_fd, STDERR_FILENO);
    ::close(err_fd);
    RunOptions base = base_;
    base.progress = progress;
    WorkerMain(to_child[0], from_child[1], base, job_);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  Worker w;
  w.pid = pid;
  w.in_fd = to_child[1];
  w.out_fd = from_child[0];
  w.err_fd = err_fd;
  w.progress = progress;
  workers_.push_back(std::move(w));
  return workers_.size() - 1;
}

absl::Status WorkerPool::Assign(size_t id, uint64_t seed, const std::string& trace_path) {
  Worker& w = workers_.at(id);
  if (w.in_fd < 0 || w.outstanding) {
    return absl::FailedPreconditionError(absl::StrCat("worker ", id, " is not idle"));
  }
  w.outstanding = seed;
  w.assigned_at = Clock::now();
  if (w.progress != nullptr) w.progress->store(0, std::memory_order_relaxed);
  const std::string line =
      trace_path.empty() ? absl::StrCat(seed, "\n") : absl::StrCat(seed, " ", trace_path, "\n");
  if (!WriteAll(w.in_fd, line)) {
    return absl::UnavailableError(
        absl::StrCat("worker ", id, " (pid ", w.pid, ") is gone: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void WorkerPool::Finish(size_t id) {
  Worker& w = workers_.at(id);
  if (w.in_fd >= 0) {
    ::close(w.in_fd);
    w.in_fd = -1;
  }
}

std::vector<size_t> WorkerPool::Idle() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < workers_.size(); ++i) {
    const Worker& w = workers_[i];
    if (w.out_fd >= 0 && w.in_fd >= 0 && !w.outstanding) out.push_back(i);
  }
  return out;
}

size_t WorkerPool::live() const {
  size_t n = 0;
  for (const Worker& w : workers_) n += w.out_fd >= 0 ? 1 : 0;
  return n;
}

size_t WorkerPool::busy() const {
  size_t n = 0;
  for (const Worker& w : workers_) n += (w.out_fd >= 0 && w.outstanding) ? 1 : 0;
  return n;
}

// What worker `w` wrote to stderr since the last call: passed on to ours, then cut off.
std::string WorkerPool::TakeStderr(Worker& w) {
  std::string text;
  if (w.err_fd < 0) return text;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(w.err_fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  if (!text.empty()) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    (void)::ftruncate(w.err_fd, 0);  // O_APPEND: the worker's next write starts at 0 again
  }
  return text;
}

void WorkerPool::Reap(size_t id, Event* event) {
  Worker& w = workers_[id];
  if (w.in_fd >= 0) ::close(w.in_fd);
  ::close(w.out_fd);
  w.in_fd = -1;
  w.out_fd = -1;
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  event->worker = id;
  event->exited = true;
  event->lost_seed = w.outstanding;
  event->how = DescribeStatus(status);
  event->by_sigint = WIFSIGNALED(status) && WTERMSIG(status) == SIGINT;
  event->timed_out = w.killed_by_us;
  event->killed_from_outside = !w.killed_by_us && !terminating_ && WIFSIGNALED(status) &&
                               (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGTERM);
  if (w.outstanding) {
    event->busy_s = std::chrono::duration<double>(Clock::now() - w.assigned_at).count();
    if (w.progress != nullptr) event->last_step = w.progress->load(std::memory_order_relaxed);
  }
  if (w.progress != nullptr) {
    ::munmap(w.progress, sizeof *w.progress);
    w.progress = nullptr;
  }
  event->err = TakeStderr(w);
  ::close(w.err_fd);
  w.err_fd = -1;
  w.outstanding.reset();
}

// `timeout_ms` (-1: forever), shortened to the nearest seed deadline.
int WorkerPool::PollTimeout(int timeout_ms) const {
  if (seed_timeout_ms_ <= 0) return timeout_ms;
  const Clock::time_point now = Clock::now();
  for (const Worker& w : workers_) {
    if (w.out_fd < 0 || !w.outstanding || w.killed_by_us) continue;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        w.assigned_at + std::chrono::milliseconds(seed_timeout_ms_) - now);
    const int ms = static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1 << 30));
    timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
  }
  return timeout_ms;
}

// SIGKILLs every worker past its seed deadline (its exit event follows from Poll).
void WorkerPool::KillOverdue() {
  if (seed_timeout_ms_ <= 0) return;
  const Clock::time_point now = Clock::now();
  for (Worker& w : workers_) {
    if (w.out_fd < 0 || !w.outstanding || w.killed_by_us) continue;
    if (now - w.assigned_at >= std::chrono::milliseconds(seed_timeout_ms_)) {
      w.killed_by_us = true;
      ::kill(w.pid, SIGKILL);
    }
  }
}

std::vector<WorkerPool::Event> WorkerPool::Poll(int timeout_ms) {
  KillOverdue();
  std::vector<Event> events;
  std::vector<pollfd> fds;
  std::vector<size_t> ids;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].out_fd < 0) continue;
    fds.push_back(pollfd{workers_[i].out_fd, POLLIN, 0});
    ids.push_back(i);
  }
  if (fds.empty()) return events;
  int n = ::poll(fds.data(), fds.size(), PollTimeout(timeout_ms));
  if (n <= 0) {
    KillOverdue();
    return events;
  }  // timeout, or EINTR (the caller checks its signal flag)
  for (size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents == 0) continue;
    const size_t id = ids[k];
    Worker& w = workers_[id];
    char chunk[65536];
    ssize_t got = ::read(w.out_fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got > 0) {
      w.buffer.append(chunk, static_cast<size_t>(got));
      size_t nl;
      while ((nl = w.buffer.find('\n')) != std::string::npos) {
        std::string line = w.buffer.substr(0, nl);
        w.buffer.erase(0, nl + 1);
        Event e;
        e.worker = id;
        absl::StatusOr<RunResult> r = ResultFromJsonLine(line);
        const uint64_t seed = w.outstanding.value_or(0);
        e.err = TakeStderr(w);
        e.result = r.ok() ? *std::move(r)
                          : CrashResult(seed, absl::StrCat("wrote a malformed result (",
                                                           r.status().message(), ")"));
        w.outstanding.reset();
        events.push_back(std::move(e));
      }
      continue;
    }
    // EOF or read error: the worker is gone.
    Event e;
    Reap(id, &e);
    events.push_back(std::move(e));
  }
  return events;
}

void WorkerPool::TerminateAll() {
  terminating_ = true;
  for (Worker& w : workers_) {
    if (w.out_fd >= 0) ::kill(w.pid, SIGTERM);
  }
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].out_fd >= 0) {
      Event ignored;
      Reap(i, &ignored);
    }
  }
}

RunResult RunIsolated(const RunOptions& options) { return RunIsolated(options, nullptr); }

RunResult RunIsolated(const RunOptions& options, WorkerPool::Job job) {
  WorkerPool pool(options, job);
  absl::StatusOr<size_t> id = pool.Spawn();
  if (!id.ok()) {
    // Cannot fork: run in-process instead.
    return RunGuarded(options, job);
  }
  (void)pool.Assign(*id, options.seed, options.trace_path);  // failure: the exit event below
  pool.Finish(*id);
  std::optional<RunResult> result;
  while (pool.live() > 0) {
    for (WorkerPool::Event& e : pool.Poll(-1)) {
      if (!e.exited) {
        result = std::move(e.result);
      } else if (!result) {
        result = CrashResult(options.seed, e.how, e.err, e.last_step);
      }
    }
  }
  return result ? *result : CrashResult(options.seed, "ended without a result");
}

}  // namespace rindle::sim::cli
