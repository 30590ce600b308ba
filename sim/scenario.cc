// scenario.cc — see scenario.h.
#include "sim/scenario.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"
#include "engine/str_util.h"
#include "engine/table.h"
#include "sim/workload_mutators.h"
#include "sim/workload_queries.h"
#include "sim/workload_schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// A short rendering of a JSON value for error messages.
std::string Show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = StrCat(s.substr(0, 57), "...");
  return s;
}

absl::Status FieldError(const std::string& origin, const std::string& field,
                        const std::string& expected, const json* got) {
  std::string msg = StrCat(origin, ": field \"", field, "\": expected ", expected);
  if (got != nullptr) StrAppend(&msg, ", got ", Show(*got));
  return absl::InvalidArgumentError(msg);
}

// Reads the fields of one JSON object, naming `path` in every error and rejecting unknown keys.
class ObjectReader {
 public:
  ObjectReader(const std::string& origin, std::string path, const json& obj)
      : origin_(origin), path_(std::move(path)), obj_(obj) {}

  absl::Status CheckObject(const std::vector<std::string>& known) const {
    if (!obj_.is_object()) {
      return FieldError(origin_, path_.empty() ? "(document)" : path_, "a JSON object", &obj_);
    }
    for (const auto& [key, value] : obj_.items()) {
      bool ok = false;
      for (const auto& k : known) ok = ok || k == key;
      if (!ok) {
        return absl::InvalidArgumentError(
            StrCat(origin_, ": unknown field \"", Field(key), "\" (known fields: ",
                   absl::StrJoin(known, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }

  std::string Field(const std::string& key) const {
    return path_.empty() ? key : StrCat(path_, ".", key);
  }
  const json* Find(const std::string& key) const {
    auto it = obj_.find(key);
    return it == obj_.end() ? nullptr : &*it;
  }
  absl::StatusOr<const json*> Require(const std::string& key, const std::string& expected) const {
    const json* v = Find(key);
    if (v == nullptr) return FieldError(origin_, Field(key), StrCat(expected, " (missing)"), nullptr);
    return v;
  }
  absl::StatusOr<int64_t> Int(const std::string& key, int64_t lo, int64_t hi) const {
    const std::string expected = StrCat("an integer in [", lo, ", ", hi, "]");
    auto v = Require(key, expected);
    if (!v.ok()) return v.status();
    return IntValue(**v, Field(key), lo, hi);
  }
  absl::StatusOr<int64_t> IntValue(const json& v, const std::string& field, int64_t lo,
                                   int64_t hi) const {
    const std::string expected = StrCat("an integer in [", lo, ", ", hi, "]");
    if (!v.is_number_integer()) return FieldError(origin_, field, expected, &v);
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return FieldError(origin_, field, expected, &v);
    }
    const int64_t i = v.get<int64_t>();
    if (i < lo || i > hi) return FieldError(origin_, field, expected, &v);
    return i;
  }
  absl::StatusOr<std::string> String(const std::string& key, bool non_empty) const {
    const std::string expected = non_empty ? "a non-empty string" : "a string";
    auto v = Require(key, expected);
    if (!v.ok()) return v.status();
    if (!(*v)->is_string() || (non_empty && (*v)->get<std::string>().empty())) {
      return FieldError(origin_, Field(key), expected, *v);
    }
    return (*v)->get<std::string>();
  }

 private:
  const std::string& origin_;
  std::string path_;
  const json& obj_;
};

#define SCN_ASSIGN(lhs, expr)            \
  do {                                   \
    auto scn_v = (expr);                 \
    if (!scn_v.ok()) return scn_v.status(); \
    lhs = *std::move(scn_v);             \
  } while (0)

constexpr int64_t kMaxMs = int64_t{1} << 40;
constexpr int kMaxClients = 8;

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

json NetworkToJson(const NetworkConfig& n) {
  return {{"latency_ms", {n.latency_ms_min, n.latency_ms_max}},
          {"push_loss_per_mille", n.push_loss_per_mille},
          {"push_dup_per_mille", n.push_dup_per_mille},
          {"ack_loss_per_mille", n.ack_loss_per_mille}};
}

absl::StatusOr<ScenarioConfig> ConfigFromJson(const json& j, const std::string& origin) {
  ObjectReader r(origin, "config", j);
  if (auto s = r.CheckObject({"clients", "safety_ms", "buffer_cap", "network", "connect_ms"});
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
  return c;
}

json ConfigToJson(const ScenarioConfig& c) {
  return {{"clients", c.clients},
          {"safety_ms", c.safety_ms},
          {"buffer_cap", c.buffer_cap},
          {"network", NetworkToJson(c.network)},
          {"connect_ms", c.connect_ms}};
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

json SeedRowsToJson(const SeedRows& rows) {
  json j = json::object();
  for (const auto& [table, list] : rows) {
    json a = json::array();
    for (const RowValues& r : list) a.push_back(RowToJson(r));
    j[table] = std::move(a);
  }
  return j;
}

// The `name` (a workload mutator) and `args` (an object) of a mutate / mutate_folded action.
absl::Status ReadMutatorCall(ObjectReader& r, const std::string& origin, const std::string& path,
                             ScenarioAction& a) {
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
  if (kind == "retain") {
    if (auto s = r.CheckObject({"kind", "t", "client", "query", "handle"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kRetain;
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
  } else if (kind == "release") {
    if (auto s = r.CheckObject({"kind", "t", "client", "handle"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kRelease;
    SCN_ASSIGN(a.handle, r.Int("handle", 1, INT64_MAX));
  } else if (kind == "mutate") {
    if (auto s = r.CheckObject({"kind", "t", "client", "name", "args"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kMutate;
    if (auto s = ReadMutatorCall(r, origin, path, a); !s.ok()) return s;
  } else if (kind == "mutate_folded") {
    if (auto s = r.CheckObject({"kind", "t", "client", "name", "args", "key", "debounce_ms",
                                "max_wait_ms", "defer_across_writes"});
        !s.ok()) {
      return s;
    }
    a.kind = ScenarioAction::Kind::kMutateFolded;
    if (auto s = ReadMutatorCall(r, origin, path, a); !s.ok()) return s;
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
  } else if (kind == "flush_folds") {
    if (auto s = r.CheckObject({"kind", "t", "client"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kFlushFolds;
  } else if (kind == "write_local") {
    if (auto s = r.CheckObject({"kind", "t", "client", "ops"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kWriteLocal;
    const json* ops = nullptr;
    SCN_ASSIGN(ops, r.Require("ops", "a non-empty array of local ops"));
    if (!ops->is_array() || ops->empty()) {
      return FieldError(origin, StrCat(path, ".ops"), "a non-empty array of local ops", ops);
    }
    for (size_t i = 0; i < ops->size(); ++i) {
      const std::string op_path = StrCat(path, ".ops[", i, "]");
      const json& o = (*ops)[i];
      if (!o.is_object()) return FieldError(origin, op_path, "a local op object", &o);
      ObjectReader orr(origin, op_path, o);
      std::string op;
      SCN_ASSIGN(op, orr.String("op", true));
      LocalOp lop;
      std::vector<std::string> known = {"op", "id"};
      if (op == "set_draft") {
        lop.kind = LocalOp::Kind::kSetDraft;
        known = {"op", "id", "issueId", "body"};
      } else if (op == "clear_draft") {
        lop.kind = LocalOp::Kind::kClearDraft;
      } else if (op == "select") {
        lop.kind = LocalOp::Kind::kSelect;
        known = {"op", "id", "issueId"};
      } else if (op == "unselect") {
        lop.kind = LocalOp::Kind::kUnselect;
      } else if (op == "synced_write") {
        lop.kind = LocalOp::Kind::kSyncedWrite;
      } else {
        return FieldError(origin, StrCat(op_path, ".op"),
                          "\"set_draft\", \"clear_draft\", \"select\", \"unselect\" or "
                          "\"synced_write\"",
                          orr.Find("op"));
      }
      if (auto s = orr.CheckObject(known); !s.ok()) return s;
      SCN_ASSIGN(lop.id, orr.String("id", true));
      if (lop.kind == LocalOp::Kind::kSetDraft || lop.kind == LocalOp::Kind::kSelect) {
        SCN_ASSIGN(lop.issue_id, orr.String("issueId", true));
      }
      if (lop.kind == LocalOp::Kind::kSetDraft) SCN_ASSIGN(lop.body, orr.String("body", false));
      a.ops.push_back(std::move(lop));
    }
  } else if (kind == "local_view") {
    if (auto s = r.CheckObject({"kind", "t", "client", "query", "handle"}); !s.ok()) return s;
    a.kind = ScenarioAction::Kind::kLocalView;
    SCN_ASSIGN(a.handle, r.Int("handle", 1, INT64_MAX));
    SCN_ASSIGN(a.local_query, r.String("query", true));
    if (!BuildLocalQuery(a.local_query).ok()) {
      return FieldError(origin, StrCat(path, ".query"),
                        StrCat("a local query (", absl::StrJoin(LocalQueryNames(), ", "), ")"),
                        r.Find("query"));
    }
  } else {
    return FieldError(origin, StrCat(path, ".kind"),
                      "\"retain\", \"release\", \"mutate\", \"mutate_folded\", "
                      "\"flush_folds\", \"write_local\" or \"local_view\"",
                      r.Find("kind"));
  }
  return a;
}

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
  }
  return j;
}

absl::StatusOr<ScenarioFault> FaultFromJson(const json& j, const std::string& origin,
                                            size_t index) {
  const std::string path = StrCat("faults[", index, "]");
  ObjectReader r(origin, path, j);
  if (!j.is_object()) return FieldError(origin, path, "a fault object", &j);
  ScenarioFault f;
  std::string kind;
  SCN_ASSIGN(kind, r.String("kind", true));
  auto k = FaultKindFromName(kind);
  if (!k) {
    return FieldError(origin, StrCat(path, ".kind"),
                      "\"link_break\", \"partition\", \"authority_restart\", "
                      "\"progress_starvation\" or \"resubscribe_storm\"",
                      r.Find("kind"));
  }
  f.kind = *k;
  std::vector<std::string> known = {"kind", "t"};
  if (FaultTargetsClient(f.kind)) known.push_back("client");
  if (FaultHasDuration(f.kind)) known.push_back("duration_ms");
  if (FaultHasCount(f.kind)) known.push_back("count");
  if (auto s = r.CheckObject(known); !s.ok()) return s;
  SCN_ASSIGN(f.t_ms, r.Int("t", 0, kMaxMs));
  int64_t v = 0;
  if (FaultTargetsClient(f.kind)) {
    SCN_ASSIGN(v, r.Int("client", 0, kMaxClients - 1));
    f.client = static_cast<int>(v);
  }
  if (FaultHasDuration(f.kind)) SCN_ASSIGN(f.duration_ms, r.Int("duration_ms", 1, kMaxMs));
  if (FaultHasCount(f.kind)) SCN_ASSIGN(f.count, r.Int("count", 1, kMaxStormCount));
  return f;
}

json FaultToJson(const ScenarioFault& f) {
  json j = {{"kind", FaultKindName(f.kind)}, {"t", f.t_ms}};
  if (FaultTargetsClient(f.kind)) j["client"] = f.client;
  if (FaultHasDuration(f.kind)) j["duration_ms"] = f.duration_ms;
  if (FaultHasCount(f.kind)) j["count"] = f.count;
  return j;
}

}  // namespace

std::string_view ActionKindName(ScenarioAction::Kind kind) {
  switch (kind) {
    case ScenarioAction::Kind::kRetain: return "retain";
    case ScenarioAction::Kind::kRelease: return "release";
    case ScenarioAction::Kind::kMutate: return "mutate";
    case ScenarioAction::Kind::kMutateFolded: return "mutate_folded";
    case ScenarioAction::Kind::kFlushFolds: return "flush_folds";
    case ScenarioAction::Kind::kWriteLocal: return "write_local";
    case ScenarioAction::Kind::kLocalView: return "local_view";
  }
  return "?";
}

std::string_view LocalOpKindName(LocalOp::Kind kind) {
  switch (kind) {
    case LocalOp::Kind::kSetDraft: return "set_draft";
    case LocalOp::Kind::kClearDraft: return "clear_draft";
    case LocalOp::Kind::kSelect: return "select";
    case LocalOp::Kind::kUnselect: return "unselect";
    case LocalOp::Kind::kSyncedWrite: return "synced_write";
  }
  return "?";
}

std::vector<ScenarioAction::Kind> AllActionKinds() {
  using K = ScenarioAction::Kind;
  return {K::kRetain,     K::kRelease,    K::kMutate,   K::kMutateFolded,
          K::kFlushFolds, K::kWriteLocal, K::kLocalView};
}

std::vector<ScenarioFault::Kind> AllFaultKinds() {
  using K = ScenarioFault::Kind;
  return {K::kLinkBreak, K::kPartition, K::kAuthorityRestart, K::kProgressStarvation,
          K::kResubscribeStorm, K::kSchemaSkew};
}

std::string_view FaultKindName(ScenarioFault::Kind kind) {
  switch (kind) {
    case ScenarioFault::Kind::kLinkBreak: return "link_break";
    case ScenarioFault::Kind::kPartition: return "partition";
    case ScenarioFault::Kind::kAuthorityRestart: return "authority_restart";
    case ScenarioFault::Kind::kProgressStarvation: return "progress_starvation";
    case ScenarioFault::Kind::kResubscribeStorm: return "resubscribe_storm";
    case ScenarioFault::Kind::kSchemaSkew: return "schema_skew";
  }
  return "?";
}

std::optional<ScenarioFault::Kind> FaultKindFromName(std::string_view name) {
  for (auto k : AllFaultKinds()) {
    if (FaultKindName(k) == name) return k;
  }
  return std::nullopt;
}

bool FaultTargetsClient(ScenarioFault::Kind kind) {
  return kind == ScenarioFault::Kind::kLinkBreak || kind == ScenarioFault::Kind::kPartition ||
         kind == ScenarioFault::Kind::kResubscribeStorm || kind == ScenarioFault::Kind::kSchemaSkew;
}

bool FaultHasCount(ScenarioFault::Kind kind) {
  return kind == ScenarioFault::Kind::kResubscribeStorm;
}

bool FaultHasDuration(ScenarioFault::Kind kind) {
  return kind == ScenarioFault::Kind::kPartition ||
         kind == ScenarioFault::Kind::kProgressStarvation;
}

absl::Status ValidateScenario(const Scenario& s, const std::string& origin) {
  if (!s.generated) return absl::OkStatus();
  const ScenarioConfig& c = s.config;
  if (c.clients < 1 || c.clients > kMaxClients) {
    return absl::InvalidArgumentError(StrCat(origin, ": field \"config.clients\": expected an "
                                             "integer in [1, ", kMaxClients, "], got ", c.clients));
  }
  if (c.connect_ms.size() != static_cast<size_t>(c.clients)) {
    return absl::InvalidArgumentError(
        StrCat(origin, ": field \"config.connect_ms\": expected ", c.clients,
               " times (one per client), got ", c.connect_ms.size()));
  }
  int64_t last_t = 0;
  std::map<int, std::set<int64_t>> handles;
  for (size_t i = 0; i < s.actions.size(); ++i) {
    const ScenarioAction& a = s.actions[i];
    if (a.client < 0 || a.client >= c.clients) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "].client\": expected an integer in [0, ",
                 c.clients - 1, "], got ", a.client));
    }
    if (a.t_ms < last_t || a.t_ms > c.safety_ms) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "].t\": expected a time in [", last_t, ", ",
                 c.safety_ms, "] (ascending, inside config.safety_ms), got ", a.t_ms));
    }
    last_t = a.t_ms;
    if ((a.kind == ScenarioAction::Kind::kRetain || a.kind == ScenarioAction::Kind::kLocalView) &&
        !handles[a.client].insert(a.handle).second) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "].handle\": expected a handle not yet used by "
                 "client ", a.client, ", got ", a.handle));
    }
    if (a.kind == ScenarioAction::Kind::kMutateFolded &&
        (a.fold_key.is_null() || a.debounce_ms < 0 || (a.max_wait_ms && *a.max_wait_ms < 0))) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "]\": expected a fold with a non-null key and "
                 "non-negative debounce_ms / max_wait_ms"));
    }
    if (a.kind == ScenarioAction::Kind::kWriteLocal && a.ops.empty()) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "].ops\": expected a non-empty array of local ops"));
    }
    if ((a.kind == ScenarioAction::Kind::kMutate || a.kind == ScenarioAction::Kind::kMutateFolded) &&
        !a.args.is_object()) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"actions[", i, "].args\": expected a JSON object"));
    }
  }
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const ScenarioFault& f = s.faults[i];
    if (FaultTargetsClient(f.kind) && (f.client < 0 || f.client >= c.clients)) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"faults[", i, "].client\": expected an integer in [0, ",
                 c.clients - 1, "], got ", f.client));
    }
    if (f.t_ms > c.safety_ms) {
      return absl::InvalidArgumentError(
          StrCat(origin, ": field \"faults[", i, "].t\": expected a time in [0, ", c.safety_ms,
                 "] (inside config.safety_ms), got ", f.t_ms));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Scenario> ScenarioFromJson(const json& doc, const std::string& origin) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(StrCat(origin, ": expected a JSON object {\"format\": \"",
                                             kScenarioFormat, "\", ...}, got ", Show(doc)));
  }
  ObjectReader r(origin, "", doc);
  const json* format = r.Find("format");
  const std::string expected_format =
      StrCat("\"", kScenarioFormat, "\" (or the older \"", kScenarioFormatV1, "\")");
  if (format == nullptr) return FieldError(origin, "format", StrCat(expected_format, " (missing)"), nullptr);
  const bool v1 = *format == kScenarioFormatV1;
  if (!v1 && *format != kScenarioFormat) return FieldError(origin, "format", expected_format, format);
  std::vector<std::string> known = {"format", "seed", "max_steps", "expect", "property", "note"};
  if (!v1) {
    for (const char* k : {"message", "config", "seed_rows", "actions", "faults", "swarm"}) {
      known.push_back(k);
    }
  }
  if (auto s = r.CheckObject(known); !s.ok()) return s;

  Scenario s;
  s.path = origin;
  const json* seed = nullptr;
  SCN_ASSIGN(seed, r.Require("seed", "a non-negative integer"));
  if (!seed->is_number_unsigned()) {
    return FieldError(origin, "seed", "a non-negative integer below 2^64", seed);
  }
  s.seed = seed->get<uint64_t>();

  if (const json* it = r.Find("max_steps")) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 ||
        it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return FieldError(origin, "max_steps", "a positive integer", it);
    }
    s.max_steps = static_cast<int64_t>(it->get<uint64_t>());
  }

  const json* expect = nullptr;
  SCN_ASSIGN(expect, r.Require("expect", "\"pass\" or \"fail\""));
  if (*expect == "pass") {
    s.expect = Scenario::Expect::kPass;
  } else if (*expect == "fail") {
    s.expect = Scenario::Expect::kFail;
  } else {
    return FieldError(origin, "expect", "\"pass\" or \"fail\"", expect);
  }
  if (const json* it = r.Find("property")) {
    if (!it->is_string()) return FieldError(origin, "property", "a property name string", it);
    s.property = it->get<std::string>();
  }
  if (s.expect == Scenario::Expect::kFail && s.property.empty()) {
    return FieldError(origin, "property",
                      "the name of the property the run breaks (required when \"expect\" is "
                      "\"fail\")",
                      r.Find("property"));
  }
  for (auto [key, out] : {std::pair<const char*, std::string*>{"note", &s.note},
                          std::pair<const char*, std::string*>{"message", &s.message}}) {
    if (const json* it = r.Find(key)) {
      if (!it->is_string()) return FieldError(origin, key, "a string", it);
      *out = it->get<std::string>();
    }
  }
  if (v1) return s;

  s.generated = true;
  const json* config = nullptr;
  SCN_ASSIGN(config, r.Require("config", "an object"));
  SCN_ASSIGN(s.config, ConfigFromJson(*config, origin));
  const json* rows = nullptr;
  SCN_ASSIGN(rows, r.Require("seed_rows", "an object {table: [[cells...], ...]}"));
  SCN_ASSIGN(s.seed_rows, SeedRowsFromJson(*rows, origin));
  const json* actions = nullptr;
  SCN_ASSIGN(actions, r.Require("actions", "an array of actions"));
  if (!actions->is_array()) return FieldError(origin, "actions", "an array of actions", actions);
  for (size_t i = 0; i < actions->size(); ++i) {
    ScenarioAction a;
    SCN_ASSIGN(a, ActionFromJson((*actions)[i], origin, i));
    s.actions.push_back(std::move(a));
  }
  const json* faults = nullptr;
  SCN_ASSIGN(faults, r.Require("faults", "an array of faults"));
  if (!faults->is_array()) return FieldError(origin, "faults", "an array of faults", faults);
  for (size_t i = 0; i < faults->size(); ++i) {
    ScenarioFault f;
    SCN_ASSIGN(f, FaultFromJson((*faults)[i], origin, i));
    s.faults.push_back(f);
  }
  if (const json* swarm = r.Find("swarm")) {
    if (!swarm->is_object()) return FieldError(origin, "swarm", "an object", swarm);
    s.swarm = *swarm;
  }
  if (auto st = ValidateScenario(s, origin); !st.ok()) return st;
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat(path, ": cannot open scenario file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(StrCat(path, ": read error"));
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(StrCat(path, ": not valid JSON: ", e.what()));
  }
  return ScenarioFromJson(doc, path);
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
  const json j = ScenarioToJson(scenario);
  auto dump = [](const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); };
  // Top-level keys one per line; the lists one element per line (diffable, readable).
  std::string out = "{\n";
  bool first = true;
  // People read the header first and the long lists last.
  std::vector<std::string> order = {"format", "seed", "expect", "property", "message", "note",
                                    "max_steps", "config", "swarm", "faults", "actions",
                                    "seed_rows"};
  for (const std::string& key : order) {
    if (!j.contains(key)) continue;
    const json& value = j[key];
    if (!first) out += ",\n";
    first = false;
    StrAppend(&out, "  ", dump(json(key)), ": ");
    if (value.is_array() && !value.empty()) {
      out += "[\n";
      for (size_t i = 0; i < value.size(); ++i) {
        StrAppend(&out, "    ", dump(value[i]), i + 1 < value.size() ? ",\n" : "\n");
      }
      out += "  ]";
    } else if (key == "seed_rows" && value.is_object()) {
      out += "{\n";
      size_t n = 0;
      for (const auto& [table, rows] : value.items()) {
        StrAppend(&out, "    ", dump(json(table)), ": ", dump(rows),
                  ++n < value.size() ? ",\n" : "\n");
      }
      out += "  }";
    } else {
      out += dump(value);
    }
  }
  out += "\n}\n";
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return absl::UnavailableError(StrCat(path, ": cannot open for writing"));
  f << out;
  f.flush();
  if (!f) return absl::DataLossError(StrCat(path, ": write failed"));
  return absl::OkStatus();
}

std::string ScenarioSteps(const Scenario& s) {
  if (!s.generated) return StrCat("(seed-only scenario: seed ", s.seed, ")\n");
  auto dump = [](const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); };
  // Merge actions and faults by time (actions first at equal times, as the executor schedules).
  std::multimap<int64_t, std::string> lines;
  for (int c = 0; c < s.config.clients; ++c) {
    lines.emplace(s.config.connect_ms[static_cast<size_t>(c)], StrCat("c", c, " connect"));
  }
  for (const auto& a : s.actions) {
    std::string line = StrCat("c", a.client, " ", ActionKindName(a.kind), " ");
    switch (a.kind) {
      case ScenarioAction::Kind::kRetain:
        StrAppend(&line, a.query.name, a.query.args.is_null() ? "" : StrCat(" ", dump(a.query.args)),
                  " as #", a.handle);
        break;
      case ScenarioAction::Kind::kRelease:
        StrAppend(&line, "#", a.handle);
        break;
      case ScenarioAction::Kind::kMutate:
        StrAppend(&line, a.name, " ", dump(a.args));
        break;
      case ScenarioAction::Kind::kMutateFolded:
        StrAppend(&line, a.name, " ", dump(a.args), " key ", dump(a.fold_key), " debounce ",
                  a.debounce_ms, "ms",
                  a.max_wait_ms ? StrCat(" maxWait ", *a.max_wait_ms, "ms") : "",
                  a.defer_across_writes ? " defer" : "");
        break;
      case ScenarioAction::Kind::kFlushFolds:
        break;
      case ScenarioAction::Kind::kWriteLocal: {
        std::vector<std::string> ops;
        for (const LocalOp& o : a.ops) ops.push_back(dump(LocalOpToJson(o)));
        StrAppend(&line, absl::StrJoin(ops, " "));
        break;
      }
      case ScenarioAction::Kind::kLocalView:
        StrAppend(&line, a.local_query, " as #", a.handle);
        break;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.emplace(a.t_ms, std::move(line));
  }
  for (const auto& f : s.faults) {
    std::string line = StrCat("FAULT ", FaultKindName(f.kind));
    if (FaultTargetsClient(f.kind)) StrAppend(&line, " c", f.client);
    if (FaultHasDuration(f.kind)) StrAppend(&line, " for ", f.duration_ms, "ms");
    if (FaultHasCount(f.kind)) StrAppend(&line, " x", f.count);
    lines.emplace(f.t_ms, std::move(line));
  }
  lines.emplace(s.config.safety_ms, "heal: faults end, the run must converge");
  std::string out;
  for (const auto& [t, line] : lines) StrAppend(&out, absl::StrFormat("%7dms  ", t), line, "\n");
  return out;
}

}  // namespace rindle::sim
