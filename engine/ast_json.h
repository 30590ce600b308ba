// ast_json.h — parse and print the Zero wire AST JSON (SPEC §2.1). Stateless.
//
// ParseAst checks the grammar only (keys, node types, operators, value kinds); every error is
// InvalidArgument naming the JSON path into the AST ("$.where.conditions[1].left.name: ...") and
// what was expected. Unknown keys are rejected. JSON-library exceptions never escape.
// Checking an AST against table specs (ValidateAst & co.) is ast_validate.h, included here so
// callers of either find both. Source: SPEC §2.1 "Queries".
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/ast_validate.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle {

absl::StatusOr<Ast> ParseAst(const nlohmann::json& j, std::string_view path = "$");
absl::StatusOr<Ast> ParseAstText(std::string_view text, std::string_view path = "$");
absl::StatusOr<Condition> ParseCondition(const nlohmann::json& j, std::string_view path);
nlohmann::json AstToJson(const Ast& ast);
nlohmann::json ConditionToJson(const Condition& c);

}  // namespace rindle
