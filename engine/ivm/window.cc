#include "engine/ivm/window.h"

#include "base/check.h"

namespace rindle {

Window::Window(const Level& level)
    : rows(RowOrderLess{&level.sort()}), by_key(level.related().size()) {}

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
  WindowDelta delta;
  const bool limited = level.limit().has_value();
  const int64_t limit = limited ? *level.limit() : 0;
  const bool was_full = WindowFull(level, w);
  const Row bound = (was_full && !w.rows.empty()) ? *w.rows.rbegin() : nullptr;
  const std::vector<SortPart>& sort = level.sort();

  auto touch = [&](const Row& row) -> NetChange& {
    RowValues pk = level.spec().PkOf(*row);
    auto it = delta.find(pk);
    if (it == delta.end()) it = delta.emplace(std::move(pk), NetChange{}).first;
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
    if (!w.rows.insert(row).second) return;
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

void AttachNode(const Level& level, Window& w, const Row& row) {
  RowValues pk = level.spec().PkOf(*row);
  Window::Node node;
  node.row = row;
  const auto& related = level.related();
  node.related.reserve(related.size());
  for (size_t r = 0; r < related.size(); ++r) {
    const LevelEdge& e = related[r];
    auto child = std::make_unique<Window>(*e.child);
    std::optional<RowValues> key = Level::KeyOf(*row, e.parent_cols);
    if (key) {
      HydrateWindow(*e.child, &*key, *child);
      w.by_key[r][std::move(*key)].insert(pk);  // the key is not read again: move it in
    }
    node.related.push_back(std::move(child));
  }
  const bool inserted = w.nodes.emplace(std::move(pk), std::move(node)).second;
  RINDLE_CHECK(inserted);
}

void DetachNode(const Level& level, Window& w, const Row& row) {
  RowValues pk = level.spec().PkOf(*row);
  auto it = w.nodes.find(pk);
  RINDLE_CHECK(it != w.nodes.end());
  const auto& related = level.related();
  for (size_t r = 0; r < related.size(); ++r) {
    std::optional<RowValues> key = Level::KeyOf(*it->second.row, related[r].parent_cols);
    if (!key) continue;
    auto k = w.by_key[r].find(*key);
    RINDLE_CHECK(k != w.by_key[r].end());
    k->second.erase(pk);
    if (k->second.empty()) w.by_key[r].erase(k);
  }
  w.nodes.erase(it);
}

TreeNode NodeTree(const Level& level, const Window& w, const Row& row) {
  TreeNode tn;
  tn.row = row;
  const auto& related = level.related();
  if (related.empty()) return tn;
  auto it = w.nodes.find(level.spec().PkOf(*row));
  RINDLE_CHECK(it != w.nodes.end());
  for (size_t r = 0; r < related.size(); ++r) {
    tn.relationships.emplace_back(related[r].alias,
                                  WindowTree(*related[r].child, *it->second.related[r]));
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
