// fresh_memo.cc — see fresh_memo.h.
#include "properties/fresh_memo.h"

#include <bit>
#include <utility>

#include "absl/hash/hash.h"
#include "oracles/fresh_query.h"

namespace rindle::props {
namespace {

bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNull: return true;
    case Value::Kind::kBool: return a.as_bool() == b.as_bool();
    case Value::Kind::kInt: return a.as_int() == b.as_int();
    case Value::Kind::kDouble:
      return std::bit_cast<uint64_t>(a.as_double()) == std::bit_cast<uint64_t>(b.as_double());
    case Value::Kind::kString: return a.as_string() == b.as_string();
  }
  return false;
}

bool SameValues(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameValue(a[i], b[i])) return false;
  }
  return true;
}

bool SamePosition(const ValuePosition& a, const ValuePosition& b) {
  return a.kind == b.kind && a.column == b.column && SameValue(a.literal, b.literal) &&
         a.is_list == b.is_list && SameValues(a.list, b.list);
}

bool SameSubquery(const CorrelatedSubquery& a, const CorrelatedSubquery& b) {
  if (a.hidden != b.hidden || a.correlation.parent_field != b.correlation.parent_field ||
      a.correlation.child_field != b.correlation.child_field) {
    return false;
  }
  if (a.subquery == b.subquery) return true;
  return a.subquery != nullptr && b.subquery != nullptr && AstEqual(*a.subquery, *b.subquery);
}

bool SameCondition(const Condition& a, const Condition& b) {
  if (a.type != b.type || a.op != b.op || a.not_exists != b.not_exists || a.flip != b.flip ||
      !SamePosition(a.left, b.left) || !SamePosition(a.right, b.right) ||
      a.conditions.size() != b.conditions.size() || !SameSubquery(a.related, b.related)) {
    return false;
  }
  for (size_t i = 0; i < a.conditions.size(); ++i) {
    if (!SameCondition(a.conditions[i], b.conditions[i])) return false;
  }
  return true;
}

bool SameStart(const Start& a, const Start& b) {
  if (a.exclusive != b.exclusive || a.row.size() != b.row.size()) return false;
  for (size_t i = 0; i < a.row.size(); ++i) {
    if (a.row[i].first != b.row[i].first || !SameValue(a.row[i].second, b.row[i].second)) {
      return false;
    }
  }
  return true;
}

const PlainTable& TableOf(const PlainTables& tables, const std::string& name) {
  static const PlainTable kEmpty;
  auto it = tables.find(name);
  return it == tables.end() ? kEmpty : it->second;
}

uint64_t HashTable(const PlainTable& t) {
  size_t h = absl::HashOf(t.size());
  for (const auto& [pk, row] : t) h = absl::HashOf(h, row);
  return h;
}

// A cheap hash of an AST's top level (only narrows the AstEqual candidates).
uint64_t AstShapeHash(const Ast& ast) {
  size_t h = absl::HashOf(ast.table, ast.alias, ast.limit, ast.one, ast.related.size(),
                          ast.where.has_value(), ast.start.has_value());
  for (const OrderPart& o : ast.order_by) h = absl::HashOf(h, o.column, o.desc);
  return h;
}

}  // namespace

bool AstEqual(const Ast& a, const Ast& b) {
  if (&a == &b) return true;
  if (a.table != b.table || a.alias != b.alias || a.limit != b.limit || a.one != b.one ||
      a.select != b.select || a.aggregate != b.aggregate ||
      a.order_by.size() != b.order_by.size() || a.related.size() != b.related.size() ||
      a.where.has_value() != b.where.has_value() || a.start.has_value() != b.start.has_value()) {
    return false;
  }
  for (size_t i = 0; i < a.order_by.size(); ++i) {
    if (a.order_by[i].column != b.order_by[i].column ||
        a.order_by[i].desc != b.order_by[i].desc) {
      return false;
    }
  }
  if (a.where && !SameCondition(*a.where, *b.where)) return false;
  if (a.start && !SameStart(*a.start, *b.start)) return false;
  for (size_t i = 0; i < a.related.size(); ++i) {
    if (!SameSubquery(a.related[i], b.related[i])) return false;
  }
  return true;
}

bool PlainTableSame(const PlainTable& a, const PlainTable& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (!SameValues(ia->first, ib->first) || !SameValues(ia->second, ib->second)) return false;
  }
  return true;
}

bool TreesSame(const std::vector<TreeNode>& a, const std::vector<TreeNode>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const TreeNode& x = a[i];
    const TreeNode& y = b[i];
    if ((x.row == nullptr) != (y.row == nullptr)) return false;
    if (x.row != y.row && x.row != nullptr && !SameValues(*x.row, *y.row)) return false;
    if (x.relationships.size() != y.relationships.size()) return false;
    for (size_t r = 0; r < x.relationships.size(); ++r) {
      if (x.relationships[r].first != y.relationships[r].first ||
          !TreesSame(x.relationships[r].second, y.relationships[r].second)) {
        return false;
      }
    }
  }
  return true;
}

FreshMemo::Slot& FreshMemo::SlotFor(const Ast& ast, const Schema& schema) {
  std::vector<Slot*>& bucket = by_shape_[AstShapeHash(ast)];
  for (Slot* s : bucket) {
    if (s->schema == &schema && AstEqual(s->ast, ast)) return *s;
  }
  Slot& s = slots_.emplace_back();
  bucket.push_back(&s);
  s.ast = ast;
  s.table_names = AstTables(ast);
  s.schema = &schema;
  return s;
}

FreshMemo::Scope::Scope(FreshMemo* memo, const PlainTables& tables) : memo_(memo) {
  if (memo_ == nullptr) return;
  memo_->scoped_ = &tables;
  memo_->scoped_ids_.clear();
}

FreshMemo::Scope::~Scope() {
  if (memo_ == nullptr) return;
  memo_->scoped_ = nullptr;
  memo_->scoped_ids_.clear();
}

int64_t FreshMemo::IdOf(const PlainTables& tables, const std::string& name) {
  const bool scoped = &tables == scoped_;
  if (scoped) {
    if (auto it = scoped_ids_.find(name); it != scoped_ids_.end()) return it->second;
  }
  const PlainTable& t = TableOf(tables, name);
  const uint64_t hash = HashTable(t);
  std::deque<Content>& pool = contents_[name];
  int64_t id = 0;
  for (auto it = pool.begin(); it != pool.end(); ++it) {
    if (it->hash != hash || !PlainTableSame(it->rows, t)) continue;
    id = it->id;
    if (it != pool.begin()) {  // most recent first
      Content c = std::move(*it);
      pool.erase(it);
      pool.push_front(std::move(c));
    }
    break;
  }
  if (id == 0) {
    id = next_id_++;
    if (pool.size() >= kContentsPerTable) pool.pop_back();
    pool.push_front(Content{id, hash, t});
  }
  if (scoped) scoped_ids_[name] = id;
  return id;
}

const absl::StatusOr<std::vector<TreeNode>>& FreshMemo::Query(const Ast& ast,
                                                              const PlainTables& tables,
                                                              const Schema& schema) {
  Slot& slot = SlotFor(ast, schema);
  std::vector<int64_t> ids;
  ids.reserve(slot.table_names.size());
  for (const std::string& name : slot.table_names) ids.push_back(IdOf(tables, name));
  for (auto it = slot.answers.begin(); it != slot.answers.end(); ++it) {
    if (it->ids != ids) continue;
    ++hits_;
    if (it != slot.answers.begin()) {  // most recent first
      Answer a = std::move(*it);
      slot.answers.erase(it);
      slot.answers.push_front(std::move(a));
    }
    return slot.answers.front().result;
  }
  ++misses_;
  if (slot.answers.size() >= kSnapshotsPerAst) slot.answers.pop_back();
  slot.answers.push_front(Answer{std::move(ids), FreshQuery(ast, tables, schema)});
  return slot.answers.front().result;
}

}  // namespace rindle::props
