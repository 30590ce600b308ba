// merge_model.cc — the naive merge model (merge_model.h).
#include "oracles/merge_model.h"

#include <utility>

#include "base/str_util.h"
#include "base/source_key.h"
#include "oracles/fresh_query.h"

namespace rindle {
namespace {

std::string Where(std::string_view what, std::string_view table, std::string_view source) {
  return StrCat(what, "(", table, ", ", source, ")");
}

}  // namespace

absl::StatusOr<bool> ModelRowMatches(const Condition& where, std::string_view table,
                                     const TableSpec& spec, const RowValues& row) {
  if (ConditionHasSubquery(where)) {
    return absl::InvalidArgumentError(
        StrCat("writable predicate on ", table, ": a correlatedSubquery is not row-local"));
  }
  Ast ast;
  ast.table = std::string(table);
  ast.where = where;
  Schema schema{{std::string(table), spec}};
  PlainTables tables;
  tables[std::string(table)][spec.PkOf(row)] = row;
  absl::StatusOr<std::vector<TreeNode>> out = FreshQuery(ast, tables, schema);
  if (!out.ok()) return out.status();
  return !out->empty();
}

MergeModel::MergeModel(const Schema& schema, const std::set<std::string>& local_tables)
    : schema_(schema) {
  for (const auto& [name, spec] : schema_) {
    TableState& t = tables_[name];
    t.local = local_tables.count(name) > 0;
    t.sources[std::string(kDaemonSource)];
  }
}

absl::StatusOr<const TableSpec*> MergeModel::SpecOf(std::string_view table) const {
  auto it = schema_.find(std::string(table));
  if (it == schema_.end()) return absl::NotFoundError(StrCat("unknown table ", table));
  return &it->second;
}

absl::StatusOr<MergeModel::TableState*> MergeModel::Tracked(std::string_view table,
                                                            std::string_view what) {
  auto it = tables_.find(std::string(table));
  if (it == tables_.end()) {
    return absl::NotFoundError(StrCat(what, ": unknown table ", table));
  }
  if (it->second.local) {
    return absl::FailedPreconditionError(StrCat(what, ": table ", table, " is local"));
  }
  return &it->second;
}

absl::StatusOr<MergeModel::Source*> MergeModel::Attached(std::string_view table,
                                                         std::string_view source,
                                                         std::string_view what) {
  absl::StatusOr<TableState*> t = Tracked(table, what);
  if (!t.ok()) return t.status();
  auto it = (*t)->sources.find(std::string(source));
  if (!(*t)->merged || it == (*t)->sources.end()) {
    return absl::FailedPreconditionError(
        StrCat(Where(what, table, source), ": source not attached"));
  }
  return &it->second;
}

absl::Status MergeModel::CheckRow(std::string_view table, const RowValues& row,
                                  std::string_view what) const {
  absl::StatusOr<const TableSpec*> spec = SpecOf(table);
  if (!spec.ok()) return spec.status();
  if (absl::Status s = (*spec)->CheckRow(table, row); !s.ok()) {
    return absl::InvalidArgumentError(StrCat(what, ": ", s.message()));
  }
  return absl::OkStatus();
}

std::optional<RowValues> MergeModel::CopyOf(const Source& s, const RowValues& pk) const {
  if (auto h = s.held.find(pk); h != s.held.end()) return h->second;
  if (auto b = s.baseline.find(pk); b != s.baseline.end()) return b->second;
  return std::nullopt;
}

bool MergeModel::Covers(std::string_view table, const Source& s, const RowValues& row) const {
  if (!s.scope.has_value()) return false;
  switch (s.scope->kind) {
    case ModelScope::Kind::kAll: return true;
    case ModelScope::Kind::kNone: return false;
    case ModelScope::Kind::kColEq: {
      const Value& cell = row[static_cast<size_t>(s.scope->col)];
      return !cell.is_null() && !s.scope->value.is_null() && cell == s.scope->value;
    }
    case ModelScope::Kind::kPredicate: {
      absl::StatusOr<bool> m =
          ModelRowMatches(*s.scope->where, table, schema_.at(std::string(table)), row);
      return m.ok() && *m;
    }
  }
  return false;
}

std::optional<std::string> MergeModel::Winner(std::string_view table, const TableState& t,
                                              const RowValues& pk) const {
  // Tiers 1..4 (header); std::map order puts "daemon" before every "room:" key.
  for (int tier = 1; tier <= 4; ++tier) {
    for (const auto& [key, s] : t.sources) {
      std::optional<RowValues> copy = CopyOf(s, pk);
      if (!copy.has_value()) continue;
      const bool daemon = IsDaemonSource(key);
      if (tier == 1 && s.frozen) return key;
      if (tier == 2 && !daemon && Covers(table, s, *copy)) return key;
      if (tier == 3 && daemon) return key;
      if (tier == 4) return key;
    }
  }
  return std::nullopt;
}

std::optional<RowValues> MergeModel::VisibleAt(std::string_view table, const TableState& t,
                                               const RowValues& pk) const {
  if (auto o = t.optimistic.find(pk); o != t.optimistic.end()) return o->second;
  std::optional<std::string> w = Winner(table, t, pk);
  if (!w.has_value()) return std::nullopt;
  return CopyOf(t.sources.at(*w), pk);
}

std::vector<RowValues> MergeModel::KnownPks(std::string_view table) const {
  std::set<RowValues, PkLess> pks;
  const TableState& t = tables_.at(std::string(table));
  for (const auto& [key, s] : t.sources) {
    for (const auto& [pk, row] : s.baseline) pks.insert(pk);
    for (const auto& [pk, row] : s.held) pks.insert(pk);
  }
  for (const auto& [pk, row] : t.optimistic) pks.insert(pk);
  return {pks.begin(), pks.end()};
}

PlainTable MergeModel::VisibleTable(std::string_view table) const {
  PlainTable out;
  const TableState& t = tables_.at(std::string(table));
  for (const RowValues& pk : KnownPks(table)) {
    if (std::optional<RowValues> row = VisibleAt(table, t, pk)) out[pk] = *row;
  }
  return out;
}

PlainTables MergeModel::Visible() const {
  PlainTables out;
  for (const auto& [name, t] : tables_) out[name] = VisibleTable(name);
  return out;
}

absl::Status MergeModel::AddRoomSource(std::string_view table, std::string_view room,
                                       const ModelScope& w) {
  absl::StatusOr<TableState*> t = Tracked(table, "addRoomSource");
  if (!t.ok()) return t.status();
  const std::string what = Where("addRoomSource", table, room);
  if (!IsRoomSource(room)) return absl::InvalidArgumentError(what + ": not a room key");
  if ((*t)->sources.count(std::string(room))) {
    return absl::FailedPreconditionError(what + ": room already attached");
  }
  const TableSpec& spec = schema_.at(std::string(table));
  if (w.kind == ModelScope::Kind::kColEq &&
      (w.col < 0 || w.col >= static_cast<int>(spec.columns.size()))) {
    return absl::InvalidArgumentError(what + ": colEq column out of range");
  }
  if (w.kind == ModelScope::Kind::kPredicate) {
    if (!w.where.has_value()) return absl::InvalidArgumentError(what + ": predicate without where");
    // Validated against a row of nulls: unknown columns, kind mismatches and subqueries fail.
    RowValues probe(spec.columns.size());
    if (absl::StatusOr<bool> m = ModelRowMatches(*w.where, table, spec, probe); !m.ok()) {
      return absl::InvalidArgumentError(StrCat(what, ": ", m.status().message()));
    }
  }
  (*t)->merged = true;
  Source& s = (*t)->sources[std::string(room)];
  s.scope = w;
  return absl::OkStatus();
}

absl::Status MergeModel::RemoveRoomSource(std::string_view table, std::string_view room) {
  if (!IsRoomSource(room)) {
    absl::StatusOr<TableState*> t = Tracked(table, "removeRoomSource");
    if (!t.ok()) return t.status();
    return absl::InvalidArgumentError(Where("removeRoomSource", table, room) + ": not a room key");
  }
  absl::StatusOr<Source*> s = Attached(table, room, "removeRoomSource");
  if (!s.ok()) return s.status();
  tables_.at(std::string(table)).sources.erase(std::string(room));
  return absl::OkStatus();
}

absl::Status MergeModel::HoldBack(std::string_view table, std::string_view source,
                                  const RowValues& row) {
  absl::StatusOr<Source*> s = Attached(table, source, "holdBack");
  if (!s.ok()) return s.status();
  if (absl::Status c = CheckRow(table, row, Where("holdBack", table, source)); !c.ok()) return c;
  (*s)->held[schema_.at(std::string(table)).PkOf(row)] = row;
  return absl::OkStatus();
}

absl::Status MergeModel::HoldBackAbsent(std::string_view table, std::string_view source,
                                        const RowValues& old_row) {
  absl::StatusOr<Source*> s = Attached(table, source, "holdBackAbsent");
  if (!s.ok()) return s.status();
  if (absl::Status c = CheckRow(table, old_row, Where("holdBackAbsent", table, source)); !c.ok()) {
    return c;
  }
  (*s)->held[schema_.at(std::string(table)).PkOf(old_row)] = std::nullopt;
  return absl::OkStatus();
}

absl::StatusOr<bool> MergeModel::DropHeldBack(std::string_view table, std::string_view source,
                                              const RowValues& probe) {
  absl::StatusOr<TableState*> t = Tracked(table, "dropHeldBack");
  if (!t.ok()) return t.status();
  if (absl::Status c = CheckRow(table, probe, Where("dropHeldBack", table, source)); !c.ok()) {
    return c;
  }
  // A Collapsed table or a source not attached (a removed room) has nothing parked: a no-op.
  auto it = (*t)->sources.find(std::string(source));
  if (!(*t)->merged || it == (*t)->sources.end()) return false;
  return it->second.held.erase(schema_.at(std::string(table)).PkOf(probe)) > 0;
}

absl::StatusOr<std::optional<ModelHeldBackInfo>> MergeModel::HeldBackState(
    std::string_view table, std::string_view source, const RowValues& probe) const {
  absl::StatusOr<const TableSpec*> spec = SpecOf(table);
  if (!spec.ok()) return spec.status();
  if (absl::Status c = CheckRow(table, probe, Where("heldBackState", table, source)); !c.ok()) {
    return c;
  }
  const TableState& t = tables_.at(std::string(table));
  auto it = t.sources.find(std::string(source));
  if (it == t.sources.end()) return std::optional<ModelHeldBackInfo>();
  const RowValues pk = (*spec)->PkOf(probe);
  auto h = it->second.held.find(pk);
  if (h == it->second.held.end()) return std::optional<ModelHeldBackInfo>();
  ModelHeldBackInfo info;
  info.absent = !h->second.has_value();
  if (auto b = it->second.baseline.find(pk); b != it->second.baseline.end()) {
    info.baseline = b->second;
  }
  return std::optional<ModelHeldBackInfo>(info);
}

absl::Status MergeModel::FreezeSource(std::string_view table, std::string_view source) {
  absl::StatusOr<Source*> s = Attached(table, source, "freezeSource");
  if (!s.ok()) return s.status();
  (*s)->frozen = true;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> MergeModel::ProvenanceOf(std::string_view table,
                                                                    const RowValues& row) const {
  if (absl::Status c = CheckRow(table, row, StrCat("provenanceOf(", table, ")")); !c.ok()) {
    return c;
  }
  const TableState& t = tables_.at(std::string(table));
  return Winner(table, t, schema_.at(std::string(table)).PkOf(row));
}

absl::StatusOr<bool> MergeModel::WritableMatches(std::string_view table, std::string_view room,
                                                 const RowValues& row) const {
  absl::StatusOr<const TableSpec*> spec = SpecOf(table);
  if (!spec.ok()) return spec.status();
  const std::string what = Where("writableMatches", table, room);
  if (IsDaemonSource(room)) return absl::InvalidArgumentError(what + ": the daemon has no scope");
  const TableState& t = tables_.at(std::string(table));
  auto it = t.sources.find(std::string(room));
  if (!t.merged || it == t.sources.end() || !it->second.scope.has_value()) {
    return absl::FailedPreconditionError(what + ": room not attached");
  }
  if (row.size() != (*spec)->columns.size()) {
    return absl::InvalidArgumentError(what + ": wrong row width");
  }
  return Covers(table, it->second, row);
}

absl::Status MergeModel::ApplyDelta(Source& s, const TableSpec& spec, const ModelOp& op) {
  const std::string what = StrCat("serverBatchBegin delta on ", op.table, " ",
                                        RowDebugString(op.row));
  if (absl::Status c = spec.CheckRow(op.table, op.row); !c.ok()) return c;
  const RowValues pk = spec.PkOf(op.row);
  auto it = s.baseline.find(pk);
  switch (op.kind) {
    case ModelOp::Kind::kAdd:
      if (it != s.baseline.end()) return absl::FailedPreconditionError(what + ": pk present");
      s.baseline[pk] = op.row;
      return absl::OkStatus();
    case ModelOp::Kind::kRemove:
      if (it == s.baseline.end() || CompareRowValues(it->second, op.row) != 0) {
        return absl::FailedPreconditionError(what + ": row not present");
      }
      s.baseline.erase(it);
      return absl::OkStatus();
    case ModelOp::Kind::kEdit: {
      const RowValues old_pk = spec.PkOf(op.old_row);
      auto old_it = s.baseline.find(old_pk);
      if (old_it == s.baseline.end() || CompareRowValues(old_it->second, op.old_row) != 0) {
        return absl::FailedPreconditionError(what + ": old row not present");
      }
      s.baseline.erase(old_it);
      if (s.baseline.count(pk)) return absl::FailedPreconditionError(what + ": new pk present");
      s.baseline[pk] = op.row;
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

void MergeModel::RunFences(std::string_view source) {
  for (auto& [name, t] : tables_) {
    auto it = t.sources.find(std::string(source));
    if (it == t.sources.end()) continue;
    Source& s = it->second;
    for (auto h = s.held.begin(); h != s.held.end();) {
      auto b = s.baseline.find(h->first);
      const bool fenced = h->second.has_value()
                              ? b != s.baseline.end() && CompareRowValues(b->second, *h->second) == 0
                              : b == s.baseline.end();
      h = fenced ? s.held.erase(h) : std::next(h);
    }
  }
}

absl::Status MergeModel::ServerBatchBegin(std::string_view source,
                                          const std::vector<ModelOp>& deltas) {
  bool known = IsDaemonSource(source);
  for (const auto& [name, t] : tables_) known = known || t.sources.count(std::string(source));
  if (!known) {
    return absl::InvalidArgumentError(StrCat("serverBatchBegin: unknown source ", source));
  }
  std::map<std::string, TableState> saved = tables_;
  for (const ModelOp& op : deltas) {
    absl::StatusOr<Source*> s = IsDaemonSource(source)
                                    ? [&]() -> absl::StatusOr<Source*> {
                                        absl::StatusOr<TableState*> t =
                                            Tracked(op.table, "serverBatchBegin");
                                        if (!t.ok()) return t.status();
                                        return &(*t)->sources.at(std::string(kDaemonSource));
                                      }()
                                    : Attached(op.table, source, "serverBatchBegin");
    if (s.ok() && (*s)->frozen) {
      s = absl::FailedPreconditionError(
          StrCat(Where("serverBatchBegin", op.table, source), ": the source is frozen"));
    }
    absl::Status applied = s.ok() ? ApplyDelta(**s, schema_.at(op.table), op) : s.status();
    if (!applied.ok()) {
      tables_ = std::move(saved);
      return applied;
    }
  }
  for (auto& [name, t] : tables_) t.optimistic.clear();
  RunFences(source);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> MergeModel::Commit(const std::vector<ModelOp>& ops) {
  std::map<std::string, TableState> saved = tables_;
  std::vector<std::string> routed;
  auto fail = [&](absl::Status s) {
    tables_ = std::move(saved);
    return s;
  };
  for (const ModelOp& op : ops) {
    absl::StatusOr<const TableSpec*> spec = SpecOf(op.table);
    if (!spec.ok()) return fail(spec.status());
    if (absl::Status c = (*spec)->CheckRow(op.table, op.row); !c.ok()) return fail(c);
    TableState& t = tables_.at(op.table);
    const RowValues pk = (*spec)->PkOf(op.kind == ModelOp::Kind::kEdit ? op.old_row : op.row);
    const std::optional<RowValues> current = VisibleAt(op.table, t, pk);
    const std::string what = StrCat("write on ", op.table, " ", RowDebugString(op.row));
    std::optional<std::string> route = t.merged ? Winner(op.table, t, pk) : std::nullopt;
    routed.push_back(route.value_or(std::string(kDaemonSource)));
    // A local table's writes are its baseline: they never rewind.
    PkMap local_view;
    PkMap& layer = t.local ? local_view : t.optimistic;
    if (op.kind == ModelOp::Kind::kAdd) {
      if (current.has_value()) return fail(absl::FailedPreconditionError(what + ": pk present"));
      layer[pk] = op.row;
    } else if (op.kind == ModelOp::Kind::kRemove) {
      if (!current.has_value() || CompareRowValues(*current, op.row) != 0) {
        return fail(absl::FailedPreconditionError(what + ": row not present"));
      }
      layer[pk] = std::nullopt;
    } else {
      if (!current.has_value() || CompareRowValues(*current, op.old_row) != 0) {
        return fail(absl::FailedPreconditionError(what + ": old row not present"));
      }
      const RowValues new_pk = (*spec)->PkOf(op.row);
      if (CompareRowValues(new_pk, pk) != 0 && VisibleAt(op.table, t, new_pk).has_value()) {
        return fail(absl::FailedPreconditionError(what + ": new pk present"));
      }
      layer[pk] = std::nullopt;
      layer[new_pk] = op.row;
    }
    if (t.local) {
      PlainTable& base = t.sources.at(std::string(kDaemonSource)).baseline;
      for (const auto& [k, v] : local_view) {
        if (v.has_value()) base[k] = *v; else base.erase(k);
      }
    }
  }
  return routed;
}

bool MergeModel::HoldBackChangesVisible(std::string_view table, std::string_view source,
                                        const RowValues& row, bool absent) const {
  MergeModel copy = *this;
  absl::Status s = absent ? copy.HoldBackAbsent(table, source, row)
                          : copy.HoldBack(table, source, row);
  if (!s.ok()) return false;
  return !PlainTablesEqual(Visible(), copy.Visible());
}

}  // namespace rindle
