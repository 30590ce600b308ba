// footprint_query.h — the query the authority runs for a subscription so that its result tree
// holds every row a client needs to recompute the ORIGINAL query locally over its synced rows
// (SPEC §2.3 footprint; issue 3). Stateless.
//
// FootprintQuery(ast) rewrites every level (recursively):
//   - each correlatedSubquery leaf of `where` (EXISTS and NOT EXISTS, wherever it sits in the
//     and/or tree) adds a `related` "witness" level with the same correlation and subquery (its
//     own where, EXISTS included, rewritten the same way), appended after the level's own
//     relationships with alias "__witness<N>": the children that make EXISTS true travel with
//     the row. (For NOT EXISTS the rows in the result have no such children, so nothing is added.)
//   - every `limit` grows by one and `one` becomes limit 2 (not singular): the row just past each
//     window travels too, so a client that removes a row optimistically refills its window the
//     way the authority would.
// The where itself, orderBy, start, select and aggregate are unchanged, so the rewritten query's
// rows are a superset of the original's at every level.
//
// Why this suffices for the app's queries: with positive EXISTS only, a row that is a member on
// a client (over a subset of the authority's rows) is a member on the authority, so the client's
// first-N per window equal the authority's. Known limit: a NOT EXISTS level over rows the client
// holds through OTHER queries may show a row whose disqualifying child the client never received
// (the app's named queries have no NOT EXISTS; fixtures/app/queries/issues-without-comments has).
#pragma once

#include "engine/ast.h"

namespace rindle::sim {

inline constexpr char kWitnessAliasPrefix[] = "__witness";

Ast FootprintQuery(const Ast& ast);

}  // namespace rindle::sim
