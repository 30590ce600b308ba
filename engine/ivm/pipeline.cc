#include "engine/ivm/pipeline.h"

#include "base/check.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {

namespace {

bool SameRow(const Row& a, const Row& b) {
  if (!a || !b) return !a && !b;
  return a == b || CompareRowValues(*a, *b) == 0;
}

bool SameKey(const std::optional<RowValues>& a, const std::optional<RowValues>& b) {
  if (!a || !b) return !a && !b;
  return CompareRowValues(*a, *b) == 0;
}

// Marks every level whose table, or a table below it, has a change (LevelCandidates::touched);
// returns the mark of `level`.
bool MarkTouched(const Level& level, const NetChangeSet& changes) {
  auto it = changes.find(level.table()->name());
  bool touched = it != changes.end() && !it->second.empty();
  for (const LevelEdge& e : level.exists()) touched = MarkTouched(*e.child, changes) || touched;
  for (const LevelEdge& e : level.related()) touched = MarkTouched(*e.child, changes) || touched;
  level.candidates().touched = touched;
  return touched;
}

// Empties the candidates of every touched level (the others hold none).
void ClearCandidates(const Level& level) {
  LevelCandidates& c = level.candidates();
  if (!c.touched) return;
  c.touched = false;
  c.by_pk.clear();
  c.flips.clear();
  c.by_key.clear();
  c.visit.clear();
  for (const LevelEdge& e : level.exists()) ClearCandidates(*e.child);
  for (const LevelEdge& e : level.related()) ClearCandidates(*e.child);
}

// Whether row's cells at `cols` equal `key` (a key never holds a null: KeyOf).
bool KeyMatches(const RowValues& row, const std::vector<int>& cols, const RowValues& key) {
  for (size_t i = 0; i < key.size(); ++i) {
    if (CompareValues(row[cols[i]], key[i]) != 0) return false;
  }
  return true;
}

// The parents (current rows) correlated with `key` through an EXISTS edge.
template <typename Fn>
void ForEachParent(const LevelEdge& e, const RowValues& key, Fn fn) {
  // The parent index leads with parent_cols (level.cc AcquireParentIndex); a key never holds a
  // null (KeyOf), so the run's rows are exactly those whose cells equal the key.
  const RowIndexSet& index = *e.parent_index;
  for (auto it = index.lower_bound(KeyProbe{&key, &e.parent_probe}); it != index.end(); ++it) {
    if (!KeyMatches(**it, e.parent_cols, key)) return;
    fn(it->row);
  }
}

// Step 1 of Process (pipeline.h): fills every level's candidates.
void ComputeCandidates(const Level& level, const NetChangeSet& changes) {
  LevelCandidates& c = level.candidates();
  const std::vector<SortPart>& pk_sort = level.table()->pk_sort();
  if (auto it = changes.find(level.table()->name()); it != changes.end()) {
    for (const auto& [pk, ch] : it->second) {
      const Row& at = ch.after ? ch.after : ch.before;
      if (at) c.by_pk.emplace_hint(c.by_pk.end(), MakeEntry(pk_sort, at), &ch);  // pk order
    }
  }
  for (const LevelEdge& e : level.exists()) {
    if (!e.child->candidates().touched) continue;
    ComputeCandidates(*e.child, changes);
    for (const auto& [pk, ch] : e.child->candidates().by_pk) {
      for (const Row* row : {&ch->before, &ch->after}) {
        if (!*row) continue;
        std::optional<RowValues> key = Level::KeyOf(**row, e.child_cols);
        if (!key) continue;
        ForEachParent(e, *key, [&](const Row& parent) {
          auto at = c.by_pk.find(MakeImagedRow(pk_sort, *parent));
          if (at != c.by_pk.end()) return;  // a change of its own, or already a candidate
          c.flips.push_back(NetChange{parent, parent});
          c.by_pk.emplace(MakeEntry(pk_sort, parent), &c.flips.back());
        });
      }
    }
  }
  for (const LevelEdge& e : level.related()) {
    if (!e.child->candidates().touched) continue;
    ComputeCandidates(*e.child, changes);
    LevelCandidates& cc = e.child->candidates();
    for (const auto& [pk, ch] : cc.by_pk) {
      std::optional<RowValues> kb, ka;
      if (ch->before) kb = Level::KeyOf(*ch->before, e.child_cols);
      if (ch->after) ka = Level::KeyOf(*ch->after, e.child_cols);
      if (kb) cc.by_key[*kb].push_back(ch);
      if (ka && !SameKey(ka, kb)) cc.by_key[*ka].push_back(ch);
    }
    for (const auto& [key, list] : cc.by_key) cc.visit.insert(key);
    // A change deeper down passes through the partitions holding its parents' rows.
    for (const LevelEdge& f : e.child->related()) {
      for (const RowValues& deeper : f.child->candidates().visit) {
        ForEachParent(f, deeper, [&](const Row& row) {
          if (std::optional<RowValues> k = Level::KeyOf(*row, e.child_cols)) cc.visit.insert(*k);
        });
      }
    }
  }
}

ChangeEvent MakeRemove(const std::vector<PathStep>& path, const Row& row) {
  ChangeEvent e;
  e.path = path;
  e.op.kind = ChangeOp::Kind::kRemove;
  e.op.row = row;
  return e;
}

ChangeEvent MakeEdit(const std::vector<PathStep>& path, const Row& before, const Row& after) {
  ChangeEvent e;
  e.path = path;
  e.op.kind = ChangeOp::Kind::kEdit;
  e.op.old_row = before;
  e.op.new_row = after;
  return e;
}

ChangeEvent MakeAdd(const std::vector<PathStep>& path, TreeNode node) {
  ChangeEvent e;
  e.path = path;
  e.op.kind = ChangeOp::Kind::kAdd;
  e.op.node = std::move(node);
  return e;
}

// Whether an edit moves the row to other children for some relationship.
bool CorrelationChanges(const Level& level, const Row& before, const Row& after) {
  for (const LevelEdge& e : level.related()) {
    if (!SameKey(Level::KeyOf(*before, e.parent_cols), Level::KeyOf(*after, e.parent_cols))) {
      return true;
    }
  }
  return false;
}

// Step 2 of Process for one window (pipeline.h).
void EmitWindow(const Level& level, const RowValues* key,
                const std::vector<const NetChange*>& candidates, Window& w,
                std::vector<PathStep>& path, std::vector<ChangeEvent>& events) {
  WindowDelta delta = UpdateWindow(level, key, candidates, w);
  const bool has_children = !level.related().empty();
  std::vector<Row> added;
  std::vector<ChangeEvent> edits;
  for (const auto& [pk, d] : delta) {
    if (d.before && !d.after) {
      if (has_children) DetachNode(level, w, d.before);
      events.push_back(MakeRemove(path, d.before));
    } else if (!d.before && d.after) {
      added.push_back(d.after);
    } else if (d.before && d.after && !SameRow(d.before, d.after)) {
      if (has_children && CorrelationChanges(level, d.before, d.after)) {
        DetachNode(level, w, d.before);
        events.push_back(MakeRemove(path, d.before));
        added.push_back(d.after);
        continue;
      }
      if (has_children) ReplaceNodeRow(level, w, d.before, d.after);
      edits.push_back(MakeEdit(path, d.before, d.after));
    }
  }
  for (ChangeEvent& e : edits) events.push_back(std::move(e));
  // Children of the nodes that stay (their rows are current: edits applied above).
  const auto& related = level.related();
  for (size_t r = 0; r < related.size(); ++r) {
    const LevelEdge& edge = related[r];
    const Level& child = *edge.child;
    const LevelCandidates& cc = child.candidates();
    static const std::vector<const NetChange*> kNone;
    const RowIndex& parents = w.by_key[r];
    for (const RowValues& ckey : cc.visit) {
      // The nodes whose parent-side key equals ckey: one run of by_key.
      auto it = parents.lower_bound(KeyProbe{&ckey, &edge.parent_probe});
      if (it == parents.end() || !KeyMatches(**it, edge.parent_cols, ckey)) continue;
      auto list = cc.by_key.find(ckey);
      const std::vector<const NetChange*>& cands = list == cc.by_key.end() ? kNone : list->second;
      for (; it != parents.end() && KeyMatches(**it, edge.parent_cols, ckey); ++it) {
        const Row& node_row = it->row;
        path.push_back(PathStep{edge.alias, node_row, static_cast<int>(r)});
        EmitWindow(child, &ckey, cands, NodeChildren(level, w, node_row)[r], path, events);
        path.pop_back();
      }
    }
  }
  for (const Row& row : added) {
    if (has_children) AttachNode(level, w, row);
    events.push_back(MakeAdd(path, NodeTree(level, w, row)));
  }
}

void CollectTables(const Level& level, std::vector<std::string>& out) {
  out.push_back(level.table()->name());
  for (const LevelEdge& e : level.exists()) CollectTables(*e.child, out);
  for (const LevelEdge& e : level.related()) CollectTables(*e.child, out);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Pipeline>> Pipeline::Build(const Ast& ast, const TableFinder& find) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  ASSIGN_OR_RETURN(p->root_, Level::Build(ast, nullptr, /*for_exists=*/false, find, "$"));
  p->window_ = std::make_unique<Window>(*p->root_);
  CollectTables(*p->root_, p->tables_);
  std::sort(p->tables_.begin(), p->tables_.end());
  p->tables_.erase(std::unique(p->tables_.begin(), p->tables_.end()), p->tables_.end());
  return p;
}

Pipeline::~Pipeline() = default;

std::vector<ChangeEvent> Pipeline::Hydrate() {
  window_ = std::make_unique<Window>(*root_);
  HydrateWindow(*root_, nullptr, *window_);
  std::vector<ChangeEvent> events;
  events.reserve(window_->rows.size());
  for (TreeNode& n : WindowTree(*root_, *window_)) events.push_back(MakeAdd({}, std::move(n)));
  return events;
}

std::vector<ChangeEvent> Pipeline::Process(const NetChangeSet& changes) {
  std::vector<ChangeEvent> events;
  if (!MarkTouched(*root_, changes)) return events;
  ComputeCandidates(*root_, changes);
  std::vector<const NetChange*> candidates;
  candidates.reserve(root_->candidates().by_pk.size());
  for (const auto& [pk, ch] : root_->candidates().by_pk) candidates.push_back(ch);
  std::vector<PathStep> path;
  EmitWindow(*root_, nullptr, candidates, *window_, path, events);
  ClearCandidates(*root_);
  return events;
}

std::vector<TreeNode> Pipeline::Result() const { return WindowTree(*root_, *window_); }

}  // namespace rindle
