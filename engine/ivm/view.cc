#include "base/str_util.h"
#include "engine/ivm/view.h"

#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
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
  absl::Status ApplyAdd(const TreeNode& node) {
    RowValues pk = Pk(*node.row);
    if (by_pk.contains(pk)) {
      return absl::FailedPreconditionError(
          StrCat("view fold: add of a row already present: ", RowDebugString(pk)));
    }
    Insert(node);
    return absl::OkStatus();
  }
  absl::Status ApplyRemove(const Row& row) {
    RowValues pk = Pk(*row);
    auto it = by_pk.find(pk);
    if (it == by_pk.end() || CompareRowValues(*it->second, *row) != 0) {
      return absl::FailedPreconditionError(
          StrCat("view fold: remove of a row not in the result: ", RowDebugString(*row)));
    }
    rows.erase(it->second);
    by_pk.erase(it);
    return absl::OkStatus();
  }
  // Re-keys the node under the new row; its children stay (a child's path names the new row).
  absl::Status ApplyEdit(const Row& old_row, const Row& new_row) {
    RowValues old_pk = Pk(*old_row), new_pk = Pk(*new_row);
    auto it = by_pk.find(old_pk);
    if (it == by_pk.end() || CompareRowValues(*it->second, *old_row) != 0) {
      return absl::FailedPreconditionError(
          StrCat("view fold: edit of a row not in the result: ", RowDebugString(*old_row)));
    }
    if (CompareRowValues(old_pk, new_pk) != 0 && by_pk.contains(new_pk)) {
      return absl::FailedPreconditionError(
          StrCat("view fold: edit onto a present pk: ", RowDebugString(new_pk)));
    }
    auto node_it = rows.find(it->second);
    Node node = std::move(node_it->second);
    rows.erase(node_it);
    by_pk.erase(it);
    by_pk[new_pk] = new_row;
    rows.emplace(new_row, std::move(node));
    return absl::OkStatus();
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

namespace {

// The relationship a path step names: its index when it carries one that matches the alias, else
// the last relationship with that alias; -1 when none matches.
int ResolveRelationship(const QueryShape& shape, const PathStep& step) {
  const auto& rels = shape.relationships;
  if (step.relationship >= 0) {
    if (static_cast<size_t>(step.relationship) < rels.size() &&
        rels[step.relationship].alias == step.alias) {
      return step.relationship;
    }
    return -1;
  }
  int rel = -1;
  for (size_t r = 0; r < rels.size(); ++r) {
    if (rels[r].alias == step.alias) rel = static_cast<int>(r);
  }
  return rel;
}

}  // namespace

absl::StatusOr<ResultView::Level*> ResultView::ResolvePath(const std::vector<PathStep>& path) {
  Level* level = root_.get();
  for (size_t i = 0; i < path.size(); ++i) {
    const PathStep& step = path[i];
    auto it = level->rows.find(step.parent_row);
    if (it == level->rows.end() || CompareRowValues(*it->first, *step.parent_row) != 0) {
      return absl::FailedPreconditionError(StrCat("view fold: path[", i, "] parent row ",
                                                  RowDebugString(*step.parent_row),
                                                  " is not in the result"));
    }
    const int rel = ResolveRelationship(*level->shape, step);
    if (rel < 0) {
      return absl::FailedPreconditionError(
          StrCat("view fold: path[", i, "] unknown relationship \"", step.alias, "\""));
    }
    level = it->second.rels[rel].get();
  }
  return level;
}

absl::Status ResultView::Apply(const ChangeEvent& e) {
  ASSIGN_OR_RETURN(Level * level, ResolvePath(e.path));
  switch (e.op.kind) {
    case ChangeOp::Kind::kAdd: return level->ApplyAdd(e.op.node);
    case ChangeOp::Kind::kRemove: return level->ApplyRemove(e.op.row);
    case ChangeOp::Kind::kEdit: return level->ApplyEdit(e.op.old_row, e.op.new_row);
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
