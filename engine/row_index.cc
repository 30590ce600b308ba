#include "engine/row_index.h"

#include "base/check.h"
#include "engine/order_prefix.h"

namespace rindle {

int RowOrderLess::CompareProbe(const RowValues& a, const CursorProbe& p) const {
  for (size_t i = 0; i < p.values->size() && i < sort->size(); ++i) {
    const SortPart& part = (*sort)[i];
    const int c = CompareValues(a[part.column], (*p.values)[i].second);
    if (c != 0) return part.desc ? -c : c;
  }
  // Equal on every given column: the probe sits after (exclusive) or before (inclusive) them.
  return p.after_equal ? -1 : 1;
}

int RowOrderLess::CompareKey(const RowValues& a, const KeyProbe& p) const {
  const size_t n = p.cols != nullptr ? p.cols->size() : p.values->size();
  for (size_t i = 0; i < n && i < sort->size(); ++i) {
    const SortPart& part = (*sort)[i];
    const Value& v = (*p.values)[p.cols != nullptr ? (*p.cols)[i] : i];
    const int c = CompareValues(a[part.column], v);
    if (c != 0) return part.desc ? -c : c;
  }
  return 1;  // equal on the key: the probe sits before the run
}

uint64_t SortImage(const Value& v, bool desc) {
  const uint64_t p = OrderPrefix(v);
  return desc ? ~p : p;
}

IndexEntry MakeEntry(const std::vector<SortPart>& sort, Row row) {
  const SortPart& first = sort.front();
  const uint64_t image = SortImage((*row)[first.column], first.desc);
  return IndexEntry{image, std::move(row)};
}

ImagedRow MakeImagedRow(const std::vector<SortPart>& sort, const RowValues& row) {
  const SortPart& first = sort.front();
  return {SortImage(row[first.column], first.desc), &row};
}

ImagedKey MakeImagedKey(const std::vector<SortPart>& sort, const KeyProbe& p) {
  const size_t n = p.cols != nullptr ? p.cols->size() : p.values->size();
  if (n == 0 || sort.empty()) return {false, 0, &p};
  const Value& v = (*p.values)[p.cols != nullptr ? (*p.cols)[0] : 0];
  return {true, SortImage(v, sort.front().desc), &p};
}

ImagedCursor MakeImagedCursor(const std::vector<SortPart>& sort, const CursorProbe& p) {
  if (p.values->empty() || sort.empty()) return {false, 0, &p};
  return {true, SortImage(p.values->front().second, sort.front().desc), &p};
}

RowIndex::RowIndex(const std::vector<SortPart>* sort) : sort_(sort), set_(EntryLess{sort_}) {
  RINDLE_CHECK(!sort_->empty());
}

void RowIndex::Replace(const_iterator it, Row row) {
  RINDLE_CHECK(it != set_.end());
  IndexEntry& e = const_cast<IndexEntry&>(*it);  // the order is unchanged: same image, same place
  const SortPart& first = sort_->front();
  RINDLE_CHECK_EQ(SortImage((*row)[first.column], first.desc), e.image);
  e.row = std::move(row);
}

void RowIndex::AppendSorted(const std::vector<const Row*>& rows,
                            const std::vector<uint64_t>& images) {
  RINDLE_CHECK(set_.empty());
  RINDLE_CHECK_EQ(rows.size(), images.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + 8 < rows.size()) __builtin_prefetch(rows[i + 8]->get());  // the refcount's line
    set_.insert(set_.end(), IndexEntry{images[i], *rows[i]});
  }
  RINDLE_CHECK_EQ(set_.size(), rows.size());  // sorted and distinct: every append took
}

}  // namespace rindle
