// query_resolution.h — turns a remote query {name, args} into the AST both sides run: the
// authority for its subscription views, the client for its local view. The reserved lmid query
// (`_rindle_client_mutations`, qid 0) resolves to that client's ledger row. The authority runs
// FootprintQuery (footprint_query.h) of this AST so its frames carry every row the client needs.
// The reserved lifecycle query (base/lifecycle_tables.h kLifecycleQueryName, a system retain)
// resolves to `table WHERE doc = args.doc [AND client_id = args.client_id]` (or scope = ...):
// the rows of one room's (or scope's) lifecycle table; a malformed args object is
// InvalidArgument. Stateless.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "base/lifecycle_tables.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "optimistic/source.h"

namespace rindle::sim {

// The authority's ledger table: [clientID string, last_mutation_id number], pk clientID.
TableSpec ClientMutationsSpec();

// The daemon's TableSpec of one lifecycle table (base/lifecycle_tables.h): every column by its
// wire name, the integer ones numbers, reason/name/args nullable; its primary key.
TableSpec LifecycleTableSchema(const LifecycleTableSpec& table);

absl::StatusOr<Ast> ResolveRemoteQuery(const RemoteQuery& query, const std::string& client_id,
                                       const std::string& user_id);

}  // namespace rindle::sim
