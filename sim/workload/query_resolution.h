// query_resolution.h — turns a remote query {name, args} into the AST both sides run: the
// authority for its subscription views, the client for its local view. The reserved lmid query
// (`_rindle_client_mutations`, qid 0) resolves to that client's ledger row. The authority runs
// FootprintQuery (footprint_query.h) of this AST so its frames carry every row the client needs.
// Stateless.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "optimistic/source.h"

namespace rindle::sim {

// The authority's ledger table: [clientID string, last_mutation_id number], pk clientID.
TableSpec ClientMutationsSpec();

absl::StatusOr<Ast> ResolveRemoteQuery(const RemoteQuery& query, const std::string& client_id,
                                       const std::string& user_id);

}  // namespace rindle::sim
