#include "sim/workload/query_resolution.h"

#include "base/status_macros.h"
#include "sim/workload/queries.h"

namespace rindle::sim {

TableSpec ClientMutationsSpec() {
  TableSpec s;
  s.columns = {{"clientID", ColumnType::kString, false},
               {"last_mutation_id", ColumnType::kNumber, false}};
  s.primary_key = {0};
  return s;
}

absl::StatusOr<Ast> ResolveRemoteQuery(const RemoteQuery& query, const std::string& client_id,
                                       const std::string& user_id) {
  if (query.name == kLmidQueryName) {
    Ast ast;
    ast.table = kClientMutationsTable;
    Condition c;
    c.type = Condition::Type::kSimple;
    c.op = SimpleOp::kEq;
    c.left.kind = ValuePosition::Kind::kColumn;
    c.left.column = "clientID";
    c.right.kind = ValuePosition::Kind::kLiteral;
    c.right.literal = Value::String(client_id);
    ast.where = c;
    return ast;
  }
  return BuildNamedQuery(query, QueryContext{user_id});
}

}  // namespace rindle::sim
