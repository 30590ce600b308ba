// footprint_query.h — the query the authority runs for a subscription so that its result tree
// holds every row a client needs to recompute the ORIGINAL query locally over its synced rows
// (SPEC §2.3 footprint; issue 3). Stateless.
//
// FootprintQuery(ast) rewrites every level (recursively):
//   - each correlatedSubquery leaf of `where` (EXISTS and NOT EXISTS, wherever it sits in the
//     and/or tree) adds a `related` "witness" level with the same correlation and subquery (its
//     own where, EXISTS included, rewritten the same way), appended after the level's own
//     relationships with alias "__witness<N>": the children that make EXISTS true, or NOT EXISTS
//     false, travel with the row.
//   - a level whose where has a NOT EXISTS (anywhere, EXISTS subqueries included) serves that
//     where with every NOT EXISTS read as TRUE (an `or` holding one becomes TRUE, an `and` drops
//     it) and without limit / one / start: every row that could qualify travels with its
//     disqualifying children, so a client that holds one of those rows through ANOTHER query
//     still computes it out (issue 11: issues-without-comments showed an issue whose comments
//     the client never received).
//   - every `limit` grows by one and `one` becomes limit 2 (not singular): the row just past each
//     window travels too, so a client that removes a row optimistically refills its window the
//     way the authority would.
// orderBy, select and aggregate are unchanged, and the where only widens, so the rewritten
// query's rows are a superset of the original's at every level.
//
// Why this suffices for the app's queries: with positive EXISTS, a row that is a member on a
// client (over a subset of the authority's rows) is a member on the authority, so the client's
// first-N per window equal the authority's; a NOT EXISTS row ships with what disqualifies it.
#pragma once

#include "engine/ast.h"

namespace rindle::sim {

inline constexpr char kWitnessAliasPrefix[] = "__witness";

Ast FootprintQuery(const Ast& ast);

}  // namespace rindle::sim
