#include "base/str_util.h"
#include "engine/table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "engine/index_build.h"

namespace rindle {

int RowOrderLess::CompareProbe(const Row& a, const CursorProbe& p) const {
  for (size_t i = 0; i < p.values->size() && i < sort->size(); ++i) {
    const SortPart& part = (*sort)[i];
    const int c = CompareValues((*a)[part.column], (*p.values)[i].second);
    if (c != 0) return part.desc ? -c : c;
  }
  // Equal on every given column: the probe sits after (exclusive) or before (inclusive) them.
  return p.after_equal ? -1 : 1;
}

int RowOrderLess::CompareKey(const Row& a, const KeyProbe& p) const {
  const size_t n = p.cols != nullptr ? p.cols->size() : p.values->size();
  for (size_t i = 0; i < n && i < sort->size(); ++i) {
    const SortPart& part = (*sort)[i];
    const Value& v = (*p.values)[p.cols != nullptr ? (*p.cols)[i] : i];
    const int c = CompareValues((*a)[part.column], v);
    if (c != 0) return part.desc ? -c : c;
  }
  return 1;  // equal on the key: the probe sits before the run
}

int RowPkLess::Compare(const RowValues& row, const RowValues& pk_cells) const {
  RINDLE_CHECK_EQ(pk_cells.size(), pk->size());
  for (size_t i = 0; i < pk->size(); ++i) {
    const int c = CompareValues(row[(*pk)[i]], pk_cells[i]);
    if (c != 0) return c;
  }
  return 0;
}

bool RowPkLess::operator()(const Row& a, const Row& b) const {
  for (int col : *pk) {
    const int c = CompareValues((*a)[col], (*b)[col]);
    if (c != 0) return c < 0;
  }
  return false;
}

Table::Table(std::string name, TableSpec spec, bool local)
    : name_(std::move(name)),
      spec_(std::move(spec)),
      local_(local),
      rows_(RowPkLess{&spec_.primary_key}),
      overlay_(RowPkLess{&spec_.primary_key}) {}

Row Table::Find(const RowValues& pk) const {
  auto it = rows_.find(pk);
  return it == rows_.end() ? nullptr : *it;
}

Row Table::KeyRow(const RowValues& pk) const {
  RINDLE_CHECK_EQ(pk.size(), spec_.primary_key.size());
  RowValues cells(spec_.columns.size());
  for (size_t i = 0; i < pk.size(); ++i) cells[spec_.primary_key[i]] = pk[i];
  return MakeRow(std::move(cells));
}

Row Table::Put(const RowValues& pk, Row row, bool optimistic, std::optional<Row>* old_overlay) {
  // One search of head and of the overlay each (their positions serve as insert hints).
  const RowPkLess& by_pk = rows_.key_comp();
  Row old;
  auto it = rows_.lower_bound(pk);
  if (it != rows_.end() && by_pk.Compare(**it, pk) == 0) old = *it;
  if (old_overlay != nullptr || (optimistic && !local_)) {
    auto ov = overlay_.lower_bound(pk);
    const bool present = ov != overlay_.end() && by_pk.Compare(*ov->first, pk) == 0;
    if (old_overlay != nullptr) {
      *old_overlay = present ? std::optional<Row>(ov->second) : std::nullopt;
    }
    if (!present && optimistic && !local_) {
      overlay_.emplace_hint(ov, old ? old : (row ? row : KeyRow(pk)), old);
    }
  }
  for (auto& [key, idx] : indexes_) {
    if (old && row && CompareBySort(*idx.sort, *old, *row) == 0) {
      // Same position under this index's sort (an edit of columns it does not order by):
      // replace the reference in place — one search instead of an erase and an insert.
      auto at = idx.set->find(old);
      RINDLE_CHECK(at != idx.set->end());
      const_cast<Row&>(*at) = row;
      continue;
    }
    if (old) {
      const size_t n = idx.set->erase(old);
      RINDLE_CHECK_EQ(n, size_t{1});
    }
    if (row) {
      const bool inserted = idx.set->insert(row).second;
      RINDLE_CHECK(inserted);
    }
  }
  if (row) {
    if (old) {
      // Same pk, so the set's order is unchanged: replace the reference in place.
      const_cast<Row&>(*it) = row;
    } else {
      rows_.insert(it, row);
    }
  } else if (old) {
    rows_.erase(it);
  }
  return old;
}

std::vector<SortPart> Table::Normalized(const std::vector<SortPart>& sort) {
  std::vector<SortPart> out;
  for (const SortPart& p : sort) {
    bool seen = false;
    for (const SortPart& q : out) seen = seen || q.column == p.column;
    if (!seen) out.push_back(p);
  }
  return out;
}

std::string Table::SortKey(const std::vector<SortPart>& sort) {
  std::string key;
  for (const auto& p : Normalized(sort)) StrAppend(&key, p.column, p.desc ? "d," : "a,");
  return key;
}

const RowIndexSet& Table::AcquireIndex(const std::vector<SortPart>& sort) {
  const std::string key = SortKey(sort);
  auto it = indexes_.find(key);
  if (it == indexes_.end()) {
    Index idx;
    idx.sort = std::make_unique<std::vector<SortPart>>(Normalized(sort));
    idx.building = std::make_unique<bool>(true);
    // Sort row pointers by compact prefixes (index_build.h), then append them at end() with the
    // comparator trusting the order: building touches each row about once, copies no cell.
    std::vector<const Row*> sorted;
    sorted.reserve(rows_.size());
    for (const Row& row : rows_) sorted.push_back(&row);
    SortRowsForIndex(*idx.sort, sorted);
    idx.set = std::make_unique<RowIndexSet>(RowOrderLess(idx.sort.get(), idx.building.get()));
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i + 8 < sorted.size()) __builtin_prefetch(sorted[i + 8]->get());  // the refcount's line
      idx.set->insert(idx.set->end(), *sorted[i]);
    }
    *idx.building = false;
    RINDLE_CHECK_EQ(idx.set->size(), rows_.size());
    it = indexes_.emplace(key, std::move(idx)).first;
  }
  ++it->second.refs;
  return *it->second.set;
}

const RowIndexSet& Table::AcquireRunIndex(const std::vector<int>& lead,
                                          std::vector<SortPart>* held) {
  for (auto& [key, idx] : indexes_) {
    const std::vector<SortPart>& s = *idx.sort;
    bool leads = s.size() >= lead.size();
    for (size_t i = 0; leads && i < lead.size(); ++i) {
      leads = s[i].column == lead[i] && !s[i].desc;
    }
    if (leads) {
      *held = s;
      ++idx.refs;
      return *idx.set;
    }
  }
  held->clear();
  for (int c : lead) held->push_back({c, false});
  for (int pk : spec_.primary_key) held->push_back({pk, false});
  *held = Normalized(*held);
  return AcquireIndex(*held);
}

void Table::ReleaseIndex(const std::vector<SortPart>& sort) {
  auto it = indexes_.find(SortKey(sort));
  RINDLE_CHECK(it != indexes_.end());
  if (--it->second.refs == 0) indexes_.erase(it);
}

std::vector<SortPart> Table::PkSort() const {
  std::vector<SortPart> out;
  for (int c : spec_.primary_key) out.push_back({c, false});
  return out;
}

std::vector<RowValues> Table::HeadRows() const {
  std::vector<RowValues> out;
  out.reserve(rows_.size());
  for (const Row& row : rows_) out.push_back(*row);
  return out;
}

Row Table::SyncFind(const RowValues& pk) const {
  auto it = overlay_.find(pk);
  if (it != overlay_.end()) return it->second;
  return Find(pk);
}

std::vector<RowValues> Table::SyncRows() const {
  absl::btree_set<Row, RowPkLess> merged(rows_.begin(), rows_.end(), rows_.key_comp());
  for (const auto& [key, row] : overlay_) {
    merged.erase(key);
    if (row) merged.insert(row);
  }
  std::vector<RowValues> out;
  out.reserve(merged.size());
  for (const Row& row : merged) out.push_back(*row);
  return out;
}

void Table::SetOverlayEntry(const RowValues& pk, std::optional<Row> sync_row) {
  if (!sync_row.has_value()) {
    overlay_.erase(pk);
    return;
  }
  auto it = overlay_.find(pk);
  if (it != overlay_.end()) {
    it->second = *sync_row;
    return;
  }
  Row key = *sync_row ? *sync_row : Find(pk);
  overlay_.emplace(key ? key : KeyRow(pk), *sync_row);
}

std::optional<Row> Table::OverlayEntry(const RowValues& pk) const {
  auto it = overlay_.find(pk);
  if (it == overlay_.end()) return std::nullopt;
  return it->second;
}

size_t Table::live_index_refs() const {
  size_t n = 0;
  for (const auto& [k, idx] : indexes_) n += idx.refs;
  return n;
}

}  // namespace rindle
