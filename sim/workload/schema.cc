// workload_schema.cc — see workload_schema.h.
#include "sim/workload/schema.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

#ifndef RINDLE_FIXTURES_DIR
#error "RINDLE_FIXTURES_DIR must be defined (the project's fixtures/ directory)"
#endif

namespace rindle::sim {

std::string AppSchemaPath() { return std::string(RINDLE_FIXTURES_DIR) + "/app/app-schema.json"; }

absl::StatusOr<Schema> LoadSchemaFile(std::string_view path) {
  const std::string p(path);
  std::ifstream in(p, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(p, ": cannot open the app schema file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(p, ": read error"));
  nlohmann::json j = nlohmann::json::parse(text.str(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(p, ": not valid JSON"));
  }
  return SchemaFromJson(j, p);
}

absl::StatusOr<Schema> LoadAppSchema() {
  absl::StatusOr<Schema> s = LoadSchemaFile(AppSchemaPath());
  if (!s.ok()) return s;
  for (const auto& [table, column] : SimNullableColumns()) {
    auto t = s->find(table);
    if (t == s->end()) return absl::NotFoundError(absl::StrCat(AppSchemaPath(), ": no table ", table));
    bool found = false;
    for (ColumnSpec& c : t->second.columns) {
      if (c.name == column) c.nullable = found = true;
    }
    if (!found) {
      return absl::NotFoundError(absl::StrCat(AppSchemaPath(), ": no column ", table, ".", column));
    }
  }
  return s;
}

const std::vector<std::pair<std::string, std::string>>& SimNullableColumns() {
  static const std::vector<std::pair<std::string, std::string>> kColumns = {{"issue", "ownerId"}};
  return kColumns;
}

Schema LocalTableSpecs() {
  auto str = [](const char* name) { return ColumnSpec{name, ColumnType::kString, false}; };
  Schema s;
  s[kDraftsTable] = TableSpec{{str("id"), str("issueId"), str("body")}, {0}};
  s[kSelectionTable] = TableSpec{{str("id"), str("issueId")}, {0}};
  return s;
}

std::set<std::string> LocalTableNames() {
  std::set<std::string> names;
  for (const auto& [name, spec] : LocalTableSpecs()) names.insert(name);
  return names;
}

absl::StatusOr<Schema> LoadClientSchema() {
  absl::StatusOr<Schema> app = LoadAppSchema();
  if (!app.ok()) return app.status();
  Schema s = *std::move(app);
  for (auto& [name, spec] : LocalTableSpecs()) {
    if (s.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          AppSchemaPath(), ": the app schema already has a table \"", name,
          "\", which the simulator's client schema reserves for a local-only table"));
    }
    s[name] = spec;
  }
  return s;
}

}  // namespace rindle::sim
