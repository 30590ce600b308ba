// fuzz_command.cc — `rindle-sim fuzz`: its flags into CampaignOptions, then RunCampaign.
// Flags are read in a fixed order (the first bad one is the one reported).
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/campaign.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/help.h"
#include "cli/target_merge.h"

namespace rindle::sim::cli {
namespace {

// The usage error for a failed parse.
absl::Status Bad(const absl::Status& s) { return s; }
absl::Status Bad(const std::string& message) { return absl::InvalidArgumentError(message); }

// Today's date as YYYYMMDD (UTC), or RINDLE_SIM_TODAY=YYYY-MM-DD (tests, or to re-derive an
// earlier night's base). The CLI is not simulated: the date only picks where a --time
// campaign's seeds start, and that base is printed, so the campaign stays reproducible.
absl::StatusOr<uint64_t> TodayYyyymmdd() {
  std::string day;
  if (const char* env = std::getenv("RINDLE_SIM_TODAY"); env != nullptr) {
    day = env;
    absl::Time t;
    std::string err;
    if (day.size() != 10 || !absl::ParseTime("%Y-%m-%d", day, absl::UTCTimeZone(), &t, &err)) {
      return absl::InvalidArgumentError("RINDLE_SIM_TODAY: expected a date YYYY-MM-DD, got \"" +
                                        day + "\"");
    }
  } else {
    day = absl::FormatTime("%Y-%m-%d", absl::Now(), absl::UTCTimeZone());
  }
  return std::stoull(day.substr(0, 4) + day.substr(5, 2) + day.substr(8, 2));
}

// --time without --seeds: the seeds count up from --base-seed, or from a base derived from
// today's date (YYYYMMDD × 10^6: nights differ and do not overlap below 10^6 seeds a night).
absl::Status ReadBaseSeed(const ParsedArgs& p, CampaignOptions& o) {
  uint64_t base = 0;
  if (auto b = p.get("base-seed")) {
    absl::StatusOr<uint64_t> n = ParseUint64("base-seed", *b);
    if (!n.ok()) return Bad(n.status());
    base = *n;
    o.base_seed_note = "from --base-seed";
  } else {
    absl::StatusOr<uint64_t> day = TodayYyyymmdd();
    if (!day.ok()) return Bad(day.status());
    base = *day * 1000000;
    o.base_seed_note = absl::StrCat("from today's date (", *day, " UTC); repeat this night with --base-seed ", base);
  }
  o.seeds = {base, std::numeric_limits<uint64_t>::max()};
  return absl::OkStatus();
}

// --time, --seeds (one of the two is required), --base-seed (only --time without --seeds).
absl::Status ReadSeedsAndBudget(const ParsedArgs& p, CampaignOptions& o) {
  if (auto time = p.get("time")) {
    absl::StatusOr<int64_t> ms = ParseDurationMs("time", *time);
    if (!ms.ok()) return Bad(ms.status());
    o.time_budget_ms = *ms;
  }
  if (p.get("base-seed") && (!o.time_budget_ms || p.get("seeds"))) {
    return Bad("--base-seed: only with --time and without --seeds (--seeds A..B names the "
               "seeds itself)");
  }
  if (auto seeds = p.get("seeds")) {
    absl::StatusOr<SeedRange> range = ParseSeedRange("seeds", *seeds);
    if (!range.ok()) return Bad(range.status());
    o.seeds = *range;
  } else if (!o.time_budget_ms) {
    return Bad("--seeds: required (expected A..B, e.g. --seeds 1..200), or --time");
  } else {
    return ReadBaseSeed(p, o);
  }
  return absl::OkStatus();
}

// --jobs, --shard, --out, --max-steps and the switches.
absl::Status ReadRunFlags(const ParsedArgs& p, CampaignOptions& o) {
  if (auto jobs = p.get("jobs")) {
    absl::StatusOr<int64_t> n = ParseIntInRange("jobs", *jobs, 1, 1024);
    if (!n.ok()) return Bad(n.status());
    o.jobs = static_cast<int>(*n);
  }
  if (auto shard = p.get("shard")) {
    absl::StatusOr<Shard> s = ParseShard("shard", *shard);
    if (!s.ok()) return Bad(s.status());
    o.shard = *s;
  }
  if (auto out = p.get("out")) {
    if (out->empty()) return Bad("--out: expected a file path, got \"\"");
    o.out_path = *out;
  }
  if (auto k = p.get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Bad(n.status());
    o.max_steps = *n;
  }
  o.quiet = p.has("quiet");
  o.resume = p.has("resume");
  o.auto_shrink = p.has("auto-shrink");
  return absl::OkStatus();
}

// --junit (after --out: they must differ), --determinism-check, --swarm, --room-views.
absl::Status ReadCheckFlags(const ParsedArgs& p, CampaignOptions& o) {
  if (auto junit = p.get("junit")) {
    if (auto err = CheckWritable("junit", *junit)) return Bad(*err);
    std::error_code ec;
    if (*junit == o.out_path || std::filesystem::equivalent(*junit, o.out_path, ec)) {
      return Bad("--junit: must differ from the results file (--out), which it would "
                 "overwrite");
    }
    o.junit_path = *junit;
  }
  if (auto fraction = p.get("determinism-check")) {
    absl::StatusOr<uint32_t> ppm = ParseFractionPerMillion("determinism-check", *fraction);
    if (!ppm.ok()) return Bad(ppm.status());
    o.determinism_per_million = *ppm;
  }
  if (auto swarm = p.get("swarm")) {
    absl::StatusOr<bool> on = ParseOnOff("swarm", *swarm);
    if (!on.ok()) return Bad(on.status());
    o.swarm = *on;
  }
  if (auto views = p.get("room-views")) {
    absl::StatusOr<bool> on = ParseOnOff("room-views", *views);
    if (!on.ok()) return Bad(on.status());
    o.room_views = *on;
  }
  return absl::OkStatus();
}

// --corpus, --shrink-time (auto-shrink), --seed-timeout.
absl::Status ReadShrinkFlags(const ParsedArgs& p, CampaignOptions& o) {
  if (auto dir = p.get("corpus")) {
    if (dir->empty()) return Bad("--corpus: expected a directory, got \"\"");
    o.corpus_dir = *dir;
  }
  if (auto t = p.get("seed-timeout")) {
    if (*t == "0" || *t == "0s") {
      o.seed_timeout_ms = 0;
    } else {
      absl::StatusOr<int64_t> ms = ParseDurationMs("seed-timeout", *t);
      if (!ms.ok()) return Bad(ms.status());
      o.seed_timeout_ms = *ms;
    }
  }
  if (auto t = p.get("shrink-time")) {
    absl::StatusOr<int64_t> ms = ParseDurationMs("shrink-time", *t);
    if (!ms.ok()) return Bad(ms.status());
    o.shrink_time_ms = *ms;
  }
  return absl::OkStatus();
}

}  // namespace

int FuzzCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seeds", "time", "jobs", "shard", "out", "max-steps", "junit",
                 "determinism-check", "swarm", "corpus", "shrink-time", "seed-timeout",
                 "base-seed", "target", "room-views"},
                {"quiet", "resume", "auto-shrink"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("fuzz", std::string(parsed.status().message()));
  if (parsed->help) return Help(kFuzzHelp);
  if (!parsed->positional.empty()) {
    return Usage("fuzz", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  CampaignOptions options;
  absl::StatusOr<std::string> target = ParseTarget(*parsed);
  if (!target.ok()) return Usage("fuzz", std::string(target.status().message()));
  options.target = *target;
  for (auto read : {ReadSeedsAndBudget, ReadRunFlags, ReadCheckFlags, ReadShrinkFlags}) {
    if (absl::Status s = read(*parsed, options); !s.ok()) {
      return Usage("fuzz", std::string(s.message()));
    }
  }
  return RunCampaign(options);
}

}  // namespace rindle::sim::cli
