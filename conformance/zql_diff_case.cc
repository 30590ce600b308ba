#include "conformance/zql_diff_case.h"

#include <filesystem>

#include "conformance/json_file.h"
#include "conformance/peer_case.h"
#include "engine/ast_json.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "oracles/diff.h"

namespace rindle::conformance {
namespace {

using json = nlohmann::json;

absl::Status Bad(const std::string& file, std::string_view path, std::string_view expected,
                 const json* got) {
  std::string g = got == nullptr ? "nothing (missing)" : got->dump();
  if (g.size() > 80) g = StrCat(g.substr(0, 77), "...");
  return absl::InvalidArgumentError(StrCat(file, ": ", path, ": expected ", expected, ", got ", g));
}

const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// {columns: {name: {type}}, primaryKeys: [...]} → the app-schema table shape.
absl::StatusOr<TableSpec> SourceSpec(const json& src, const std::string& file,
                                     const std::string& path) {
  const json* cols = Field(src, "columns");
  if (cols == nullptr || !cols->is_object() || cols->empty()) {
    return Bad(file, StrCat(path, ".columns"), "an object of column → {type}", cols);
  }
  json columns = json::array();
  for (const auto& [name, def] : cols->items()) {
    const json* type = Field(def, "type");
    if (type == nullptr || !type->is_string()) {
      return Bad(file, StrCat(path, ".columns.", name, ".type"), "a column type", type);
    }
    columns.push_back({{"name", name}, {"type", *type}, {"nullable", true}});
  }
  const json* pk = Field(src, "primaryKeys");
  if (pk == nullptr || !pk->is_array()) {
    return Bad(file, StrCat(path, ".primaryKeys"), "an array of column names", pk);
  }
  return TableSpecFromJson(json{{"columns", columns}, {"primaryKey", *pk}},
                           StrCat(file, ": ", path));
}

}  // namespace

bool LooksLikeZqlDiffCase(const json& j) {
  return j.is_object() && j.contains("kind") && j.contains("input") && j.contains("expected");
}

namespace {

// $.input.sources: table → {columns, primaryKeys}, into c.schema.
absl::Status ParseSources(const json& in, const std::string& file, ZqlDiffCase& c) {
  const json* sources = Field(in, "sources");
  if (sources == nullptr || !sources->is_object()) {
    return Bad(file, "$.input.sources", "an object of table → {columns, primaryKeys}", sources);
  }
  for (const auto& [table, src] : sources->items()) {
    ASSIGN_OR_RETURN(TableSpec spec, SourceSpec(src, file, StrCat("$.input.sources.", table)));
    c.schema.emplace(table, std::move(spec));
  }
  return absl::OkStatus();
}

// The schema entry of `table`, or an error at `path` naming `got`.
absl::StatusOr<const TableSpec*> SpecOf(const ZqlDiffCase& c, const std::string& table,
                                        const std::string& path, const json* got) {
  auto it = c.schema.find(table);
  if (it == c.schema.end()) return Bad(c.file, path, "a table of input.sources", got);
  return &it->second;
}

// $.input.sourceContents: table → [row object], into c.rows.
absl::Status ParseSourceContents(const json& in, const std::string& file, ZqlDiffCase& c) {
  const json* contents = Field(in, "sourceContents");
  if (contents == nullptr || !contents->is_object()) {
    return Bad(file, "$.input.sourceContents", "an object of table → [row object]", contents);
  }
  for (const auto& [table, list] : contents->items()) {
    const std::string path = StrCat("$.input.sourceContents.", table);
    json tname = table;
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(c, table, path, &tname));
    if (!list.is_array()) return Bad(file, path, "an array of row objects", &list);
    std::vector<RowValues> rows;
    for (size_t i = 0; i < list.size(); ++i) {
      ASSIGN_OR_RETURN(RowValues r,
                       RowFromObject(*spec, list[i], StrCat(file, ": ", path, "[", i, "]")));
      rows.push_back(std::move(r));
    }
    c.rows.emplace_back(table, std::move(rows));
  }
  return absl::OkStatus();
}

// One $.input.pushes[i]: [table, {type, row, oldRow?}].
absl::StatusOr<RowOp> ParsePush(const json& p, const std::string& path, const std::string& file,
                                const ZqlDiffCase& c) {
  if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_object()) {
    return Bad(file, path, "[table, {type, row, oldRow?}]", &p);
  }
  RowOp op;
  op.table = p[0].get<std::string>();
  ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(c, op.table, StrCat(path, "[0]"), &p[0]));
  const json* type = Field(p[1], "type");
  if (type != nullptr && *type == "add") {
    op.kind = RowOp::Kind::kAdd;
  } else if (type != nullptr && *type == "remove") {
    op.kind = RowOp::Kind::kRemove;
  } else if (type != nullptr && *type == "edit") {
    op.kind = RowOp::Kind::kEdit;
  } else {
    return Bad(file, StrCat(path, "[1].type"), "\"add\", \"remove\" or \"edit\"", type);
  }
  const json* row = Field(p[1], "row");
  if (row == nullptr) return Bad(file, StrCat(path, "[1].row"), "a row object", row);
  ASSIGN_OR_RETURN(op.row, RowFromObject(*spec, *row, StrCat(file, ": ", path, "[1].row")));
  if (op.kind == RowOp::Kind::kEdit) {
    const json* old = Field(p[1], "oldRow");
    if (old == nullptr) return Bad(file, StrCat(path, "[1].oldRow"), "a row object", old);
    ASSIGN_OR_RETURN(op.old_row,
                     RowFromObject(*spec, *old, StrCat(file, ": ", path, "[1].oldRow")));
  }
  return op;
}

// $.input.pushes (push cases only), into c.pushes.
absl::Status ParsePushes(const json& in, const std::string& file, ZqlDiffCase& c) {
  const json* pushes = Field(in, "pushes");
  if (pushes == nullptr || !pushes->is_array()) {
    return Bad(file, "$.input.pushes", "an array of [table, change]", pushes);
  }
  for (size_t i = 0; i < pushes->size(); ++i) {
    const std::string path = StrCat("$.input.pushes[", i, "]");
    ASSIGN_OR_RETURN(RowOp op, ParsePush((*pushes)[i], path, file, c));
    c.pushes.push_back(std::move(op));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ZqlDiffCase> ParseZqlDiffCase(const json& j, const std::string& file) {
  ZqlDiffCase c;
  c.file = file;
  c.name = std::filesystem::path(file).stem().string();
  const json* kind = Field(j, "kind");
  if (kind != nullptr && *kind == "push") {
    c.push = true;
  } else if (kind == nullptr || *kind != "fetch") {
    return Bad(file, "$.kind", "\"fetch\" or \"push\"", kind);
  }
  const json* in = Field(j, "input");
  if (in == nullptr || !in->is_object()) return Bad(file, "$.input", "an object", in);
  RETURN_IF_ERROR(ParseSources(*in, file, c));
  RETURN_IF_ERROR(ParseSourceContents(*in, file, c));
  const json* ast = Field(*in, "ast");
  if (ast == nullptr) return Bad(file, "$.input.ast", "a query AST", ast);
  absl::StatusOr<Ast> parsed = ParseAst(*ast, "$.input.ast");
  if (!parsed.ok()) return absl::InvalidArgumentError(StrCat(file, ": ", parsed.status().message()));
  c.ast = *std::move(parsed);
  if (c.push) RETURN_IF_ERROR(ParsePushes(*in, file, c));
  const json* expected = Field(j, "expected");
  const json* data = expected == nullptr ? nullptr : Field(*expected, "data");
  if (data == nullptr) return Bad(file, "$.expected.data", "the result data", data);
  c.expected_data = *data;
  return c;
}

absl::StatusOr<ZqlDiffCase> LoadZqlDiffCase(const std::string& path) {
  ASSIGN_OR_RETURN(json j, ReadJsonFile(path));
  return ParseZqlDiffCase(j, path);
}

CaseResult CheckZqlDiffCase(const ZqlDiffCase& c) {
  CaseResult r;
  r.name = c.name;
  auto fail = [&r](std::string step, std::string detail) {
    r.ok = false;
    r.step = std::move(step);
    r.detail = std::move(detail);
    return r;
  };
  EngineRun run;
  if (absl::Status s = run.Init(c.schema, c.rows); !s.ok()) {
    return fail("hydrate", StrCat("engine error: ", s.message()));
  }
  if (absl::Status s = run.Register(c.ast); !s.ok()) {
    return fail("hydrate", StrCat("engine error: ", s.message()));
  }
  // Compares folded events with the materialization, then (when `final`) with expected.data.
  auto check = [&](const std::string& step, bool final) -> std::string {
    absl::StatusOr<std::string> ev = run.EventsVsView();
    if (!ev.ok()) return StrCat("engine error: ", ev.status().message());
    if (!ev->empty()) {
      return StrCat("events==view: our folded events (got) differ from the engine's own "
                    "materialization (expected):\n", *ev);
    }
    if (!final) return "";
    absl::StatusOr<json> folded = run.Folded();
    if (!folded.ok()) return StrCat("engine error: ", folded.status().message());
    std::string diff = JsonDiff(c.expected_data, *folded, 8);
    if (!diff.empty()) {
      return StrCat("data differs (expected = Zero's JS engine, got = ours after ", step,
                    "):\n", diff);
    }
    return "";
  };
  if (std::string d = check("hydrate", !c.push || c.pushes.empty()); !d.empty()) return fail("hydrate", d);
  r.steps_checked = 1;
  for (size_t i = 0; i < c.pushes.size(); ++i) {
    const std::string step = StrCat("push ", i);
    if (absl::Status s = run.Apply({c.pushes[i]}); !s.ok()) {
      return fail(step, StrCat("engine error: ", s.message()));
    }
    if (std::string d = check(step, i + 1 == c.pushes.size()); !d.empty()) return fail(step, d);
    ++r.steps_checked;
  }
  r.ok = true;
  return r;
}

}  // namespace rindle::conformance
