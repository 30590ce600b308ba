#include "base/str_util.h"
#include "engine/table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "engine/order_prefix.h"

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

Row Table::Put(const RowValues& pk, Row row, bool optimistic) {
  Row old;
  auto it = rows_.find(pk);
  if (it != rows_.end()) old = *it;
  if (optimistic && !local_ && !overlay_.contains(pk)) {
    overlay_.emplace(old ? old : (row ? row : KeyRow(pk)), old);
  }
  if (old) {
    for (auto& [key, idx] : indexes_) {
      const size_t n = idx.set->erase(old);
      RINDLE_CHECK_EQ(n, size_t{1});
    }
  }
  if (row) {
    if (it != rows_.end()) {
      // Same pk, so the set's order is unchanged: replace the reference in place.
      const_cast<Row&>(*it) = row;
    } else {
      rows_.insert(row);
    }
    for (auto& [key, idx] : indexes_) {
      const bool inserted = idx.set->insert(row).second;
      RINDLE_CHECK(inserted);
    }
  } else if (it != rows_.end()) {
    rows_.erase(it);
  }
  return old;
}

std::string Table::SortKey(const std::vector<SortPart>& sort) {
  std::string key;
  for (const auto& p : sort) StrAppend(&key, p.column, p.desc ? "d," : "a,");
  return key;
}

const RowIndexSet& Table::AcquireIndex(const std::vector<SortPart>& sort) {
  const std::string key = SortKey(sort);
  auto it = indexes_.find(key);
  if (it == indexes_.end()) {
    Index idx;
    idx.sort = std::make_unique<std::vector<SortPart>>(sort);
    // Sort flat (prefix of the first sort cell, row) pairs (order_prefix.h): most comparisons
    // are one integer compare; only prefix ties compare the full rows. No cell is copied.
    struct Keyed {
      uint64_t prefix;
      const Row* row;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(rows_.size());
    RINDLE_CHECK(!sort.empty());
    const SortPart first = sort.front();
    for (const Row& row : rows_) keyed.push_back({OrderPrefix((*row)[first.column]), &row});
    std::sort(keyed.begin(), keyed.end(), [&sort, &first](const Keyed& a, const Keyed& b) {
      if (a.prefix != b.prefix) return first.desc ? a.prefix > b.prefix : a.prefix < b.prefix;
      return CompareBySort(sort, **a.row, **b.row) < 0;
    });
    idx.set = std::make_unique<RowIndexSet>(RowOrderLess{idx.sort.get()});
    for (const Keyed& k : keyed) idx.set->insert(idx.set->end(), *k.row);
    it = indexes_.emplace(key, std::move(idx)).first;
  }
  ++it->second.refs;
  return *it->second.set;
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
