#include "engine/index_build.h"

#include <algorithm>
#include <cstdint>

#include "base/check.h"
#include "engine/order_prefix.h"

namespace rindle {

namespace {

struct Keyed {
  uint64_t p0;
  uint64_t p1;  // 0 when the sort has one part
  const Row* row;
  bool exact0;  // p0 is exact (order_prefix.h OrderPrefixExact)
};

int Cmp(uint64_t a, uint64_t b, bool desc) {
  if (a == b) return 0;
  const int c = a < b ? -1 : 1;
  return desc ? -c : c;
}

}  // namespace

void SortRowsForIndex(const std::vector<SortPart>& sort, std::vector<const Row*>& rows) {
  RINDLE_CHECK(!sort.empty());
  const SortPart first = sort.front();
  const bool two = sort.size() > 1;
  const SortPart second = two ? sort[1] : first;
  std::vector<Keyed> keyed;
  keyed.reserve(rows.size());
  for (const Row* r : rows) {
    const Value& v0 = (**r)[first.column];
    keyed.push_back({OrderPrefix(v0), two ? OrderPrefix((**r)[second.column]) : 0, r,
                     OrderPrefixExact(v0)});
  }
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (const int c = Cmp(a.p0, b.p0, first.desc); c != 0) return c < 0;
    // Equal exact first prefixes: the first cells are equal, the second prefix orders them.
    if (two && a.exact0 && b.exact0) {
      if (const int c = Cmp(a.p1, b.p1, second.desc); c != 0) return c < 0;
    }
    return CompareBySort(sort, **a.row, **b.row) < 0;
  });
  for (size_t i = 0; i < keyed.size(); ++i) rows[i] = keyed[i].row;
}

}  // namespace rindle
