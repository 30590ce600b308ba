// ast.h — the Zero wire AST (SPEC §2.1), as plain copyable values. Stateless.
//
// Shape (JSON in ast_json.h):
//   Ast { table, alias?, where?: Condition, orderBy: [[col, "asc"|"desc"]...], start?: {row: {col:
//         value}, exclusive}, limit?, related: [CorrelatedSubquery], one?, select?: [cols],
//         aggregate?: "count" }
//   Condition = simple {op, left, right} | and/or {conditions} |
//               correlatedSubquery {op: EXISTS|NOT EXISTS, related, flip?}
//   CorrelatedSubquery { correlation {parentField[], childField[]}, subquery: Ast (with alias),
//                        hidden? }
// Recursion goes through shared_ptr<const Ast> so values copy cheaply.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/value.h"

namespace rindle {

enum class SimpleOp {
  kEq, kNe, kLt, kLe, kGt, kGe, kIs, kIsNot, kLike, kNotLike, kILike, kNotILike, kIn, kNotIn
};
std::string_view SimpleOpName(SimpleOp op);

struct ValuePosition {
  enum class Kind { kColumn, kLiteral };
  Kind kind = Kind::kLiteral;
  std::string column;              // kColumn
  Value literal;                   // kLiteral, scalar
  bool is_list = false;            // kLiteral holding an array (IN / NOT IN)
  std::vector<Value> list;         // kLiteral, array
};

struct Ast;

struct Correlation {
  std::vector<std::string> parent_field;
  std::vector<std::string> child_field;
};

struct CorrelatedSubquery {
  Correlation correlation;
  std::shared_ptr<const Ast> subquery;
  bool hidden = false;
};

struct Condition {
  enum class Type { kSimple, kAnd, kOr, kCorrelatedSubquery };
  Type type = Type::kAnd;
  // kSimple
  SimpleOp op = SimpleOp::kEq;
  ValuePosition left, right;
  // kAnd / kOr
  std::vector<Condition> conditions;
  // kCorrelatedSubquery
  bool not_exists = false;
  bool flip = false;  // planner hint; never changes a result
  CorrelatedSubquery related;
};

struct OrderPart {
  std::string column;
  bool desc = false;
};

struct Start {
  std::vector<std::pair<std::string, Value>> row;  // column → cursor value, in JSON key order
  bool exclusive = false;
};

struct Ast {
  std::string table;
  std::optional<std::string> alias;
  std::optional<Condition> where;
  std::vector<OrderPart> order_by;
  std::optional<Start> start;
  std::optional<int64_t> limit;
  std::vector<CorrelatedSubquery> related;
  bool one = false;
  std::optional<std::vector<std::string>> select;
  std::optional<std::string> aggregate;  // "count"
};

// True when `c` (recursively) contains a correlatedSubquery.
bool ConditionHasSubquery(const Condition& c);
// Every table the AST reads (root, related, EXISTS), sorted and unique.
std::vector<std::string> AstTables(const Ast& ast);

}  // namespace rindle
