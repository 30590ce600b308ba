#include "base/str_util.h"
#include "engine/table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "engine/index_build.h"

namespace rindle {

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
      pk_sort_(PkSort()),
      rows_(&pk_sort_),
      overlay_(EntryLess{&pk_sort_}) {}

RowIndex::const_iterator Table::FindHead(const RowValues& pk, RowIndex::const_iterator* at) const {
  RINDLE_CHECK_EQ(pk.size(), spec_.primary_key.size());
  auto it = rows_.lower_bound(KeyProbe{&pk});
  if (at != nullptr) *at = it;
  if (it != rows_.end() && RowPkLess{&spec_.primary_key}.Compare(**it, pk) == 0) return it;
  return rows_.end();
}

SyncOverlay::iterator Table::FindOverlay(const RowValues& pk, SyncOverlay::iterator* at) {
  RINDLE_CHECK_EQ(pk.size(), spec_.primary_key.size());
  const KeyProbe probe{&pk};
  auto it = overlay_.lower_bound(MakeImagedKey(pk_sort_, probe));
  if (at != nullptr) *at = it;
  if (it != overlay_.end() && RowPkLess{&spec_.primary_key}.Compare(*it->first, pk) == 0) {
    return it;
  }
  return overlay_.end();
}

SyncOverlay::const_iterator Table::FindOverlay(const RowValues& pk) const {
  return const_cast<Table*>(this)->FindOverlay(pk, nullptr);
}

Row Table::Find(const RowValues& pk) const {
  auto it = FindHead(pk, nullptr);
  return it == rows_.end() ? nullptr : it->row;
}

Row Table::KeyRow(const RowValues& pk) const {
  RINDLE_CHECK_EQ(pk.size(), spec_.primary_key.size());
  RowValues cells(spec_.columns.size());
  for (size_t i = 0; i < pk.size(); ++i) cells[spec_.primary_key[i]] = pk[i];
  return MakeRow(std::move(cells));
}

Row Table::Put(const RowValues& pk, Row row, bool optimistic, std::optional<Row>* old_overlay) {
  // One search of head and of the overlay each (their positions serve as insert hints).
  RowIndex::const_iterator at;
  auto it = FindHead(pk, &at);
  Row old = it != rows_.end() ? it->row : nullptr;
  if (old_overlay != nullptr || (optimistic && !local_)) {
    SyncOverlay::iterator ov_at;
    auto ov = FindOverlay(pk, &ov_at);
    const bool present = ov != overlay_.end();
    if (old_overlay != nullptr) {
      *old_overlay = present ? std::optional<Row>(ov->second) : std::nullopt;
    }
    if (!present && optimistic && !local_) {
      overlay_.emplace_hint(ov_at, MakeEntry(pk_sort_, old ? old : (row ? row : KeyRow(pk))),
                            old);
    }
  }
  for (auto& [key, idx] : indexes_) {
    RowIndex& set = *idx.set;
    if (old && row && CompareBySort(set.sort(), *old, *row) == 0) {
      // Same position under this index's sort (an edit of columns it does not order by):
      // replace the reference in place — one search instead of an erase and an insert.
      auto found = set.find(old);
      RINDLE_CHECK(found != set.end());
      set.Replace(found, row);
      continue;
    }
    if (old) {
      const size_t n = set.erase(old);
      RINDLE_CHECK_EQ(n, size_t{1});
    }
    if (row) {
      const bool inserted = set.insert(row);
      RINDLE_CHECK(inserted);
    }
  }
  if (row) {
    if (old) {
      rows_.Replace(it, row);  // same pk, so the same place
    } else {
      rows_.insert(at, row);
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
    idx.set = std::make_unique<RowIndex>(idx.sort.get());
    // Sort row pointers by compact prefixes (index_build.h), then append them at end(): one
    // comparison with the last entry each (by image unless images tie), no cell copied.
    std::vector<const Row*> sorted;
    sorted.reserve(rows_.size());
    for (const IndexEntry& e : rows_) sorted.push_back(&e.row);
    std::vector<uint64_t> images;
    SortRowsForIndex(idx.set->sort(), sorted, &images);
    idx.set->AppendSorted(sorted, images);
    RINDLE_CHECK_EQ(idx.set->size(), rows_.size());
    it = indexes_.emplace(key, std::move(idx)).first;
  }
  ++it->second.refs;
  return *it->second.set;
}

const RowIndexSet& Table::AcquireRunIndex(const std::vector<int>& lead,
                                          std::vector<SortPart>* held) {
  for (auto& [key, idx] : indexes_) {
    const std::vector<SortPart>& s = idx.set->sort();
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
  for (const IndexEntry& e : rows_) out.push_back(*e.row);
  return out;
}

Row Table::SyncFind(const RowValues& pk) const {
  auto it = FindOverlay(pk);
  if (it != overlay_.end()) return it->second;
  return Find(pk);
}

std::vector<RowValues> Table::SyncRows() const {
  const RowPkLess by_pk{&spec_.primary_key};
  absl::btree_set<Row, RowPkLess> merged(by_pk);
  for (const IndexEntry& e : rows_) merged.insert(merged.end(), e.row);
  for (const auto& [key, row] : overlay_) {
    merged.erase(key.row);
    if (row) merged.insert(row);
  }
  std::vector<RowValues> out;
  out.reserve(merged.size());
  for (const Row& row : merged) out.push_back(*row);
  return out;
}

void Table::SetOverlayEntry(const RowValues& pk, std::optional<Row> sync_row) {
  SyncOverlay::iterator at;
  auto it = FindOverlay(pk, &at);
  if (!sync_row.has_value()) {
    if (it != overlay_.end()) overlay_.erase(it);
    return;
  }
  if (it != overlay_.end()) {
    it->second = *sync_row;
    return;
  }
  Row key = *sync_row ? *sync_row : Find(pk);
  overlay_.emplace_hint(at, MakeEntry(pk_sort_, key ? key : KeyRow(pk)), *sync_row);
}

std::optional<Row> Table::OverlayEntry(const RowValues& pk) const {
  auto it = FindOverlay(pk);
  if (it == overlay_.end()) return std::nullopt;
  return it->second;
}

size_t Table::live_index_refs() const {
  size_t n = 0;
  for (const auto& [k, idx] : indexes_) n += idx.refs;
  return n;
}

}  // namespace rindle
