// view.h — a materialized query result folded from flat change events (SPEC §2.1: "Views fold
// the change stream into the result tree"). Holds state: the ordered result tree.
//
// Construct from the query's shape, then Apply() the snapshot events and every later batch. Each
// level keeps its rows ordered by the level's completed sort; an event's path locates the parent
// by its row (binary search on the parent level's sort), so a path row must equal the parent's
// current row. Apply errors (FailedPrecondition) when an event does not fit the current tree:
// add of a present pk, remove/edit of an absent or different row, a path that does not resolve.
// A failing event leaves the view as it was before that event (earlier events of the same
// Apply(vector) call stay applied).
//
// RawJson(): [{"row":[full cells],"rels":{"alias":[...]}}...] — every level, hidden and count
// levels included, full rows. DataJson(): the presentation of seed 000's view.data (presentation.h).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/query_shape.h"
#include "nlohmann/json.hpp"

namespace rindle {

class ResultView {
 public:
  explicit ResultView(QueryShape shape);
  ~ResultView();
  ResultView(ResultView&&) noexcept;
  ResultView& operator=(ResultView&&) noexcept;

  absl::Status Apply(const std::vector<ChangeEvent>& events);
  absl::Status Apply(const ChangeEvent& event);

  const QueryShape& shape() const { return *shape_; }
  std::vector<TreeNode> Tree() const;
  nlohmann::json RawJson() const;
  size_t root_size() const;

 private:
  struct Level;
  // The level an event's path leads to; FailedPrecondition naming the first step that does not
  // resolve.
  absl::StatusOr<Level*> ResolvePath(const std::vector<PathStep>& path);
  std::shared_ptr<const QueryShape> shape_;  // stable address for the level comparators
  std::unique_ptr<Level> root_;
};

}  // namespace rindle
