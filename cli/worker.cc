// worker.cc — see worker.h.
#include "cli/worker.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
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

// Runs the job (RunSeed by default), turning an escaped exception into a failed result instead
// of a crash.
RunResult RunGuarded(const RunOptions& options, const WorkerPool::Job& job) {
  try {
    return job ? job(options) : RunSeed(options);
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
    if (space != std::string::npos) options.trace_path = line.substr(space + 1);
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

}  // namespace

RunResult CrashResult(uint64_t seed, const std::string& how) {
  RunResult r;
  r.seed = seed;
  r.ok = false;
  r.property = "crash";
  r.message = absl::StrCat("the worker process running this seed ", how,
                           " (see its stderr above); reproduce with: rindle-sim run --seed ",
                           seed);
  return r;
}

WorkerPool::WorkerPool(RunOptions base, Job job) : base_(std::move(base)), job_(std::move(job)) {
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerPool::~WorkerPool() {
  for (Worker& w : workers_) {
    if (w.in_fd >= 0) ::close(w.in_fd);
    if (w.out_fd >= 0) {
      ::close(w.out_fd);
      ::kill(w.pid, SIGKILL);
      int status = 0;
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
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
  std::fflush(nullptr);  // the child must not re-flush the parent's buffered output
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
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
    }
    ::close(to_child[1]);
    ::close(from_child[0]);
    WorkerMain(to_child[0], from_child[1], base_, job_);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  Worker w;
  w.pid = pid;
  w.in_fd = to_child[1];
  w.out_fd = from_child[0];
  workers_.push_back(std::move(w));
  return workers_.size() - 1;
}

absl::Status WorkerPool::Assign(size_t id, uint64_t seed, const std::string& trace_path) {
  Worker& w = workers_.at(id);
  if (w.in_fd < 0 || w.outstanding) {
    return absl::FailedPreconditionError(absl::StrCat("worker ", id, " is not idle"));
  }
  w.outstanding = seed;
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
  w.outstanding.reset();
}

std::vector<WorkerPool::Event> WorkerPool::Poll(int timeout_ms) {
  std::vector<Event> events;
  std::vector<pollfd> fds;
  std::vector<size_t> ids;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].out_fd < 0) continue;
    fds.push_back(pollfd{workers_[i].out_fd, POLLIN, 0});
    ids.push_back(i);
  }
  if (fds.empty()) return events;
  int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return events;  // timeout, or EINTR (the caller checks its signal flag)
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
        result = CrashResult(options.seed, e.how);
      }
    }
  }
  return result ? *result : CrashResult(options.seed, "ended without a result");
}

}  // namespace rindle::sim::cli
