#include "sim/authority/footprint_query.h"

#include <memory>
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

}  // namespace

Ast FootprintQuery(const Ast& ast) {
  Ast out = ast;
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
