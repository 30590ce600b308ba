#include "engine/str_util.h"
#include "engine/ast_json.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/status_macros.h"

namespace rindle {
namespace {

using json = nlohmann::json;

absl::Status Err(std::string_view path, std::string_view msg) {
  return absl::InvalidArgumentError(StrCat(path, ": ", msg));
}

absl::Status CheckKeys(const json& j, std::string_view path,
                       std::initializer_list<std::string_view> allowed) {
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (auto a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string names;
      for (auto a : allowed) StrAppend(&names, names.empty() ? "" : ", ", a);
      return Err(path, StrCat("unknown key \"", k, "\" (allowed: ", names, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ParseNameList(const json& j, std::string_view path) {
  if (!j.is_array()) return Err(path, "expected an array of column names");
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) return Err(StrCat(path, "[", i, "]"), "expected a column name");
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

absl::StatusOr<ValuePosition> ParseValuePosition(const json& j, std::string_view path) {
  if (!j.is_object()) return Err(path, "expected {type: \"column\"|\"literal\", ...}");
  if (!j.contains("type") || !j["type"].is_string()) {
    return Err(StrCat(path, ".type"), "expected \"column\" or \"literal\"");
  }
  const std::string type = j["type"].get<std::string>();
  ValuePosition vp;
  if (type == "column") {
    RETURN_IF_ERROR(CheckKeys(j, path, {"type", "name"}));
    if (!j.contains("name") || !j["name"].is_string()) {
      return Err(StrCat(path, ".name"), "expected a column name");
    }
    vp.kind = ValuePosition::Kind::kColumn;
    vp.column = j["name"].get<std::string>();
    return vp;
  }
  if (type == "literal") {
    RETURN_IF_ERROR(CheckKeys(j, path, {"type", "value"}));
    if (!j.contains("value")) return Err(StrCat(path, ".value"), "missing literal value");
    vp.kind = ValuePosition::Kind::kLiteral;
    const json& v = j["value"];
    if (v.is_array()) {
      vp.is_list = true;
      for (size_t i = 0; i < v.size(); ++i) {
        ASSIGN_OR_RETURN(Value x, Value::FromJson(v[i], StrCat(path, ".value[", i, "]")));
        vp.list.push_back(std::move(x));
      }
    } else {
      ASSIGN_OR_RETURN(vp.literal, Value::FromJson(v, StrCat(path, ".value")));
    }
    return vp;
  }
  return Err(StrCat(path, ".type"),
             StrCat("expected \"column\" or \"literal\", got \"", type, "\""));
}

absl::StatusOr<SimpleOp> ParseOp(const std::string& op, std::string_view path) {
  static const std::pair<const char*, SimpleOp> kOps[] = {
      {"=", SimpleOp::kEq},          {"!=", SimpleOp::kNe},        {"<", SimpleOp::kLt},
      {"<=", SimpleOp::kLe},         {">", SimpleOp::kGt},         {">=", SimpleOp::kGe},
      {"IS", SimpleOp::kIs},         {"IS NOT", SimpleOp::kIsNot}, {"LIKE", SimpleOp::kLike},
      {"NOT LIKE", SimpleOp::kNotLike}, {"ILIKE", SimpleOp::kILike},
      {"NOT ILIKE", SimpleOp::kNotILike}, {"IN", SimpleOp::kIn},   {"NOT IN", SimpleOp::kNotIn}};
  for (const auto& [name, o] : kOps) {
    if (op == name) return o;
  }
  return Err(path, StrCat("unknown operator \"", op,
                                "\" (expected = != < <= > >= IS \"IS NOT\" LIKE \"NOT LIKE\" "
                                "ILIKE \"NOT ILIKE\" IN \"NOT IN\")"));
}

absl::StatusOr<CorrelatedSubquery> ParseCorrelatedSubquery(const json& j, std::string_view path,
                                                           bool allow_hidden) {
  if (!j.is_object()) return Err(path, "expected {correlation, subquery}");
  if (allow_hidden) {
    RETURN_IF_ERROR(CheckKeys(j, path, {"correlation", "subquery", "hidden"}));
  } else {
    RETURN_IF_ERROR(CheckKeys(j, path, {"correlation", "subquery"}));
  }
  CorrelatedSubquery out;
  const std::string cpath = StrCat(path, ".correlation");
  if (!j.contains("correlation") || !j["correlation"].is_object()) {
    return Err(cpath, "missing correlation {parentField: [...], childField: [...]}");
  }
  const json& c = j["correlation"];
  RETURN_IF_ERROR(CheckKeys(c, cpath, {"parentField", "childField"}));
  if (!c.contains("parentField")) return Err(StrCat(cpath, ".parentField"), "missing");
  if (!c.contains("childField")) return Err(StrCat(cpath, ".childField"), "missing");
  ASSIGN_OR_RETURN(out.correlation.parent_field,
                   ParseNameList(c["parentField"], StrCat(cpath, ".parentField")));
  ASSIGN_OR_RETURN(out.correlation.child_field,
                   ParseNameList(c["childField"], StrCat(cpath, ".childField")));
  if (out.correlation.parent_field.empty()) {
    return Err(StrCat(cpath, ".parentField"), "expected at least one column");
  }
  if (out.correlation.parent_field.size() != out.correlation.child_field.size()) {
    return Err(cpath, StrCat("parentField has ", out.correlation.parent_field.size(),
                                   " columns but childField has ",
                                   out.correlation.child_field.size()));
  }
  if (!j.contains("subquery")) return Err(StrCat(path, ".subquery"), "missing subquery");
  ASSIGN_OR_RETURN(Ast sub, ParseAst(j["subquery"], StrCat(path, ".subquery")));
  if (allow_hidden && j.contains("hidden")) {
    if (!j["hidden"].is_boolean()) return Err(StrCat(path, ".hidden"), "expected a boolean");
    out.hidden = j["hidden"].get<bool>();
  }
  out.subquery = std::make_shared<const Ast>(std::move(sub));
  return out;
}

}  // namespace

absl::StatusOr<Condition> ParseCondition(const json& j, std::string_view path) {
  if (!j.is_object()) return Err(path, "expected a condition object");
  if (!j.contains("type") || !j["type"].is_string()) {
    return Err(StrCat(path, ".type"),
               "expected \"simple\", \"and\", \"or\" or \"correlatedSubquery\"");
  }
  const std::string type = j["type"].get<std::string>();
  Condition c;
  if (type == "simple") {
    RETURN_IF_ERROR(CheckKeys(j, path, {"type", "op", "left", "right"}));
    c.type = Condition::Type::kSimple;
    if (!j.contains("op") || !j["op"].is_string()) {
      return Err(StrCat(path, ".op"), "expected an operator string");
    }
    ASSIGN_OR_RETURN(c.op, ParseOp(j["op"].get<std::string>(), StrCat(path, ".op")));
    if (!j.contains("left")) return Err(StrCat(path, ".left"), "missing");
    if (!j.contains("right")) return Err(StrCat(path, ".right"), "missing");
    ASSIGN_OR_RETURN(c.left, ParseValuePosition(j["left"], StrCat(path, ".left")));
    ASSIGN_OR_RETURN(c.right, ParseValuePosition(j["right"], StrCat(path, ".right")));
    const bool list_op = c.op == SimpleOp::kIn || c.op == SimpleOp::kNotIn;
    if (c.left.kind == ValuePosition::Kind::kLiteral && c.left.is_list) {
      return Err(StrCat(path, ".left"), "an array literal may only appear on the right of IN");
    }
    if (list_op && !(c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list)) {
      return Err(StrCat(path, ".right"),
                 StrCat(SimpleOpName(c.op), " expects an array literal on the right"));
    }
    if (!list_op && c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list) {
      return Err(StrCat(path, ".right"),
                 StrCat("an array literal needs IN or NOT IN, not ", SimpleOpName(c.op)));
    }
    return c;
  }
  if (type == "and" || type == "or") {
    RETURN_IF_ERROR(CheckKeys(j, path, {"type", "conditions"}));
    c.type = type == "and" ? Condition::Type::kAnd : Condition::Type::kOr;
    if (!j.contains("conditions") || !j["conditions"].is_array()) {
      return Err(StrCat(path, ".conditions"), "expected an array of conditions");
    }
    for (size_t i = 0; i < j["conditions"].size(); ++i) {
      ASSIGN_OR_RETURN(Condition sub, ParseCondition(j["conditions"][i],
                                                     StrCat(path, ".conditions[", i, "]")));
      c.conditions.push_back(std::move(sub));
    }
    return c;
  }
  if (type == "correlatedSubquery") {
    RETURN_IF_ERROR(CheckKeys(j, path, {"type", "op", "related", "flip"}));
    c.type = Condition::Type::kCorrelatedSubquery;
    if (!j.contains("op") || !j["op"].is_string()) {
      return Err(StrCat(path, ".op"), "expected \"EXISTS\" or \"NOT EXISTS\"");
    }
    const std::string op = j["op"].get<std::string>();
    if (op == "EXISTS") {
      c.not_exists = false;
    } else if (op == "NOT EXISTS") {
      c.not_exists = true;
    } else {
      return Err(StrCat(path, ".op"),
                 StrCat("expected \"EXISTS\" or \"NOT EXISTS\", got \"", op, "\""));
    }
    if (j.contains("flip")) {
      if (!j["flip"].is_boolean()) return Err(StrCat(path, ".flip"), "expected a boolean");
      c.flip = j["flip"].get<bool>();
    }
    if (!j.contains("related")) return Err(StrCat(path, ".related"), "missing");
    ASSIGN_OR_RETURN(c.related,
                     ParseCorrelatedSubquery(j["related"], StrCat(path, ".related"), false));
    return c;
  }
  return Err(StrCat(path, ".type"),
             StrCat("expected \"simple\", \"and\", \"or\" or \"correlatedSubquery\", got \"",
                          type, "\""));
}

absl::StatusOr<Ast> ParseAst(const json& j, std::string_view path) {
  if (!j.is_object()) return Err(path, "expected a query object");
  RETURN_IF_ERROR(CheckKeys(j, path, {"table", "alias", "where", "orderBy", "start", "limit",
                                      "related", "one", "select", "aggregate"}));
  Ast ast;
  if (!j.contains("table") || !j["table"].is_string()) {
    return Err(StrCat(path, ".table"), "expected a table name");
  }
  ast.table = j["table"].get<std::string>();
  if (j.contains("alias")) {
    if (!j["alias"].is_string()) return Err(StrCat(path, ".alias"), "expected a string");
    ast.alias = j["alias"].get<std::string>();
  }
  if (j.contains("where")) {
    ASSIGN_OR_RETURN(Condition w, ParseCondition(j["where"], StrCat(path, ".where")));
    ast.where = std::move(w);
  }
  if (j.contains("orderBy")) {
    const json& o = j["orderBy"];
    const std::string opath = StrCat(path, ".orderBy");
    if (!o.is_array()) return Err(opath, "expected [[column, \"asc\"|\"desc\"], ...]");
    for (size_t i = 0; i < o.size(); ++i) {
      const std::string ipath = StrCat(opath, "[", i, "]");
      if (!o[i].is_array() || o[i].size() != 2 || !o[i][0].is_string() || !o[i][1].is_string()) {
        return Err(ipath, "expected [column, \"asc\"|\"desc\"]");
      }
      const std::string dir = o[i][1].get<std::string>();
      if (dir != "asc" && dir != "desc") {
        return Err(ipath, StrCat("direction must be \"asc\" or \"desc\", got \"", dir, "\""));
      }
      ast.order_by.push_back({o[i][0].get<std::string>(), dir == "desc"});
    }
  }
  if (j.contains("start")) {
    const json& s = j["start"];
    const std::string spath = StrCat(path, ".start");
    if (!s.is_object()) return Err(spath, "expected {row: {...}, exclusive: bool}");
    RETURN_IF_ERROR(CheckKeys(s, spath, {"row", "exclusive"}));
    if (!s.contains("row") || !s["row"].is_object()) {
      return Err(StrCat(spath, ".row"), "expected an object of column → value");
    }
    Start start;
    for (const auto& [k, v] : s["row"].items()) {
      ASSIGN_OR_RETURN(Value x, Value::FromJson(v, StrCat(spath, ".row.", k)));
      start.row.emplace_back(k, std::move(x));
    }
    if (s.contains("exclusive")) {
      if (!s["exclusive"].is_boolean()) {
        return Err(StrCat(spath, ".exclusive"), "expected a boolean");
      }
      start.exclusive = s["exclusive"].get<bool>();
    }
    ast.start = std::move(start);
  }
  if (j.contains("limit")) {
    const json& l = j["limit"];
    if (!l.is_number_integer() && !l.is_number_unsigned()) {
      return Err(StrCat(path, ".limit"), "expected a non-negative integer");
    }
    const int64_t lim = l.get<int64_t>();
    if (lim < 0) return Err(StrCat(path, ".limit"), "expected a non-negative integer");
    ast.limit = lim;
  }
  if (j.contains("related")) {
    const json& r = j["related"];
    if (!r.is_array()) return Err(StrCat(path, ".related"), "expected an array");
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string rpath = StrCat(path, ".related[", i, "]");
      ASSIGN_OR_RETURN(CorrelatedSubquery cs, ParseCorrelatedSubquery(r[i], rpath, true));
      if (!cs.subquery->alias) {
        return Err(StrCat(rpath, ".subquery.alias"), "a related subquery needs an alias");
      }
      ast.related.push_back(std::move(cs));
    }
  }
  if (j.contains("one")) {
    if (!j["one"].is_boolean()) return Err(StrCat(path, ".one"), "expected a boolean");
    ast.one = j["one"].get<bool>();
  }
  if (j.contains("select")) {
    ASSIGN_OR_RETURN(auto sel, ParseNameList(j["select"], StrCat(path, ".select")));
    ast.select = std::move(sel);
  }
  if (j.contains("aggregate")) {
    if (!j["aggregate"].is_string() || j["aggregate"].get<std::string>() != "count") {
      return Err(StrCat(path, ".aggregate"), "expected \"count\"");
    }
    ast.aggregate = "count";
  }
  return ast;
}

absl::StatusOr<Ast> ParseAstText(std::string_view text, std::string_view path) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Err(path, "not valid JSON");
  return ParseAst(j, path);
}

namespace {
json ValuePositionToJson(const ValuePosition& vp) {
  if (vp.kind == ValuePosition::Kind::kColumn) return {{"type", "column"}, {"name", vp.column}};
  if (vp.is_list) {
    json arr = json::array();
    for (const auto& v : vp.list) arr.push_back(v.ToJson());
    return {{"type", "literal"}, {"value", arr}};
  }
  return {{"type", "literal"}, {"value", vp.literal.ToJson()}};
}

json CorrelatedSubqueryToJson(const CorrelatedSubquery& cs, bool with_hidden) {
  json out = {{"correlation",
               {{"parentField", cs.correlation.parent_field},
                {"childField", cs.correlation.child_field}}},
              {"subquery", AstToJson(*cs.subquery)}};
  if (with_hidden && cs.hidden) out["hidden"] = true;
  return out;
}
}  // namespace

json ConditionToJson(const Condition& c) {
  switch (c.type) {
    case Condition::Type::kSimple:
      return {{"type", "simple"},
              {"op", std::string(SimpleOpName(c.op))},
              {"left", ValuePositionToJson(c.left)},
              {"right", ValuePositionToJson(c.right)}};
    case Condition::Type::kAnd:
    case Condition::Type::kOr: {
      json arr = json::array();
      for (const auto& x : c.conditions) arr.push_back(ConditionToJson(x));
      return {{"type", c.type == Condition::Type::kAnd ? "and" : "or"}, {"conditions", arr}};
    }
    case Condition::Type::kCorrelatedSubquery: {
      json out = {{"type", "correlatedSubquery"},
                  {"op", c.not_exists ? "NOT EXISTS" : "EXISTS"},
                  {"related", CorrelatedSubqueryToJson(c.related, false)}};
      if (c.flip) out["flip"] = true;
      return out;
    }
  }
  return nullptr;
}

json AstToJson(const Ast& ast) {
  json out = {{"table", ast.table}};
  if (ast.alias) out["alias"] = *ast.alias;
  if (ast.where) out["where"] = ConditionToJson(*ast.where);
  if (!ast.related.empty()) {
    json arr = json::array();
    for (const auto& r : ast.related) arr.push_back(CorrelatedSubqueryToJson(r, true));
    out["related"] = arr;
  }
  if (ast.start) {
    json row = json::object();
    for (const auto& [k, v] : ast.start->row) row[k] = v.ToJson();
    out["start"] = {{"row", row}, {"exclusive", ast.start->exclusive}};
  }
  if (!ast.order_by.empty()) {
    json arr = json::array();
    for (const auto& o : ast.order_by) arr.push_back({o.column, o.desc ? "desc" : "asc"});
    out["orderBy"] = arr;
  }
  if (ast.limit) out["limit"] = *ast.limit;
  if (ast.one) out["one"] = true;
  if (ast.select) out["select"] = *ast.select;
  if (ast.aggregate) out["aggregate"] = *ast.aggregate;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation against table specs.

namespace {

absl::StatusOr<int> ResolveColumn(const std::string& col, std::string_view table,
                                  const TableSpec& spec, std::string_view path) {
  const int idx = spec.ColumnIndex(col);
  if (idx < 0) {
    return Err(path, StrCat("unknown column \"", col, "\" in table \"", table,
                                  "\" (columns: ", spec.ColumnNames(), ")"));
  }
  return idx;
}

bool LiteralFitsColumn(const TableSpec& spec, int col, const Value& v) {
  if (v.is_null()) return true;  // comparisons with null are legal (false / IS)
  switch (spec.columns[col].type) {
    case ColumnType::kString:
    case ColumnType::kJson: return v.is_string();
    case ColumnType::kNumber: return v.is_number();
    case ColumnType::kBoolean: return v.is_bool();
  }
  return false;
}

}  // namespace

absl::Status ValidateCondition(const Condition& c, std::string_view table, const TableSpec& spec,
                               const TableLookup& lookup, std::string_view path) {
  switch (c.type) {
    case Condition::Type::kSimple: {
      const bool like = c.op == SimpleOp::kLike || c.op == SimpleOp::kNotLike ||
                        c.op == SimpleOp::kILike || c.op == SimpleOp::kNotILike;
      int lcol = -1, rcol = -1;
      if (c.left.kind == ValuePosition::Kind::kColumn) {
        ASSIGN_OR_RETURN(lcol, ResolveColumn(c.left.column, table, spec,
                                             StrCat(path, ".left.name")));
      }
      if (c.right.kind == ValuePosition::Kind::kColumn) {
        ASSIGN_OR_RETURN(rcol, ResolveColumn(c.right.column, table, spec,
                                             StrCat(path, ".right.name")));
      }
      if (lcol >= 0 && rcol >= 0) {
        const ColumnType a = spec.columns[lcol].type, b = spec.columns[rcol].type;
        const bool a_str = a == ColumnType::kString || a == ColumnType::kJson;
        const bool b_str = b == ColumnType::kString || b == ColumnType::kJson;
        if (a != b && !(a_str && b_str)) {
          return Err(path, StrCat("cannot compare column \"", c.left.column, "\" (",
                                        ColumnTypeName(a), ") with column \"", c.right.column,
                                        "\" (", ColumnTypeName(b), ")"));
        }
      }
      auto check_literal = [&](int col, const ValuePosition& lit,
                               std::string_view side) -> absl::Status {
        if (col < 0 || lit.kind != ValuePosition::Kind::kLiteral) return absl::OkStatus();
        const std::string lpath = StrCat(path, ".", side, ".value");
        if (lit.is_list) {
          for (size_t i = 0; i < lit.list.size(); ++i) {
            if (!LiteralFitsColumn(spec, col, lit.list[i])) {
              return Err(StrCat(lpath, "[", i, "]"),
                         StrCat("type mismatch: column \"", spec.columns[col].name,
                                      "\" is ", ColumnTypeName(spec.columns[col].type), ", got ",
                                      lit.list[i].DebugString()));
            }
          }
          return absl::OkStatus();
        }
        if (like && !lit.literal.is_string() && !lit.literal.is_null()) {
          return Err(lpath, StrCat(SimpleOpName(c.op), " expects a string pattern, got ",
                                         lit.literal.DebugString()));
        }
        if (!LiteralFitsColumn(spec, col, lit.literal)) {
          return Err(lpath, StrCat("type mismatch: column \"", spec.columns[col].name,
                                         "\" is ", ColumnTypeName(spec.columns[col].type),
                                         ", got ", lit.literal.DebugString()));
        }
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(check_literal(lcol, c.right, "right"));
      RETURN_IF_ERROR(check_literal(rcol, c.left, "left"));
      if (like) {
        const int col = lcol >= 0 ? lcol : rcol;
        if (col >= 0 && spec.columns[col].type != ColumnType::kString &&
            spec.columns[col].type != ColumnType::kJson) {
          return Err(path, StrCat(SimpleOpName(c.op), " needs a string column, \"",
                                        spec.columns[col].name, "\" is ",
                                        ColumnTypeName(spec.columns[col].type)));
        }
      }
      return absl::OkStatus();
    }
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (size_t i = 0; i < c.conditions.size(); ++i) {
        RETURN_IF_ERROR(ValidateCondition(c.conditions[i], table, spec, lookup,
                                          StrCat(path, ".conditions[", i, "]")));
      }
      return absl::OkStatus();
    case Condition::Type::kCorrelatedSubquery: {
      const std::string rpath = StrCat(path, ".related");
      const Ast& sub = *c.related.subquery;
      const TableSpec* child = lookup(sub.table);
      if (child == nullptr) {
        return Err(StrCat(rpath, ".subquery.table"),
                   StrCat("unknown table \"", sub.table, "\""));
      }
      const auto& corr = c.related.correlation;
      for (size_t i = 0; i < corr.parent_field.size(); ++i) {
        ASSIGN_OR_RETURN(int p, ResolveColumn(corr.parent_field[i], table, spec,
                                              StrCat(rpath, ".correlation.parentField[", i, "]")));
        ASSIGN_OR_RETURN(int ch, ResolveColumn(corr.child_field[i], sub.table, *child,
                                               StrCat(rpath, ".correlation.childField[", i, "]")));
        if (spec.columns[p].type != child->columns[ch].type) {
          return Err(StrCat(rpath, ".correlation"),
                     StrCat("parentField \"", corr.parent_field[i], "\" (",
                                  ColumnTypeName(spec.columns[p].type), ") and childField \"",
                                  corr.child_field[i], "\" (",
                                  ColumnTypeName(child->columns[ch].type), ") differ in type"));
        }
      }
      return ValidateAst(sub, lookup, StrCat(rpath, ".subquery"));
    }
  }
  return absl::OkStatus();
}

namespace {

// The path of the first correlatedSubquery in `c`, or "" when there is none.
std::string FirstSubqueryPath(const Condition& c, std::string_view path) {
  if (c.type == Condition::Type::kCorrelatedSubquery) return std::string(path);
  if (c.type == Condition::Type::kAnd || c.type == Condition::Type::kOr) {
    for (size_t i = 0; i < c.conditions.size(); ++i) {
      std::string p = FirstSubqueryPath(c.conditions[i], StrCat(path, ".conditions[", i, "]"));
      if (!p.empty()) return p;
    }
  }
  return "";
}

}  // namespace

absl::Status ValidateRowLocalCondition(const Condition& c, std::string_view table,
                                       const TableSpec& spec, std::string_view path) {
  const std::string sub = FirstSubqueryPath(c, path);
  if (!sub.empty()) {
    return Err(sub, "a correlated subquery (EXISTS / NOT EXISTS) is not allowed in a row-local "
                    "predicate (expected only simple, and, or conditions on the row's own "
                    "columns)");
  }
  const TableLookup none = [](std::string_view) -> const TableSpec* { return nullptr; };
  return ValidateCondition(c, table, spec, none, path);
}

absl::Status ValidateAst(const Ast& ast, const TableLookup& lookup, std::string_view path) {
  const TableSpec* spec = lookup(ast.table);
  if (spec == nullptr) {
    return Err(StrCat(path, ".table"), StrCat("unknown table \"", ast.table, "\""));
  }
  if (ast.where) {
    RETURN_IF_ERROR(
        ValidateCondition(*ast.where, ast.table, *spec, lookup, StrCat(path, ".where")));
  }
  std::set<std::string> seen_order;
  for (size_t i = 0; i < ast.order_by.size(); ++i) {
    const std::string opath = StrCat(path, ".orderBy[", i, "]");
    RETURN_IF_ERROR(ResolveColumn(ast.order_by[i].column, ast.table, *spec, opath).status());
    if (!seen_order.insert(ast.order_by[i].column).second) {
      return Err(opath, StrCat("column \"", ast.order_by[i].column, "\" is ordered twice"));
    }
  }
  if (ast.start) {
    for (const auto& [col, v] : ast.start->row) {
      const std::string spath = StrCat(path, ".start.row.", col);
      ASSIGN_OR_RETURN(int idx, ResolveColumn(col, ast.table, *spec, spath));
      if (!LiteralFitsColumn(*spec, idx, v)) {
        return Err(spath, StrCat("type mismatch: column \"", col, "\" is ",
                                       ColumnTypeName(spec->columns[idx].type), ", got ",
                                       v.DebugString()));
      }
    }
  }
  if (ast.select) {
    for (size_t i = 0; i < ast.select->size(); ++i) {
      RETURN_IF_ERROR(ResolveColumn((*ast.select)[i], ast.table, *spec,
                                    StrCat(path, ".select[", i, "]"))
                          .status());
    }
  }
  std::set<std::string> aliases;
  for (size_t i = 0; i < ast.related.size(); ++i) {
    const std::string rpath = StrCat(path, ".related[", i, "]");
    const CorrelatedSubquery& r = ast.related[i];
    const Ast& sub = *r.subquery;
    const TableSpec* child = lookup(sub.table);
    if (child == nullptr) {
      return Err(StrCat(rpath, ".subquery.table"),
                 StrCat("unknown table \"", sub.table, "\""));
    }
    for (size_t k = 0; k < r.correlation.parent_field.size(); ++k) {
      ASSIGN_OR_RETURN(int p, ResolveColumn(r.correlation.parent_field[k], ast.table, *spec,
                                            StrCat(rpath, ".correlation.parentField[", k, "]")));
      ASSIGN_OR_RETURN(int ch, ResolveColumn(r.correlation.child_field[k], sub.table, *child,
                                             StrCat(rpath, ".correlation.childField[", k, "]")));
      if (spec->columns[p].type != child->columns[ch].type) {
        return Err(StrCat(rpath, ".correlation"),
                   StrCat("parentField \"", r.correlation.parent_field[k], "\" (",
                          ColumnTypeName(spec->columns[p].type), ") and childField \"",
                          r.correlation.child_field[k], "\" (",
                          ColumnTypeName(child->columns[ch].type), ") differ in type"));
      }
    }
    RETURN_IF_ERROR(ValidateAst(sub, lookup, StrCat(rpath, ".subquery")));
  }
  return absl::OkStatus();
}

}  // namespace rindle
