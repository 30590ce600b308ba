// convergence.cc — convergence (families.h; SPEC §4.2; seed 002 NormalizedSync projection): at
// quiescence
//   - every live view, as its user sees it (engine/presentation.h: the shown levels, related
//     children included, and each level's presented columns — all from the query's AST), equals
//     the fresh-query oracle's evaluation of the same query over the authority's whole store.
//     The expectation never reads what the authority shipped: a projection that leaves out a
//     column the query needs (a child's correlation column, a sort column) makes rows vanish
//     from the client's view, and that shows here (mutants 026, 027);
//   - the client's synced tables are exactly the authority's footprint of its queries. Under
//     projection a client holds, per row, only the columns its live subscriptions ship: this
//     side compares against the store masked by the client's Coverage (invariants.h MaskStore),
//     the authority's own account of what it shipped, checked against what the client holds.
#include <optional>

#include "base/str_util.h"
#include "oracles/diff.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class Convergence : public PropertyFamily {
 public:
  MaybeViolation AtQuiescenceClient(const World& w, const ClientState& c) override {
    const OptimisticBackend& b = *c.backend;
    if (!store_) store_ = PlainTablesOf(w.authority->store(), *w.schema, false);
    const PlainTables& store = *store_;
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;
      if (auto viol = CheckPresentedMatchesFresh(
              StrCat(c.id, " view ", qid, " (", view.first.name, ") vs authority"), v->Tree(),
              view.second, store, *w.schema, "convergence")) {
        return viol;
      }
    }
    const Coverage coverage = w.authority->CoverageOf(c.id);
    const PlainTables footprint = MaskStore(store, coverage, /*covered_only=*/true);
    const PlainTables synced = PlainTablesOf(b.engine(), *w.schema, /*sync=*/true);
    if (!PlainTablesEqual(footprint, synced)) {
      return Violation{"convergence",
                       StrCat(c.id, ": synced rows differ from the authority's masked footprint: ",
                              TablesDiff(PlainTablesToJson(footprint), PlainTablesToJson(synced),
                                         *w.schema))};
    }
    return std::nullopt;
  }

 private:
  std::optional<PlainTables> store_;  // the authority's store, read once (quiescence is final)
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeConvergence() { return std::make_unique<Convergence>(); }

}  // namespace rindle::props
