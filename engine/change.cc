#include "base/str_util.h"
#include "engine/change.h"

namespace rindle {

nlohmann::json TreeNodeToJson(const TreeNode& node) {
  nlohmann::json rels = nlohmann::json::object();
  for (const auto& [alias, children] : node.relationships) rels[alias] = TreeToJson(children);
  return {{"row", RowToJson(*node.row)}, {"rels", rels}};
}

nlohmann::json TreeToJson(const std::vector<TreeNode>& nodes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : nodes) out.push_back(TreeNodeToJson(n));
  return out;
}

bool TreesEqual(const std::vector<TreeNode>& a, const std::vector<TreeNode>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const TreeNode& x = a[i];
    const TreeNode& y = b[i];
    if (x.row != y.row && CompareRowValues(*x.row, *y.row) != 0) return false;
    if (x.relationships.size() != y.relationships.size()) return false;
    for (size_t r = 0; r < x.relationships.size(); ++r) {
      if (x.relationships[r].first != y.relationships[r].first) return false;
      if (!TreesEqual(x.relationships[r].second, y.relationships[r].second)) return false;
    }
  }
  return true;
}

nlohmann::json ChangeEventToJson(const ChangeEvent& e) {
  nlohmann::json path = nlohmann::json::array();
  for (const auto& step : e.path) path.push_back({step.alias, RowToJson(*step.parent_row)});
  nlohmann::json out = {{"path", path}};
  switch (e.op.kind) {
    case ChangeOp::Kind::kAdd:
      out["op"] = "add";
      out["node"] = TreeNodeToJson(e.op.node);
      break;
    case ChangeOp::Kind::kRemove:
      out["op"] = "remove";
      out["row"] = RowToJson(*e.op.row);
      break;
    case ChangeOp::Kind::kEdit:
      out["op"] = "edit";
      out["old"] = RowToJson(*e.op.old_row);
      out["new"] = RowToJson(*e.op.new_row);
      break;
  }
  return out;
}

}  // namespace rindle
