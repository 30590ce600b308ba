#include "sim/workload/query_resolution.h"

#include <optional>

#include "base/status_macros.h"
#include "base/str_util.h"
#include "sim/workload/queries.h"

namespace rindle::sim {

TableSpec ClientMutationsSpec() {
  TableSpec s;
  s.columns = {{"clientID", ColumnType::kString, false},
               {"last_mutation_id", ColumnType::kNumber, false}};
  s.primary_key = {0};
  return s;
}

TableSpec LifecycleTableSchema(const LifecycleTableSpec& table) {
  TableSpec s;
  for (std::string_view c : table.columns) {
    const bool number = c == "mid" || c == "flush_seq" || c == "last_mutation_id" ||
                        c == "expires_at";
    const bool nullable = c == "reason" || c == "name" || c == "args";
    s.columns.push_back({std::string(c), number ? ColumnType::kNumber : ColumnType::kString,
                         nullable});
  }
  s.primary_key = table.primary_key;
  return s;
}

namespace {

Condition ColumnEquals(const std::string& column, Value v) {
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = SimpleOp::kEq;
  c.left.kind = ValuePosition::Kind::kColumn;
  c.left.column = column;
  c.right.kind = ValuePosition::Kind::kLiteral;
  c.right.literal = std::move(v);
  return c;
}

// `table WHERE doc|scope = ? [AND client_id = ?]` (base/lifecycle_tables.h).
absl::StatusOr<Ast> LifecycleQuery(const nlohmann::json& args) {
  auto str = [&](const char* k) -> std::optional<std::string> {
    if (!args.is_object() || !args.contains(k) || !args[k].is_string()) return std::nullopt;
    return args[k].get<std::string>();
  };
  const std::optional<std::string> table = str("table");
  if (!table || !IsLifecycleTable(*table)) {
    return absl::InvalidArgumentError("lifecycle query: args.table is not a lifecycle table");
  }
  const bool sessions = *table == kScopeSessionsTable;
  const char* key = sessions ? "scope" : "doc";
  const std::optional<std::string> value = str(key);
  if (!value) return absl::InvalidArgumentError(StrCat("lifecycle query: args.", key, " missing"));
  Ast ast;
  ast.table = *table;
  std::vector<Condition> conds = {ColumnEquals(key, Value::String(*value))};
  const std::optional<std::string> client = str("client_id");
  // The watermark table has no client column; the others are scoped to the subscriber.
  if (client && *table != kRoomWatermarkTable && !sessions) {
    conds.push_back(ColumnEquals("client_id", Value::String(*client)));
  }
  if (conds.size() == 1) {
    ast.where = conds[0];
  } else {
    Condition all;
    all.type = Condition::Type::kAnd;
    all.conditions = std::move(conds);
    ast.where = all;
  }
  return ast;
}

}  // namespace

absl::StatusOr<Ast> ResolveRemoteQuery(const RemoteQuery& query, const std::string& client_id,
                                       const std::string& user_id) {
  if (query.name == kLifecycleQueryName) return LifecycleQuery(query.args);
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
