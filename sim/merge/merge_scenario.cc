// merge_scenario.cc — JSON of the merge campaign's scenarios (merge_scenario.h).
#include "sim/merge/merge_scenario.h"

#include <set>
#include <utility>

#include "base/json_file.h"
#include "base/str_util.h"
#include "engine/ast_json.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

constexpr std::pair<MergeAction::Op, std::string_view> kOps[] = {
    {MergeAction::Op::kQuery, "query"},
    {MergeAction::Op::kAddRoom, "add_room"},
    {MergeAction::Op::kRemoveRoom, "remove_room"},
    {MergeAction::Op::kServerBatch, "server_batch"},
    {MergeAction::Op::kWrite, "write"},
    {MergeAction::Op::kHoldBack, "hold_back"},
    {MergeAction::Op::kHoldBackAbsent, "hold_back_absent"},
    {MergeAction::Op::kDrop, "drop"},
    {MergeAction::Op::kFreeze, "freeze"},
    {MergeAction::Op::kWritableMatches, "writable_matches"},
    {MergeAction::Op::kProvenance, "provenance"},
};

absl::Status Bad(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(path, ": ", what));
}

// Refuses keys outside `allowed`.
absl::Status OnlyKeys(const json& j, std::string_view path, const std::set<std::string>& allowed) {
  if (!j.is_object()) return Bad(path, "expected an object");
  for (const auto& [k, v] : j.items()) {
    if (!allowed.count(k)) return Bad(StrCat(path, ".", k), "unknown key");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> GetString(const json& j, std::string_view path, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Bad(StrCat(path, ".", key), "expected a string");
  return it->get<std::string>();
}

absl::StatusOr<RowValues> GetRow(const json& j, std::string_view path, const char* key) {
  auto it = j.find(key);
  const std::string where = StrCat(path, ".", key);
  if (it == j.end() || !it->is_array()) return Bad(where, "expected an array of cells");
  return RowFromJson(*it, where);
}

json ScalarToJson(const Value& v) { return v.ToJson(); }

absl::StatusOr<ModelOp> ModelOpFromJson(const json& j, std::string_view path) {
  if (absl::Status s = OnlyKeys(j, path, {"table", "type", "row", "old_row"}); !s.ok()) return s;
  ModelOp op;
  absl::StatusOr<std::string> table = GetString(j, path, "table");
  absl::StatusOr<std::string> type = GetString(j, path, "type");
  if (!table.ok()) return table.status();
  if (!type.ok()) return type.status();
  op.table = *table;
  if (*type == "add") op.kind = ModelOp::Kind::kAdd;
  else if (*type == "remove") op.kind = ModelOp::Kind::kRemove;
  else if (*type == "edit") op.kind = ModelOp::Kind::kEdit;
  else return Bad(StrCat(path, ".type"), "expected add, remove or edit, got \"" + *type + "\"");
  absl::StatusOr<RowValues> row = GetRow(j, path, "row");
  if (!row.ok()) return row.status();
  op.row = *row;
  if (op.kind == ModelOp::Kind::kEdit) {
    absl::StatusOr<RowValues> old_row = GetRow(j, path, "old_row");
    if (!old_row.ok()) return old_row.status();
    op.old_row = *old_row;
  } else if (j.contains("old_row")) {
    return Bad(StrCat(path, ".old_row"), "only an edit has an old_row");
  }
  return op;
}

absl::StatusOr<std::vector<ModelOp>> OpsFromJson(const json& j, std::string_view path) {
  if (!j.is_array()) return Bad(path, "expected an array of row ops");
  std::vector<ModelOp> ops;
  for (size_t i = 0; i < j.size(); ++i) {
    absl::StatusOr<ModelOp> op = ModelOpFromJson(j[i], StrCat(path, "[", i, "]"));
    if (!op.ok()) return op.status();
    ops.push_back(*std::move(op));
  }
  return ops;
}

absl::StatusOr<ModelScope> ScopeFromJson(const json& j, std::string_view path) {
  if (absl::Status s = OnlyKeys(j, path, {"kind", "col", "value", "where"}); !s.ok()) return s;
  absl::StatusOr<std::string> kind = GetString(j, path, "kind");
  if (!kind.ok()) return kind.status();
  ModelScope scope;
  if (*kind == "all") {
    scope.kind = ModelScope::Kind::kAll;
  } else if (*kind == "none") {
    scope.kind = ModelScope::Kind::kNone;
  } else if (*kind == "colEq") {
    scope.kind = ModelScope::Kind::kColEq;
    if (!j.contains("col") || !j["col"].is_number_integer()) {
      return Bad(StrCat(path, ".col"), "expected an integer");
    }
    scope.col = j["col"].get<int>();
    absl::StatusOr<Value> v = Value::FromJson(j.value("value", json()), StrCat(path, ".value"));
    if (!v.ok()) return v.status();
    scope.value = *v;
  } else if (*kind == "predicate") {
    scope.kind = ModelScope::Kind::kPredicate;
    if (!j.contains("where")) return Bad(StrCat(path, ".where"), "expected a condition");
    absl::StatusOr<Condition> c = ParseCondition(j["where"], StrCat(path, ".where"));
    if (!c.ok()) return c.status();
    scope.where = *c;
  } else {
    return Bad(StrCat(path, ".kind"), "expected all, none, colEq or predicate");
  }
  return scope;
}

absl::StatusOr<MergeAction::Op> OpFromName(const std::string& name, std::string_view path) {
  for (const auto& [op, n] : kOps) {
    if (n == name) return op;
  }
  return Bad(path, "unknown op \"" + name + "\"");
}

// The keys an op takes besides "op" and "error".
std::set<std::string> KeysOf(MergeAction::Op op) {
  using Op = MergeAction::Op;
  switch (op) {
    case Op::kQuery: return {"qid", "ast"};
    case Op::kAddRoom: return {"table", "room", "scope"};
    case Op::kRemoveRoom: return {"table", "room"};
    case Op::kServerBatch: return {"source", "deltas", "inside"};
    case Op::kWrite: return {"ops"};
    case Op::kFreeze: return {"table", "source"};
    case Op::kProvenance: return {"table", "row"};
    default: return {"table", "source", "row"};
  }
}

absl::StatusOr<MergeAction> ActionFromJson(const json& j, std::string_view path, bool nested);

absl::Status ReadFields(const json& j, std::string_view path, MergeAction& a) {
  using Op = MergeAction::Op;
  const std::set<std::string> keys = KeysOf(a.op);
  if (keys.count("table")) {
    absl::StatusOr<std::string> t = GetString(j, path, "table");
    if (!t.ok()) return t.status();
    a.table = *t;
  }
  for (const char* key : {"room", "source"}) {
    if (!keys.count(key)) continue;
    absl::StatusOr<std::string> s = GetString(j, path, key);
    if (!s.ok()) return s.status();
    a.source = *s;
  }
  if (keys.count("row")) {
    absl::StatusOr<RowValues> row = GetRow(j, path, "row");
    if (!row.ok()) return row.status();
    a.row = *row;
  }
  if (a.op == Op::kQuery) {
    if (!j.contains("qid") || !j["qid"].is_number_integer()) {
      return Bad(StrCat(path, ".qid"), "expected an integer");
    }
    a.qid = j["qid"].get<int64_t>();
    if (!j.contains("ast")) return Bad(StrCat(path, ".ast"), "expected a wire AST");
    if (absl::StatusOr<Ast> ast = ParseAst(j["ast"], StrCat(path, ".ast")); !ast.ok()) {
      return ast.status();
    }
    a.ast = j["ast"];
  }
  if (a.op == Op::kAddRoom) {
    if (!j.contains("scope")) return Bad(StrCat(path, ".scope"), "expected a scope");
    absl::StatusOr<ModelScope> scope = ScopeFromJson(j["scope"], StrCat(path, ".scope"));
    if (!scope.ok()) return scope.status();
    a.scope = *scope;
  }
  const char* ops_key = a.op == Op::kWrite ? "ops" : a.op == Op::kServerBatch ? "deltas" : nullptr;
  if (ops_key != nullptr) {
    absl::StatusOr<std::vector<ModelOp>> ops =
        OpsFromJson(j.value(ops_key, json()), StrCat(path, ".", ops_key));
    if (!ops.ok()) return ops.status();
    a.ops = *std::move(ops);
  }
  if (a.op == Op::kServerBatch && j.contains("inside")) {
    const json& inside = j["inside"];
    if (!inside.is_array()) return Bad(StrCat(path, ".inside"), "expected an array of actions");
    for (size_t i = 0; i < inside.size(); ++i) {
      absl::StatusOr<MergeAction> in = ActionFromJson(inside[i], StrCat(path, ".inside[", i, "]"),
                                                      /*nested=*/true);
      if (!in.ok()) return in.status();
      a.inside.push_back(*std::move(in));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<MergeAction> ActionFromJson(const json& j, std::string_view path, bool nested) {
  if (!j.is_object()) return Bad(path, "expected an action object");
  absl::StatusOr<std::string> name = GetString(j, path, "op");
  if (!name.ok()) return name.status();
  MergeAction a;
  absl::StatusOr<MergeAction::Op> op = OpFromName(*name, StrCat(path, ".op"));
  if (!op.ok()) return op.status();
  a.op = *op;
  if (nested && a.op != MergeAction::Op::kWrite && a.op != MergeAction::Op::kDrop) {
    return Bad(StrCat(path, ".op"), "only write and drop run inside a server batch");
  }
  std::set<std::string> keys = KeysOf(a.op);
  keys.insert("op");
  keys.insert("error");
  if (absl::Status s = OnlyKeys(j, path, keys); !s.ok()) return s;
  if (j.contains("error")) {
    absl::StatusOr<std::string> e = GetString(j, path, "error");
    if (!e.ok()) return e.status();
    a.error = *e;
  }
  if (absl::Status s = ReadFields(j, path, a); !s.ok()) return s;
  return a;
}

json ActionToJson(const MergeAction& a) {
  using Op = MergeAction::Op;
  json j = {{"op", std::string(MergeOpName(a.op))}};
  const std::set<std::string> keys = KeysOf(a.op);
  if (keys.count("table")) j["table"] = a.table;
  if (keys.count("room")) j["room"] = a.source;
  if (keys.count("source")) j["source"] = a.source;
  if (keys.count("row")) j["row"] = RowToJson(a.row);
  if (a.op == Op::kQuery) {
    j["qid"] = a.qid;
    j["ast"] = a.ast;
  }
  if (a.op == Op::kAddRoom) j["scope"] = ModelScopeToJson(a.scope);
  if (a.op == Op::kWrite || a.op == Op::kServerBatch) {
    json ops = json::array();
    for (const ModelOp& op : a.ops) ops.push_back(ModelOpToJson(op));
    j[a.op == Op::kWrite ? "ops" : "deltas"] = ops;
  }
  if (a.op == Op::kServerBatch && !a.inside.empty()) {
    json inside = json::array();
    for (const MergeAction& in : a.inside) inside.push_back(ActionToJson(in));
    j["inside"] = inside;
  }
  if (!a.error.empty()) j["error"] = a.error;
  return j;
}

}  // namespace

std::string_view MergeOpName(MergeAction::Op op) {
  for (const auto& [o, n] : kOps) {
    if (o == op) return n;
  }
  return "?";
}

json ModelOpToJson(const ModelOp& op) {
  const char* type = op.kind == ModelOp::Kind::kAdd      ? "add"
                     : op.kind == ModelOp::Kind::kRemove ? "remove"
                                                         : "edit";
  json j = {{"table", op.table}, {"type", type}, {"row", RowToJson(op.row)}};
  if (op.kind == ModelOp::Kind::kEdit) j["old_row"] = RowToJson(op.old_row);
  return j;
}

json ModelScopeToJson(const ModelScope& s) {
  switch (s.kind) {
    case ModelScope::Kind::kAll: return {{"kind", "all"}};
    case ModelScope::Kind::kNone: return {{"kind", "none"}};
    case ModelScope::Kind::kColEq:
      return {{"kind", "colEq"}, {"col", s.col}, {"value", ScalarToJson(s.value)}};
    case ModelScope::Kind::kPredicate:
      return {{"kind", "predicate"}, {"where", ConditionToJson(*s.where)}};
  }
  return {};
}

json MergeScenarioToJson(const MergeScenario& s) {
  json actions = json::array();
  for (const MergeAction& a : s.actions) actions.push_back(ActionToJson(a));
  json j = {{"rindle_merge_scenario", kMergeScenarioFormat},
            {"target", "merge"},
            {"seed", s.seed},
            {"expect", s.expect_fail ? "fail" : "pass"},
            {"actions", actions}};
  if (!s.property.empty()) j["property"] = s.property;
  if (!s.note.empty()) j["note"] = s.note;
  return j;
}

bool IsMergeScenarioJson(const json& j) {
  return j.is_object() && j.contains("target") && j["target"] == "merge";
}

absl::StatusOr<MergeScenario> MergeScenarioFromJson(const json& j) {
  if (absl::Status s = OnlyKeys(j, "$", {"rindle_merge_scenario", "target", "seed", "expect",
                                         "property", "note", "actions"});
      !s.ok()) {
    return s;
  }
  if (!IsMergeScenarioJson(j)) return Bad("$.target", "expected \"merge\"");
  if (j.value("rindle_merge_scenario", json()) != kMergeScenarioFormat) {
    return Bad("$.rindle_merge_scenario", StrCat("expected format ", kMergeScenarioFormat));
  }
  MergeScenario s;
  if (!j.contains("seed") || !j["seed"].is_number_unsigned()) {
    return Bad("$.seed", "expected an unsigned integer");
  }
  s.seed = j["seed"].get<uint64_t>();
  const std::string expect = j.value("expect", std::string("pass"));
  if (expect != "pass" && expect != "fail") return Bad("$.expect", "expected pass or fail");
  s.expect_fail = expect == "fail";
  s.property = j.value("property", std::string());
  s.note = j.value("note", std::string());
  if (s.expect_fail && s.property.empty()) return Bad("$.property", "required with expect fail");
  if (!j.contains("actions") || !j["actions"].is_array()) {
    return Bad("$.actions", "expected an array of actions");
  }
  for (size_t i = 0; i < j["actions"].size(); ++i) {
    absl::StatusOr<MergeAction> a =
        ActionFromJson(j["actions"][i], StrCat("$.actions[", i, "]"), /*nested=*/false);
    if (!a.ok()) return a.status();
    s.actions.push_back(*std::move(a));
  }
  return s;
}

absl::StatusOr<MergeScenario> ReadMergeScenarioFile(const std::string& path) {
  absl::StatusOr<json> j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  absl::StatusOr<MergeScenario> s = MergeScenarioFromJson(*j);
  if (!s.ok()) return absl::InvalidArgumentError(StrCat(path, ": ", s.status().message()));
  return s;
}

}  // namespace rindle::sim
