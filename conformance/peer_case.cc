#include "conformance/peer_case.h"

#include "conformance/json_file.h"
#include "engine/ast_json.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle::conformance {
namespace {

using json = nlohmann::json;

absl::Status Bad(const std::string& file, std::string_view path, std::string_view expected,
                 const json* got) {
  std::string msg = StrCat(file, ": ", path, ": expected ", expected);
  if (got != nullptr) {
    std::string g = got->dump();
    if (g.size() > 80) g = StrCat(g.substr(0, 77), "...");
    StrAppend(&msg, ", got ", g);
  } else {
    StrAppend(&msg, ", got nothing (missing)");
  }
  return absl::InvalidArgumentError(msg);
}

const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

absl::Status CheckFormat(const json& j, const std::string& file, const char* format) {
  if (!j.is_object()) return Bad(file, "$", "a JSON object", &j);
  const json* f = Field(j, "format");
  if (f == nullptr || !f->is_string() || f->get<std::string>() != format) {
    return Bad(file, "$.format", StrCat("\"", format, "\""), f);
  }
  return absl::OkStatus();
}

absl::StatusOr<const TableSpec*> SpecOf(const PeerCase& c, const json* table,
                                        const std::string& path) {
  if (table == nullptr || !table->is_string()) {
    return Bad(c.file, path, "a table name", table);
  }
  auto it = c.schema.find(table->get<std::string>());
  if (it == c.schema.end()) {
    std::string names;
    for (const auto& [n, s] : c.schema) StrAppend(&names, names.empty() ? "" : ", ", n);
    return Bad(c.file, path, StrCat("one of the schema's tables (", names, ")"), table);
  }
  return &it->second;
}

absl::StatusOr<RowOp> ParseOp(const PeerCase& c, const json& o, const std::string& path) {
  if (!o.is_object()) return Bad(c.file, path, "an op object {op, table, row}", &o);
  const json* kind = Field(o, "op");
  RowOp op;
  if (kind != nullptr && *kind == "add") {
    op.kind = RowOp::Kind::kAdd;
  } else if (kind != nullptr && *kind == "remove") {
    op.kind = RowOp::Kind::kRemove;
  } else if (kind != nullptr && *kind == "edit") {
    op.kind = RowOp::Kind::kEdit;
  } else {
    return Bad(c.file, StrCat(path, ".op"), "\"add\", \"remove\" or \"edit\"", kind);
  }
  ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(c, Field(o, "table"), StrCat(path, ".table")));
  op.table = o["table"].get<std::string>();
  const json* row = Field(o, "row");
  if (row == nullptr || !row->is_object()) {
    return Bad(c.file, StrCat(path, ".row"), "a row object", row);
  }
  ASSIGN_OR_RETURN(op.row, RowFromObject(*spec, *row, StrCat(c.file, ": ", path, ".row")));
  if (op.kind == RowOp::Kind::kEdit) {
    const json* old = Field(o, "old");
    if (old == nullptr || !old->is_object()) {
      return Bad(c.file, StrCat(path, ".old"), "the edited row's current object", old);
    }
    ASSIGN_OR_RETURN(op.old_row, RowFromObject(*spec, *old, StrCat(c.file, ": ", path, ".old")));
  }
  return op;
}

}  // namespace

absl::StatusOr<RowValues> RowFromObject(const TableSpec& spec, const json& obj,
                                        const std::string& where) {
  if (!obj.is_object()) {
    return absl::InvalidArgumentError(StrCat(where, ": expected a row object, got ", obj.dump()));
  }
  for (const auto& [k, v] : obj.items()) {
    if (spec.ColumnIndex(k) < 0) {
      return absl::InvalidArgumentError(StrCat(where, ": unknown column \"", k,
                                               "\" (columns: ", spec.ColumnNames(), ")"));
    }
  }
  RowValues row(spec.columns.size());
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    auto it = obj.find(spec.columns[i].name);
    if (it == obj.end()) continue;
    ASSIGN_OR_RETURN(row[i], Value::FromJson(*it, StrCat(where, ".", spec.columns[i].name)));
  }
  return row;
}

json RowToObject(const TableSpec& spec, const RowValues& row) {
  json out = json::object();
  for (size_t i = 0; i < spec.columns.size() && i < row.size(); ++i) {
    if (!row[i].is_null()) out[spec.columns[i].name] = row[i].ToJson();
  }
  return out;
}

absl::StatusOr<PeerCase> ParsePeerCase(const json& j, const std::string& file) {
  RETURN_IF_ERROR(CheckFormat(j, file, kPeerCaseFormat));
  PeerCase c;
  c.file = file;
  const json* name = Field(j, "name");
  if (name == nullptr || !name->is_string()) return Bad(file, "$.name", "a case name", name);
  c.name = name->get<std::string>();
  const json* schema = Field(j, "schema");
  if (schema == nullptr || !schema->is_object()) {
    return Bad(file, "$.schema", "{\"tables\": {...}}", schema);
  }
  ASSIGN_OR_RETURN(c.schema, SchemaFromJson(*schema, StrCat(file, ": $.schema")));
  c.schema_json = *schema;
  const json* rows = Field(j, "rows");
  if (rows == nullptr || !rows->is_object()) {
    return Bad(file, "$.rows", "an object of table → [row object]", rows);
  }
  for (const auto& [table, list] : rows->items()) {
    const std::string path = StrCat("$.rows.", table);
    json tname = table;
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(c, &tname, path));
    if (!list.is_array()) return Bad(file, path, "an array of row objects", &list);
    std::vector<RowValues> out;
    for (size_t i = 0; i < list.size(); ++i) {
      ASSIGN_OR_RETURN(RowValues r,
                       RowFromObject(*spec, list[i], StrCat(file, ": ", path, "[", i, "]")));
      out.push_back(std::move(r));
    }
    c.rows.emplace_back(table, std::move(out));
  }
  const json* ast = Field(j, "ast");
  if (ast == nullptr) return Bad(file, "$.ast", "a query AST", ast);
  absl::StatusOr<Ast> parsed = ParseAst(*ast, "$.ast");
  if (!parsed.ok()) return absl::InvalidArgumentError(StrCat(file, ": ", parsed.status().message()));
  c.ast = *std::move(parsed);
  c.ast_json = *ast;
  const json* txns = Field(j, "txns");
  if (txns == nullptr || !txns->is_array()) {
    return Bad(file, "$.txns", "an array of transactions (each an array of ops)", txns);
  }
  for (size_t t = 0; t < txns->size(); ++t) {
    const std::string tpath = StrCat("$.txns[", t, "]");
    const json& ops = (*txns)[t];
    if (!ops.is_array()) return Bad(file, tpath, "an array of ops", &ops);
    std::vector<RowOp> txn;
    for (size_t i = 0; i < ops.size(); ++i) {
      ASSIGN_OR_RETURN(RowOp op, ParseOp(c, ops[i], StrCat(tpath, "[", i, "]")));
      txn.push_back(std::move(op));
    }
    c.txns.push_back(std::move(txn));
  }
  for (const char* key : {"generator", "query", "pkEdits"}) {
    if (const json* v = Field(j, key)) c.extra[key] = *v;
  }
  return c;
}

absl::StatusOr<PeerCase> LoadPeerCase(const std::string& path) {
  ASSIGN_OR_RETURN(json j, ReadJsonFile(path));
  return ParsePeerCase(j, path);
}

absl::StatusOr<PeerExpected> ParsePeerExpected(const json& j, const std::string& file,
                                               const PeerCase& for_case) {
  RETURN_IF_ERROR(CheckFormat(j, file, kPeerExpectedFormat));
  PeerExpected e;
  e.file = file;
  const json* hydrate = Field(j, "hydrate");
  const json* hdata = hydrate == nullptr ? nullptr : Field(*hydrate, "data");
  if (hdata == nullptr) return Bad(file, "$.hydrate.data", "the hydrated result", hdata);
  e.hydrate.data = *hdata;
  const json* txns = Field(j, "txns");
  if (txns == nullptr || !txns->is_array()) {
    return Bad(file, "$.txns", "an array of {commit, data}", txns);
  }
  if (txns->size() != for_case.txns.size()) {
    return absl::InvalidArgumentError(
        StrCat(file, ": $.txns: expected ", for_case.txns.size(), " entries (one per txn of ",
               for_case.file, "), got ", txns->size()));
  }
  for (size_t t = 0; t < txns->size(); ++t) {
    const json* data = Field((*txns)[t], "data");
    if (data == nullptr) {
      return Bad(file, StrCat("$.txns[", t, "].data"), "the result after the txn", data);
    }
    e.txns.push_back(ExpectedStep{*data, std::nullopt});
  }
  const json* checks = Field(j, "checks");
  const json* mismatches = checks == nullptr ? nullptr : Field(*checks, "mismatches");
  if (mismatches != nullptr) {
    if (!mismatches->is_array()) {
      return Bad(file, "$.checks.mismatches", "an array of {step, txn?, requery}", mismatches);
    }
    for (size_t i = 0; i < mismatches->size(); ++i) {
      const json& m = (*mismatches)[i];
      const std::string mpath = StrCat("$.checks.mismatches[", i, "]");
      const json* step = Field(m, "step");
      const json* requery = Field(m, "requery");
      if (requery == nullptr) {
        return Bad(file, StrCat(mpath, ".requery"), "the fresh query's data", requery);
      }
      if (step != nullptr && *step == "hydrate") {
        e.hydrate.requery = *requery;
      } else if (step != nullptr && *step == "txn") {
        const json* t = Field(m, "txn");
        if (t == nullptr || !t->is_number_integer() || t->get<int64_t>() < 0 ||
            t->get<uint64_t>() >= e.txns.size()) {
          return Bad(file, StrCat(mpath, ".txn"),
                     StrCat("a txn index in [0, ", e.txns.size(), ")"), t);
        }
        e.txns[t->get<size_t>()].requery = *requery;
      } else {
        return Bad(file, StrCat(mpath, ".step"), "\"hydrate\" or \"txn\"", step);
      }
    }
  }
  return e;
}

absl::StatusOr<PeerExpected> LoadPeerExpected(const std::string& path, const PeerCase& for_case) {
  ASSIGN_OR_RETURN(json j, ReadJsonFile(path));
  return ParsePeerExpected(j, path, for_case);
}

std::string ExpectedPathFor(const std::string& input_path) {
  constexpr std::string_view kExt = ".json";
  if (input_path.size() >= kExt.size() &&
      input_path.compare(input_path.size() - kExt.size(), kExt.size(), kExt) == 0) {
    return StrCat(input_path.substr(0, input_path.size() - kExt.size()), ".expected.json");
  }
  return StrCat(input_path, ".expected.json");
}

json PeerCaseToJson(const PeerCase& c) {
  json rows = json::object();
  for (const auto& [table, list] : c.rows) {
    const TableSpec& spec = c.schema.at(table);
    json arr = json::array();
    for (const RowValues& r : list) arr.push_back(RowToObject(spec, r));
    rows[table] = std::move(arr);
  }
  json txns = json::array();
  for (const auto& txn : c.txns) {
    json ops = json::array();
    for (const RowOp& op : txn) {
      const TableSpec& spec = c.schema.at(op.table);
      json o = {{"op", std::string(RowOpKindName(op.kind))}, {"table", op.table}};
      if (op.kind == RowOp::Kind::kEdit) o["old"] = RowToObject(spec, op.old_row);
      o["row"] = RowToObject(spec, op.row);
      ops.push_back(std::move(o));
    }
    txns.push_back(std::move(ops));
  }
  json out = {{"format", kPeerCaseFormat}, {"name", c.name}, {"schema", c.schema_json},
              {"rows", rows},           {"ast", c.ast_json}, {"txns", txns}};
  for (const auto& [k, v] : c.extra.items()) out[k] = v;
  return out;
}

}  // namespace rindle::conformance
