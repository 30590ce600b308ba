#include "engine/index_build.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/check.h"
#include "engine/order_prefix.h"
#include "engine/row_index.h"

namespace rindle {

namespace {

struct Keyed {
  uint64_t p0;
  uint64_t p1;  // 0 when the sort has one part
  const Row* row;
  uint64_t image;  // SortImage of the first cell (row_index.h), handed to the index's entries
  bool exact0;  // equal p0 of two exact records imply equal first cells
};

int Cmp(uint64_t a, uint64_t b, bool desc) {
  if (a == b) return 0;
  const int c = a < b ? -1 : 1;
  return desc ? -c : c;
}

// The full order-preserving image of a number (no bits dropped): exact, unlike OrderPrefix.
uint64_t NumberImage(const Value& v) {
  double d = v.as_double();
  if (d == 0) d = 0;  // -0 == +0 under CompareValues
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return (bits >> 63) ? ~bits : (bits | (uint64_t{1} << 63));
}

// Whether NumberImage orders `v` exactly among numbers: a double (not NaN), an int within 2^53.
bool ExactNumber(const Value& v) {
  constexpr int64_t kExact = int64_t{1} << 53;
  if (v.kind() == Value::Kind::kDouble) return !std::isnan(v.as_double());
  return v.kind() == Value::Kind::kInt && v.as_int() <= kExact && v.as_int() >= -kExact;
}

// Fills `keyed` for `rows`; a column in number mode uses NumberImage and must hold exact numbers
// only (false as soon as one does not: the caller retries in prefix mode).
bool KeyRows(const std::vector<const Row*>& rows, SortPart first, const SortPart* second,
             bool numbers0, bool numbers1, std::vector<Keyed>& keyed) {
  keyed.clear();
  // Rows are scattered on the heap: fetch each row's vector ahead, then its cells, so the
  // loop is not one cache miss after another.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + 2 * kAhead < rows.size()) __builtin_prefetch(rows[i + 2 * kAhead]->get());
    if (i + kAhead < rows.size()) __builtin_prefetch((*rows[i + kAhead])->data() + first.column);
    const Value& v0 = (**rows[i])[first.column];
    if (numbers0 && !ExactNumber(v0)) return false;
    uint64_t p1 = 0;
    if (second != nullptr) {
      const Value& v1 = (**rows[i])[second->column];
      if (numbers1 && !ExactNumber(v1)) return false;
      p1 = numbers1 ? NumberImage(v1) : OrderPrefix(v1);
    }
    keyed.push_back({numbers0 ? NumberImage(v0) : OrderPrefix(v0), p1, rows[i],
                     SortImage(v0, first.desc), numbers0 || OrderPrefixExact(v0)});
  }
  return true;
}

}  // namespace

void SortRowsForIndex(const std::vector<SortPart>& sort, std::vector<const Row*>& rows,
                      std::vector<uint64_t>* images) {
  RINDLE_CHECK(!sort.empty());
  const SortPart first = sort.front();
  const bool two = sort.size() > 1;
  const SortPart second = two ? sort[1] : first;
  // A column of numbers (createdAt, updatedAt) sorts by its exact image: no prefix ties. The
  // first row's kinds guess the mode; a column that turns out mixed is redone in prefix mode.
  const bool numbers0 = !rows.empty() && ExactNumber((**rows[0])[first.column]);
  const bool numbers1 = two && !rows.empty() && ExactNumber((**rows[0])[second.column]);
  std::vector<Keyed> keyed;
  keyed.reserve(rows.size());
  const SortPart* second_part = two ? &second : nullptr;
  if (!KeyRows(rows, first, second_part, numbers0, numbers1, keyed)) {
    RINDLE_CHECK(KeyRows(rows, first, second_part, false, false, keyed));
  }
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (const int c = Cmp(a.p0, b.p0, first.desc); c != 0) return c < 0;
    // Equal exact first keys: the first cells are equal, the second key orders them.
    if (two && a.exact0 && b.exact0) {
      if (const int c = Cmp(a.p1, b.p1, second.desc); c != 0) return c < 0;
    }
    return CompareBySort(sort, **a.row, **b.row) < 0;
  });
  for (size_t i = 0; i < keyed.size(); ++i) rows[i] = keyed[i].row;
  if (images != nullptr) {
    images->resize(keyed.size());
    for (size_t i = 0; i < keyed.size(); ++i) (*images)[i] = keyed[i].image;
  }
}

}  // namespace rindle
