// campaign.cc — see campaign.h.
#include "cli/campaign.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/merge/merge_runner.h"
#include "sim/run/determinism_guard.h"
#include "cli/auto_shrink.h"
#include "cli/junit.h"
#include "cli/progress.h"
#include "cli/result_io.h"
#include "cli/worker.h"

namespace rindle::sim::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnSigint(int) { g_interrupted = 1; }

RunFlags RunFlagsOf(const CampaignOptions& options) {
  return RunFlags{options.max_steps, options.swarm, options.target, options.room_views};
}

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


bool InShard(uint64_t seed, const CampaignOptions& o) {
  return seed >= o.seeds.first && seed <= o.seeds.last && seed % o.shard.count == o.shard.index;
}

// Reads all of `fd` from offset 0; false on a read error.
bool ReadAll(int fd, std::string* text) {
  char buf[65536];
  off_t at = 0;
  while (true) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    text->append(buf, static_cast<size_t>(n));
    at += n;
  }
}

int Refuse(const std::string& message) {
  std::fprintf(stderr, "rindle-sim fuzz: %s\n", message.c_str());
  return 2;
}

// The --resume read of the (locked, regular) results file `fd`: fills `prior`, or returns the
// exit code (2) when the file cannot be resumed over. Cuts a torn last line off (that seed runs
// again). Nothing is changed before every check passed.
std::optional<int> ResumeFrom(const CampaignOptions& options, int fd,
                              std::map<uint64_t, RunResult>& prior) {
  const std::string& path = options.out_path;
  std::string text;
  if (!ReadAll(fd, &text)) {
    return Refuse(absl::StrCat("--resume: cannot read \"", path, "\": ", std::strerror(errno)));
  }
  absl::StatusOr<ResultsFile> read = ReadResultsText(path, text);
  if (!read.ok()) {
    return Refuse(absl::StrCat("--resume: ", read.status().message(),
                               "; not resuming over it"));
  }
  const nlohmann::json current = RunFlagsToJson(RunFlagsOf(options));
  if (read->has_header) {
    if (std::string why = OptionsMismatch(read->options, current); !why.empty()) {
      return Refuse(absl::StrCat("--resume: \"", path, "\" was made under other options (", why,
                                 "); resume with the file's options or use another --out"));
    }
  }
  if (read->torn_tail && ::ftruncate(fd, static_cast<off_t>(read->clean_size)) != 0) {
    return Refuse(absl::StrCat("--resume: cannot truncate \"", path, "\": ", std::strerror(errno)));
  }
  prior = std::move(read->by_seed);
  std::fprintf(stderr, "rindle-sim fuzz: --resume: %zu seeds already in \"%s\"%s\n",
               prior.size(), path.c_str(),
               read->torn_tail ? " (a torn last line was cut off)" : "");
  return std::nullopt;
}

// Locks the results file `fd` and checks it may be written: without --resume it must be empty
// (a campaign never appends to another's results), with --resume it is read (ResumeFrom).
std::optional<int> CheckResultsFd(const CampaignOptions& options, int fd,
                                  std::map<uint64_t, RunResult>& prior) {
  const std::string& path = options.out_path;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return Refuse(absl::StrCat("--out \"", path, "\": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  // A POSIX record lock, not flock(2): it belongs to this process only, so forked workers
  // (which inherit the descriptor) do not keep it alive after a kill -9 of the campaign. It is
  // dropped when this process closes any descriptor of the file: nothing else here opens it.
  struct flock lock;
  std::memset(&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
  if (::fcntl(fd, F_SETLK, &lock) != 0) {
    if (errno == EACCES || errno == EAGAIN) {
      return Refuse(absl::StrCat("--out \"", path, "\": another campaign is writing this "
                                 "results file (it is locked); wait for it or use another --out"));
    }
    return Refuse(absl::StrCat("--out \"", path, "\": cannot lock: ", std::strerror(errno)));
  }
  if (options.resume) return ResumeFrom(options, fd, prior);
  if (st.st_size > 0) {
    return Refuse(absl::StrCat("--out \"", path, "\": already holds results; use --resume "
                               "(to continue that campaign) or another --out"));
  }
  return std::nullopt;
}

// Opens, locks and checks the results file; on success `*out` appends to it (its header
// written when it was empty) and `prior` holds --resume's results. The lock (fcntl F_SETLK,
// held until the campaign closes the file or dies) keeps a second campaign off the file.
// Non-regular files (/dev/null, a pipe) are neither locked nor read.
std::optional<int> OpenResults(const CampaignOptions& options, std::FILE** out,
                               std::map<uint64_t, RunResult>& prior) {
  const std::string& path = options.out_path;
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Refuse(absl::StrCat("--out \"", path, "\": cannot open for appending: ",
                               std::strerror(errno)));
  }
  std::optional<int> refused = CheckResultsFd(options, fd, prior);
  struct stat st;
  if (!refused && ::fstat(fd, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size == 0)) {
    const std::string header = DumpLine(ResultsHeader(RunFlagsOf(options))) + "\n";
    if (::write(fd, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
      refused = Refuse(absl::StrCat("--out \"", path, "\": write failed: ", std::strerror(errno)));
    }
  }
  if (!refused) *out = ::fdopen(fd, "a");
  if (!refused && *out == nullptr) {
    refused = Refuse(absl::StrCat("--out \"", path, "\": ", std::strerror(errno)));
  }
  if (refused) {
    ::close(fd);
    if (!existed) std::filesystem::remove(path, ec);  // leave no file behind
  }
  return refused;
}

// A job: (seed, twin) with twin -1 for a single run, 0/1 for the two runs of a checked seed.
using Job = std::pair<uint64_t, int>;

// One campaign: the seed cursor, the worker pool, the results file and the tallies. Run()
// schedules jobs on the pool until the seeds, the budget or an interrupt end it; Report()
// prints the summary, writes JUnit and auto-shrinks.
class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::map<uint64_t, RunResult> prior, std::FILE* out)
      : options_(options),
        cursor_(options.seeds, options.shard),
        prior_(std::move(prior)),
        out_(out),
        pool_(BaseOptions(options),
              options.target == "merge" ? WorkerPool::Job(RunMergeSeed) : WorkerPool::Job()),
        trace_dir_((std::filesystem::temp_directory_path() /
                    absl::StrCat("rindle-sim-det-", ::getpid()))
                       .string()),
        progress_(!options.quiet, cursor_.total(), options.time_budget_ms) {
    pool_.set_seed_timeout_ms(options_.seed_timeout_ms);
  }
  // Leaves no temporary directory behind, however the campaign ended.
  ~Campaign() { RemoveTraceDir(); }
  Campaign(const Campaign&) = delete;
  Campaign& operator=(const Campaign&) = delete;

  // Returns 2 when no worker could be started at all, else nullopt (Report gives the code).
  std::optional<int> Run();
  int Report();

 private:
  static RunOptions BaseOptions(const CampaignOptions& options) {
    RunOptions base;
    if (options.max_steps > 0) base.max_steps = options.max_steps;
    base.swarm = options.swarm;
    base.room_views = options.room_views;
    return base;
  }
  std::string TwinTrace(uint64_t seed, int twin) const {
    return absl::StrCat(trace_dir_, "/", seed, twin == 0 ? "-a" : "-b", ".jsonl");
  }
  // Twin runs of checked seeds write their traces into trace_dir_, which exists only while a
  // twin job is queued or running (so even a kill -9 of the campaign rarely leaves it behind).
  void MakeTraceDir() {
    std::error_code ec;
    std::filesystem::create_directories(trace_dir_, ec);
  }
  void RemoveTraceDir() {
    std::error_code ec;
    std::filesystem::remove_all(trace_dir_, ec);
  }
  bool TwinsPending() const {
    for (const auto& [id, job] : running_) {
      if (job.second >= 0) return true;
    }
    for (const Job& job : jobs_queue_) {
      if (job.second >= 0) return true;
    }
    return false;
  }
  void CountResumed();
  bool BudgetOver();
  std::optional<Job> NextJob();
  bool MoreJobs();
  void Record(const RunResult& r);
  void Finished(uint64_t seed, int twin, const RunResult& r);
  bool SpawnWorkers();
  void AssignIdle();
  void HandleEvents();
  void WorkerDied(const WorkerPool::Event& e, const Job& job);
  void PrintSummary(double elapsed) const;
  void PrintFailedSeeds();
  void WriteJUnitReport(double elapsed);
  void AutoShrink();

  const CampaignOptions& options_;
  SeedCursor cursor_;
  std::map<uint64_t, RunResult> prior_;
  std::FILE* out_;
  WorkerPool pool_;
  const std::string trace_dir_;
  const Clock::time_point start_ = Clock::now();
  CampaignStats stats_;
  std::vector<RunResult> all_results_;  // for JUnit
  ShrinkLinks shrink_links_;            // --auto-shrink: failing seed → its group's scenario
  uint64_t resumed_ = 0;
  Progress progress_;
  int exit_code_ = 0;
  bool budget_spent_ = false;
  bool interrupted_ = false;
  uint64_t checked_ = 0;
  uint64_t mismatches_ = 0;
  std::deque<Job> jobs_queue_;
  std::map<size_t, Job> running_;  // worker → job
  std::map<uint64_t, RunResult> first_twin_;
  std::set<uint64_t> recorded_;
  std::set<Job> retried_jobs_;        // jobs re-run once after an outside kill
  std::set<uint64_t> retried_seeds_;
};

void Campaign::CountResumed() {
  for (const auto& [seed, r] : prior_) {
    if (!InShard(seed, options_)) continue;
    ++resumed_;
    ++stats_.resumed;
    ++stats_.done;
    all_results_.push_back(r);
    AddSeedCounters(stats_, r.counters);
    if (!r.ok) {
      ++stats_.failed;
      stats_.failed_seeds.push_back(r.seed);
    }
  }
}

bool Campaign::BudgetOver() {
  if (options_.time_budget_ms && SecondsSince(start_) * 1000.0 >= *options_.time_budget_ms) {
    budget_spent_ = true;
    return true;
  }
  return false;
}

std::optional<Job> Campaign::NextJob() {
  if (g_interrupted) return std::nullopt;
  if (jobs_queue_.empty()) {
    if (BudgetOver()) return std::nullopt;
    std::optional<uint64_t> seed;
    while ((seed = cursor_.Next()) && prior_.count(*seed) > 0) {
    }
    if (!seed) return std::nullopt;
    if (options_.determinism_per_million > 0 &&
        IsCheckedSeed(*seed, options_.determinism_per_million)) {
      jobs_queue_.push_back({*seed, 0});
      jobs_queue_.push_back({*seed, 1});
    } else {
      jobs_queue_.push_back({*seed, -1});
    }
  }
  const Job job = jobs_queue_.front();
  jobs_queue_.pop_front();
  return job;
}

bool Campaign::MoreJobs() {
  if (g_interrupted) return false;
  if (!jobs_queue_.empty()) return true;
  return !cursor_.done() && !BudgetOver();
}

void Campaign::Record(const RunResult& r) {
  if (!recorded_.insert(r.seed).second) return;
  ++stats_.done;
  all_results_.push_back(r);
  nlohmann::json j = ResultToJson(r, /*with_counters=*/true);
  j["options"] = RunFlagsToJson(RunFlagsOf(options_));
  const std::string line = DumpLine(j);
  if (std::fprintf(out_, "%s\n", line.c_str()) < 0 || std::fflush(out_) != 0) {
    progress_.Clear();
    std::fprintf(stderr, "rindle-sim fuzz: --out \"%s\": write failed: %s\n",
                 options_.out_path.c_str(), std::strerror(errno));
    exit_code_ = 2;
  }
  AddSeedCounters(stats_, r.counters);
  if (!r.ok) {
    ++stats_.failed;
    stats_.failed_seeds.push_back(r.seed);
    progress_.Clear();
    std::printf("%s\n  reproduce: %s\n", FailureLine(r).c_str(),
                ReproduceCommand(r.seed, RunFlagsOf(options_)).c_str());
    std::fflush(stdout);
  }
  progress_.Update(stats_, /*force=*/false);
}

// A twin run records once both twins are in (compared), a single run at once.
void Campaign::Finished(uint64_t seed, int twin, const RunResult& r) {
  if (twin < 0) {
    Record(r);
    return;
  }
  if (!r.ok && (r.property == "crash" || r.property == "timeout")) {
    Record(r);
    first_twin_.erase(seed);
    return;
  }
  auto it = first_twin_.find(seed);
  if (it == first_twin_.end()) {
    if (!recorded_.contains(seed)) first_twin_[seed] = r;
    return;
  }
  const RunResult a = twin == 1 ? it->second : r;
  const RunResult b = twin == 1 ? r : it->second;
  first_twin_.erase(it);
  ++checked_;
  std::optional<RunResult> bad = CompareTwinRuns(a, b, TwinTrace(seed, 0), TwinTrace(seed, 1));
  if (bad) ++mismatches_;
  Record(bad ? *bad : a);
  std::error_code ec;
  std::filesystem::remove(TwinTrace(seed, 0), ec);
  std::filesystem::remove(TwinTrace(seed, 1), ec);
  if (!TwinsPending()) RemoveTraceDir();
}

// Keeps `jobs` workers alive while work remains. False: none could be started and none lives.
bool Campaign::SpawnWorkers() {
  const size_t jobs = static_cast<size_t>(std::max(1, options_.jobs));
  while (MoreJobs() && pool_.live() < jobs) {
    absl::StatusOr<size_t> id = pool_.Spawn();
    if (!id.ok()) {
      progress_.Clear();
      std::fprintf(stderr, "rindle-sim fuzz: cannot start a worker process: %s\n",
                   std::string(id.status().message()).c_str());
      if (pool_.live() == 0) return false;
      break;
    }
  }
  return true;
}

void Campaign::AssignIdle() {
  for (size_t id : pool_.Idle()) {
    std::optional<Job> job = NextJob();
    if (!job) {
      pool_.Finish(id);
      continue;
    }
    running_[id] = *job;
    if (job->second >= 0) MakeTraceDir();
    // A dead worker reports the seed as lost.
    (void)pool_.Assign(id, job->first, job->second < 0 ? "" : TwinTrace(job->first, job->second));
  }
}

void Campaign::HandleEvents() {
  for (WorkerPool::Event& e : pool_.Poll(250)) {
    auto it = running_.find(e.worker);
    const Job job = it == running_.end() ? Job{0, -1} : it->second;
    if (!e.exited) {
      if (it != running_.end()) running_.erase(it);
      Finished(job.first, job.second, e.result);
    } else {
      if (it != running_.end()) running_.erase(it);
      if (e.lost_seed && !g_interrupted && !e.by_sigint) WorkerDied(e, job);
    }
  }
}

// A worker died with a seed: past its deadline, a `timeout`; killed from outside (SIGKILL or
// SIGTERM not ours), the job runs once more before it counts as a `crash`; else a `crash` whose
// message is the last line the seed wrote to stderr (a CHECK's message).
void Campaign::WorkerDied(const WorkerPool::Event& e, const Job& job) {
  const uint64_t seed = *e.lost_seed;
  if (e.timed_out) {
    Finished(seed, job.second,
             TimeoutResult(seed, options_.seed_timeout_ms, e.busy_s, RunFlagsOf(options_),
                           e.last_step));
    return;
  }
  if (e.killed_from_outside && retried_jobs_.insert(Job{seed, job.second}).second) {
    retried_seeds_.insert(seed);
    progress_.Clear();
    std::fprintf(stderr, "rindle-sim fuzz: the worker running seed %llu %s (not by this "
                 "campaign); running the seed once more\n",
                 static_cast<unsigned long long>(seed), e.how.c_str());
    jobs_queue_.push_front(Job{seed, job.second});
    return;
  }
  Finished(seed, job.second, CrashResult(seed, e.how, e.err, e.last_step));
}

std::optional<int> Campaign::Run() {
  CountResumed();
  while (true) {
    if (!SpawnWorkers()) return 2;
    AssignIdle();
    if (pool_.live() == 0) break;
    if (g_interrupted) break;
    HandleEvents();
    progress_.Update(stats_, /*force=*/false);
  }
  interrupted_ = g_interrupted != 0;
  if (interrupted_) pool_.TerminateAll();
  return std::nullopt;
}

void Campaign::PrintFailedSeeds() {
  if (stats_.failed_seeds.empty()) return;
  std::sort(stats_.failed_seeds.begin(), stats_.failed_seeds.end());
  std::printf("failed seeds (reproduce with: %s):",
              ReproduceCommand("N", RunFlagsOf(options_)).c_str());
  const size_t shown = std::min<size_t>(stats_.failed_seeds.size(), 50);
  for (size_t i = 0; i < shown; ++i) {
    std::printf(" %llu", static_cast<unsigned long long>(stats_.failed_seeds[i]));
  }
  if (shown < stats_.failed_seeds.size()) {
    std::printf(" … and %zu more", stats_.failed_seeds.size() - shown);
  }
  std::printf("\n");
}

void Campaign::PrintSummary(double elapsed) const {
  const uint64_t ran = stats_.done - resumed_;
  std::printf(
      "\nrindle-sim fuzz: %llu seeds run, %llu passed, %llu failed in %s (%.2f seeds/s)%s\n",
      static_cast<unsigned long long>(stats_.done),
      static_cast<unsigned long long>(stats_.done - stats_.failed),
      static_cast<unsigned long long>(stats_.failed), FormatDuration(elapsed).c_str(),
      elapsed > 0 ? static_cast<double>(ran) / elapsed : 0.0,
      interrupted_   ? " — interrupted"
      : budget_spent_ ? " — time budget reached"
                      : "");
  if (resumed_ > 0) {
    std::printf("resumed: %llu seeds came from the results file, %llu ran now\n",
                static_cast<unsigned long long>(resumed_), static_cast<unsigned long long>(ran));
  }
  if (!retried_seeds_.empty()) {
    std::printf("retried: %zu seeds whose worker was killed from outside ran once more\n",
                retried_seeds_.size());
  }
  if (options_.determinism_per_million > 0) {
    std::printf("determinism: %llu seeds run twice, %llu mismatches\n",
                static_cast<unsigned long long>(checked_),
                static_cast<unsigned long long>(mismatches_));
  }
}

void Campaign::WriteJUnitReport(double elapsed) {
  if (options_.junit_path.empty()) return;
  std::sort(all_results_.begin(), all_results_.end(),
            [](const RunResult& a, const RunResult& b) { return a.seed < b.seed; });
  if (absl::Status s =
          WriteJUnit(options_.junit_path, all_results_, elapsed, RunFlagsOf(options_),
                     options_.auto_shrink ? &shrink_links_ : nullptr);
      !s.ok()) {
    std::fprintf(stderr, "rindle-sim fuzz: %s\n", std::string(s.message()).c_str());
    exit_code_ = 2;
  } else {
    std::printf("junit: %s\n", options_.junit_path.c_str());
  }
}

// One shrink per failure group into corpus/pending, --jobs at a time (auto_shrink.h).
void Campaign::AutoShrink() {
  AutoShrinkOptions so;
  so.corpus_dir = options_.corpus_dir;
  so.jobs = options_.jobs;
  so.swarm = options_.swarm;
  so.room_views = options_.room_views;
  so.merge = options_.target == "merge";
  so.max_steps = options_.max_steps;
  so.time_budget_ms = options_.shrink_time_ms;
  so.max_runs = options_.shrink_max_runs;
  so.quiet = options_.quiet;
  const std::vector<FailureGroup> groups = GroupFailures(all_results_);
  size_t failures = 0;
  for (const FailureGroup& g : groups) failures += g.members.size();
  if (!groups.empty()) {
    std::printf("auto-shrink: %zu failure%s in %zu group%s (same property and message shape), "
                "%d at a time\n",
                failures, failures == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s",
                std::max(1, options_.jobs));
    std::fflush(stdout);
  }
  shrink_links_ = RunAutoShrink(groups, so);
}

int Campaign::Report() {
  progress_.Update(stats_, /*force=*/true);
  progress_.Clear();
  std::fclose(out_);
  RemoveTraceDir();
  const double elapsed = SecondsSince(start_);
  PrintSummary(elapsed);
  PrintFailedSeeds();
  std::printf("results: %s\n", options_.out_path.c_str());
  PrintCounters(stats_);
  PrintHealth(stats_, options_.target == "merge");
  std::fflush(stdout);
  // After the shrinks, so each failure's testcase can link its shrunk scenario.
  if (options_.auto_shrink && !interrupted_) AutoShrink();
  WriteJUnitReport(elapsed);
  if (interrupted_) return 130;
  if (exit_code_ != 0) return exit_code_;
  return stats_.failed > 0 ? 1 : 0;
}

}  // namespace

int RunCampaign(const CampaignOptions& options) {
  std::map<uint64_t, RunResult> prior;
  std::FILE* out = nullptr;
  if (std::optional<int> code = OpenResults(options, &out, prior)) return *code;
  if (!options.base_seed_note.empty()) {
    std::fprintf(stderr, "[fuzz] --time without --seeds: seeds count up from %llu (%s)\n",
                 static_cast<unsigned long long>(options.seeds.first),
                 options.base_seed_note.c_str());
  }
  Campaign campaign(options, std::move(prior), out);

  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_sa;
  ::sigaction(SIGINT, &sa, &old_sa);
  const std::optional<int> failed = campaign.Run();
  ::sigaction(SIGINT, &old_sa, nullptr);
  if (failed) {
    std::fclose(out);
    return *failed;
  }
  return campaign.Report();
}

}  // namespace rindle::sim::cli
