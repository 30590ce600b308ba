// shrink.cc — see shrink.h.
#include "sim/scenario/shrink.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "base/str_util.h"
#include "sim/scenario/ddmin.h"
#include "sim/workload/mutators.h"

namespace rindle::sim {
namespace {

// The first UTF-8 code point of `text` (whole, so a shortened string stays valid UTF-8).
std::string FirstCodePoint(const std::string& text) {
  if (text.empty()) return text;
  size_t n = 1;
  while (n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) ++n;
  return text.substr(0, n);
}

class Shrinker {
 public:
  Shrinker(const std::function<RunResult(const Scenario&)>& run, const ShrinkOptions& options,
           std::string property)
      : run_(run), options_(options), property_(std::move(property)) {}

  bool Spent() {
    if (spent_) return true;
    if (runs_ >= options_.max_runs || (options_.out_of_time && options_.out_of_time())) {
      spent_ = true;
    }
    return spent_;
  }

  // Runs `candidate`; when it fails with the target property it becomes the best.
  bool Try(Scenario candidate) {
    if (Spent()) return false;
    if (!ValidateScenario(candidate, "candidate").ok()) return false;
    ++runs_;
    RunResult r = run_(candidate);
    const bool keep = !r.ok && r.property == property_;
    if (keep) {
      best_ = std::move(candidate);
      best_result_ = std::move(r);
    }
    Report();
    return keep;
  }

  // ddmin (ddmin.h): removes chunks of `items` while `make(kept)` still fails the property; on
  // success `items` is the kept part. True when anything was removed.
  template <class T, class Make>
  bool Ddmin(std::vector<T>& items, Make make) {
    return sim::Ddmin(
        items, make, [this](auto candidate) { return Try(std::move(candidate)); },
        [this] { return Spent(); });
  }

  // ddmin over the elements of `best_` that `field` selects.
  template <class T>
  bool DeltaDebug(std::vector<T> Scenario::*field, const char* pass) {
    pass_ = pass;
    std::vector<T> items = best_.*field;
    return Ddmin(items, [&](const std::vector<T>& kept) {
      Scenario c = best_;
      c.*field = kept;
      return c;
    });
  }

  bool DropFaultKinds() {
    pass_ = "fault kinds";
    bool changed = false;
    for (auto kind : AllFaultKinds()) {
      Scenario c = best_;
      std::erase_if(c.faults, [kind](const ScenarioFault& f) { return f.kind == kind; });
      if (c.faults.size() != best_.faults.size()) changed = Try(std::move(c)) || changed;
    }
    return changed;
  }

  static Scenario WithoutClient(const Scenario& s, int k) {
    Scenario c = s;
    c.config.clients -= 1;
    c.config.connect_ms.erase(c.config.connect_ms.begin() + k);
    std::erase_if(c.actions, [k](const ScenarioAction& a) { return a.client == k; });
    for (auto& a : c.actions) {
      if (a.client > k) --a.client;
    }
    std::erase_if(c.faults,
                  [k](const ScenarioFault& f) { return FaultTargetsClient(f.kind) && f.client == k; });
    for (auto& f : c.faults) {
      if (FaultTargetsClient(f.kind) && f.client > k) --f.client;
    }
    return c;
  }

  bool FewerClients() {
    pass_ = "fewer clients";
    bool changed = false;
    for (int k = best_.config.clients - 1; k >= 0 && best_.config.clients > 1 && !Spent(); --k) {
      if (k >= best_.config.clients) continue;
      changed = Try(WithoutClient(best_, k)) || changed;
    }
    return changed;
  }

  bool FewerSeedRows() {
    pass_ = "seed rows";
    // Flatten to (table, row) pairs for ddmin, then rebuild.
    struct Row {
      std::string table;
      RowValues row;
    };
    auto flatten = [](const Scenario& s) {
      std::vector<Row> rows;
      for (const auto& [table, list] : s.seed_rows) {
        for (const auto& r : list) rows.push_back({table, r});
      }
      return rows;
    };
    auto rebuild = [](Scenario& s, const std::vector<Row>& rows) {
      for (auto& [table, list] : s.seed_rows) list.clear();
      for (const auto& r : rows) s.seed_rows[r.table].push_back(r.row);
    };
    std::vector<Row> rows = flatten(best_);
    return Ddmin(rows, [&](const std::vector<Row>& kept) {
      Scenario c = best_;
      rebuild(c, kept);
      return c;
    });
  }

  bool Simplify() {
    pass_ = "simplify";
    bool changed = false;
    auto attempt = [&](auto edit) {
      if (Spent()) return;
      Scenario c = best_;
      edit(c);
      if (ScenarioToJson(c) == ScenarioToJson(best_)) return;  // no-op edit
      changed = Try(std::move(c)) || changed;
    };
    attempt([](Scenario& c) {
      c.config.network.push_loss_per_mille = 0;
      c.config.network.push_dup_per_mille = 0;
      c.config.network.ack_loss_per_mille = 0;
    });
    attempt([](Scenario& c) { c.config.network.push_loss_per_mille = 0; });
    attempt([](Scenario& c) { c.config.network.push_dup_per_mille = 0; });
    attempt([](Scenario& c) { c.config.network.ack_loss_per_mille = 0; });
    attempt([](Scenario& c) { c.config.network.latency_ms_max = c.config.network.latency_ms_min; });
    attempt([](Scenario& c) { std::fill(c.config.connect_ms.begin(), c.config.connect_ms.end(), 0); });
    attempt([](Scenario& c) {
      for (auto& f : c.faults) {
        if (FaultHasDuration(f.kind)) f.duration_ms = std::max<int64_t>(1, f.duration_ms / 2);
      }
    });
    attempt([](Scenario& c) {
      for (auto& a : c.actions) a.t_ms /= 2;
      for (auto& f : c.faults) f.t_ms /= 2;
    });
    attempt([](Scenario& c) {
      int64_t last = 0;
      for (const auto& a : c.actions) last = std::max(last, a.t_ms);
      for (const auto& f : c.faults) last = std::max(last, f.t_ms);
      for (const auto t : c.config.connect_ms) last = std::max(last, t);
      c.config.safety_ms = last;
    });
    attempt([](Scenario& c) { c.config.buffer_cap = std::min<size_t>(c.config.buffer_cap, 1024); });
    attempt([](Scenario& c) { c.config.transport_retry = true; });
    attempt([](Scenario& c) { c.config.room_views = false; });
    attempt([](Scenario& c) {
      for (auto& f : c.faults) {
        if (FaultHasCount(f.kind)) f.count = std::max<int64_t>(1, f.count / 2);
      }
    });
    SimplifyArgs(attempt);
    return changed;
  }

  // Per mutate action: simpler arg values, only ones the mutator's declared arg (mutators.h)
  // allows, as the generator could have made them — a free string shortened to its first code
  // point, an enum moved to its simplest value (never out of its enum), an integer to 0, a bool
  // to false. Ids and the description / tags shapes are left alone (ddmin removes actions).
  template <class Attempt>
  void SimplifyArgs(Attempt& attempt) {
    for (size_t i = 0; i < best_.actions.size() && !Spent(); ++i) {
      const ScenarioAction& action = best_.actions[i];
      if (action.kind != ScenarioAction::Kind::kMutate &&
          action.kind != ScenarioAction::Kind::kMutateFolded) {
        continue;
      }
      const std::string mutator = action.name;
      const nlohmann::json args = action.args;
      for (const auto& [key, value] : args.items()) {
        const MutatorArg* arg = FindMutatorArg(mutator, key);
        if (arg == nullptr) continue;
        std::optional<nlohmann::json> simpler = SimplerValue(*arg, value);
        if (!simpler) continue;
        attempt([&](Scenario& c) {
          if (i < c.actions.size()) c.actions[i].args[key] = *simpler;
        });
      }
    }
  }

  // A simpler value of `arg` than `value`, or nullopt.
  static std::optional<nlohmann::json> SimplerValue(const MutatorArg& arg,
                                                   const nlohmann::json& value) {
    switch (arg.type) {
      case ArgType::kString: {
        if (!value.is_string()) return std::nullopt;
        const std::string text = value.get<std::string>();
        if (FirstCodePoint(text).size() >= text.size()) return std::nullopt;
        return nlohmann::json(FirstCodePoint(text));
      }
      case ArgType::kEnum:
        if (arg.values.empty() || value == arg.values.front()) return std::nullopt;
        return nlohmann::json(arg.values.front());
      case ArgType::kInt:
        if (!value.is_number_integer() || value.get<int64_t>() == 0) return std::nullopt;
        return nlohmann::json(0);
      case ArgType::kBool:
        if (value == false) return std::nullopt;
        return nlohmann::json(false);
      case ArgType::kId:
      case ArgType::kDescription:
      case ArgType::kTags:
        return std::nullopt;
    }
    return std::nullopt;
  }

  void Report() {
    if (!options_.progress) return;
    ShrinkProgress p;
    p.runs = runs_;
    p.actions = best_.actions.size();
    p.faults = best_.faults.size();
    for (const auto& [table, list] : best_.seed_rows) p.seed_rows += list.size();
    p.clients = best_.config.clients;
    p.pass = pass_;
    options_.progress(p);
  }

  const std::function<RunResult(const Scenario&)>& run_;
  const ShrinkOptions& options_;
  std::string property_;
  std::string pass_ = "baseline";
  int64_t runs_ = 0;
  bool spent_ = false;
  Scenario best_;
  RunResult best_result_;
};

}  // namespace

absl::StatusOr<ShrinkResult> Shrink(const Scenario& original,
                                    const std::function<RunResult(const Scenario&)>& run,
                                    const ShrinkOptions& options) {
  if (!original.generated) {
    return absl::FailedPreconditionError("shrink: the scenario has no explicit schedule (a "
                                         "seed-only /1 file); generate it first");
  }
  RunResult baseline = run(original);
  if (baseline.ok) {
    return absl::FailedPreconditionError(StrCat("shrink: seed ", original.seed,
                                                " passes every property; nothing to shrink"));
  }
  if (baseline.property == "setup") {
    return absl::FailedPreconditionError(
        StrCat("shrink: the run cannot start: ", baseline.message));
  }
  Shrinker s(run, options, baseline.property);
  s.best_ = original;
  s.best_result_ = baseline;
  s.runs_ = 1;
  bool changed = true;
  while (changed && !s.Spent()) {
    changed = false;
    changed = s.DeltaDebug(&Scenario::faults, "ddmin faults") || changed;
    changed = s.DeltaDebug(&Scenario::actions, "ddmin actions") || changed;
    changed = s.DropFaultKinds() || changed;
    changed = s.FewerClients() || changed;
    changed = s.FewerSeedRows() || changed;
    changed = s.Simplify() || changed;
  }
  ShrinkResult out;
  out.scenario = s.best_;
  out.failure = s.best_result_;
  out.original_actions = original.actions.size();
  out.original_faults = original.faults.size();
  out.runs = s.runs_;
  out.budget_spent = s.Spent();
  Scenario& sc = out.scenario;
  sc.path.clear();
  sc.expect = Scenario::Expect::kFail;
  sc.property = out.failure.property;
  sc.message = out.failure.message;
  sc.note = StrCat("shrunk from seed ", original.seed, ": ", original.actions.size(),
                   " actions / ", original.faults.size(), " faults → ", sc.actions.size(),
                   " / ", sc.faults.size(), " (", out.runs, " runs); fails ", sc.property);
  return out;
}

}  // namespace rindle::sim
