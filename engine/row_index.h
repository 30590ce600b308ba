// row_index.h — an ordered set of row references whose entries carry the order image of their
// first sort cell (order_prefix.h), so a btree search compares integers and reads a row only
// when two images tie. Holds state (the entries); not thread-safe.
//
// Why (issue 16, commit path): a row is a shared vector, so reading one cell of a random row
// costs two dependent cache misses (the vector, then its cells); a search of a 300k-row index
// made ~20 such row compares. An entry is (image, Row): 24 bytes. The image is
// OrderPrefix(row[sort[0].column]), complemented when sort[0] is descending, so a lower image
// means "sorts first" (OrderPrefix is monotone under CompareValues); equal images fall back to
// the full comparison (CompareBySort, or the probe's own comparison), so the order is exactly
// the one the sort defines and no lookup answer changes.
//
// Users: a table's head (sorted by its pk) and its secondary indexes (table.h), a window's rows
// (engine/ivm/window.h). Probes: a KeyProbe (a key's run), a CursorProbe (a start cursor), a row
// (its own position). Source: ARCHITECTURE.md §7 "Sources".
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/btree_set.h"
#include "engine/change.h"
#include "engine/query_shape.h"

namespace rindle {

// A cursor probe over an index's leading sort columns (see RowOrderLess::CompareProbe).
struct CursorProbe {
  const std::vector<std::pair<int, Value>>* values;  // (column, value) for leading sort columns
  bool after_equal;  // true: the probe sits after every row equal on those columns
};

// Seeks the start of a key's run in an index whose sort leads with the key's columns (asc): the
// probe sits before every row whose leading cells equal the key. The key is values[cols[i]] (or
// values[i] when cols is null), so a parent row probes its children without copying its key.
struct KeyProbe {
  const RowValues* values;
  const std::vector<int>* cols = nullptr;
};

// Orders full rows by a sort spec; transparent with the probes above.
struct RowOrderLess {
  using is_transparent = void;
  RowOrderLess() = default;
  explicit RowOrderLess(const std::vector<SortPart>* s) : sort(s) {}
  const std::vector<SortPart>* sort = nullptr;
  bool operator()(const Row& a, const Row& b) const { return CompareBySort(*sort, *a, *b) < 0; }
  int CompareProbe(const RowValues& a, const CursorProbe& p) const;  // row vs probe (never 0)
  bool operator()(const Row& a, const CursorProbe& p) const { return CompareProbe(*a, p) < 0; }
  bool operator()(const CursorProbe& p, const Row& a) const { return CompareProbe(*a, p) > 0; }
  int CompareKey(const RowValues& a, const KeyProbe& p) const;  // row vs key probe (never 0)
  bool operator()(const Row& a, const KeyProbe& p) const { return CompareKey(*a, p) < 0; }
  bool operator()(const KeyProbe& p, const Row& a) const { return CompareKey(*a, p) > 0; }
};

// The order image of `v` as the first cell of a sort part: OrderPrefix, complemented for desc.
uint64_t SortImage(const Value& v, bool desc);

// One entry: a row and the image of its first sort cell. Reads as its row (`*e`, `e->`,
// conversion to `const Row&`), so scans over an index read like scans over rows.
struct IndexEntry {
  uint64_t image = 0;
  Row row;
  const RowValues& operator*() const { return *row; }
  const RowValues* operator->() const { return row.get(); }
  operator const Row&() const { return row; }  // NOLINT: an entry stands for its row
};

// The entry of `row` under `sort` (non-empty).
IndexEntry MakeEntry(const std::vector<SortPart>& sort, Row row);

// A probe with its image precomputed (has_image false: the probe has no leading value, so every
// comparison is the probe's own).
struct ImagedKey {
  bool has_image;
  uint64_t image;
  const KeyProbe* probe;
};
struct ImagedCursor {
  bool has_image;
  uint64_t image;
  const CursorProbe* probe;
};
// A row as a probe (no reference taken): for find, erase and upper_bound.
struct ImagedRow {
  uint64_t image;
  const RowValues* row;
};
ImagedRow MakeImagedRow(const std::vector<SortPart>& sort, const RowValues& row);
ImagedKey MakeImagedKey(const std::vector<SortPart>& sort, const KeyProbe& p);
ImagedCursor MakeImagedCursor(const std::vector<SortPart>& sort, const CursorProbe& p);

// Entry order: image first, the full comparison on ties. A strict weak order always — absl's
// btree checks it in debug builds (an earlier bulk-build shortcut answered "a < b" for every
// pair, a < a included, and failed that check under the sanitizer build).
struct EntryLess {
  using is_transparent = void;
  const std::vector<SortPart>* sort = nullptr;
  bool operator()(const IndexEntry& a, const IndexEntry& b) const {
    if (a.image != b.image) return a.image < b.image;
    return CompareBySort(*sort, *a.row, *b.row) < 0;
  }
  bool operator()(const IndexEntry& a, const ImagedRow& k) const {
    if (a.image != k.image) return a.image < k.image;
    return CompareBySort(*sort, *a.row, *k.row) < 0;
  }
  bool operator()(const ImagedRow& k, const IndexEntry& a) const {
    if (a.image != k.image) return k.image < a.image;
    return CompareBySort(*sort, *k.row, *a.row) < 0;
  }
  bool operator()(const IndexEntry& a, const ImagedKey& k) const {
    if (k.has_image && a.image != k.image) return a.image < k.image;
    return RowOrderLess(sort).CompareKey(*a.row, *k.probe) < 0;
  }
  bool operator()(const ImagedKey& k, const IndexEntry& a) const {
    if (k.has_image && a.image != k.image) return k.image < a.image;
    return RowOrderLess(sort).CompareKey(*a.row, *k.probe) > 0;
  }
  bool operator()(const IndexEntry& a, const ImagedCursor& k) const {
    if (k.has_image && a.image != k.image) return a.image < k.image;
    return RowOrderLess(sort).CompareProbe(*a.row, *k.probe) < 0;
  }
  bool operator()(const ImagedCursor& k, const IndexEntry& a) const {
    if (k.has_image && a.image != k.image) return k.image < a.image;
    return RowOrderLess(sort).CompareProbe(*a.row, *k.probe) > 0;
  }
};

// Rows ordered by `*sort` (which must be a total order over the rows it holds: every index's
// ends with the pk, and must outlive the index). Movable: the comparator points only at `*sort`
// and at the caller's bulk-build flag.
class RowIndex {
 public:
  using Set = absl::btree_set<IndexEntry, EntryLess>;
  using const_iterator = Set::const_iterator;
  using const_reverse_iterator = Set::const_reverse_iterator;

  explicit RowIndex(const std::vector<SortPart>* sort);
  RowIndex(RowIndex&&) = default;
  RowIndex& operator=(RowIndex&&) = default;

  const std::vector<SortPart>& sort() const { return *sort_; }
  size_t size() const { return set_.size(); }
  bool empty() const { return set_.empty(); }
  const_iterator begin() const { return set_.begin(); }
  const_iterator end() const { return set_.end(); }
  const_reverse_iterator rbegin() const { return set_.rbegin(); }

  // The entry of a row equal to `row` under the sort, or end().
  const_iterator find(const Row& row) const { return set_.find(MakeImagedRow(*sort_, *row)); }
  // The first entry after `row`'s position.
  const_iterator upper_bound(const Row& row) const {
    return set_.upper_bound(MakeImagedRow(*sort_, *row));
  }
  const_iterator lower_bound(const KeyProbe& p) const {
    return set_.lower_bound(MakeImagedKey(*sort_, p));
  }
  const_iterator lower_bound(const CursorProbe& p) const {
    return set_.lower_bound(MakeImagedCursor(*sort_, p));
  }
  // False (and no change) when a row equal under the sort is present.
  bool insert(const Row& row) { return set_.insert(MakeEntry(*sort_, row)).second; }
  // Inserts at `hint` (the position lower_bound would give).
  void insert(const_iterator hint, const Row& row) { set_.insert(hint, MakeEntry(*sort_, row)); }
  size_t erase(const Row& row) { return set_.erase(MakeImagedRow(*sort_, *row)); }
  const_iterator erase(const_iterator it) { return set_.erase(it); }
  // Replaces the row of `it` by `row`, which must sort at the same position (CHECKed by image).
  void Replace(const_iterator it, Row row);
  // Bulk build: appends `rows`, sorted and distinct under the sort, with their images
  // (SortImage of the first sort cell; index_build.h computes both), to an empty index at end():
  // one comparison with the last entry each, by image unless the images tie.
  void AppendSorted(const std::vector<const Row*>& rows, const std::vector<uint64_t>& images);

 private:
  const std::vector<SortPart>* sort_;
  Set set_;
};

}  // namespace rindle
