// view_fresh.cc — events==view and view==fresh (families.h; SPEC §4.1, §4.2): after every step
// each dirty client's remote views fold to the engine's own materialization and equal the fresh
// query over its head; when the authority moved, each of its subscriptions (the lmid query
// aside) equals the fresh query over its store.
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class ViewFresh : public PropertyFamily {
 public:
  MaybeViolation AfterStepClient(const World& w, const ClientState& c, StepCounters*) override {
    const OptimisticBackend& b = *c.backend;
    const PlainTables head = PlainTablesOf(b.engine(), *w.schema, false);
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) return Violation{"view==fresh", StrCat(c.id, ": view ", qid, " missing")};
      const std::string who = StrCat(c.id, " view ", qid, " (", view.first.name, ")");
      // Folding the delivered events gave exactly the engine's own materialization.
      if (auto mat = b.engine().QueryResult(qid); mat.ok()) {
        if (auto viol = CheckFoldedMatchesMaterialized(who, *v, *mat)) return viol;
      }
      if (auto viol = CheckViewMatchesFresh(who, *v, view.second, head, *w.schema)) return viol;
    }
    return std::nullopt;
  }

  MaybeViolation AfterStepAuthority(const World& w) override {
    const AuthorityView& a = *w.authority;
    const PlainTables store = PlainTablesOf(a.store(), *w.schema, false);
    for (const auto& [client, qid] : a.Subscriptions()) {
      if (qid == kLmidQid) continue;
      auto tree = a.SubscriptionResult(client, qid);
      const Ast* ast = a.SubscriptionAst(client, qid);
      if (!tree.ok() || ast == nullptr) continue;
      if (auto viol = CheckTreeMatchesFresh(StrCat("authority sub ", client, "/", qid), *tree,
                                            *ast, store, *w.schema, "view==fresh")) {
        return viol;
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeViewFresh() { return std::make_unique<ViewFresh>(); }

}  // namespace rindle::props
