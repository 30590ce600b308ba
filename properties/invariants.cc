#include "properties/invariants.h"

#include <algorithm>

#include "base/str_util.h"
#include "engine/presentation.h"
#include "oracles/diff.h"
#include "oracles/fresh_query.h"
#include "oracles/tree_diff.h"
#include "properties/fresh_memo.h"

namespace rindle::props {

PlainTables PlainTablesOf(const Db& db, const Schema& schema, bool sync) {
  PlainTables out;
  for (const auto& [name, spec] : schema) {
    auto rows = sync ? db.SyncRows(name) : db.TableRows(name);
    PlainTable& t = out[name];
    if (!rows.ok()) continue;
    for (auto& r : *rows) t.emplace(spec.PkOf(r), std::move(r));
  }
  return out;
}

MaybeViolation CheckTreeMatchesFresh(const std::string& who, const std::vector<TreeNode>& tree,
                                     const Ast& ast, const PlainTables& tables,
                                     const Schema& schema, const std::string& property,
                                     FreshMemo* memo) {
  absl::StatusOr<std::vector<TreeNode>> computed;
  if (memo == nullptr) computed = FreshQuery(ast, tables, schema);
  const absl::StatusOr<std::vector<TreeNode>>& fresh =
      memo == nullptr ? computed : memo->Query(ast, tables, schema);
  if (!fresh.ok()) {
    return Violation{property, StrCat(who, ": the oracle rejected the query: ",
                                      fresh.status().message())};
  }
  if (TreesEqual(*fresh, tree)) return std::nullopt;
  return Violation{property, StrCat(who, ": ", TreeDiff(*fresh, tree, ast, schema))};
}

MaybeViolation CheckPresentedMatchesFresh(const std::string& who,
                                          const std::vector<TreeNode>& tree, const Ast& ast,
                                          const PlainTables& tables, const Schema& schema,
                                          const std::string& property) {
  auto fresh = FreshQuery(ast, tables, schema);
  if (!fresh.ok()) {
    return Violation{property, StrCat(who, ": the oracle rejected the query: ",
                                      fresh.status().message())};
  }
  const TableLookup lookup = [&schema](std::string_view table) -> const TableSpec* {
    auto it = schema.find(std::string(table));
    return it == schema.end() ? nullptr : &it->second;
  };
  const nlohmann::json expected = PresentData(*fresh, ast, lookup);
  const nlohmann::json actual = PresentData(tree, ast, lookup);
  if (expected == actual) return std::nullopt;
  return Violation{property, StrCat(who, " (as presented): ", JsonDiff(expected, actual))};
}

MaybeViolation CheckFoldedMatchesMaterialized(const std::string& who, const ResultView& view,
                                              const std::vector<TreeNode>& materialized) {
  const std::vector<TreeNode> folded = view.Tree();
  if (TreesEqual(materialized, folded)) return std::nullopt;
  return Violation{"events==view",
                   StrCat(who, ": ", JsonDiff(TreeToJson(materialized), TreeToJson(folded)))};
}

MaybeViolation CheckViewMatchesFresh(const std::string& who, const ResultView& view,
                                     const Ast& ast, const PlainTables& tables,
                                     const Schema& schema, FreshMemo* memo) {
  return CheckTreeMatchesFresh(who, view.Tree(), ast, tables, schema, "view==fresh", memo);
}

PlainTables MaskStore(const PlainTables& store, const Coverage& coverage, bool covered_only) {
  PlainTables out;
  for (const auto& [table, rows] : store) {
    PlainTable& t = out[table];
    for (const auto& [pk, row] : rows) {
      auto cov = coverage.find({table, pk});
      if (cov == coverage.end()) {
        if (!covered_only) t.emplace(pk, row);
        continue;
      }
      RowValues masked = row;
      for (size_t i = 0; i < masked.size() && i < cov->second.size(); ++i) {
        if (!cov->second[i]) masked[i] = Value::Null();
      }
      t.emplace(pk, std::move(masked));
    }
  }
  return out;
}

}  // namespace rindle::props
