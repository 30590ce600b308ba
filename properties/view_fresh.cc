// view_fresh.cc — events==view and view==fresh (families.h; SPEC §4.1, §4.2): after every step
// each dirty client's remote views fold to the engine's own materialization and equal the fresh
// query over its head; when the authority moved, each of its subscriptions (the lmid query
// aside, and the system subs over lifecycle tables) equals the fresh query over its store. A view
// swapped onto a room's twins is checked with its AST remapped onto them (check.view_fresh.swapped).
#include "base/lifecycle_tables.h"
#include "base/str_util.h"
#include "optimistic/room_tables.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class ViewFresh : public PropertyFamily {
 public:
  explicit ViewFresh(std::shared_ptr<FreshMemo> memo) : memo_(std::move(memo)) {}

  MaybeViolation AfterStepClient(const World& w, const ClientState& c,
                                 StepCounters* counters) override {
    ReportMemo(counters);
    const OptimisticBackend& b = *c.backend;
    const PlainTables head = PlainTablesOf(b.engine(), *w.schema, false);
    FreshMemo::Scope scope(memo_.get(), head);
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) return Violation{"view==fresh", StrCat(c.id, ": view ", qid, " missing")};
      const std::string who = StrCat(c.id, " view ", qid, " (", view.first.name, ")");
      // Folding the delivered events gave exactly the engine's own materialization.
      if (auto mat = b.engine().QueryResult(qid); mat.ok()) {
        if (auto viol = CheckFoldedMatchesMaterialized(who, *v, *mat)) return viol;
      }
      if (const std::optional<std::string> room = b.SwappedTo(qid)) {
        // Swapped onto a room's twins (302 §4.1): the view runs its AST remapped onto them.
        if (auto viol = CheckSwappedView(w, b, who, *v, view.second, *room, counters)) return viol;
        continue;
      }
      if (auto viol = CheckViewMatchesFresh(who, *v, view.second, head, *w.schema, memo_.get())) {
        return viol;
      }
    }
    return std::nullopt;
  }

  MaybeViolation AfterStepAuthority(const World& w) override {
    const AuthorityView& a = *w.authority;
    const PlainTables store = PlainTablesOf(a.store(), *w.schema, false);
    FreshMemo::Scope scope(memo_.get(), store);
    for (const auto& [client, qid] : a.Subscriptions()) {
      if (qid == kLmidQid) continue;
      auto tree = a.SubscriptionResult(client, qid);
      const Ast* ast = a.SubscriptionAst(client, qid);
      if (!tree.ok() || ast == nullptr) continue;
      // A system sub's lifecycle table is not in the app schema the fresh query runs over;
      // the room-ledger family judges what its rows carried (room_ledger.cc).
      if (IsLifecycleTable(ast->table)) continue;
      if (auto viol = CheckTreeMatchesFresh(StrCat("authority sub ", client, "/", qid), *tree,
                                            *ast, store, *w.schema, "view==fresh",
                                            memo_.get())) {
        return viol;
      }
    }
    return std::nullopt;
  }

 private:
  static MaybeViolation CheckSwappedView(const World& w, const OptimisticBackend& b,
                                         const std::string& who, const ResultView& v,
                                         const Ast& ast, const std::string& room,
                                         StepCounters* counters) {
    ++(*counters)["check.view_fresh.swapped"];
    Schema schema = *w.schema;
    const RoomTableMap& map = b.RoomTablesFor(room);
    for (const auto& [wire, engine] : map) schema[engine] = w.schema->at(wire);
    const PlainTables head = PlainTablesOf(b.engine(), schema, false);
    return CheckViewMatchesFresh(who, v, RemapAstTables(ast, map), head, schema, nullptr);
  }

  // Adds the memo's hits and misses since the last report (the shared memo also answers the
  // other families; only AfterStepClient gets the counters).
  void ReportMemo(StepCounters* counters) {
    if (memo_ == nullptr) return;
    (*counters)["check.fresh_memo.hit"] += memo_->hits() - reported_hits_;
    (*counters)["check.fresh_memo.miss"] += memo_->misses() - reported_misses_;
    reported_hits_ = memo_->hits();
    reported_misses_ = memo_->misses();
  }

  std::shared_ptr<FreshMemo> memo_;  // may be null
  int64_t reported_hits_ = 0;
  int64_t reported_misses_ = 0;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeViewFresh(std::shared_ptr<FreshMemo> memo) {
  return std::make_unique<ViewFresh>(std::move(memo));
}

}  // namespace rindle::props
