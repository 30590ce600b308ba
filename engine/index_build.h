// index_build.h — sorting a table's rows into an ordered index's order when the index is first
// built (table.h AcquireIndex). Stateless.
//
// SortRowsForIndex orders row pointers by `sort` (the rows must be distinct under it: every index
// sort ends with the pk). It sorts flat records holding the order prefixes (order_prefix.h) of
// the first two sort cells (a column holding only numbers uses their full, exact 64-bit image
// instead), so most comparisons are integer compares that touch no row: the second key decides
// only when the first cells are known equal (both first keys equal and exact); every other tie
// falls back to CompareBySort over the full rows. The result is exactly the CompareBySort order. Source: issue 16 (hydration cost), ARCHITECTURE.md §7 "Sources".
#pragma once

#include <cstdint>
#include <vector>

#include "engine/change.h"
#include "engine/query_shape.h"

namespace rindle {

// `images`, when given, receives each sorted row's SortImage of its first sort cell (row_index.h
// entries), computed while the row was read for its keys.
void SortRowsForIndex(const std::vector<SortPart>& sort, std::vector<const Row*>& rows,
                      std::vector<uint64_t>* images = nullptr);

}  // namespace rindle
