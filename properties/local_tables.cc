// local_tables.cc — local-rows, and view==fresh / result-type on local-only views (families.h;
// seed 002 local tables): after a step that reached a client, its engine's local-only tables are
// exactly what it wrote (never rebased, never touched by a server frame, a restart or an
// overflow), and every local-only view is complete, folds to the engine's materialization and
// equals the fresh query over the client's head. At action time: a write_local batch is
// refused only when it wrote a synced table, and then not as an internal error (local-tables).
#include <set>

#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

// The engine's local table `table` (pk order) equals the written model (id order).
bool SameRows(const std::map<std::string, RowValues>& model, const PlainTables& engine_local,
              const std::string& table) {
  const auto it = engine_local.find(table);
  const size_t have = it == engine_local.end() ? 0 : it->second.size();
  if (have != model.size()) return false;
  if (it == engine_local.end()) return true;
  auto m = model.begin();
  for (const auto& [pk, row] : it->second) {
    if (m->second != row) return false;
    ++m;
  }
  return true;
}

MaybeViolation CheckLocalRows(const World& w, const ClientState& c) {
  static const std::map<std::string, RowValues> kNone;
  const PlainTables engine_local = PlainTablesOf(c.backend->engine(), *w.local_schema, false);
  for (const auto& [table, spec] : *w.local_schema) {
    const auto mit = c.local_rows->find(table);
    const auto& model = mit == c.local_rows->end() ? kNone : mit->second;
    if (SameRows(model, engine_local, table)) continue;
    nlohmann::json want = nlohmann::json::array();
    for (const auto& [id, row] : model) want.push_back(RowToJson(row));
    nlohmann::json got = nlohmann::json::array();
    if (auto it = engine_local.find(table); it != engine_local.end()) {
      for (const auto& [pk, row] : it->second) got.push_back(RowToJson(row));
    }
    return Violation{"local-rows", StrCat(c.id, ": local table ", table, " is ", got.dump(),
                                          ", written ", want.dump())};
  }
  return std::nullopt;
}

MaybeViolation CheckLocalViews(const World& w, const ClientState& c) {
  if (c.local_views->empty()) return std::nullopt;
  // The local tables plus every client table a local-only view reads.
  Schema schema = *w.local_schema;
  std::set<std::string> tables;
  for (const auto& [qid, view] : *c.local_views) {
    for (const std::string& t : AstTables(view.second)) tables.insert(t);
  }
  for (const std::string& t : tables) {
    auto it = w.client_schema->find(t);
    if (it != w.client_schema->end()) schema[t] = it->second;
  }
  const OptimisticBackend& b = *c.backend;
  const PlainTables head = PlainTablesOf(b.engine(), schema, false);
  for (const auto& [qid, view] : *c.local_views) {
    const ResultView* v = b.View(qid);
    const std::string who = StrCat(c.id, " local view ", qid, " (", view.first, ")");
    if (v == nullptr) return Violation{"view==fresh", StrCat(who, " missing")};
    if (b.GetResultType(qid) != ResultType::kComplete) {
      return Violation{"result-type", StrCat(who, ": a local-only view must be complete")};
    }
    if (auto mat = b.engine().QueryResult(qid); mat.ok()) {
      if (auto viol = CheckFoldedMatchesMaterialized(who, *v, *mat)) return viol;
    }
    if (auto viol = CheckViewMatchesFresh(who, *v, view.second, head, schema)) return viol;
  }
  return std::nullopt;
}

class LocalTables : public PropertyFamily {
 public:
  MaybeViolation AfterStepLocal(const World& w, const ClientState& c) override {
    if (auto v = CheckLocalRows(w, c)) return v;
    return CheckLocalViews(w, c);
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeLocalTables() { return std::make_unique<LocalTables>(); }

MaybeViolation CheckWriteLocalOutcome(const std::string& client, bool synced,
                                      const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  if (synced && status.code() != absl::StatusCode::kInternal) return std::nullopt;
  return Violation{"local-tables", StrCat(client, ": write_local: ", status.message())};
}

}  // namespace rindle::props
