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

Table::Table(std::string name, TableSpec spec, bool local)
    : name_(std::move(name)), spec_(std::move(spec)), local_(local) {}

Row Table::Find(const RowValues& pk) const {
  auto it = rows_.find(pk);
  return it == rows_.end() ? nullptr : it->second;
}

Row Table::Put(const RowValues& pk, Row row, bool optimistic) {
  Row old;
  auto it = rows_.find(pk);
  if (it != rows_.end()) old = it->second;
  if (optimistic && !local_ && !overlay_.contains(pk)) overlay_.emplace(pk, old);
  if (old) {
    for (auto& [key, idx] : indexes_) {
      const size_t n = idx.set->erase(old);
      RINDLE_CHECK_EQ(n, size_t{1});
    }
  }
  if (row) {
    if (it != rows_.end()) {
      it->second = row;
    } else {
      rows_.emplace(pk, row);
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
    for (const auto& [pk, row] : rows_) keyed.push_back({OrderPrefix((*row)[first.column]), &row});
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
  for (const auto& [pk, row] : rows_) out.push_back(*row);
  return out;
}

Row Table::SyncFind(const RowValues& pk) const {
  auto it = overlay_.find(pk);
  if (it != overlay_.end()) return it->second;
  return Find(pk);
}

std::vector<RowValues> Table::SyncRows() const {
  absl::btree_map<RowValues, Row, RowKeyLess> merged(rows_.begin(), rows_.end());
  for (const auto& [pk, row] : overlay_) {
    if (row) {
      merged[pk] = row;
    } else {
      merged.erase(pk);
    }
  }
  std::vector<RowValues> out;
  out.reserve(merged.size());
  for (const auto& [pk, row] : merged) out.push_back(*row);
  return out;
}

void Table::SetOverlayEntry(const RowValues& pk, std::optional<Row> sync_row) {
  if (sync_row.has_value()) {
    overlay_[pk] = *sync_row;
  } else {
    overlay_.erase(pk);
  }
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
