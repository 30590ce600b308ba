#include "engine/str_util.h"
#include "engine/pipeline.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "engine/check.h"
#include "engine/status_macros.h"

namespace rindle {

std::vector<SortPart> CompletedSort(const Ast& ast, const TableSpec& spec) {
  std::vector<SortPart> sort;
  std::set<int> used;
  for (const auto& o : ast.order_by) {
    const int c = spec.ColumnIndex(o.column);
    RINDLE_CHECK_GE(c, 0);
    sort.push_back({c, o.desc});
    used.insert(c);
  }
  for (int pk : spec.primary_key) {
    if (!used.contains(pk)) sort.push_back({pk, false});
  }
  return sort;
}

absl::StatusOr<std::unique_ptr<Pipeline>> Pipeline::Build(const Ast& ast, const TableFinder& find) {
  if (!ast.related.empty()) {
    return absl::UnimplementedError(
        "$.related: related subqueries are not yet supported in this engine");
  }
  Table* table = find(ast.table);
  if (table == nullptr) {
    return absl::NotFoundError(StrCat("$.table: unknown table \"", ast.table, "\""));
  }
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->table_ = table;
  p->tables_ = {ast.table};
  const TableSpec& spec = table->spec();
  if (ast.where) {
    ASSIGN_OR_RETURN(p->where_, Predicate::Compile(*ast.where, spec, "$.where"));
  }
  p->sort_ = std::make_unique<std::vector<SortPart>>(CompletedSort(ast, spec));
  if (ast.start) {
    p->has_start_ = true;
    p->start_exclusive_ = ast.start->exclusive;
    // The cursor is a row over the completed sort; a sort column it leaves out compares as null
    // (the real engine's and Zero's rule: fixtures/rindle-wasm/errors.json).
    for (const SortPart& part : *p->sort_) {
      const std::string& col = spec.columns[part.column].name;
      Value v;
      for (const auto& [name, value] : ast.start->row) {
        if (name == col) v = value;
      }
      p->start_values_.emplace_back(part.column, v);
    }
  }
  p->limit_ = ast.limit;
  if (ast.one && (!p->limit_ || *p->limit_ > 1)) p->limit_ = 1;
  p->shape_.table = ast.table;
  p->shape_.spec = spec;
  p->shape_.sort = *p->sort_;
  p->shape_.singular = ast.one;
  if (ast.select) p->shape_.select = *ast.select;
  p->index_ = &table->AcquireIndex(*p->sort_);
  p->window_ = std::make_unique<RowIndexSet>(RowOrderLess{p->sort_.get()});
  return p;
}

Pipeline::~Pipeline() {
  if (table_ != nullptr && index_ != nullptr) table_->ReleaseIndex(*sort_);
}

bool Pipeline::Member(const Row& row) const {
  if (row == nullptr) return false;
  if (!where_.Eval(*row)) return false;
  if (has_start_ && !start_values_.empty()) {
    CursorProbe probe{&start_values_, start_exclusive_};
    RowOrderLess less{sort_.get()};
    if (less.CompareProbe(row, probe) <= 0) return false;
  }
  return true;
}

std::vector<ChangeEvent> Pipeline::Hydrate() {
  window_->clear();
  if (!limit_ || *limit_ > 0) {
    auto it = index_->begin();
    if (has_start_ && !start_values_.empty()) {
      it = index_->lower_bound(CursorProbe{&start_values_, start_exclusive_});
    }
    for (; it != index_->end(); ++it) {
      if (limit_ && static_cast<int64_t>(window_->size()) >= *limit_) break;
      if (Member(*it)) window_->insert(*it);
    }
  }
  std::vector<ChangeEvent> events;
  events.reserve(window_->size());
  for (const Row& row : *window_) {
    ChangeEvent e;
    e.op.kind = ChangeOp::Kind::kAdd;
    e.op.node.row = row;
    events.push_back(std::move(e));
  }
  return events;
}

std::vector<ChangeEvent> Pipeline::Process(const NetChangeSet& changes) {
  std::vector<ChangeEvent> events;
  auto tc = changes.find(table_->name());
  if (tc == changes.end() || tc->second.empty()) return events;
  const TableNetChanges& net = tc->second;
  const bool limited = limit_.has_value();
  const int64_t limit = limited ? *limit_ : 0;
  const bool was_full = limited && static_cast<int64_t>(window_->size()) >= limit;
  const Row bound = (was_full && !window_->empty()) ? *window_->rbegin() : nullptr;
  const std::vector<SortPart>& sort = *sort_;

  // pk → (row in the window before, row in the window now).
  absl::btree_map<RowValues, NetChange, RowKeyLess> delta;
  auto touch = [&](const Row& row) -> NetChange& {
    RowValues pk = table_->spec().PkOf(*row);
    auto it = delta.find(pk);
    if (it == delta.end()) it = delta.emplace(std::move(pk), NetChange{}).first;
    return it->second;
  };
  // By value: the caller may pass a reference into the window, which erase() destroys.
  auto erase_from_window = [&](Row row) {
    if (window_->erase(row) == 0) return;
    NetChange& d = touch(row);
    if (!d.before && !d.after) d.before = row;  // first touch: it was in the window
    d.after = nullptr;
  };
  auto insert_into_window = [&](Row row) {
    if (!window_->insert(row).second) return;
    NetChange& d = touch(row);
    d.after = row;
  };

  // 1. Rows that were members leave the window (if there).
  for (const auto& [pk, ch] : net) {
    if (ch.before && Member(ch.before)) erase_from_window(ch.before);
  }
  // 2. Rows that are members now enter it when they sort within the old bound.
  if (!limited || limit > 0) {
    for (const auto& [pk, ch] : net) {
      if (!Member(ch.after)) continue;
      if (was_full && bound && CompareBySort(sort, *ch.after, *bound) > 0) continue;
      if (was_full && !bound) continue;
      insert_into_window(ch.after);
    }
  }
  // 3. The window never exceeds the limit.
  while (limited && static_cast<int64_t>(window_->size()) > limit) {
    erase_from_window(*window_->rbegin());
  }
  // 4. A window that was full and lost rows refills from the old bound.
  if (was_full && bound && static_cast<int64_t>(window_->size()) < limit) {
    for (auto it = index_->upper_bound(bound);
         it != index_->end() && static_cast<int64_t>(window_->size()) < limit; ++it) {
      if (Member(*it)) insert_into_window(*it);
    }
  }
  RINDLE_CHECK(!limited || static_cast<int64_t>(window_->size()) <= limit);

  std::vector<ChangeEvent> removes, edits, adds;
  for (const auto& [pk, d] : delta) {
    if (d.before && !d.after) {
      ChangeEvent e;
      e.op.kind = ChangeOp::Kind::kRemove;
      e.op.row = d.before;
      removes.push_back(std::move(e));
    } else if (!d.before && d.after) {
      ChangeEvent e;
      e.op.kind = ChangeOp::Kind::kAdd;
      e.op.node.row = d.after;
      adds.push_back(std::move(e));
    } else if (d.before && d.after && CompareRowValues(*d.before, *d.after) != 0) {
      ChangeEvent e;
      e.op.kind = ChangeOp::Kind::kEdit;
      e.op.old_row = d.before;
      e.op.new_row = d.after;
      edits.push_back(std::move(e));
    }
  }
  events.reserve(removes.size() + edits.size() + adds.size());
  for (auto& e : removes) events.push_back(std::move(e));
  for (auto& e : edits) events.push_back(std::move(e));
  for (auto& e : adds) events.push_back(std::move(e));
  return events;
}

std::vector<TreeNode> Pipeline::Result() const {
  std::vector<TreeNode> out;
  out.reserve(window_->size());
  for (const Row& row : *window_) {
    TreeNode n;
    n.row = row;
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace rindle
