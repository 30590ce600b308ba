// scenario_steps.cc — ScenarioSteps (scenario.h): the scenario as one line per connect, action
// and fault, merged by time, for people (`rindle-sim run --steps`).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/str_util.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_kinds.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

std::string Dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// What follows "c<client> <kind> " on an action's line.
std::string ActionDetail(const ScenarioAction& a) {
  switch (a.kind) {
    case ScenarioAction::Kind::kRetain:
      return StrCat(a.query.name, a.query.args.is_null() ? "" : StrCat(" ", Dump(a.query.args)),
                    " as #", a.handle);
    case ScenarioAction::Kind::kRelease:
      return StrCat("#", a.handle);
    case ScenarioAction::Kind::kMutate:
      return StrCat(a.name, " ", Dump(a.args));
    case ScenarioAction::Kind::kMutateFolded:
      return StrCat(a.name, " ", Dump(a.args), " key ", Dump(a.fold_key), " debounce ",
                    a.debounce_ms, "ms",
                    a.max_wait_ms ? StrCat(" maxWait ", *a.max_wait_ms, "ms") : "",
                    a.defer_across_writes ? " defer" : "");
    case ScenarioAction::Kind::kFlushFolds:
      return "";
    case ScenarioAction::Kind::kWriteLocal: {
      std::vector<std::string> ops;
      for (const LocalOp& o : a.ops) ops.push_back(Dump(LocalOpToJson(o)));
      return absl::StrJoin(ops, " ");
    }
    case ScenarioAction::Kind::kLocalView:
      return StrCat(a.local_query, " as #", a.handle);
    case ScenarioAction::Kind::kRoomConnect:
    case ScenarioAction::Kind::kRoomDisconnect:
      return a.doc;
  }
  return "";
}

std::string ActionLine(const ScenarioAction& a) {
  std::string line = StrCat("c", a.client, " ", ActionKindName(a.kind), " ", ActionDetail(a));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// "FAULT <kind>" and the kind's fields from the kinds table, in its field order.
std::string FaultLine(const ScenarioFault& f) {
  const FaultKindSpec& spec = FaultKindInfo(f.kind);
  std::string line = StrCat("FAULT ", spec.name);
  for (const KindField& field : spec.fields) {
    switch (field.type) {
      case FieldType::kClient: StrAppend(&line, " c", f.client); break;
      case FieldType::kDurationMs: StrAppend(&line, " for ", f.duration_ms, "ms"); break;
      case FieldType::kCount: StrAppend(&line, " x", f.count); break;
      case FieldType::kRoomDoc: StrAppend(&line, " ", f.doc); break;
      default: StrAppend(&line, " ", field.name, "=?"); break;
    }
  }
  return line;
}

}  // namespace

std::string ScenarioSteps(const Scenario& s) {
  if (!s.generated) return StrCat("(seed-only scenario: seed ", s.seed, ")\n");
  // Merge actions and faults by time (actions first at equal times, as the executor schedules).
  std::multimap<int64_t, std::string> lines;
  for (int c = 0; c < s.config.clients; ++c) {
    lines.emplace(s.config.connect_ms[static_cast<size_t>(c)], StrCat("c", c, " connect"));
  }
  for (const auto& a : s.actions) lines.emplace(a.t_ms, ActionLine(a));
  for (const auto& f : s.faults) lines.emplace(f.t_ms, FaultLine(f));
  lines.emplace(s.config.safety_ms, "heal: faults end, the run must converge");
  std::string out;
  for (const auto& [t, line] : lines) StrAppend(&out, absl::StrFormat("%7dms  ", t), line, "\n");
  return out;
}

}  // namespace rindle::sim
