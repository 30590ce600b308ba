#include "engine/str_util.h"
#include "engine/view.h"

#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "engine/status_macros.h"
#include "engine/table.h"

namespace rindle {

struct ResultView::Level {
  struct Node {
    std::vector<std::unique_ptr<Level>> rels;
  };
  explicit Level(const QueryShape* s)
      : shape(s), rows(RowOrderLess{&s->sort}) {}
  const QueryShape* shape;
  absl::btree_map<Row, Node, RowOrderLess> rows;
  absl::btree_map<RowValues, Row, RowKeyLess> by_pk;

  RowValues Pk(const RowValues& row) const { return shape->spec.PkOf(row); }

  Node MakeNode(const TreeNode& tn) {
    Node n;
    for (const auto& rel : shape->relationships) {
      auto child = std::make_unique<Level>(rel.child.get());
      for (const auto& [alias, children] : tn.relationships) {
        if (alias != rel.alias) continue;
        for (const auto& c : children) child->Insert(c);
      }
      n.rels.push_back(std::move(child));
    }
    return n;
  }
  void Insert(const TreeNode& tn) {
    by_pk[Pk(*tn.row)] = tn.row;
    rows.emplace(tn.row, MakeNode(tn));
  }
  void AppendTree(std::vector<TreeNode>& out) const {
    for (const auto& [row, node] : rows) {
      TreeNode tn;
      tn.row = row;
      for (size_t i = 0; i < node.rels.size(); ++i) {
        std::vector<TreeNode> kids;
        node.rels[i]->AppendTree(kids);
        tn.relationships.emplace_back(shape->relationships[i].alias, std::move(kids));
      }
      out.push_back(std::move(tn));
    }
  }
};

ResultView::ResultView(QueryShape shape)
    : shape_(std::make_shared<const QueryShape>(std::move(shape))),
      root_(std::make_unique<Level>(shape_.get())) {}
ResultView::~ResultView() = default;
ResultView::ResultView(ResultView&&) noexcept = default;
ResultView& ResultView::operator=(ResultView&&) noexcept = default;

absl::Status ResultView::Apply(const std::vector<ChangeEvent>& events) {
  for (const auto& e : events) RETURN_IF_ERROR(Apply(e));
  return absl::OkStatus();
}

absl::Status ResultView::Apply(const ChangeEvent& e) {
  Level* level = root_.get();
  for (size_t i = 0; i < e.path.size(); ++i) {
    const PathStep& step = e.path[i];
    auto it = level->rows.find(step.parent_row);
    if (it == level->rows.end() || CompareRowValues(*it->first, *step.parent_row) != 0) {
      return absl::FailedPreconditionError(StrCat("view fold: path[", i, "] parent row ",
                                                        RowDebugString(*step.parent_row),
                                                        " is not in the result"));
    }
    int rel = -1;
    const auto& rels = level->shape->relationships;
    if (step.relationship >= 0) {
      if (static_cast<size_t>(step.relationship) < rels.size() &&
          rels[step.relationship].alias == step.alias) {
        rel = step.relationship;
      }
    } else {
      for (size_t r = 0; r < rels.size(); ++r) {
        if (rels[r].alias == step.alias) rel = static_cast<int>(r);
      }
    }
    if (rel < 0) {
      return absl::FailedPreconditionError(
          StrCat("view fold: path[", i, "] unknown relationship \"", step.alias, "\""));
    }
    level = it->second.rels[rel].get();
  }
  switch (e.op.kind) {
    case ChangeOp::Kind::kAdd: {
      RowValues pk = level->Pk(*e.op.node.row);
      if (level->by_pk.contains(pk)) {
        return absl::FailedPreconditionError(
            StrCat("view fold: add of a row already present: ", RowDebugString(pk)));
      }
      level->Insert(e.op.node);
      return absl::OkStatus();
    }
    case ChangeOp::Kind::kRemove: {
      RowValues pk = level->Pk(*e.op.row);
      auto it = level->by_pk.find(pk);
      if (it == level->by_pk.end() || CompareRowValues(*it->second, *e.op.row) != 0) {
        return absl::FailedPreconditionError(StrCat(
            "view fold: remove of a row not in the result: ", RowDebugString(*e.op.row)));
      }
      level->rows.erase(it->second);
      level->by_pk.erase(it);
      return absl::OkStatus();
    }
    case ChangeOp::Kind::kEdit: {
      RowValues old_pk = level->Pk(*e.op.old_row), new_pk = level->Pk(*e.op.new_row);
      auto it = level->by_pk.find(old_pk);
      if (it == level->by_pk.end() || CompareRowValues(*it->second, *e.op.old_row) != 0) {
        return absl::FailedPreconditionError(StrCat(
            "view fold: edit of a row not in the result: ", RowDebugString(*e.op.old_row)));
      }
      if (CompareRowValues(old_pk, new_pk) != 0 && level->by_pk.contains(new_pk)) {
        return absl::FailedPreconditionError(
            StrCat("view fold: edit onto a present pk: ", RowDebugString(new_pk)));
      }
      auto node_it = level->rows.find(it->second);
      Level::Node node = std::move(node_it->second);
      level->rows.erase(node_it);
      level->by_pk.erase(it);
      level->by_pk[new_pk] = e.op.new_row;
      level->rows.emplace(e.op.new_row, std::move(node));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

std::vector<TreeNode> ResultView::Tree() const {
  std::vector<TreeNode> out;
  root_->AppendTree(out);
  return out;
}

nlohmann::json ResultView::RawJson() const { return TreeToJson(Tree()); }

size_t ResultView::root_size() const { return root_->rows.size(); }

}  // namespace rindle
