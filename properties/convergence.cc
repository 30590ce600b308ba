// convergence.cc — convergence (families.h; SPEC §4.2): at quiescence every client view equals
// the same query over the authority's store, and the client's synced tables are exactly the
// authority's footprint of its queries. Under projection a client holds, per row, only the
// columns its live subscriptions ship: both sides compare against the store masked by the
// client's Coverage (invariants.h MaskStore).
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
    const Coverage coverage = w.authority->CoverageOf(c.id);
    const PlainTables masked = MaskStore(store, coverage, /*covered_only=*/false);
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;
      if (auto viol = CheckTreeMatchesFresh(
              StrCat(c.id, " view ", qid, " (", view.first.name, ") vs authority"), v->Tree(),
              view.second, masked, *w.schema, "convergence")) {
        return viol;
      }
    }
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
