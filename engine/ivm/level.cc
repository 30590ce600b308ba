#include "engine/ivm/level.h"

#include <algorithm>
#include <set>

#include "base/check.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {

std::vector<SortPart> CompletedSort(const Ast& ast, const TableSpec& spec) {
  std::vector<SortPart> sort;
  std::set<int> used;
  for (const auto& o : ast.order_by) {
    const int c = spec.ColumnIndex(o.column);
    RINDLE_CHECK_GE(c, 0);
    if (used.contains(c)) continue;  // a repeated column cannot change the order
    sort.push_back({c, o.desc});
    used.insert(c);
  }
  for (int pk : spec.primary_key) {
    if (!used.contains(pk)) sort.push_back({pk, false});
  }
  return sort;
}

namespace {

absl::StatusOr<int> ColumnAt(const TableSpec& spec, std::string_view table,
                             const std::string& column, const std::string& path) {
  const int c = spec.ColumnIndex(column);
  if (c < 0) {
    return absl::InvalidArgumentError(StrCat(path, ": unknown column \"", column,
                                             "\" in table \"", table, "\""));
  }
  return c;
}

// Resolves a correlation's columns against the parent and child tables.
absl::Status ResolveCorrelation(const Correlation& corr, const TableSpec& parent,
                                std::string_view parent_table, const TableSpec& child,
                                std::string_view child_table, const std::string& path,
                                std::vector<int>* parent_cols, std::vector<int>* child_cols) {
  if (corr.parent_field.empty() || corr.parent_field.size() != corr.child_field.size()) {
    return absl::InvalidArgumentError(
        StrCat(path, ".correlation: parentField and childField must be non-empty and equally "
                     "long (got ",
               corr.parent_field.size(), " and ", corr.child_field.size(), ")"));
  }
  for (size_t i = 0; i < corr.parent_field.size(); ++i) {
    ASSIGN_OR_RETURN(int p, ColumnAt(parent, parent_table, corr.parent_field[i],
                                     StrCat(path, ".correlation.parentField[", i, "]")));
    ASSIGN_OR_RETURN(int c, ColumnAt(child, child_table, corr.child_field[i],
                                     StrCat(path, ".correlation.childField[", i, "]")));
    parent_cols->push_back(p);
    child_cols->push_back(c);
  }
  return absl::OkStatus();
}

// Appends `part` unless its column is already ordered (a repeat cannot change the order).
void AppendIfNew(std::vector<SortPart>& sort, SortPart part) {
  for (const SortPart& p : sort) {
    if (p.column == part.column) return;
  }
  sort.push_back(part);
}

// Resolves a related/EXISTS subquery's child table and correlation into `edge` (child not built).
absl::Status ResolveEdge(const CorrelatedSubquery& rel, const TableSpec& spec,
                         std::string_view table, const Level::TableFinder& find,
                         const std::string& rpath, LevelEdge* edge) {
  if (rel.subquery == nullptr) {
    return absl::InvalidArgumentError(StrCat(rpath, ".subquery: missing"));
  }
  Table* child_table = find(rel.subquery->table);
  if (child_table == nullptr) {
    return absl::NotFoundError(
        StrCat(rpath, ".subquery.table: unknown table \"", rel.subquery->table, "\""));
  }
  edge->alias = rel.subquery->alias.value_or("");
  return ResolveCorrelation(rel.correlation, spec, table, child_table->spec(),
                            rel.subquery->table, rpath, &edge->parent_cols, &edge->child_cols);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Level>> Level::Build(const Ast& ast,
                                                    const std::vector<int>* key_cols,
                                                    bool for_exists, const TableFinder& find,
                                                    const std::string& path) {
  Table* table = find(ast.table);
  if (table == nullptr) {
    return absl::NotFoundError(StrCat(path, ".table: unknown table \"", ast.table, "\""));
  }
  // On an error below, the destructor releases every index acquired so far.
  std::unique_ptr<Level> level(new Level());
  level->table_ = table;
  level->candidates_.by_pk =
      absl::btree_map<IndexEntry, const NetChange*, EntryLess>(EntryLess{&table->pk_sort()});
  if (key_cols != nullptr) level->key_cols_ = *key_cols;
  level->key_probe_ = FirstOccurrences(level->key_cols_);
  level->limit_ = ast.limit;  // before InitSource: the limit decides which index serves
  if (ast.one && (!level->limit_ || *level->limit_ > 1)) level->limit_ = 1;
  RETURN_IF_ERROR(level->InitSource(ast, for_exists, path));
  if (ast.where) RETURN_IF_ERROR(level->CompileWhere(ast, find, path));
  if (ast.start) RETURN_IF_ERROR(level->InitStart(ast, path));

  const TableSpec& spec = table->spec();
  auto shape = std::make_shared<QueryShape>();
  shape->table = ast.table;
  shape->spec = spec;
  shape->sort = *level->sort_;
  shape->singular = ast.one;
  shape->count = ast.aggregate.has_value() && *ast.aggregate == "count";
  if (ast.select) shape->select = *ast.select;
  if (!for_exists) RETURN_IF_ERROR(level->BuildRelated(ast, find, path, shape.get()));
  level->shape_ = std::move(shape);
  return level;
}

absl::Status Level::InitSource(const Ast& ast, bool for_exists, const std::string& path) {
  const TableSpec& spec = table_->spec();
  for (size_t i = 0; i < ast.order_by.size(); ++i) {
    RETURN_IF_ERROR(ColumnAt(spec, ast.table, ast.order_by[i].column,
                             StrCat(path, ".orderBy[", i, "]"))
                        .status());
  }
  sort_ = std::make_unique<std::vector<SortPart>>(CompletedSort(ast, spec));
  // A keyed level that never stops a scan early (EXISTS: any member; no limit: the whole run
  // enters a window that sorts itself) needs only its runs contiguous: share any index leading
  // with the key columns (table.h AcquireRunIndex) instead of building one per sort.
  if (!key_cols_.empty() && (for_exists || !limit_)) {
    scan_sort_ = std::make_unique<std::vector<SortPart>>();
    index_ = &table_->AcquireRunIndex(key_cols_, scan_sort_.get());
    return absl::OkStatus();
  }
  // Scan order: a child level reads one parent's run, so the key columns lead.
  std::vector<SortPart> scan;
  for (int c : key_cols_) scan.push_back({c, false});
  if (for_exists) {
    for (int pk : spec.primary_key) scan.push_back({pk, false});
  } else {
    scan.insert(scan.end(), sort_->begin(), sort_->end());
  }
  scan_sort_ = std::make_unique<std::vector<SortPart>>(std::move(scan));
  index_ = &table_->AcquireIndex(*scan_sort_);
  return absl::OkStatus();
}

void Level::AcquireParentIndex(LevelEdge* edge) {
  // Its readers walk one key's whole run (pipeline.cc ForEachParent): any run index serves.
  edge->parent_index = &table_->AcquireRunIndex(edge->parent_cols, &edge->parent_index_sort);
  edge->parent_probe = FirstOccurrences(edge->parent_cols);
}

std::vector<int> Level::FirstOccurrences(const std::vector<int>& cols) {
  std::vector<int> out;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (std::find(cols.begin(), cols.begin() + i, cols[i]) == cols.begin() + i) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

absl::Status Level::CompileWhere(const Ast& ast, const TableFinder& find,
                                 const std::string& path) {
  const TableSpec& spec = table_->spec();
  // Each EXISTS leaf becomes an edge to its subquery level; the filter refers to it by index.
  auto add_exists = [&](const Condition& c, const std::string& cpath) -> absl::StatusOr<int> {
    const CorrelatedSubquery& rel = c.related;
    const std::string rpath = StrCat(cpath, ".related");
    LevelEdge edge;
    RETURN_IF_ERROR(ResolveEdge(rel, spec, ast.table, find, rpath, &edge));
    ASSIGN_OR_RETURN(edge.child, Build(*rel.subquery, &edge.child_cols, /*for_exists=*/true,
                                       find, StrCat(rpath, ".subquery")));
    AcquireParentIndex(&edge);
    for (int i : edge.child->key_probe_) edge.exists_probe.push_back(edge.parent_cols[i]);
    exists_.push_back(std::move(edge));
    return static_cast<int>(exists_.size() - 1);
  };
  ASSIGN_OR_RETURN(filter_, Filter::Compile(*ast.where, spec, StrCat(path, ".where"), add_exists));
  return absl::OkStatus();
}

absl::Status Level::InitStart(const Ast& ast, const std::string& path) {
  const TableSpec& spec = table_->spec();
  has_start_ = true;
  start_exclusive_ = ast.start->exclusive;
  for (const auto& [name, value] : ast.start->row) {
    RETURN_IF_ERROR(ColumnAt(spec, ast.table, name, StrCat(path, ".start.row.", name)).status());
  }
  // The cursor is a row over the completed sort; a sort column it leaves out compares as null
  // (the real engine's and Zero's rule: fixtures/rindle-wasm/errors.json).
  for (const SortPart& part : *sort_) {
    const std::string& col = spec.columns[part.column].name;
    Value v;
    for (const auto& [name, value] : ast.start->row) {
      if (name == col) v = value;
    }
    start_values_.emplace_back(part.column, v);
  }
  return absl::OkStatus();
}

absl::Status Level::BuildRelated(const Ast& ast, const TableFinder& find, const std::string& path,
                                 QueryShape* shape) {
  const TableSpec& spec = table_->spec();
  for (size_t i = 0; i < ast.related.size(); ++i) {
    const CorrelatedSubquery& rel = ast.related[i];
    const std::string rpath = StrCat(path, ".related[", i, "]");
    LevelEdge edge;
    RETURN_IF_ERROR(ResolveEdge(rel, spec, ast.table, find, rpath, &edge));
    ASSIGN_OR_RETURN(edge.child, Build(*rel.subquery, &edge.child_cols, /*for_exists=*/false,
                                       find, StrCat(rpath, ".subquery")));
    if (!key_cols_.empty()) AcquireParentIndex(&edge);
    edge.parent_probe = FirstOccurrences(edge.parent_cols);
    edge.node_key_sort = std::make_unique<std::vector<SortPart>>();
    for (int c : edge.parent_cols) AppendIfNew(*edge.node_key_sort, {c, false});
    for (int c : spec.primary_key) AppendIfNew(*edge.node_key_sort, {c, false});
    if (rel.hidden) {
      auto hidden = std::make_shared<QueryShape>(*edge.child->shape_);
      hidden->hidden = true;
      edge.child->shape_ = std::move(hidden);
    }
    shape->relationships.push_back(
        {edge.alias, edge.parent_cols, edge.child_cols, edge.child->shape_});
    related_.push_back(std::move(edge));
  }
  return absl::OkStatus();
}

Level::~Level() {
  for (auto* edges : {&exists_, &related_}) {
    for (LevelEdge& e : *edges) {
      if (e.parent_index != nullptr) table_->ReleaseIndex(e.parent_index_sort);
    }
  }
  if (index_ != nullptr) table_->ReleaseIndex(*scan_sort_);
}

std::optional<RowValues> Level::KeyOf(const RowValues& row, const std::vector<int>& cols) {
  RowValues key;
  key.reserve(cols.size());
  for (int c : cols) {
    if (row[c].is_null()) return std::nullopt;
    key.push_back(row[c]);
  }
  return key;
}

bool Level::KeyEquals(const RowValues& row, const RowValues& key) const {
  for (size_t i = 0; i < key_cols_.size(); ++i) {
    const Value& v = row[key_cols_[i]];
    if (v.is_null() || CompareValues(v, key[i]) != 0) return false;
  }
  return true;
}

bool Level::Member(const Row& row) const {
  if (row == nullptr) return false;
  if (!filter_.Eval(*row, *this)) return false;
  if (has_start_ && !start_values_.empty()) {
    CursorProbe probe{&start_values_, start_exclusive_};
    RowOrderLess less{sort_.get()};
    if (less.CompareProbe(*row, probe) <= 0) return false;
  }
  return true;
}

bool Level::MemberUnder(const Row& row, const RowValues* key) const {
  if (row == nullptr) return false;
  if (key != nullptr && !KeyEquals(*row, *key)) return false;
  return Member(row);
}

bool Level::InRun(const Row& row, const RowValues* key) const {
  return key == nullptr || KeyEquals(*row, *key);
}

bool Level::Exists(int edge, const RowValues& row) const {
  const LevelEdge& e = exists_[edge];
  for (int c : e.parent_cols) {
    if (row[c].is_null()) return false;  // a null never correlates
  }
  const Level& child = *e.child;
  if (child.limit_ && *child.limit_ <= 0) return false;
  // Probe the child's run with the parent's cells in place (no key copy per call).
  const KeyProbe probe{&row, &e.exists_probe};
  for (auto it = child.index_->lower_bound(probe); it != child.ScanEnd(); ++it) {
    for (size_t i = 0; i < e.parent_cols.size(); ++i) {
      if (CompareValues((**it)[child.key_cols_[i]], row[e.parent_cols[i]]) != 0) return false;
    }
    if (child.Member(*it)) return true;
  }
  return false;
}

RowIndexSet::const_iterator Level::ScanBegin(const RowValues* key) const {
  if (key != nullptr) return index_->lower_bound(KeyProbe{key, &key_probe_});
  if (has_start_ && !start_values_.empty()) {
    return index_->lower_bound(CursorProbe{&start_values_, start_exclusive_});
  }
  return index_->begin();
}

RowIndexSet::const_iterator Level::ScanAfter(const Row& bound) const {
  return index_->upper_bound(bound);
}

}  // namespace rindle
