#include "engine/presentation.h"

#include <set>
#include <string>

#include "base/check.h"

namespace rindle {
namespace {

using json = nlohmann::json;

// The presentation of one relationship's children, given the child level's AST.
json PresentChildren(const std::vector<TreeNode>& children, const Ast& sub,
                     const TableLookup& lookup) {
  if (sub.aggregate) return static_cast<int64_t>(children.size());
  if (sub.one) {
    if (children.empty()) return nullptr;
    return PresentRow(children.front(), sub, lookup);
  }
  json arr = json::array();
  for (const TreeNode& c : children) arr.push_back(PresentRow(c, sub, lookup));
  return arr;
}

// Adds the relationships of `node` (a row of level `ast`) to `out`.
void PresentRelationships(const TreeNode& node, const Ast& ast, const TableLookup& lookup,
                          json& out) {
  RINDLE_CHECK_EQ(node.relationships.size(), ast.related.size());
  for (size_t i = 0; i < ast.related.size(); ++i) {
    const CorrelatedSubquery& rel = ast.related[i];
    const Ast& sub = *rel.subquery;
    const std::vector<TreeNode>& children = node.relationships[i].second;
    if (!rel.hidden) {
      out[sub.alias.value_or("")] = PresentChildren(children, sub, lookup);
      continue;
    }
    // Junction level: lift each inner relationship to this row.
    for (size_t k = 0; k < sub.related.size(); ++k) {
      const Ast& inner = *sub.related[k].subquery;
      std::vector<TreeNode> lifted;
      for (const TreeNode& c : children) {
        RINDLE_CHECK_EQ(c.relationships.size(), sub.related.size());
        for (const TreeNode& g : c.relationships[k].second) lifted.push_back(g);
      }
      if (inner.aggregate) {
        out[inner.alias.value_or("")] = static_cast<int64_t>(lifted.size());
      } else if (inner.one) {
        out[inner.alias.value_or("")] =
            lifted.empty() ? json(nullptr) : PresentRow(lifted.front(), inner, lookup);
      } else {
        json arr = json::array();
        for (const TreeNode& g : lifted) arr.push_back(PresentRow(g, inner, lookup));
        out[inner.alias.value_or("")] = std::move(arr);
      }
    }
  }
}

}  // namespace

std::vector<int> PresentedColumns(const Ast& ast, const TableSpec& spec) {
  std::vector<int> out;
  if (!ast.select) {
    for (size_t i = 0; i < spec.columns.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  std::set<int> cols(spec.primary_key.begin(), spec.primary_key.end());
  for (const std::string& name : *ast.select) {
    const int c = spec.ColumnIndex(name);
    RINDLE_CHECK_MSG(c >= 0, "select names unknown column " + name + " of " + ast.table);
    cols.insert(c);
  }
  for (const OrderPart& o : ast.order_by) {
    const int c = spec.ColumnIndex(o.column);
    RINDLE_CHECK_MSG(c >= 0, "orderBy names unknown column " + o.column + " of " + ast.table);
    cols.insert(c);
  }
  return {cols.begin(), cols.end()};
}

json PresentRow(const TreeNode& node, const Ast& ast, const TableLookup& lookup) {
  const TableSpec* spec = lookup(ast.table);
  RINDLE_CHECK_MSG(spec != nullptr, "unknown table " + ast.table);
  RINDLE_CHECK(node.row != nullptr);
  const RowValues& row = *node.row;
  RINDLE_CHECK_EQ(row.size(), spec->columns.size());
  json out = json::object();
  for (int c : PresentedColumns(ast, *spec)) out[spec->columns[c].name] = row[c].ToJson();
  PresentRelationships(node, ast, lookup, out);
  return out;
}

json PresentData(const std::vector<TreeNode>& tree, const Ast& ast, const TableLookup& lookup) {
  return PresentChildren(tree, ast, lookup);
}

}  // namespace rindle
