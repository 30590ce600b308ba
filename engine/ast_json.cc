#include "engine/ast_json.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/str_util.h"

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

namespace {

absl::StatusOr<Condition> ParseSimpleCondition(const json& j, std::string_view path) {
  RETURN_IF_ERROR(CheckKeys(j, path, {"type", "op", "left", "right"}));
  Condition c;
  c.type = Condition::Type::kSimple;
  if (!j.contains("op") || !j["op"].is_string()) {
    return Err(StrCat(path, ".op"), "expected an operator string");
  }
  ASSIGN_OR_RETURN(c.op, ParseOp(j["op"].get<std::string>(), StrCat(path, ".op")));
  if (!j.contains("left")) return Err(StrCat(path, ".left"), "missing");
  if (!j.contains("right")) return Err(StrCat(path, ".right"), "missing");
  ASSIGN_OR_RETURN(c.left, ParseValuePosition(j["left"], StrCat(path, ".left")));
  ASSIGN_OR_RETURN(c.right, ParseValuePosition(j["right"], StrCat(path, ".right")));
  // An array literal belongs on the right of IN / NOT IN, and only there.
  const bool list_op = c.op == SimpleOp::kIn || c.op == SimpleOp::kNotIn;
  const bool right_list = c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list;
  if (c.left.kind == ValuePosition::Kind::kLiteral && c.left.is_list) {
    return Err(StrCat(path, ".left"), "an array literal may only appear on the right of IN");
  }
  if (list_op && !right_list) {
    return Err(StrCat(path, ".right"),
               StrCat(SimpleOpName(c.op), " expects an array literal on the right"));
  }
  if (!list_op && right_list) {
    return Err(StrCat(path, ".right"),
               StrCat("an array literal needs IN or NOT IN, not ", SimpleOpName(c.op)));
  }
  return c;
}

// "and" / "or": the conditions, each parsed recursively.
absl::StatusOr<Condition> ParseJunction(const json& j, std::string_view path, bool is_and) {
  RETURN_IF_ERROR(CheckKeys(j, path, {"type", "conditions"}));
  Condition c;
  c.type = is_and ? Condition::Type::kAnd : Condition::Type::kOr;
  if (!j.contains("conditions") || !j["conditions"].is_array()) {
    return Err(StrCat(path, ".conditions"), "expected an array of conditions");
  }
  for (size_t i = 0; i < j["conditions"].size(); ++i) {
    ASSIGN_OR_RETURN(Condition sub,
                     ParseCondition(j["conditions"][i], StrCat(path, ".conditions[", i, "]")));
    c.conditions.push_back(std::move(sub));
  }
  return c;
}

// EXISTS / NOT EXISTS over a correlated subquery.
absl::StatusOr<Condition> ParseExistsCondition(const json& j, std::string_view path) {
  RETURN_IF_ERROR(CheckKeys(j, path, {"type", "op", "related", "flip"}));
  Condition c;
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

absl::StatusOr<std::vector<OrderPart>> ParseOrderBy(const json& o, std::string_view opath) {
  if (!o.is_array()) return Err(opath, "expected [[column, \"asc\"|\"desc\"], ...]");
  std::vector<OrderPart> out;
  for (size_t i = 0; i < o.size(); ++i) {
    const std::string ipath = StrCat(opath, "[", i, "]");
    if (!o[i].is_array() || o[i].size() != 2 || !o[i][0].is_string() || !o[i][1].is_string()) {
      return Err(ipath, "expected [column, \"asc\"|\"desc\"]");
    }
    const std::string dir = o[i][1].get<std::string>();
    if (dir != "asc" && dir != "desc") {
      return Err(ipath, StrCat("direction must be \"asc\" or \"desc\", got \"", dir, "\""));
    }
    out.push_back({o[i][0].get<std::string>(), dir == "desc"});
  }
  return out;
}

absl::StatusOr<Start> ParseStart(const json& s, std::string_view spath) {
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
  return start;
}

absl::StatusOr<int64_t> ParseLimit(const json& l, std::string_view lpath) {
  if (!l.is_number_integer() && !l.is_number_unsigned()) {
    return Err(lpath, "expected a non-negative integer");
  }
  const int64_t lim = l.get<int64_t>();
  if (lim < 0) return Err(lpath, "expected a non-negative integer");
  return lim;
}

// The related subqueries of one level; each needs an alias (its name in the result tree).
absl::StatusOr<std::vector<CorrelatedSubquery>> ParseRelated(const json& r,
                                                             std::string_view path) {
  if (!r.is_array()) return Err(StrCat(path, ".related"), "expected an array");
  std::vector<CorrelatedSubquery> out;
  for (size_t i = 0; i < r.size(); ++i) {
    const std::string rpath = StrCat(path, ".related[", i, "]");
    ASSIGN_OR_RETURN(CorrelatedSubquery cs, ParseCorrelatedSubquery(r[i], rpath, true));
    if (!cs.subquery->alias) {
      return Err(StrCat(rpath, ".subquery.alias"), "a related subquery needs an alias");
    }
    out.push_back(std::move(cs));
  }
  return out;
}

// one, select, aggregate: the result's form.
absl::Status ParseResultForm(const json& j, std::string_view path, Ast* ast) {
  if (j.contains("one")) {
    if (!j["one"].is_boolean()) return Err(StrCat(path, ".one"), "expected a boolean");
    ast->one = j["one"].get<bool>();
  }
  if (j.contains("select")) {
    ASSIGN_OR_RETURN(auto sel, ParseNameList(j["select"], StrCat(path, ".select")));
    ast->select = std::move(sel);
  }
  if (j.contains("aggregate")) {
    if (!j["aggregate"].is_string() || j["aggregate"].get<std::string>() != "count") {
      return Err(StrCat(path, ".aggregate"), "expected \"count\"");
    }
    ast->aggregate = "count";
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Condition> ParseCondition(const json& j, std::string_view path) {
  if (!j.is_object()) return Err(path, "expected a condition object");
  if (!j.contains("type") || !j["type"].is_string()) {
    return Err(StrCat(path, ".type"),
               "expected \"simple\", \"and\", \"or\" or \"correlatedSubquery\"");
  }
  const std::string type = j["type"].get<std::string>();
  if (type == "simple") return ParseSimpleCondition(j, path);
  if (type == "and" || type == "or") return ParseJunction(j, path, type == "and");
  if (type == "correlatedSubquery") return ParseExistsCondition(j, path);
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
    ASSIGN_OR_RETURN(ast.order_by, ParseOrderBy(j["orderBy"], StrCat(path, ".orderBy")));
  }
  if (j.contains("start")) {
    ASSIGN_OR_RETURN(Start start, ParseStart(j["start"], StrCat(path, ".start")));
    ast.start = std::move(start);
  }
  if (j.contains("limit")) {
    ASSIGN_OR_RETURN(int64_t lim, ParseLimit(j["limit"], StrCat(path, ".limit")));
    ast.limit = lim;
  }
  if (j.contains("related")) {
    ASSIGN_OR_RETURN(ast.related, ParseRelated(j["related"], path));
  }
  RETURN_IF_ERROR(ParseResultForm(j, path, &ast));
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

}  // namespace rindle
