#include "optimistic/normalized_sync.h"

#include <string_view>
#include <utility>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {
namespace {

// Every name of `sub` occurs in `sup`, in order. Accepts a projection (hello ⊆ schema) or an
// expansion (schema ⊆ hello) while rejecting a rename or reorder, which neither direction fits.
bool IsSubsequence(const std::vector<std::string>& sub, const std::vector<std::string>& sup) {
  size_t i = 0;
  for (const auto& name : sup) {
    if (i < sub.size() && sub[i] == name) ++i;
  }
  return i == sub.size();
}

}  // namespace

NormalizedSync::NormalizedSync(const Schema* schema, const std::set<std::string>* local_tables)
    : schema_(schema), local_tables_(local_tables) {}

absl::StatusOr<const TableSpec*> NormalizedSync::SpecFor(int64_t qid,
                                                         const std::string& table) const {
  auto it = schema_->find(table);
  if (it == schema_->end()) {
    return absl::InvalidArgumentError(
        StrCat("server frame for qid ", qid, ": unknown table \"", table, "\""));
  }
  if (local_tables_->count(table) > 0) {
    return absl::InvalidArgumentError(StrCat("server frame for qid ", qid, ": table \"", table,
                                             "\" is local-only (never synced)"));
  }
  return &it->second;
}

absl::Status NormalizedSync::SetProjection(int64_t qid, const std::vector<WireTable>& tables) {
  std::map<std::string, Projection> maps;
  for (const auto& t : tables) {
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecFor(qid, t.name));
    const std::string where = StrCat("hello for qid ", qid, ": table \"", t.name, "\" columns [",
                                     absl::StrJoin(t.columns, ", "), "]");
    std::set<std::string_view> seen;
    for (const auto& c : t.columns) {
      // A repeated name would make the by-name map ambiguous.
      if (!seen.insert(c).second) {
        return absl::InvalidArgumentError(StrCat(where, " repeat column \"", c, "\""));
      }
    }
    std::vector<std::string> ours;
    ours.reserve(spec->columns.size());
    for (const auto& c : spec->columns) ours.push_back(c.name);
    if (!IsSubsequence(t.columns, ours) && !IsSubsequence(ours, t.columns)) {
      return absl::InvalidArgumentError(
          StrCat(where, " are neither a projection nor an expansion of the schema's [",
                 spec->ColumnNames(), "] (a renamed or reordered column)"));
    }
    Projection p;
    p.covers.assign(spec->columns.size(), false);
    bool identity = t.columns.size() == spec->columns.size();
    for (size_t i = 0; i < t.columns.size(); ++i) {
      // An unknown name can only be an expansion's extra column here: its cells are dropped.
      int idx = spec->ColumnIndex(t.columns[i]);
      p.wire_to_col.push_back(idx);
      if (idx >= 0) p.covers[idx] = true;
      identity = identity && idx == static_cast<int>(i);
    }
    for (int pk : spec->primary_key) {
      if (!p.covers[pk]) {
        return absl::InvalidArgumentError(
            StrCat(where, " omit primary-key column \"", spec->columns[pk].name, "\""));
      }
    }
    if (!identity) maps[t.name] = std::move(p);
  }
  // Replacing the whole map also clears a stale one: a server that expanded and then contracted
  // back to our exact layout must not keep dropping cells.
  if (maps.empty()) {
    projection_.erase(qid);
  } else {
    projection_[qid] = std::move(maps);
  }
  return absl::OkStatus();
}

const NormalizedSync::Projection* NormalizedSync::ProjectionFor(int64_t qid,
                                                                const std::string& table) const {
  auto q = projection_.find(qid);
  if (q == projection_.end()) return nullptr;
  auto t = q->second.find(table);
  return t == q->second.end() ? nullptr : &t->second;
}

std::vector<bool> NormalizedSync::CoversOf(int64_t qid, const std::string& table,
                                           size_t width) const {
  const Projection* p = ProjectionFor(qid, table);
  return p == nullptr ? std::vector<bool>(width, true) : p->covers;
}

absl::StatusOr<RowValues> NormalizedSync::Project(int64_t qid, const std::string& table,
                                                  const RowValues& wire) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, SpecFor(qid, table));
  const Projection* p = ProjectionFor(qid, table);
  if (p == nullptr) {
    if (auto s = spec->CheckRow(table, wire); !s.ok()) {
      return absl::InvalidArgumentError(StrCat("server frame for qid ", qid, ": ", s.message()));
    }
    return wire;
  }
  if (wire.size() != p->wire_to_col.size()) {
    return absl::InvalidArgumentError(StrCat("server frame for qid ", qid, ": table \"", table,
                                             "\" row has ", wire.size(), " cells, the hello has ",
                                             p->wire_to_col.size()));
  }
  RowValues full(spec->columns.size(), Value::Null());
  for (size_t i = 0; i < wire.size(); ++i) {
    if (p->wire_to_col[i] >= 0) full[p->wire_to_col[i]] = wire[i];
  }
  // Only covered cells are checked: an uncovered non-nullable column is absent, not null.
  for (int pk : spec->primary_key) {
    if (full[pk].is_null()) {
      return absl::InvalidArgumentError(StrCat("server frame for qid ", qid, ": table \"", table,
                                               "\": primary-key column \"",
                                               spec->columns[pk].name, "\" is null"));
    }
  }
  for (size_t i = 0; i < full.size(); ++i) {
    if (p->covers[i] && !spec->Accepts(static_cast<int>(i), full[i])) {
      const ColumnSpec& c = spec->columns[i];
      return absl::InvalidArgumentError(
          StrCat("server frame for qid ", qid, ": table \"", table, "\": column \"", c.name,
                 "\" expects ", c.nullable ? "" : "non-null ", ColumnTypeName(c.type), ", got ",
                 full[i].DebugString()));
    }
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

void NormalizedSync::Narrow(const std::string& table, Entry& e) const {
  const size_t width = e.row.size();
  std::vector<bool> covered(width, false);
  for (int64_t h : e.holders) {
    const Projection* p = ProjectionFor(h, table);
    if (p == nullptr) return;  // a '*' holder covers every cell
    for (size_t i = 0; i < width; ++i) covered[i] = covered[i] || p->covers[i];
  }
  // Only ever removes presence: a holder covering a cell keeps the last delivered value, even
  // if another (departed) qid delivered it.
  for (size_t i = 0; i < width; ++i) {
    if (e.present[i] && !covered[i]) {
      e.present[i] = false;
      e.row[i] = Value::Null();
    }
  }
}

void NormalizedSync::Hold(int64_t qid, const std::string& table, const RowValues& pk,
                          const RowValues& row) {
  Mark(table, pk);
  by_qid_[qid][table].insert(pk);
  Entry& e = rows_[table][pk];
  if (e.holders.empty()) {
    e.row.assign(row.size(), Value::Null());
    e.present.assign(row.size(), false);
  }
  e.holders.insert(qid);
  const std::vector<bool> covers = CoversOf(qid, table, row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    if (!covers[i]) continue;
    e.row[i] = row[i];
    e.present[i] = true;
  }
  // A holder's projection may have narrowed at its last hello; drop what nobody carries now.
  Narrow(table, e);
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
  if (e != rows.end()) {
    e->second.holders.erase(qid);
    if (e->second.holders.empty()) {
      rows.erase(e);
    } else {
      Narrow(table, e->second);
    }
  }
  if (rows.empty()) rows_.erase(table);
}

absl::Status NormalizedSync::Rehydrate(int64_t qid, const std::vector<RowOp>& adds) {
  for (const auto& op : adds) {
    if (op.op != RowOp::Kind::kAdd) {
      return absl::InvalidArgumentError(
          StrCat("snapshot for qid ", qid, ": ops must be adds (table \"", op.table, "\")"));
    }
  }
  ASSIGN_OR_RETURN(std::vector<Mapped> mapped, MapOps(qid, adds));
  std::map<std::string, std::map<RowValues, RowValues, RowLess>> next;
  for (auto& m : mapped) {
    RowValues pk = schema_->at(m.table).PkOf(m.row);
    next[m.table][std::move(pk)] = std::move(m.row);
  }
  // Release what the qid no longer names (narrowing rows others still hold), then hold the new
  // set (merging into rows it kept).
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
  auto q = by_qid_.find(qid);
  if (q != by_qid_.end()) {
    std::vector<std::pair<std::string, RowValues>> held;
    for (const auto& [table, pks] : q->second) {
      for (const auto& pk : pks) held.emplace_back(table, pk);
    }
    // Each release narrows a still-shared row to the remaining holders' union, or GCs it.
    for (const auto& [table, pk] : held) Release(qid, table, pk);
    by_qid_.erase(qid);
  }
  projection_.erase(qid);
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

std::optional<std::vector<bool>> NormalizedSync::Presence(const std::string& table,
                                                          const RowValues& pk) const {
  auto r = rows_.find(table);
  if (r == rows_.end()) return std::nullopt;
  auto e = r->second.find(pk);
  if (e == r->second.end()) return std::nullopt;
  return e->second.present;
}

int NormalizedSync::RefCount(const std::string& table, const RowValues& pk) const {
  auto r = rows_.find(table);
  if (r == rows_.end()) return 0;
  auto e = r->second.find(pk);
  return e == r->second.end() ? 0 : static_cast<int>(e->second.holders.size());
}

size_t NormalizedSync::row_count() const {
  size_t n = 0;
  for (const auto& [t, rows] : rows_) n += rows.size();
  return n;
}

bool NormalizedSync::HasProjection(int64_t qid, const std::string& table) const {
  return ProjectionFor(qid, table) != nullptr;
}

}  // namespace rindle
