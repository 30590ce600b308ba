#include "engine/ivm/window.h"

#include "base/check.h"

namespace rindle {

Window::Window(const Level& level)
    : rows(&level.sort()), nodes(EntryLess{&level.table()->pk_sort()}) {
  by_key.reserve(level.related().size());
  for (const LevelEdge& e : level.related()) by_key.emplace_back(e.node_key_sort.get());
}

Window::Children& NodeChildren(const Level& level, Window& w, const Row& row) {
  auto it = w.nodes.find(MakeImagedRow(level.table()->pk_sort(), *row));
  RINDLE_CHECK(it != w.nodes.end());
  return it->second;
}

namespace {

bool WindowFull(const Level& level, const Window& w) {
  return level.limit().has_value() && static_cast<int64_t>(w.rows.size()) >= *level.limit();
}

}  // namespace

void HydrateWindow(const Level& level, const RowValues* key, Window& w) {
  RINDLE_CHECK(w.rows.empty());
  if (level.limit() && *level.limit() <= 0) return;
  for (auto it = level.ScanBegin(key); it != level.ScanEnd() && level.InRun(*it, key); ++it) {
    if (WindowFull(level, w)) break;
    if (level.Member(*it)) w.rows.insert(*it);
  }
  if (!level.related().empty()) {
    for (const Row& row : w.rows) AttachNode(level, w, row);
  }
}

WindowDelta UpdateWindow(const Level& level, const RowValues* key,
                         const std::vector<const NetChange*>& candidates, Window& w) {
  WindowDelta delta(EntryLess{&level.table()->pk_sort()});
  const bool limited = level.limit().has_value();
  const int64_t limit = limited ? *level.limit() : 0;
  const bool was_full = WindowFull(level, w);
  const Row bound = (was_full && !w.rows.empty()) ? w.rows.rbegin()->row : nullptr;
  const std::vector<SortPart>& sort = level.sort();

  const std::vector<SortPart>& pk_sort = level.table()->pk_sort();
  auto touch = [&](const Row& row) -> NetChange& {
    auto it = delta.find(MakeImagedRow(pk_sort, *row));
    if (it == delta.end()) it = delta.emplace(MakeEntry(pk_sort, row), NetChange{}).first;
    return it->second;
  };
  auto erase = [&](const Row& probe) {
    auto it = w.rows.find(probe);
    if (it == w.rows.end()) return;
    Row was = *it;  // by value: erase() destroys the element
    w.rows.erase(it);
    NetChange& d = touch(was);
    if (!d.before && !d.after) d.before = was;  // first touch: it was in the window
    d.after = nullptr;
  };
  auto insert = [&](const Row& row) {
    if (!w.rows.insert(row)) return;
    touch(row).after = row;
  };

  // Whether `row` sorts after the old bound of a full window (so it is not, and cannot enter,
  // the window): one row compare, decided before any window search or membership test (a
  // membership test may probe EXISTS subqueries).
  auto beyond_bound = [&](const Row& row) {
    return was_full && (!bound || CompareBySort(sort, *row, *bound) > 0);
  };
  // 1. Candidates leave the window (they re-enter below if they still belong). A full window
  //    holds only rows up to its bound.
  for (const NetChange* c : candidates) {
    if (c->before && !beyond_bound(c->before)) erase(c->before);
  }
  // 2. Members now enter when they sort within the old bound.
  if (!limited || limit > 0) {
    for (const NetChange* c : candidates) {
      if (!c->after || beyond_bound(c->after)) continue;
      if (!level.MemberUnder(c->after, key)) continue;
      insert(c->after);
    }
  }
  // 3. Never more than the limit.
  while (limited && static_cast<int64_t>(w.rows.size()) > limit) erase(*w.rows.rbegin());
  // 4. A full window that lost rows refills from the old bound.
  if (was_full && bound && static_cast<int64_t>(w.rows.size()) < limit) {
    for (auto it = level.ScanAfter(bound);
         it != level.ScanEnd() && level.InRun(*it, key) &&
         static_cast<int64_t>(w.rows.size()) < limit;
         ++it) {
      if (level.Member(*it)) insert(*it);
    }
  }
  RINDLE_CHECK(!limited || static_cast<int64_t>(w.rows.size()) <= limit);
  return delta;
}

namespace {

// Whether `row` has a null among `cols` (such a row correlates with nothing).
bool HasNull(const RowValues& row, const std::vector<int>& cols) {
  for (int c : cols) {
    if (row[c].is_null()) return true;
  }
  return false;
}

}  // namespace

void AttachNode(const Level& level, Window& w, const Row& row) {
  const auto& related = level.related();
  Window::Children children;
  children.reserve(related.size());
  for (size_t r = 0; r < related.size(); ++r) {
    const LevelEdge& e = related[r];
    children.emplace_back(*e.child);
    if (HasNull(*row, e.parent_cols)) continue;
    // The child's key is the parent's cells at parent_cols, read in place.
    std::optional<RowValues> key = Level::KeyOf(*row, e.parent_cols);
    HydrateWindow(*e.child, &*key, children.back());
    const bool indexed = w.by_key[r].insert(row);
    RINDLE_CHECK(indexed);
  }
  const bool inserted =
      w.nodes.emplace(MakeEntry(level.table()->pk_sort(), row), std::move(children)).second;
  RINDLE_CHECK(inserted);
}

void DetachNode(const Level& level, Window& w, const Row& row) {
  auto it = w.nodes.find(MakeImagedRow(level.table()->pk_sort(), *row));
  RINDLE_CHECK(it != w.nodes.end());
  const Row& attached = it->first.row;  // the row as attached (its keys filed it in by_key)
  const auto& related = level.related();
  for (size_t r = 0; r < related.size(); ++r) {
    if (HasNull(*attached, related[r].parent_cols)) continue;
    const size_t n = w.by_key[r].erase(attached);
    RINDLE_CHECK_EQ(n, size_t{1});
  }
  w.nodes.erase(it);
}

void ReplaceNodeRow(const Level& level, Window& w, const Row& before, const Row& after) {
  auto it = w.nodes.find(MakeImagedRow(level.table()->pk_sort(), *before));
  RINDLE_CHECK(it != w.nodes.end());
  const auto& related = level.related();
  for (size_t r = 0; r < related.size(); ++r) {
    if (HasNull(*it->first.row, related[r].parent_cols)) continue;
    auto at = w.by_key[r].find(it->first.row);
    RINDLE_CHECK(at != w.by_key[r].end());
    w.by_key[r].Replace(at, after);
  }
  // Same pk: the same place in `nodes` (and the same image).
  const_cast<IndexEntry&>(it->first).row = after;
}

TreeNode NodeTree(const Level& level, const Window& w, const Row& row) {
  TreeNode tn;
  tn.row = row;
  const auto& related = level.related();
  if (related.empty()) return tn;
  const Window::Children& children = NodeChildren(level, const_cast<Window&>(w), row);
  for (size_t r = 0; r < related.size(); ++r) {
    tn.relationships.emplace_back(related[r].alias, WindowTree(*related[r].child, children[r]));
  }
  return tn;
}

std::vector<TreeNode> WindowTree(const Level& level, const Window& w) {
  std::vector<TreeNode> out;
  out.reserve(w.rows.size());
  for (const Row& row : w.rows) out.push_back(NodeTree(level, w, row));
  return out;
}

}  // namespace rindle
