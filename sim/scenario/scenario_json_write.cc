// scenario_json_write.cc — the writer half of scenario.h: ScenarioToJson (the canonical form
// LoadScenario accepts), its element writers, and WriteScenarioFile's diffable layout.
#include <string>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/json_file.h"
#include "base/str_util.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_kinds.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

json NetworkToJson(const NetworkConfig& n) {
  return {{"latency_ms", {n.latency_ms_min, n.latency_ms_max}},
          {"push_loss_per_mille", n.push_loss_per_mille},
          {"push_dup_per_mille", n.push_dup_per_mille},
          {"ack_loss_per_mille", n.ack_loss_per_mille}};
}

json ConfigToJson(const ScenarioConfig& c) {
  json j = {{"clients", c.clients},
            {"safety_ms", c.safety_ms},
            {"buffer_cap", c.buffer_cap},
            {"network", NetworkToJson(c.network)},
            {"connect_ms", c.connect_ms}};
  // Written only when off: files (and digests) of runs with the retry on stay as they were.
  if (!c.transport_retry) j["transport_retry"] = false;
  if (c.room_views) j["room_views"] = true;
  return j;
}

json SeedRowsToJson(const SeedRows& rows) {
  json j = json::object();
  for (const auto& [table, list] : rows) {
    json a = json::array();
    for (const RowValues& r : list) a.push_back(RowToJson(r));
    j[table] = std::move(a);
  }
  return j;
}

std::string Dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// A top-level value: a non-empty list one element per line, seed_rows one table per line.
void AppendTopLevelValue(std::string& out, const std::string& key, const json& value) {
  if (value.is_array() && !value.empty()) {
    out += "[\n";
    for (size_t i = 0; i < value.size(); ++i) {
      StrAppend(&out, "    ", Dump(value[i]), i + 1 < value.size() ? ",\n" : "\n");
    }
    out += "  ]";
  } else if (key == "seed_rows" && value.is_object()) {
    out += "{\n";
    size_t n = 0;
    for (const auto& [table, rows] : value.items()) {
      StrAppend(&out, "    ", Dump(json(table)), ": ", Dump(rows),
                ++n < value.size() ? ",\n" : "\n");
    }
    out += "  }";
  } else {
    out += Dump(value);
  }
}

// Top-level keys one per line; the lists one element per line (diffable, readable).
std::string FormatScenarioFile(const json& j) {
  std::string out = "{\n";
  bool first = true;
  // People read the header first and the long lists last.
  const std::vector<std::string> order = {"format", "seed", "expect", "property", "message",
                                          "note", "max_steps", "config", "swarm", "faults",
                                          "actions", "seed_rows"};
  for (const std::string& key : order) {
    if (!j.contains(key)) continue;
    if (!first) out += ",\n";
    first = false;
    StrAppend(&out, "  ", Dump(json(key)), ": ");
    AppendTopLevelValue(out, key, j[key]);
  }
  out += "\n}\n";
  return out;
}

}  // namespace

json LocalOpToJson(const LocalOp& o) {
  json j = {{"op", LocalOpKindName(o.kind)}, {"id", o.id}};
  if (o.kind == LocalOp::Kind::kSetDraft || o.kind == LocalOp::Kind::kSelect) {
    j["issueId"] = o.issue_id;
  }
  if (o.kind == LocalOp::Kind::kSetDraft) j["body"] = o.body;
  return j;
}

json ActionToJson(const ScenarioAction& a) {
  json j = {{"kind", ActionKindName(a.kind)}, {"t", a.t_ms}, {"client", a.client}};
  switch (a.kind) {
    case ScenarioAction::Kind::kRetain:
      j["query"] = {{"name", a.query.name}, {"args", a.query.args}};
      j["handle"] = a.handle;
      break;
    case ScenarioAction::Kind::kRelease:
      j["handle"] = a.handle;
      break;
    case ScenarioAction::Kind::kMutate:
      j["name"] = a.name;
      j["args"] = a.args;
      break;
    case ScenarioAction::Kind::kMutateFolded:
      j["name"] = a.name;
      j["args"] = a.args;
      j["key"] = a.fold_key;
      j["debounce_ms"] = a.debounce_ms;
      if (a.max_wait_ms) j["max_wait_ms"] = *a.max_wait_ms;
      if (a.defer_across_writes) j["defer_across_writes"] = true;
      break;
    case ScenarioAction::Kind::kFlushFolds:
      break;
    case ScenarioAction::Kind::kWriteLocal: {
      json ops = json::array();
      for (const LocalOp& o : a.ops) ops.push_back(LocalOpToJson(o));
      j["ops"] = std::move(ops);
      break;
    }
    case ScenarioAction::Kind::kLocalView:
      j["query"] = a.local_query;
      j["handle"] = a.handle;
      break;
    case ScenarioAction::Kind::kRoomConnect:
    case ScenarioAction::Kind::kRoomDisconnect:
      j["doc"] = a.doc;
      break;
  }
  return j;
}

json FaultToJson(const ScenarioFault& f) {
  const FaultKindSpec& spec = FaultKindInfo(f.kind);
  json j = {{"kind", spec.name}, {"t", f.t_ms}};
  for (const KindField& field : spec.fields) {
    const std::string key(field.name);
    switch (field.type) {
      case FieldType::kClient: j[key] = f.client; break;
      case FieldType::kDurationMs: j[key] = f.duration_ms; break;
      case FieldType::kCount: j[key] = f.count; break;
      case FieldType::kRoomDoc: j[key] = f.doc; break;
      default:
        RINDLE_CHECK_MSG(false, StrCat("fault field type ", FieldTypeName(field.type),
                                       " has no writer (scenario_kinds.cc row ", spec.name, ")"));
    }
  }
  return j;
}

json ScenarioToJson(const Scenario& s) {
  json j = {
      {"format", s.generated ? kScenarioFormat : kScenarioFormatV1},
      {"seed", s.seed},
      {"expect", s.expect == Scenario::Expect::kPass ? "pass" : "fail"},
  };
  if (s.max_steps) j["max_steps"] = *s.max_steps;
  if (!s.property.empty()) j["property"] = s.property;
  if (!s.note.empty()) j["note"] = s.note;
  if (!s.generated) return j;
  if (!s.message.empty()) j["message"] = s.message;
  j["config"] = ConfigToJson(s.config);
  j["seed_rows"] = SeedRowsToJson(s.seed_rows);
  json actions = json::array();
  for (const auto& a : s.actions) actions.push_back(ActionToJson(a));
  j["actions"] = std::move(actions);
  json faults = json::array();
  for (const auto& f : s.faults) faults.push_back(FaultToJson(f));
  j["faults"] = std::move(faults);
  j["swarm"] = s.swarm;
  return j;
}

absl::Status WriteScenarioFile(const Scenario& scenario, const std::string& path) {
  // A temporary file renamed into place: a failed write never leaves a truncated file.
  return WriteFileAtomically(path, FormatScenarioFile(ScenarioToJson(scenario)));
}

}  // namespace rindle::sim
