// scenario_json_read.cc — see scenario_json_read.h.
#include "sim/scenario/scenario_json_read.h"

#include <algorithm>
#include <climits>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/str_util.h"
#include "engine/table.h"
#include "sim/scenario/scenario_json_reader.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/workload/mutators.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

constexpr int64_t kMaxMs = kMaxScenarioMs;
constexpr int kMaxClients = kMaxScenarioClients;

absl::StatusOr<NetworkConfig> NetworkFromJson(const json& j, const std::string& origin) {
  ObjectReader r(origin, "config.network", j);
  if (auto s = r.CheckObject({"latency_ms", "push_loss_per_mille", "push_dup_per_mille",
                              "ack_loss_per_mille"});
      !s.ok()) {
    return s;
  }
  NetworkConfig n;
  const json* lat = nullptr;
  SCN_ASSIGN(lat, r.Require("latency_ms", "[min, max] virtual ms"));
  if (!lat->is_array() || lat->size() != 2) {
    return FieldError(origin, "config.network.latency_ms", "[min, max] virtual ms with min <= max",
                      lat);
  }
  SCN_ASSIGN(n.latency_ms_min, r.IntValue((*lat)[0], "config.network.latency_ms[0]", 0, kMaxMs));
  SCN_ASSIGN(n.latency_ms_max,
             r.IntValue((*lat)[1], "config.network.latency_ms[1]", n.latency_ms_min, kMaxMs));
  int64_t v = 0;
  SCN_ASSIGN(v, r.Int("push_loss_per_mille", 0, 1000));
  n.push_loss_per_mille = static_cast<uint32_t>(v);
  SCN_ASSIGN(v, r.Int("push_dup_per_mille", 0, 1000));
  n.push_dup_per_mille = static_cast<uint32_t>(v);
  SCN_ASSIGN(v, r.Int("ack_loss_per_mille", 0, 1000));
  n.ack_loss_per_mille = static_cast<uint32_t>(v);
  return n;
}

// The app schema the workload runs on (seed rows are validated against it).
const Schema& AppSchema() {
  static const Schema* schema = [] {
    absl::StatusOr<Schema> s = LoadAppSchema();
    RINDLE_CHECK(s.ok());
    return new Schema(*std::move(s));
  }();
  return *schema;
}


// The `name` (a workload mutator) and `args` (an object) of a mutate / mutate_folded action.
absl::Status ReadMutatorCall(const ObjectReader& r, const std::string& origin,
                             const std::string& path, ScenarioAction& a) {
  SCN_ASSIGN(a.name, r.String("name", true));
  const std::vector<std::string> mutators = WorkloadMutatorNames();
  if (std::find(mutators.begin(), mutators.end(), a.name) == mutators.end()) {
    return FieldError(origin, StrCat(path, ".name"),
                      StrCat("a workload mutator (", absl::StrJoin(mutators, ", "), ")"),
                      r.Find("name"));
  }
  const json* args = nullptr;
  SCN_ASSIGN(args, r.Require("args", "a JSON object of mutator args"));
  if (!args->is_object()) {
    return FieldError(origin, StrCat(path, ".args"), "a JSON object of mutator args", args);
  }
  a.args = *args;
  return absl::OkStatus();
}

absl::Status ReadRetain(const ObjectReader& r, const std::string& origin, const std::string& path,
                        ScenarioAction& a) {
  SCN_ASSIGN(a.handle, r.Int("handle", 1, INT64_MAX));
  const json* q = nullptr;
  SCN_ASSIGN(q, r.Require("query", "{\"name\": ..., \"args\": ...}"));
  ObjectReader qr(origin, StrCat(path, ".query"), *q);
  if (auto s = qr.CheckObject({"name", "args"}); !s.ok()) return s;
  SCN_ASSIGN(a.query.name, qr.String("name", true));
  const json* args = qr.Find("args");
  a.query.args = args == nullptr ? json(nullptr) : *args;
  // The query must build (any signed-in user will do for the check).
  if (absl::StatusOr<Ast> ast = BuildNamedQuery(a.query, QueryContext{"u01"}); !ast.ok()) {
    return FieldError(origin, StrCat(path, ".query"),
                      StrCat("a named query of the app (", ast.status().message(), ")"), q);
  }
  return absl::OkStatus();
}

// The FoldOptions of a mutate_folded (after its mutator call).
absl::Status ReadFoldOptions(const ObjectReader& r, const std::string& origin,
                             const std::string& path, ScenarioAction& a) {
  const json* key = nullptr;
  SCN_ASSIGN(key, r.Require("key", "the fold key's identity (a non-null JSON value)"));
  if (key->is_null()) {
    return FieldError(origin, StrCat(path, ".key"), "the fold key's identity (a non-null JSON value)",
                      key);
  }
  a.fold_key = *key;
  SCN_ASSIGN(a.debounce_ms, r.Int("debounce_ms", 0, kMaxMs));
  if (r.Find("max_wait_ms") != nullptr) {
    int64_t w = 0;
    SCN_ASSIGN(w, r.Int("max_wait_ms", 0, kMaxMs));
    a.max_wait_ms = w;
  }
  if (const json* d = r.Find("defer_across_writes")) {
    if (!d->is_boolean()) {
      return FieldError(origin, StrCat(path, ".defer_across_writes"), "true or false", d);
    }
    a.defer_across_writes = d->get<bool>();
  }
  return absl::OkStatus();
}

// One write_local intent at `op_path`.
absl::StatusOr<LocalOp> ReadLocalOp(const json& o, const std::string& origin,
                                    const std::string& op_path) {
  if (!o.is_object()) return FieldError(origin, op_path, "a local op object", &o);
  ObjectReader orr(origin, op_path, o);
  std::string op;
  SCN_ASSIGN(op, orr.String("op", true));
  LocalOp lop;
  bool known_op = false;
  for (LocalOp::Kind kind : AllLocalOpKinds()) {
    if (LocalOpKindName(kind) == op) {
      lop.kind = kind;
      known_op = true;
    }
  }
  if (!known_op) {
    return FieldError(origin, StrCat(op_path, ".op"), LocalOpKindNameList(), orr.Find("op"));
  }
  std::vector<std::string> known = {"op", "id"};
  if (lop.kind == LocalOp::Kind::kSetDraft || lop.kind == LocalOp::Kind::kSelect) {
    known.push_back("issueId");
  }
  if (lop.kind == LocalOp::Kind::kSetDraft) known.push_back("body");
  if (auto s = orr.CheckObject(known); !s.ok()) return s;
  SCN_ASSIGN(lop.id, orr.String("id", true));
  if (lop.kind == LocalOp::Kind::kSetDraft || lop.kind == LocalOp::Kind::kSelect) {
    SCN_ASSIGN(lop.issue_id, orr.String("issueId", true));
  }
  if (lop.kind == LocalOp::Kind::kSetDraft) SCN_ASSIGN(lop.body, orr.String("body", false));
  return lop;
}

absl::Status ReadLocalOps(const ObjectReader& r, const std::string& origin,
                          const std::string& path, ScenarioAction& a) {
  const json* ops = nullptr;
  SCN_ASSIGN(ops, r.Require("ops", "a non-empty array of local ops"));
  if (!ops->is_array() || ops->empty()) {
    return FieldError(origin, StrCat(path, ".ops"), "a non-empty array of local ops", ops);
  }
  for (size_t i = 0; i < ops->size(); ++i) {
    LocalOp lop;
    SCN_ASSIGN(lop, ReadLocalOp((*ops)[i], origin, StrCat(path, ".ops[", i, "]")));
    a.ops.push_back(std::move(lop));
  }
  return absl::OkStatus();
}

absl::Status ReadLocalView(const ObjectReader& r, const std::string& origin,
                           const std::string& path, ScenarioAction& a) {
  SCN_ASSIGN(a.handle, r.Int("handle", 1, INT64_MAX));
  SCN_ASSIGN(a.local_query, r.String("query", true));
  if (!BuildLocalQuery(a.local_query).ok()) {
    return FieldError(origin, StrCat(path, ".query"),
                      StrCat("a local query (", absl::StrJoin(LocalQueryNames(), ", "), ")"),
                      r.Find("query"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadRoomDoc(const ObjectReader& r, const std::string& origin,
                                        const std::string& path) {
  std::string doc;
  SCN_ASSIGN(doc, r.String("doc", true));
  if (!IsRoomDocName(doc)) {
    return FieldError(origin, StrCat(path, ".doc"), "a room doc \"issue:<id>\"", r.Find("doc"));
  }
  return doc;
}

// The kind-specific fields of `a` (whose kind is set and whose keys CheckObject accepted).
absl::Status ReadActionFields(const ObjectReader& r, const std::string& origin,
                              const std::string& path, ScenarioAction& a) {
  switch (a.kind) {
    case ScenarioAction::Kind::kRetain:
      return ReadRetain(r, origin, path, a);
    case ScenarioAction::Kind::kRelease:
      SCN_ASSIGN(a.handle, r.Int("handle", 1, INT64_MAX));
      return absl::OkStatus();
    case ScenarioAction::Kind::kMutate:
      return ReadMutatorCall(r, origin, path, a);
    case ScenarioAction::Kind::kMutateFolded:
      if (auto s = ReadMutatorCall(r, origin, path, a); !s.ok()) return s;
      return ReadFoldOptions(r, origin, path, a);
    case ScenarioAction::Kind::kFlushFolds:
      return absl::OkStatus();
    case ScenarioAction::Kind::kWriteLocal:
      return ReadLocalOps(r, origin, path, a);
    case ScenarioAction::Kind::kLocalView:
      return ReadLocalView(r, origin, path, a);
    case ScenarioAction::Kind::kRoomConnect:
    case ScenarioAction::Kind::kRoomDisconnect:
      SCN_ASSIGN(a.doc, ReadRoomDoc(r, origin, path));
      return absl::OkStatus();
  }
  return absl::InternalError("an action kind with no reader");
}

}  // namespace

absl::StatusOr<ScenarioAction> ActionFromJson(const json& j, const std::string& origin,
                                              size_t index) {
  const std::string path = StrCat("actions[", index, "]");
  ObjectReader r(origin, path, j);
  if (!j.is_object()) return FieldError(origin, path, "an action object", &j);
  ScenarioAction a;
  std::string kind;
  SCN_ASSIGN(kind, r.String("kind", true));
  int64_t v = 0;
  SCN_ASSIGN(a.t_ms, r.Int("t", 0, kMaxMs));
  SCN_ASSIGN(v, r.Int("client", 0, kMaxClients - 1));
  a.client = static_cast<int>(v);
  const ActionKindSpec* spec = FindActionKind(kind);
  if (spec == nullptr) {
    return FieldError(origin, StrCat(path, ".kind"), ActionKindNameList(), r.Find("kind"));
  }
  if (auto s = r.CheckObject(ActionKnownFields(*spec)); !s.ok()) return s;
  a.kind = spec->kind;
  if (auto s = ReadActionFields(r, origin, path, a); !s.ok()) return s;
  return a;
}

absl::StatusOr<ScenarioFault> FaultFromJson(const json& j, const std::string& origin,
                                            size_t index) {
  const std::string path = StrCat("faults[", index, "]");
  ObjectReader r(origin, path, j);
  if (!j.is_object()) return FieldError(origin, path, "a fault object", &j);
  ScenarioFault f;
  std::string kind;
  SCN_ASSIGN(kind, r.String("kind", true));
  const FaultKindSpec* spec = FindFaultKind(kind);
  if (spec == nullptr) {
    return FieldError(origin, StrCat(path, ".kind"), FaultKindNameList(), r.Find("kind"));
  }
  f.kind = spec->kind;
  if (auto s = r.CheckObject(FaultKnownFields(*spec)); !s.ok()) return s;
  SCN_ASSIGN(f.t_ms, r.Int("t", 0, kMaxMs));
  for (const KindField& field : spec->fields) {
    const std::string key(field.name);
    int64_t v = 0;
    switch (field.type) {
      case FieldType::kClient:
        SCN_ASSIGN(v, r.Int(key, 0, kMaxClients - 1));
        f.client = static_cast<int>(v);
        break;
      case FieldType::kDurationMs:
        SCN_ASSIGN(f.duration_ms, r.Int(key, 1, kMaxMs));
        break;
      case FieldType::kCount:
        SCN_ASSIGN(f.count, r.Int(key, 1, kMaxStormCount));
        break;
      case FieldType::kRoomDoc:
        SCN_ASSIGN(f.doc, ReadRoomDoc(r, origin, path));
        break;
      default:
        RINDLE_CHECK_MSG(false, StrCat("fault field type ", FieldTypeName(field.type),
                                       " has no reader (scenario_kinds.cc row ", spec->name, ")"));
    }
  }
  return f;
}

absl::StatusOr<ScenarioConfig> ConfigFromJson(const json& j, const std::string& origin) {
  ObjectReader r(origin, "config", j);
  if (auto s = r.CheckObject({"clients", "safety_ms", "buffer_cap", "network", "connect_ms",
                                  "transport_retry", "room_views"});
      !s.ok()) {
    return s;
  }
  ScenarioConfig c;
  int64_t v = 0;
  SCN_ASSIGN(v, r.Int("clients", 1, kMaxClients));
  c.clients = static_cast<int>(v);
  SCN_ASSIGN(c.safety_ms, r.Int("safety_ms", 0, kMaxMs));
  SCN_ASSIGN(v, r.Int("buffer_cap", 1, int64_t{1} << 30));
  c.buffer_cap = static_cast<size_t>(v);
  const json* net = nullptr;
  SCN_ASSIGN(net, r.Require("network", "an object"));
  SCN_ASSIGN(c.network, NetworkFromJson(*net, origin));
  const json* connect = nullptr;
  SCN_ASSIGN(connect, r.Require("connect_ms", "one virtual-ms time per client"));
  if (!connect->is_array() || connect->size() != static_cast<size_t>(c.clients)) {
    return FieldError(origin, "config.connect_ms",
                      StrCat("an array of ", c.clients, " virtual-ms times (one per client)"),
                      connect);
  }
  for (size_t i = 0; i < connect->size(); ++i) {
    int64_t t = 0;
    SCN_ASSIGN(t, r.IntValue((*connect)[i], StrCat("config.connect_ms[", i, "]"), 0, kMaxMs));
    c.connect_ms.push_back(t);
  }
  if (auto retry = j.find("transport_retry"); retry != j.end()) {
    if (!retry->is_boolean()) {
      return FieldError(origin, "config.transport_retry", "true or false", &*retry);
    }
    c.transport_retry = retry->get<bool>();
  }
  if (auto views = j.find("room_views"); views != j.end()) {
    if (!views->is_boolean()) {
      return FieldError(origin, "config.room_views", "true or false", &*views);
    }
    c.room_views = views->get<bool>();
  }
  return c;
}

absl::StatusOr<SeedRows> SeedRowsFromJson(const json& j, const std::string& origin) {
  if (!j.is_object()) {
    return FieldError(origin, "seed_rows", "an object {table: [[cells...], ...]}", &j);
  }
  const Schema& schema = AppSchema();
  SeedRows rows;
  for (const auto& [table, list] : j.items()) {
    const std::string field = StrCat("seed_rows.", table);
    auto spec = schema.find(table);
    if (spec == schema.end()) {
      std::vector<std::string> names;
      for (const auto& [n, t] : schema) names.push_back(n);
      return FieldError(origin, field,
                        StrCat("a table of the app schema (", absl::StrJoin(names, ", "), ")"),
                        nullptr);
    }
    if (!list.is_array()) return FieldError(origin, field, "an array of rows", &list);
    std::vector<RowValues>& out = rows[table];
    std::set<RowValues, RowKeyLess> pks;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string row_field = StrCat(field, "[", i, "]");
      auto row = RowFromJson(list[i], "row");
      if (!row.ok() || row->empty()) {
        return FieldError(origin, row_field,
                          "a non-empty array of cells (null, bool, number or string)", &list[i]);
      }
      if (absl::Status ok = spec->second.CheckRow(table, *row); !ok.ok()) {
        return FieldError(origin, row_field,
                          StrCat("a row of table \"", table, "\" (", ok.message(), ")"),
                          &list[i]);
      }
      if (!pks.insert(spec->second.PkOf(*row)).second) {
        return FieldError(origin, row_field, "a row whose primary key is not already given",
                          &list[i]);
      }
      out.push_back(*std::move(row));
    }
  }
  return rows;
}

}  // namespace rindle::sim
