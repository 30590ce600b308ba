#include "optimistic/normalized_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/status_macros.h"

namespace rindle {

NormalizedSync::NormalizedSync(const Schema* schema, const std::set<std::string>* local_tables)
    : schema_(schema), local_tables_(local_tables) {}

absl::StatusOr<const TableSpec*> NormalizedSync::SpecFor(int64_t qid,
                                                         const std::string& table) const {
  auto it = schema_->find(table);
  if (it == schema_->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server frame for qid ", qid, ": unknown table \"", table, "\""));
  }
  if (local_tables_->count(table) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "server frame for qid ", qid, ": table \"", table, "\" is local-only (never synced)"));
  }
  return &it->second;
}

absl::Status NormalizedSync::SetProjection(int64_t qid, const std::vector<WireTable>& tables) {
  std::map<std::string, std::vector<int>> maps;
  for (const auto& t : tables) {
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecFor(qid, t.name));
    std::vector<int> cols;
    for (const auto& c : t.columns) {
      int idx = spec->ColumnIndex(c);
      if (idx < 0) {
        return absl::InvalidArgumentError(absl::StrCat("hello for qid ", qid, ": table \"", t.name,
                                                       "\" has unknown column \"", c,
                                                       "\" — columns: ", spec->ColumnNames()));
      }
      cols.push_back(idx);
    }
    for (int pk : spec->primary_key) {
      bool found = false;
      for (int c : cols) found = found || c == pk;
      if (!found) {
        return absl::InvalidArgumentError(absl::StrCat("hello for qid ", qid, ": table \"", t.name,
                                                       "\" omits primary-key column \"",
                                                       spec->columns[pk].name, "\""));
      }
    }
    bool identity = cols.size() == spec->columns.size();
    for (size_t i = 0; identity && i < cols.size(); ++i) identity = cols[i] == static_cast<int>(i);
    if (!identity) maps[t.name] = std::move(cols);
  }
  if (maps.empty()) {
    projection_.erase(qid);
  } else {
    projection_[qid] = std::move(maps);
  }
  return absl::OkStatus();
}

absl::StatusOr<RowValues> NormalizedSync::Project(int64_t qid, const std::string& table,
                                                  const RowValues& wire) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, SpecFor(qid, table));
  RowValues full;
  const std::vector<int>* map = nullptr;
  if (auto q = projection_.find(qid); q != projection_.end()) {
    if (auto t = q->second.find(table); t != q->second.end()) map = &t->second;
  }
  if (map == nullptr) {
    full = wire;
  } else {
    if (wire.size() != map->size()) {
      return absl::InvalidArgumentError(absl::StrCat("server frame for qid ", qid, ": table \"",
                                                     table, "\" row has ", wire.size(),
                                                     " cells, the hello projects ", map->size()));
    }
    full.assign(spec->columns.size(), Value::Null());
    for (size_t i = 0; i < wire.size(); ++i) full[(*map)[i]] = wire[i];
  }
  if (auto s = spec->CheckRow(table, full); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server frame for qid ", qid, ": ", s.message()));
  }
  return full;
}

absl::StatusOr<std::vector<NormalizedSync::Mapped>> NormalizedSync::MapOps(
    int64_t qid, const std::vector<RowOp>& ops) const {
  std::vector<Mapped> out;
  out.reserve(ops.size());
  for (const auto& op : ops) {
    Mapped m{op.op, op.table, {}, {}};
    ASSIGN_OR_RETURN(m.row, Project(qid, op.table, op.row));
    if (op.op == RowOp::Kind::kEdit) {
      ASSIGN_OR_RETURN(m.old_row, Project(qid, op.table, op.old_row));
    }
    out.push_back(std::move(m));
  }
  return out;
}

void NormalizedSync::Mark(const std::string& table, const RowValues& pk) {
  auto& t = before_[table];
  if (t.count(pk) > 0) return;
  std::optional<RowValues> cur;
  if (auto r = rows_.find(table); r != rows_.end()) {
    if (auto e = r->second.find(pk); e != r->second.end()) cur = e->second.row;
  }
  t.emplace(pk, std::move(cur));
}

void NormalizedSync::Hold(int64_t qid, const std::string& table, const RowValues& pk,
                          const RowValues& row) {
  Mark(table, pk);
  bool added = by_qid_[qid][table].insert(pk).second;
  Entry& e = rows_[table][pk];
  if (added) ++e.refs;
  e.row = row;
}

void NormalizedSync::Release(int64_t qid, const std::string& table, const RowValues& pk) {
  auto q = by_qid_.find(qid);
  if (q == by_qid_.end()) return;
  auto t = q->second.find(table);
  if (t == q->second.end() || t->second.erase(pk) == 0) return;
  if (t->second.empty()) q->second.erase(t);
  Mark(table, pk);
  auto& rows = rows_[table];
  auto e = rows.find(pk);
  if (e == rows.end()) return;
  if (--e->second.refs <= 0) rows.erase(e);
  if (rows.empty()) rows_.erase(table);
}

absl::Status NormalizedSync::Rehydrate(int64_t qid, const std::vector<RowOp>& adds) {
  for (const auto& op : adds) {
    if (op.op != RowOp::Kind::kAdd) {
      return absl::InvalidArgumentError(
          absl::StrCat("snapshot for qid ", qid, ": ops must be adds (table \"", op.table, "\")"));
    }
  }
  ASSIGN_OR_RETURN(std::vector<Mapped> mapped, MapOps(qid, adds));
  std::map<std::string, std::map<RowValues, RowValues, RowLess>> next;
  for (auto& m : mapped) {
    RowValues pk = schema_->at(m.table).PkOf(m.row);
    next[m.table][std::move(pk)] = std::move(m.row);
  }
  // Release what the qid no longer names, then hold the new set.
  if (auto q = by_qid_.find(qid); q != by_qid_.end()) {
    std::vector<std::pair<std::string, RowValues>> gone;
    for (const auto& [table, pks] : q->second) {
      for (const auto& pk : pks) {
        auto t = next.find(table);
        if (t == next.end() || t->second.count(pk) == 0) gone.emplace_back(table, pk);
      }
    }
    for (const auto& [table, pk] : gone) Release(qid, table, pk);
  }
  by_qid_[qid];  // a hydrated qid exists even with an empty footprint
  for (const auto& [table, rows] : next) {
    for (const auto& [pk, row] : rows) Hold(qid, table, pk, row);
  }
  return absl::OkStatus();
}

absl::Status NormalizedSync::ApplyBatch(int64_t qid, const std::vector<RowOp>& ops) {
  ASSIGN_OR_RETURN(std::vector<Mapped> mapped, MapOps(qid, ops));
  by_qid_[qid];
  for (const auto& m : mapped) {
    const TableSpec& spec = schema_->at(m.table);
    switch (m.op) {
      case RowOp::Kind::kAdd:
        Hold(qid, m.table, spec.PkOf(m.row), m.row);
        break;
      case RowOp::Kind::kRemove:
        Release(qid, m.table, spec.PkOf(m.row));
        break;
      case RowOp::Kind::kEdit: {
        RowValues old_pk = spec.PkOf(m.old_row);
        RowValues new_pk = spec.PkOf(m.row);
        if (CompareRowValues(old_pk, new_pk) != 0) Release(qid, m.table, old_pk);
        Hold(qid, m.table, new_pk, m.row);
        break;
      }
    }
  }
  return absl::OkStatus();
}

void NormalizedSync::DropQuery(int64_t qid) {
  projection_.erase(qid);
  auto q = by_qid_.find(qid);
  if (q == by_qid_.end()) return;
  std::vector<std::pair<std::string, RowValues>> held;
  for (const auto& [table, pks] : q->second) {
    for (const auto& pk : pks) held.emplace_back(table, pk);
  }
  for (const auto& [table, pk] : held) Release(qid, table, pk);
  by_qid_.erase(qid);
}

std::vector<ServerDeltaOp> NormalizedSync::TakeDelta() {
  std::vector<ServerDeltaOp> out;
  for (auto& [table, keys] : before_) {
    auto r = rows_.find(table);
    for (auto& [pk, before] : keys) {
      const RowValues* now = nullptr;
      if (r != rows_.end()) {
        if (auto e = r->second.find(pk); e != r->second.end()) now = &e->second.row;
      }
      if (!before && now != nullptr) {
        out.push_back({table, ServerDeltaOp::Type::kAdd, *now, {}});
      } else if (before && now == nullptr) {
        out.push_back({table, ServerDeltaOp::Type::kRemove, *before, {}});
      } else if (before && now != nullptr && CompareRowValues(*before, *now) != 0) {
        out.push_back({table, ServerDeltaOp::Type::kEdit, *now, *before});
      }
    }
  }
  before_.clear();
  return out;
}

std::optional<RowValues> NormalizedSync::Row(const std::string& table,
                                             const RowValues& pk) const {
  auto r = rows_.find(table);
  if (r == rows_.end()) return std::nullopt;
  auto e = r->second.find(pk);
  if (e == r->second.end()) return std::nullopt;
  return e->second.row;
}

int NormalizedSync::RefCount(const std::string& table, const RowValues& pk) const {
  auto r = rows_.find(table);
  if (r == rows_.end()) return 0;
  auto e = r->second.find(pk);
  return e == r->second.end() ? 0 : e->second.refs;
}

size_t NormalizedSync::row_count() const {
  size_t n = 0;
  for (const auto& [t, rows] : rows_) n += rows.size();
  return n;
}

}  // namespace rindle
