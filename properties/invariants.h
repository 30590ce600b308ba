// invariants.h — the simulation properties of SPEC §4, as checks the runner calls after every
// step and at quiescence. Stateless functions over the state they are handed; each returns the
// first violation (property name + a minimal expected-vs-actual diff) or nullopt.
//
//   events==view         folding a query's delivered events gives exactly the engine's own
//                        materialized result
//   view==fresh          every live view equals the fresh-query oracle over the tables of the
//                        engine that serves it (client head; authority store)
//   head==sync+pending   (head_sync_pending.cc: against the client model, oracles/client_model.h)
//   convergence          at quiescence every client view equals the same query over the
//                        authority's store
//   authority-model      the authority's store equals the sequential replay of its processed log
// Source: SPEC §4 (1, 2, 3); seed 002 §1.3.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/ivm/view.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/pending.h"
#include "oracles/plain_store.h"

namespace rindle::props {

class FreshMemo;  // fresh_memo.h

struct Violation {
  std::string property;
  std::string message;
};
using MaybeViolation = std::optional<Violation>;

// The head (or sync) rows of `tables` as oracle plain tables.
PlainTables PlainTablesOf(const Db& db, const Schema& schema, bool sync);

// `view` (a folded result) equals FreshQuery(ast) over `tables`.
MaybeViolation CheckViewMatchesFresh(const std::string& who, const ResultView& view,
                                     const Ast& ast, const PlainTables& tables,
                                     const Schema& schema, FreshMemo* memo = nullptr);
// The folded view equals the engine's materialized result for the same query.
MaybeViolation CheckFoldedMatchesMaterialized(const std::string& who, const ResultView& view,
                                              const std::vector<TreeNode>& materialized);

// A raw result tree equals FreshQuery(ast) over `tables` (through `memo` when given: the same
// answer, from memory when an equal question was answered recently).
MaybeViolation CheckTreeMatchesFresh(const std::string& who, const std::vector<TreeNode>& tree,
                                     const Ast& ast, const PlainTables& tables,
                                     const Schema& schema, const std::string& property,
                                     FreshMemo* memo = nullptr);

// What a user sees of a raw result tree equals what they should see of FreshQuery(ast) over
// `tables`: both sides go through engine/presentation.h (the shown levels and each level's
// presented columns, from the AST alone), so a cell no level presents never matters, while a
// missing or extra row at any shown level (a related child included) always does.
MaybeViolation CheckPresentedMatchesFresh(const std::string& who,
                                          const std::vector<TreeNode>& tree, const Ast& ast,
                                          const PlainTables& tables, const Schema& schema,
                                          const std::string& property);

// Per (table, pk): which schema columns a client's live subscriptions ship (DaemonAuthority::
// Coverage). The authority's store as that client can know it under projection: every row in
// the coverage keeps only its covered cells (the others null, as the client stores an absent
// cell); with `covered_only` rows outside the coverage are left out, else kept whole.
using Coverage = std::map<std::pair<std::string, RowValues>, std::vector<bool>>;
PlainTables MaskStore(const PlainTables& store, const Coverage& coverage, bool covered_only);

}  // namespace rindle::props
