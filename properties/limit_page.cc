// limit_page.cc — limit-page (families.h; seed 002 §8.5 footprint: a limited query ships limit+1
// rows so the client can keep its window full optimistically): a limited view never shows a page
// shorter than the authority's state at the client's cut, with the client's pending predictions
// on top, lets it show — when the seed's witness row covers the change.
//
// Expectation (never the client's own rows: under a footprint without the witness they lack it,
// and a check over them agrees with the bug):
//   S    the authority's store, used only while the authority is at exactly the (boot, cv) the
//        client model (oracles/client_model.h, fed by the frames the network delivered) says the
//        view's source was released at — the store IS the state at that cut then;
//   F    the seed's promise over S: the first limit+1 rows of the root level (oracles/fresh_query
//        with the limit raised by one, related levels dropped) — what a correct footprint ships;
//   D    the client model's pending predictions: the rows its expected head differs from its
//        expected synced store in, on the view's root table (the harness's copies of the client
//        mutators replayed over the harness's record; never the backend's pending list);
//   want = |fresh(root with limit L, F ⊕ D)|.
// The user's view shows at least `want` root rows: the client's head holds F ⊕ D (it holds F by
// the seed; D is its own predictions), and a top-L window over a superset is no shorter.
// Checked on root levels with a limit (not one(), not a count) whose where has no correlated
// subquery (an EXISTS witness is another footprint's promise), on a client the model can predict
// (the head_sync_pending skips: room flux, the §4.2 reorder window, an overflow or coverage
// change window). Counters: check.limit_page.checked (a limited view compared with pending
// writes on its table), check.limit_page.witness_needed (the pending writes moved a row of the
// page out while the authority's state refills it: the case the +1 row exists for).
#include <algorithm>

#include "base/str_util.h"
#include "oracles/fresh_query.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

// Whether the view's root level is one this property judges (see the header).
bool Judged(const Ast& ast) {
  if (!ast.limit || *ast.limit <= 0 || ast.one || ast.aggregate) return false;
  return !ast.where || !ConditionHasSubquery(*ast.where);
}

// The root level alone, limited to `limit`.
Ast RootOnly(const Ast& ast, int64_t limit) {
  Ast out = ast;
  out.related.clear();
  out.select.reset();
  out.limit = limit;
  return out;
}

RowValues PkOf(const TableSpec& spec, const RowValues& row) {
  RowValues pk;
  for (int i : spec.primary_key) pk.push_back(row[static_cast<size_t>(i)]);
  return pk;
}

// `table`'s rows where the model's head differs from its synced store: pk → head row (nullopt:
// the predictions removed it).
std::map<RowValues, std::optional<RowValues>, PkLess> PendingDiff(const ClientModel& m,
                                                                  const std::string& table) {
  std::map<RowValues, std::optional<RowValues>, PkLess> out;
  static const PlainTable kEmpty;
  auto s = m.synced().find(table);
  auto h = m.head().find(table);
  const PlainTable& synced = s == m.synced().end() ? kEmpty : s->second;
  const PlainTable& head = h == m.head().end() ? kEmpty : h->second;
  for (const auto& [pk, row] : head) {
    auto it = synced.find(pk);
    if (it == synced.end() || CompareRowValues(it->second, row) != 0) out[pk] = row;
  }
  for (const auto& [pk, row] : synced) {
    if (!head.contains(pk)) out[pk] = std::nullopt;
  }
  return out;
}

class LimitPage : public PropertyFamily {
 public:
  explicit LimitPage(OptimisticInvariants* invariants) : invariants_(invariants) {}

  MaybeViolation AfterStepClient(const World& w, const ClientState& c,
                                 StepCounters* counters) override {
    if (c.room_flux) return std::nullopt;
    absl::Status error;
    const ClientModel* model = invariants_->Model(c.id, ViewInfosOf(c), *c.sent, &error);
    if (model == nullptr || !error.ok() || model->Pending().empty()) return std::nullopt;
    if (model->InReorderWindow() || model->InCoverageChange()) return std::nullopt;
    const AuthorityView& a = *w.authority;
    const ClientModel::Cut now{a.boot_id(), a.cv()};
    for (const auto& [qid, view] : *c.views) {
      if (!Judged(view.second)) continue;
      auto src = model->sources().find(qid);
      if (src == model->sources().end() || !src->second.current || src->second.cut != now) {
        continue;
      }
      if (auto v = CheckView(w, c, qid, view.second, *model, counters)) return v;
    }
    return std::nullopt;
  }

 private:
  MaybeViolation CheckView(const World& w, const ClientState& c, int64_t qid, const Ast& ast,
                           const ClientModel& m, StepCounters* counters) {
    const auto diff = PendingDiff(m, ast.table);
    if (diff.empty()) return std::nullopt;
    const ResultView* v = c.backend->View(qid);
    if (v == nullptr) return std::nullopt;  // view==fresh reports a missing view
    const PlainTables& store = Store(w);
    const int64_t limit = *ast.limit;
    auto promised = FreshQuery(RootOnly(ast, limit + 1), store, *w.schema);
    if (!promised.ok()) return std::nullopt;  // view==fresh reports a query the oracle refuses
    const TableSpec& spec = w.schema->at(ast.table);
    PlainTables held;  // F ⊕ D on the root table
    PlainTable& rows = held[ast.table];
    for (const TreeNode& n : *promised) rows[PkOf(spec, *n.row)] = *n.row;
    for (const auto& [pk, row] : diff) {
      if (row) {
        rows[pk] = *row;
      } else {
        rows.erase(pk);
      }
    }
    auto want = FreshQuery(RootOnly(ast, limit), held, *w.schema);
    if (!want.ok()) return std::nullopt;
    ++(*counters)["check.limit_page.checked"];
    const int64_t page = std::min<int64_t>(limit, static_cast<int64_t>(promised->size()));
    size_t kept = 0;  // rows of the authority's page the predictions left in place
    for (int64_t i = 0; i < page; ++i) {
      if (!diff.contains(PkOf(spec, *(*promised)[static_cast<size_t>(i)].row))) ++kept;
    }
    if (promised->size() > static_cast<size_t>(limit) && kept < static_cast<size_t>(page) &&
        want->size() >= static_cast<size_t>(page)) {
      ++(*counters)["check.limit_page.witness_needed"];
    }
    if (v->root_size() >= want->size()) return std::nullopt;
    return Violation{"limit-page",
                     StrCat(c.id, " view ", qid, " (", ast.table, " limit ", limit, ") shows ",
                            v->root_size(), " rows, but the authority's state at the view's cut (",
                            m.sources().at(qid).cut->boot, ", ", m.sources().at(qid).cut->cv,
                            ") with the ", diff.size(), " rows its pending predictions wrote fills ",
                            want->size(), ": the footprint did not ship the refill row")};
  }

  // The authority's store as plain tables, recomputed when the authority's cut moved.
  const PlainTables& Store(const World& w) {
    const AuthorityView& a = *w.authority;
    const std::tuple<int64_t, int64_t, int64_t> key{a.boot_id(), a.cv(), a.rollbacks()};
    if (!store_ || key != store_key_) {
      store_ = PlainTablesOf(a.store(), *w.schema, false);
      store_key_ = key;
    }
    return *store_;
  }

  OptimisticInvariants* invariants_;
  std::optional<PlainTables> store_;
  std::tuple<int64_t, int64_t, int64_t> store_key_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeLimitPage(OptimisticInvariants* invariants) {
  return std::make_unique<LimitPage>(invariants);
}

}  // namespace rindle::props
