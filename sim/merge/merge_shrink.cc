// merge_shrink.cc — ddmin over a merge scenario's actions and their parts (merge_shrink.h).
#include "sim/merge/merge_shrink.h"

#include <algorithm>
#include <utility>

#include "base/str_util.h"
#include "sim/scenario/ddmin.h"

namespace rindle::sim {
namespace {

class MergeShrinker {
 public:
  MergeShrinker(const std::function<RunResult(const MergeScenario&)>& run,
                const ShrinkOptions& options, MergeScenario best, RunResult best_result)
      : run_(run), options_(options), best_(std::move(best)), best_result_(std::move(best_result)) {}

  bool Spent() {
    if (!spent_ && (runs_ >= options_.max_runs || (options_.out_of_time && options_.out_of_time()))) {
      spent_ = true;
    }
    return spent_;
  }

  bool Try(MergeScenario candidate) {
    if (Spent()) return false;
    ++runs_;
    RunResult r = run_(candidate);
    const bool keep = !r.ok && r.property == best_result_.property;
    if (keep) {
      best_ = std::move(candidate);
      best_result_ = std::move(r);
    }
    if (options_.progress) {
      ShrinkProgress p;
      p.runs = runs_;
      p.actions = best_.actions.size();
      p.pass = pass_;
      options_.progress(p);
    }
    return keep;
  }

  // ddmin (ddmin.h) over a copy of `items`; `make(kept)` builds the candidate (a success
  // becomes best_). True when anything was removed.
  template <class T, class Make>
  bool Ddmin(std::vector<T> items, Make make) {
    return sim::Ddmin(
        items, make, [this](auto candidate) { return Try(std::move(candidate)); },
        [this] { return Spent(); });
  }

  bool Round() {
    pass_ = "actions";
    bool changed = Ddmin(best_.actions, [&](const std::vector<MergeAction>& kept) {
      MergeScenario c = best_;
      c.actions = kept;
      return c;
    });
    for (size_t i = 0; i < best_.actions.size() && !Spent(); ++i) {
      pass_ = "parts";
      const MergeAction& a = best_.actions[i];
      changed |= Ddmin(a.ops, [&, i](const std::vector<ModelOp>& kept) {
        MergeScenario c = best_;
        c.actions[i].ops = kept;
        return c;
      });
      changed |= Ddmin(best_.actions[i].inside, [&, i](const std::vector<MergeAction>& kept) {
        MergeScenario c = best_;
        c.actions[i].inside = kept;
        return c;
      });
    }
    return changed;
  }

  MergeShrinkResult Result(size_t original_actions) {
    MergeShrinkResult r;
    r.scenario = best_;
    r.scenario.expect_fail = true;
    r.scenario.property = best_result_.property;
    r.scenario.note = StrCat("shrunk from seed ", best_.seed, " (", original_actions,
                             " actions): ", best_result_.message.substr(0, 300));
    r.failure = best_result_;
    r.original_actions = original_actions;
    r.runs = runs_;
    r.budget_spent = spent_;
    return r;
  }

 private:
  const std::function<RunResult(const MergeScenario&)>& run_;
  const ShrinkOptions& options_;
  MergeScenario best_;
  RunResult best_result_;
  int64_t runs_ = 0;
  bool spent_ = false;
  std::string pass_;
};

}  // namespace

absl::StatusOr<MergeShrinkResult> ShrinkMerge(
    const MergeScenario& original, const std::function<RunResult(const MergeScenario&)>& run,
    const ShrinkOptions& options) {
  RunResult baseline = run(original);
  if (baseline.ok) {
    return absl::FailedPreconditionError("the scenario passes: nothing to shrink");
  }
  if (baseline.property == "merge-setup") {
    return absl::FailedPreconditionError("the scenario fails only in setup: " + baseline.message);
  }
  MergeShrinker s(run, options, original, baseline);
  while (s.Round() && !s.Spent()) {
  }
  return s.Result(original.actions.size());
}

ScenarioVerdict JudgeMergeScenario(const MergeScenario& scenario, const RunResult& result) {
  return JudgeExpectation(scenario.expect_fail, scenario.property, result);
}

}  // namespace rindle::sim
