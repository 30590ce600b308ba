// merge_generator.cc — draws merge scenarios (merge_generator.h).
#include "sim/merge/merge_generator.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/rng.h"
#include "base/source_key.h"
#include "base/str_util.h"
#include "engine/ast_json.h"
#include "sim/workload/catalog.h"
#include "sim/workload/generator.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using Op = MergeAction::Op;
const std::vector<std::string> kMergeTables = {"issue", "issue", "comment", "tag"};
const std::vector<std::string> kRooms = {"room:doc:1", "room:doc:2", "room:doc:3"};

Condition Leaf(const std::string& col, SimpleOp op, Value v) {
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = op;
  c.left.kind = ValuePosition::Kind::kColumn;
  c.left.column = col;
  c.right.literal = std::move(v);
  return c;
}

class Generator {
 public:
  Generator(uint64_t seed, const Schema& schema)
      : rng_(Rng(seed).Fork("merge")), schema_(schema), model_(schema, LocalTableNames()) {
    scenario_.seed = seed;
  }

  MergeScenario Run() {
    SeedBatch();
    const int queries = static_cast<int>(rng_.Range(3, 5));
    for (int i = 0; i < queries; ++i) DrawQuery();
    const int rooms = static_cast<int>(rng_.Range(1, 3));
    for (int i = 0; i < rooms; ++i) DrawAddRoom(kRooms[static_cast<size_t>(i)]);
    const int steps = static_cast<int>(rng_.Range(30, 80));
    for (int i = 0; i < steps; ++i) DrawStep();
    return std::move(scenario_);
  }

 private:
  // Appends `a` and applies it to the generator's model (as the runner will).
  void Emit(MergeAction a) {
    ApplyToModel(a);
    scenario_.actions.push_back(std::move(a));
  }

  void ApplyToModel(const MergeAction& a);
  void SeedBatch();
  void DrawQuery();
  ModelScope DrawScope(const std::string& table);
  void DrawAddRoom(const std::string& room);
  void DrawStep();
  void DrawWrite();
  std::optional<ModelOp> DrawWriteOp(const std::string& table, std::set<RowValues, PkLess>& used);
  void DrawServerBatch();
  std::vector<ModelOp> DrawDeltas(const std::string& source, std::set<size_t>& confirmed);
  void DrawHoldBack();
  void DrawDrop();
  void DrawError();
  bool DrawBadBatch(const std::string& kind, const std::string& table, const RowValues& row,
                    MergeAction& a);
  void DrawProbe();

  std::vector<std::string> MergedTables() const {
    std::vector<std::string> out;
    for (const auto& [name, t] : model_.tables()) if (t.merged) out.push_back(name);
    return out;
  }
  std::vector<std::string> SourcesOf(const std::string& table) const {
    std::vector<std::string> out;
    for (const auto& [key, s] : model_.tables().at(table).sources) out.push_back(key);
    return out;
  }
  std::vector<RowValues> VisibleRows(const std::string& table) const {
    std::vector<RowValues> out;
    for (const auto& [pk, row] : model_.VisibleTable(table)) out.push_back(row);
    return out;
  }
  RowValues NewId(const std::string& table, RowValues row) {
    row[0] = Value::String(StrCat("m", table.substr(0, 1), ++next_id_));
    return row;
  }
  // A copy of a visible row of `table` with `pk`'s cells (pk is column 0 in the app schema).
  std::optional<RowValues> RowWithPk(const std::string& table, const RowValues& pk) {
    std::vector<RowValues> rows = VisibleRows(table);
    if (rows.empty()) return std::nullopt;
    RowValues row = rng_.Pick(rows);
    row[0] = pk[0];
    return row;
  }
  RowValues Mutate(const std::string& table, RowValues row);

  Rng rng_;
  const Schema& schema_;
  MergeModel model_;
  MergeScenario scenario_;
  int next_id_ = 0;
  int64_t next_qid_ = 1;
  std::vector<std::vector<ModelOp>> pending_;
};

void Generator::ApplyToModel(const MergeAction& a) {
  switch (a.op) {
    case Op::kAddRoom: (void)model_.AddRoomSource(a.table, a.source, a.scope); return;
    case Op::kRemoveRoom: (void)model_.RemoveRoomSource(a.table, a.source); return;
    case Op::kWrite:
      if (model_.Commit(a.ops).ok() && a.error.empty()) pending_.push_back(a.ops);
      return;
    case Op::kHoldBack: (void)model_.HoldBack(a.table, a.source, a.row); return;
    case Op::kHoldBackAbsent: (void)model_.HoldBackAbsent(a.table, a.source, a.row); return;
    case Op::kDrop: (void)model_.DropHeldBack(a.table, a.source, a.row); return;
    case Op::kFreeze: (void)model_.FreezeSource(a.table, a.source); return;
    case Op::kServerBatch: {
      if (!model_.ServerBatchBegin(a.source, a.ops).ok()) return;
      pending_.clear();
      for (const MergeAction& in : a.inside) {
        if (in.op == Op::kDrop) {
          (void)model_.DropHeldBack(in.table, in.source, in.row);
        } else if (model_.Commit(in.ops).ok()) {
          pending_.push_back(in.ops);
        }
      }
      return;
    }
    default: return;
  }
}

void Generator::SeedBatch() {
  Rng data = rng_.Fork("seed-data");
  MergeAction a;
  a.op = Op::kServerBatch;
  a.source = std::string(kDaemonSource);
  for (const auto& [table, rows] : SeedData(data)) {
    if (!schema_.count(table)) continue;
    for (const RowValues& row : rows) a.ops.push_back({table, ModelOp::Kind::kAdd, row, {}});
  }
  Emit(std::move(a));
}

void Generator::DrawQuery() {
  const std::vector<CatalogEntry>& catalog = Catalog();
  for (int attempt = 0; attempt < 8; ++attempt) {
    const CatalogEntry& e = rng_.Pick(catalog);
    RemoteQuery q = DrawCatalogQuery(rng_, e.key);
    absl::StatusOr<Ast> ast = BuildNamedQuery(q, QueryContext{"u01"});
    if (!ast.ok()) continue;
    MergeAction a;
    a.op = Op::kQuery;
    a.qid = next_qid_++;
    a.ast = AstToJson(*ast);
    Emit(std::move(a));
    return;
  }
}

ModelScope Generator::DrawScope(const std::string& table) {
  ModelScope s;
  const uint64_t pick = rng_.Below(4);
  const std::vector<RowValues> rows = VisibleRows(table);
  if (pick == 0 || rows.empty()) return s;  // all
  if (pick == 1) {
    s.kind = ModelScope::Kind::kNone;
    return s;
  }
  const TableSpec& spec = schema_.at(table);
  const int col = static_cast<int>(rng_.Range(1, static_cast<int64_t>(spec.columns.size()) - 1));
  const Value v = rng_.Pick(rows)[static_cast<size_t>(col)];
  if (pick == 2) {
    s.kind = ModelScope::Kind::kColEq;
    s.col = col;
    s.value = v;
    return s;
  }
  s.kind = ModelScope::Kind::kPredicate;
  const std::string& name = spec.columns[static_cast<size_t>(col)].name;
  static const SimpleOp kOps[] = {SimpleOp::kEq, SimpleOp::kNe, SimpleOp::kLt, SimpleOp::kGe};
  Condition leaf = Leaf(name, kOps[rng_.Below(4)], v.is_null() ? Value::String("x") : v);
  if (v.is_null()) leaf = Leaf(name, SimpleOp::kIs, Value());
  if (rng_.Chance(1, 2)) {
    s.where = leaf;
    return s;
  }
  Condition both;
  both.type = rng_.Chance(1, 2) ? Condition::Type::kAnd : Condition::Type::kOr;
  const Value id = rng_.Pick(rows)[0];
  both.conditions = {leaf, Leaf("id", rng_.Chance(1, 2) ? SimpleOp::kLe : SimpleOp::kNe, id)};
  s.where = both;
  return s;
}

void Generator::DrawAddRoom(const std::string& room) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const std::string& table = rng_.Pick(kMergeTables);
    if (model_.tables().at(table).sources.count(room)) continue;
    MergeAction a;
    a.op = Op::kAddRoom;
    a.table = table;
    a.source = room;
    a.scope = DrawScope(table);
    Emit(std::move(a));
    return;
  }
}

void Generator::DrawStep() {
  const uint64_t w = rng_.Below(100);
  if (w < 28) return DrawWrite();
  if (w < 50) return DrawServerBatch();
  if (w < 67) return DrawHoldBack();
  if (w < 74) return DrawDrop();
  if (w < 76) {
    std::vector<std::string> merged = MergedTables();
    if (merged.empty()) return;
    MergeAction a;
    a.op = Op::kFreeze;
    a.table = rng_.Pick(merged);
    a.source = rng_.Pick(SourcesOf(a.table));
    return Emit(std::move(a));
  }
  if (w < 80) return DrawAddRoom(rng_.Pick(kRooms));
  if (w < 83) {
    std::vector<std::string> merged = MergedTables();
    if (merged.empty()) return;
    MergeAction a;
    a.op = Op::kRemoveRoom;
    a.table = rng_.Pick(merged);
    std::vector<std::string> sources = SourcesOf(a.table);
    if (sources.size() < 2) return;
    a.source = sources[1 + rng_.Below(sources.size() - 1)];
    return Emit(std::move(a));
  }
  if (w < 87) return DrawProbe();
  if (w < 98) return DrawError();
  DrawQuery();
}

RowValues Generator::Mutate(const std::string& table, RowValues row) {
  const TableSpec& spec = schema_.at(table);
  const std::vector<RowValues> rows = VisibleRows(table);
  const size_t col = 1 + rng_.Below(spec.columns.size() - 1);
  const ColumnSpec& c = spec.columns[col];
  if (c.type == ColumnType::kNumber) {
    row[col] = Value::Int(rng_.Range(0, 12000));
  } else if (c.nullable && rng_.Chance(1, 4)) {
    row[col] = Value();
  } else if (!rows.empty() && rng_.Chance(2, 3)) {
    row[col] = rng_.Pick(rows)[col];
    if (row[col].is_null()) row[col] = Value::String("v");
  } else {
    row[col] = Value::String(StrCat("v", rng_.Below(6)));
  }
  return row;
}

std::optional<ModelOp> Generator::DrawWriteOp(const std::string& table,
                                              std::set<RowValues, PkLess>& used) {
  std::vector<RowValues> rows = VisibleRows(table);
  const uint64_t kind = rng_.Below(10);
  if (rows.empty() || kind < 3) {
    if (rows.empty()) return std::nullopt;
    RowValues row = Mutate(table, NewId(table, rng_.Pick(rows)));
    // Sometimes re-add a pk some source knows but nothing shows (a tombstone's, a hidden copy's).
    for (const RowValues& pk : model_.KnownPks(table)) {
      if (rng_.Chance(1, 8) && !model_.VisibleTable(table).count(pk) && !used.count(pk)) {
        row[0] = pk[0];
        break;
      }
    }
    used.insert({row[0]});
    return ModelOp{table, ModelOp::Kind::kAdd, row, {}};
  }
  const RowValues& row = rng_.Pick(rows);
  if (used.count({row[0]})) return std::nullopt;
  used.insert({row[0]});
  if (kind < 5) return ModelOp{table, ModelOp::Kind::kRemove, row, {}};
  return ModelOp{table, ModelOp::Kind::kEdit, Mutate(table, row), row};
}

void Generator::DrawWrite() {
  MergeAction a;
  a.op = Op::kWrite;
  std::set<RowValues, PkLess> used;
  const int n = static_cast<int>(rng_.Range(1, 3));
  std::vector<std::string> merged = MergedTables();
  for (int i = 0; i < n; ++i) {
    const std::string table =
        !merged.empty() && rng_.Chance(3, 4) ? rng_.Pick(merged) : rng_.Pick(kMergeTables);
    if (std::optional<ModelOp> op = DrawWriteOp(table, used)) a.ops.push_back(*op);
  }
  if (!a.ops.empty()) Emit(std::move(a));
}

std::vector<ModelOp> Generator::DrawDeltas(const std::string& source, std::set<size_t>& confirmed) {
  std::vector<ModelOp> deltas;
  std::set<std::pair<std::string, RowValues>> used;
  auto source_of = [&](const std::string& table) -> const MergeModel::Source* {
    const auto& sources = model_.tables().at(table).sources;
    auto it = sources.find(source);
    // A frozen source takes no deltas on that table (an error path of its own).
    return it == sources.end() || it->second.frozen ? nullptr : &it->second;
  };
  // Confirm some pending txns on this source.
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (!rng_.Chance(1, 2)) continue;
    bool ok = true;
    std::vector<ModelOp> ops;
    for (const ModelOp& op : pending_[i]) {
      const MergeModel::Source* s = source_of(op.table);
      const RowValues pk = {op.row[0]};
      if (s == nullptr || used.count({op.table, pk})) { ok = false; break; }
      auto b = s->baseline.find(pk);
      if (op.kind == ModelOp::Kind::kRemove) {
        if (b != s->baseline.end()) ops.push_back({op.table, ModelOp::Kind::kRemove, b->second, {}});
      } else if (b != s->baseline.end()) {
        ops.push_back({op.table, ModelOp::Kind::kEdit, op.row, b->second});
      } else {
        ops.push_back({op.table, ModelOp::Kind::kAdd, op.row, {}});
      }
    }
    if (!ok) continue;
    for (const ModelOp& op : ops) used.insert({op.table, {op.row[0]}});
    deltas.insert(deltas.end(), ops.begin(), ops.end());
    confirmed.insert(i);
  }
  // Random changes to the source's baseline (room copies of visible rows among them).
  const int n = static_cast<int>(rng_.Range(0, 4));
  for (int i = 0; i < n; ++i) {
    const std::string& table = rng_.Pick(kMergeTables);
    const MergeModel::Source* s = source_of(table);
    std::vector<RowValues> rows = VisibleRows(table);
    if (s == nullptr || rows.empty()) continue;
    RowValues row = rng_.Pick(rows);
    const RowValues pk = {row[0]};
    if (used.count({table, pk})) continue;
    used.insert({table, pk});
    auto b = s->baseline.find(pk);
    if (b == s->baseline.end()) {
      if (rng_.Chance(1, 3)) row = NewId(table, row);
      deltas.push_back({table, ModelOp::Kind::kAdd, rng_.Chance(1, 2) ? Mutate(table, row) : row, {}});
    } else if (rng_.Chance(1, 4)) {
      deltas.push_back({table, ModelOp::Kind::kRemove, b->second, {}});
    } else {
      deltas.push_back({table, ModelOp::Kind::kEdit, Mutate(table, b->second), b->second});
    }
  }
  return deltas;
}

void Generator::DrawServerBatch() {
  std::set<std::string> sources = {std::string(kDaemonSource)};
  for (const std::string& t : MergedTables()) {
    for (const std::string& s : SourcesOf(t)) sources.insert(s);
  }
  MergeAction a;
  a.op = Op::kServerBatch;
  a.source = rng_.Chance(1, 3) ? std::string(kDaemonSource)
                               : *std::next(sources.begin(), static_cast<long>(rng_.Below(sources.size())));
  std::set<size_t> confirmed;
  a.ops = DrawDeltas(a.source, confirmed);
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (confirmed.count(i)) continue;
    MergeAction w;
    w.op = Op::kWrite;
    w.ops = pending_[i];
    a.inside.push_back(std::move(w));
  }
  // Sometimes a drop of a parked pk inside the cycle (it folds into the one delivery).
  for (const auto& [table, t] : model_.tables()) {
    for (const auto& [key, s] : t.sources) {
      if (s.held.empty() || !rng_.Chance(1, 5)) continue;
      std::optional<RowValues> probe = RowWithPk(table, s.held.begin()->first);
      if (!probe) continue;
      MergeAction d;
      d.op = Op::kDrop;
      d.table = table;
      d.source = key;
      d.row = *probe;
      a.inside.push_back(std::move(d));
    }
  }
  Emit(std::move(a));
}

void Generator::DrawHoldBack() {
  std::vector<std::string> merged = MergedTables();
  if (merged.empty()) return;
  const std::string table = rng_.Pick(merged);
  const MergeModel::TableState& t = model_.tables().at(table);
  std::vector<RowValues> pks;
  for (const auto& [pk, row] : t.optimistic) pks.push_back(pk);
  if (pks.empty() || rng_.Chance(1, 3)) pks = model_.KnownPks(table);
  if (pks.empty()) return;
  const RowValues pk = rng_.Pick(pks);
  MergeAction a;
  a.table = table;
  a.source = rng_.Pick(SourcesOf(table));
  const PlainTable visible = model_.VisibleTable(table);
  if (auto it = visible.find(pk); it != visible.end()) {
    a.op = Op::kHoldBack;
    a.row = it->second;
  } else {
    std::optional<RowValues> row = RowWithPk(table, pk);
    if (!row) return;
    a.op = Op::kHoldBackAbsent;
    a.row = *row;
  }
  if (model_.HoldBackChangesVisible(a.table, a.source, a.row, a.op == Op::kHoldBackAbsent)) return;
  Emit(std::move(a));
}

void Generator::DrawDrop() {
  std::vector<std::tuple<std::string, std::string, RowValues>> parked;
  for (const auto& [table, t] : model_.tables()) {
    for (const auto& [key, s] : t.sources) {
      for (const auto& [pk, row] : s.held) parked.emplace_back(table, key, pk);
    }
  }
  MergeAction a;
  a.op = Op::kDrop;
  if (!parked.empty() && rng_.Chance(4, 5)) {
    const auto& [table, key, pk] = rng_.Pick(parked);
    a.table = table;
    a.source = key;
    std::optional<RowValues> row = RowWithPk(table, pk);
    if (!row) return;
    a.row = *row;
  } else {
    std::vector<std::string> merged = MergedTables();
    if (merged.empty()) return;
    a.table = rng_.Pick(merged);
    a.source = rng_.Pick(SourcesOf(a.table));
    std::vector<RowValues> rows = VisibleRows(a.table);
    if (rows.empty()) return;
    a.row = rng_.Pick(rows);
  }
  Emit(std::move(a));
}

void Generator::DrawProbe() {
  std::vector<std::string> merged = MergedTables();
  const std::string table = merged.empty() ? rng_.Pick(kMergeTables) : rng_.Pick(merged);
  std::vector<RowValues> rows = VisibleRows(table);
  if (rows.empty()) return;
  MergeAction a;
  a.table = table;
  a.row = Mutate(table, rng_.Pick(rows));  // cells the scope may or may not cover
  std::vector<std::string> sources = SourcesOf(table);
  if (sources.size() > 1 && rng_.Chance(1, 2)) {
    a.op = Op::kWritableMatches;
    a.source = sources[1 + rng_.Below(sources.size() - 1)];
  } else {
    a.op = Op::kProvenance;
  }
  Emit(std::move(a));
}

// One call the seed says must fail, labelled with its kind (the runner counts merge.error.<kind>).
void Generator::DrawError() {
  static const char* kKinds[] = {"unknown_table",   "local_table",     "duplicate_room",
                                 "bad_room_key",    "subquery_scope",  "not_attached",
                                 "wrong_width",     "daemon_scope",    "unknown_source",
                                 "delta_precondition", "write_precondition",
                                 "room_delta_unattached_table", "remove_daemon"};
  const std::string kind = kKinds[rng_.Below(sizeof(kKinds) / sizeof(kKinds[0]))];
  std::vector<std::string> merged = MergedTables();
  const std::string table = merged.empty() ? "issue" : rng_.Pick(merged);
  std::vector<RowValues> rows = VisibleRows(table);
  if (rows.empty()) return;
  const RowValues row = rng_.Pick(rows);
  MergeAction a;
  a.error = kind;
  a.table = table;
  a.row = row;
  a.op = Op::kAddRoom;
  a.source = rng_.Pick(kRooms);
  if (kind == "unknown_table") {
    a.table = "nope";
  } else if (kind == "local_table") {
    a.table = kDraftsTable;
  } else if (kind == "duplicate_room") {
    std::vector<std::string> sources = SourcesOf(table);
    if (sources.size() < 2) return;
    a.source = sources[1];
  } else if (kind == "bad_room_key") {
    a.source = rng_.Chance(1, 2) ? std::string(kDaemonSource) : "doc:1";
  } else if (kind == "subquery_scope") {
    a.table = "issue";
    a.source = "room:doc:9";
    a.scope.kind = ModelScope::Kind::kPredicate;
    Condition c;
    c.type = Condition::Type::kCorrelatedSubquery;
    c.related.correlation = {{"id"}, {"issueId"}};
    auto sub = std::make_shared<Ast>();
    sub->table = "comment";
    sub->alias = "comments";
    c.related.subquery = sub;
    a.scope.where = c;
  } else if (kind == "not_attached") {
    a.op = rng_.Chance(1, 2) ? Op::kFreeze : Op::kHoldBack;
    a.source = "room:doc:7";
  } else if (kind == "wrong_width" || kind == "daemon_scope") {
    a.op = Op::kWritableMatches;
    std::vector<std::string> sources = SourcesOf(table);
    a.source = sources.size() > 1 ? sources[1] : "room:doc:1";
    if (kind == "wrong_width") a.row.pop_back();
    else a.source = std::string(kDaemonSource);
  } else if (kind == "remove_daemon") {
    a.op = Op::kRemoveRoom;
    a.source = std::string(kDaemonSource);
  } else if (kind == "write_precondition") {
    a.op = Op::kWrite;
    RowValues gone = NewId(table, row);
    a.ops = {{table, ModelOp::Kind::kEdit, Mutate(table, row), row},
             {table, ModelOp::Kind::kRemove, gone, {}}};
  } else if (!DrawBadBatch(kind, table, row, a)) {
    return;
  }
  Emit(std::move(a));
}

// The server-batch error paths: an unknown source, a room delta on a table the room is not
// attached to, a failing delta precondition after a valid op (the whole batch must fail).
bool Generator::DrawBadBatch(const std::string& kind, const std::string& table,
                             const RowValues& row, MergeAction& a) {
  a.op = Op::kServerBatch;
  a.source = std::string(kDaemonSource);
  const MergeModel::Source& d = model_.tables().at(table).sources.at(a.source);
  if (kind == "unknown_source") a.source = "room:doc:nowhere";
  if (kind == "room_delta_unattached_table") {
    a.source = rng_.Pick(kRooms);
    a.table = "user";
    if (model_.tables().at("user").sources.count(a.source)) return false;
    bool attached = false;
    for (const auto& [n, t] : model_.tables()) attached = attached || t.sources.count(a.source);
    if (!attached) return false;
    a.ops = {{"user", ModelOp::Kind::kAdd, {Value::String("u-x"), Value::String("x")}, {}}};
  } else if (!d.baseline.empty()) {
    a.ops = {{table, ModelOp::Kind::kAdd, NewId(table, row), {}},
             {table, ModelOp::Kind::kAdd, d.baseline.begin()->second, {}}};
  }
  return true;
}

}  // namespace

MergeScenario GenerateMergeScenario(uint64_t seed) {
  absl::StatusOr<Schema> app = LoadAppSchema();
  RINDLE_CHECK_MSG(app.ok(), "the app schema fixture must load");
  Schema schema = *app;
  for (const auto& [name, spec] : LocalTableSpecs()) schema[name] = spec;
  return Generator(seed, schema).Run();
}

}  // namespace rindle::sim
