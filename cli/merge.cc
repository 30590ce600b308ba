// merge.cc — see merge.h.
#include "cli/merge.h"

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/json_file.h"
#include "cli/flags.h"
#include "cli/help.h"
#include "cli/junit.h"
#include "cli/progress.h"
#include "cli/result_io.h"

namespace rindle::sim::cli {
namespace {

// A shard's results file is one line per seed: allow big nights, never an endless input.
constexpr int64_t kMaxResultsBytes = int64_t{4} << 30;

struct ShardFile {
  std::string path;
  nlohmann::json header;  // the whole header line
  ResultsFile file;
};

int Refuse(const std::string& message) {
  std::fprintf(stderr, "rindle-sim merge: %s\n", message.c_str());
  return 2;
}

// Reads and checks one input; nullopt with *code set when it is refused.
std::optional<ShardFile> ReadShard(const std::string& path, int* code) {
  absl::StatusOr<std::string> text = ReadInputFile(path, kMaxResultsBytes);
  if (!text.ok()) {
    *code = Refuse(std::string(text.status().message()));
    return std::nullopt;
  }
  absl::StatusOr<ResultsFile> file = ReadResultsText(path, *text);
  if (!file.ok()) {
    *code = Refuse(std::string(file.status().message()));
    return std::nullopt;
  }
  if (!file->has_header) {
    *code = Refuse(absl::StrCat(path, ": no results header (empty, or not a fuzz results file)"));
    return std::nullopt;
  }
  if (file->torn_tail) {
    *code = Refuse(absl::StrCat(path, ": its last line is torn (the campaign was killed "
                                "mid-write); finish it first with `rindle-sim fuzz --resume "
                                "--out ", path, "` and the same options"));
    return std::nullopt;
  }
  ShardFile s{path, nlohmann::json::parse(text->substr(0, text->find('\n'))), std::move(*file)};
  return s;
}

// Empty when `s` may merge with `first`, else why not.
std::string Incompatible(const ShardFile& first, const ShardFile& s) {
  std::string m = OptionsMismatch(first.file.options, s.file.options);
  if (m.empty()) m = OptionsMismatch(s.file.options, first.file.options);
  if (!m.empty()) return absl::StrCat(s.path, ": made under other options than ", first.path,
                                      " (", m, ")");
  if (first.header.value("commit", "") != s.header.value("commit", "")) {
    return absl::StrCat(s.path, ": made by another build (commit ",
                        s.header.value("commit", "?"), ") than ", first.path, " (commit ",
                        first.header.value("commit", "?"), "); merge results of one build");
  }
  return "";
}

bool SameResult(const RunResult& a, const RunResult& b) {
  return a.ok == b.ok && a.property == b.property && a.step == b.step && a.digest == b.digest;
}

// The run-changing flags recorded in a header's options (for the reproduce commands).
RunFlags FlagsOf(const nlohmann::json& options) {
  RunFlags f;
  const int64_t steps = options.value("max_steps", int64_t{0});
  if (steps != RunOptions{}.max_steps) f.max_steps = steps;
  f.swarm = options.value("swarm", true);
  f.room_views = options.value("room_views", false);
  return f;
}

void PrintMergeSummary(const std::vector<ShardFile>& shards, const CampaignStats& stats,
                       const std::vector<RunResult>& failed, const RunFlags& flags,
                       uint64_t duplicates) {
  std::printf("rindle-sim merge: %zu results files, %llu seeds, %llu passed, %llu failed\n",
              shards.size(), static_cast<unsigned long long>(stats.done),
              static_cast<unsigned long long>(stats.done - stats.failed),
              static_cast<unsigned long long>(stats.failed));
  if (duplicates > 0) {
    std::printf("duplicates: %llu seeds were in more than one file, with the same result\n",
                static_cast<unsigned long long>(duplicates));
  }
  for (const RunResult& r : failed) {
    std::printf("%s\n  reproduce: %s\n", FailureLine(r).c_str(),
                ReproduceCommand(r.seed, flags).c_str());
  }
  if (!failed.empty()) {
    std::printf("failed seeds (reproduce with: %s):", ReproduceCommand("N", flags).c_str());
    for (const RunResult& r : failed) {
      std::printf(" %llu", static_cast<unsigned long long>(r.seed));
    }
    std::printf("\n");
  }
}

}  // namespace

int RunMerge(const MergeOptions& options) {
  RINDLE_CHECK(!options.inputs.empty());
  std::vector<ShardFile> shards;
  for (const std::string& path : options.inputs) {
    int code = 0;
    std::optional<ShardFile> s = ReadShard(path, &code);
    if (!s) return code;
    if (!shards.empty()) {
      if (std::string why = Incompatible(shards.front(), *s); !why.empty()) return Refuse(why);
    }
    shards.push_back(std::move(*s));
  }
  std::map<uint64_t, std::pair<RunResult, std::string>> merged;  // seed → (result, its file)
  uint64_t duplicates = 0;
  for (const ShardFile& s : shards) {
    for (const auto& [seed, r] : s.file.by_seed) {
      auto [it, inserted] = merged.emplace(seed, std::make_pair(r, s.path));
      if (inserted) continue;
      if (!SameResult(it->second.first, r)) {
        return Refuse(absl::StrCat("seed ", seed, ": ", it->second.second, " and ", s.path,
                                   " disagree (", FailureLine(it->second.first), " | ",
                                   FailureLine(r), ")"));
      }
      ++duplicates;
    }
  }
  const RunFlags flags = FlagsOf(shards.front().file.options);
  std::string out = DumpLine(shards.front().header) + "\n";
  CampaignStats stats;
  std::vector<RunResult> all, failed;
  for (const auto& [seed, entry] : merged) {
    const RunResult& r = entry.first;
    nlohmann::json j = ResultToJson(r, /*with_counters=*/true);
    j["options"] = shards.front().file.options;
    out += DumpLine(j) + "\n";
    ++stats.done;
    AddSeedCounters(stats, r.counters);
    if (!r.ok) {
      ++stats.failed;
      stats.failed_seeds.push_back(seed);
      failed.push_back(r);
    }
    all.push_back(r);
  }
  if (absl::Status s = WriteFileAtomically(options.out_path, out); !s.ok()) {
    return Refuse(std::string(s.message()));
  }
  PrintMergeSummary(shards, stats, failed, flags, duplicates);
  std::printf("results: %s\n", options.out_path.c_str());
  PrintCounters(stats);
  PrintHealth(stats);
  if (!options.junit_path.empty()) {
    if (absl::Status s = WriteJUnit(options.junit_path, all, 0.0, flags); !s.ok()) {
      return Refuse(std::string(s.message()));
    }
    std::printf("junit: %s\n", options.junit_path.c_str());
  }
  std::fflush(stdout);
  return stats.failed > 0 ? 1 : 0;
}

int MergeCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSpec{{"out", "junit"}, {}});
  if (!parsed.ok()) return Usage("merge", std::string(parsed.status().message()));
  if (parsed->help) return Help(kMergeHelp);
  MergeOptions o;
  o.inputs = parsed->positional;
  if (o.inputs.empty()) {
    return Usage("merge", "expected one or more results files (e.g. shard-*.jsonl)");
  }
  auto out = parsed->get("out");
  if (!out || out->empty()) return Usage("merge", "--out: required (the merged results file)");
  if (auto err = CheckWritable("out", *out)) return Usage("merge", *err);
  o.out_path = *out;
  for (const std::string& in : o.inputs) {
    if (in == o.out_path || SameExistingFile(in, o.out_path)) {
      return Usage("merge", absl::StrCat("--out \"", o.out_path, "\": is an input; write the "
                                         "merged results to a new file"));
    }
  }
  if (auto junit = parsed->get("junit")) {
    if (auto err = CheckWritable("junit", *junit)) return Usage("merge", *err);
    bool clash = *junit == o.out_path || SameExistingFile(*junit, o.out_path);
    for (const std::string& in : o.inputs) clash = clash || *junit == in || SameExistingFile(in, *junit);
    if (clash) {
      return Usage("merge", absl::StrCat("--junit \"", *junit, "\": must differ from --out and "
                                         "from every input, which it would overwrite"));
    }
    o.junit_path = *junit;
  }
  return RunMerge(o);
}

}  // namespace rindle::sim::cli
