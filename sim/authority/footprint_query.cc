#include "sim/authority/footprint_query.h"

#include <memory>
#include <optional>
#include <utility>
#include <string>

namespace rindle::sim {

namespace {

void CollectSubqueries(const Condition& c, std::vector<const CorrelatedSubquery*>& out) {
  switch (c.type) {
    case Condition::Type::kCorrelatedSubquery: out.push_back(&c.related); break;
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (const Condition& k : c.conditions) CollectSubqueries(k, out);
      break;
    case Condition::Type::kSimple: break;
  }
}

Ast RelaxedSubquery(const Ast& sub, bool& relaxed);

// `c` with every NOT EXISTS leaf read as TRUE (nullopt: the whole condition is TRUE), EXISTS
// subqueries relaxed the same way: its rows are a superset of c's. `relaxed` is set when a NOT
// EXISTS was dropped.
std::optional<Condition> Relax(const Condition& c, bool& relaxed) {
  switch (c.type) {
    case Condition::Type::kSimple: return c;
    case Condition::Type::kCorrelatedSubquery: {
      if (c.not_exists) {
        relaxed = true;
        return std::nullopt;
      }
      Condition out = c;
      out.related.subquery = std::make_shared<const Ast>(RelaxedSubquery(*c.related.subquery, relaxed));
      return out;
    }
    case Condition::Type::kAnd:
    case Condition::Type::kOr: {
      Condition out = c;
      out.conditions.clear();
      for (const Condition& k : c.conditions) {
        std::optional<Condition> r = Relax(k, relaxed);
        if (!r && c.type == Condition::Type::kOr) return std::nullopt;  // TRUE or … = TRUE
        if (r) out.conditions.push_back(*std::move(r));
      }
      if (out.conditions.empty()) return std::nullopt;  // an and of TRUEs
      if (out.conditions.size() == 1) return std::move(out.conditions[0]);
      return out;
    }
  }
  return c;
}

Ast RelaxedSubquery(const Ast& sub, bool& relaxed) {
  Ast out = sub;
  if (sub.where) out.where = Relax(*sub.where, relaxed);
  return out;
}

}  // namespace

Ast FootprintQuery(const Ast& ast) {
  Ast out = ast;
  // NOT EXISTS: a client may hold a parent row through another query without the child that
  // disqualifies it, and would show it. So the level serves the where with every NOT EXISTS read
  // as TRUE — every row that could qualify, each with its witness children (added below) — and,
  // since that superset's first N+1 need not hold the original's window, without its window.
  bool relaxed = false;
  if (ast.where) out.where = Relax(*ast.where, relaxed);
  if (relaxed) {
    out.one = false;
    out.limit.reset();
    out.start.reset();
  }
  if (out.one) {
    out.one = false;
    out.limit = 2;
  } else if (out.limit) {
    *out.limit += 1;
  }
  for (CorrelatedSubquery& rel : out.related) {
    rel.subquery = std::make_shared<const Ast>(FootprintQuery(*rel.subquery));
  }
  if (ast.where) {
    std::vector<const CorrelatedSubquery*> subs;
    CollectSubqueries(*ast.where, subs);
    for (size_t i = 0; i < subs.size(); ++i) {
      CorrelatedSubquery witness;
      witness.correlation = subs[i]->correlation;
      Ast plain = *subs[i]->subquery;
      plain.related.clear();  // an EXISTS subquery's own related are never shown
      Ast inner = FootprintQuery(plain);
      inner.alias = std::string(kWitnessAliasPrefix).append(std::to_string(i));
      witness.subquery = std::make_shared<const Ast>(std::move(inner));
      out.related.push_back(std::move(witness));
    }
  }
  return out;
}

}  // namespace rindle::sim
