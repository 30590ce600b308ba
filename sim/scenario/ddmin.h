// ddmin.h — Zeller's delta debugging over one list, shared by the client scenario shrinker
// (shrink.cc) and the merge target's (sim/merge/merge_shrink.cc). Stateless: the caller's `try_`
// runs a candidate and says whether it still fails the property being shrunk, and `spent` says
// whether the run or time budget is gone.
//
// Ddmin(items, make, try_, spent): removes chunks of `items` (halves, then quarters, …) while
// try_(make(kept)) holds; on success `items` is the kept part. Returns true when anything was
// removed. A one-item list is tried once without its item.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace rindle::sim {

template <class T, class Make, class Try, class Spent>
bool Ddmin(std::vector<T>& items, Make make, Try try_, Spent spent) {
  bool changed = false;
  size_t n = 2;
  while (!spent() && !items.empty()) {
    if (items.size() == 1) {  // try without the last one
      if (try_(make(std::vector<T>{}))) {
        items.clear();
        changed = true;
      }
      break;
    }
    n = std::min(n, items.size());
    const size_t len = items.size();
    bool reduced = false;
    for (size_t i = 0; i < n && !spent(); ++i) {
      std::vector<T> kept;
      for (size_t j = 0; j < len; ++j) {
        if (j < len * i / n || j >= len * (i + 1) / n) kept.push_back(items[j]);
      }
      if (try_(make(kept))) {
        items = std::move(kept);
        reduced = changed = true;
        n = std::max<size_t>(n - 1, 2);
        break;
      }
    }
    if (reduced) continue;
    if (n >= len) break;
    n = std::min(n * 2, len);
  }
  return changed;
}

}  // namespace rindle::sim
