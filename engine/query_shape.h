// query_shape.h — the shape of a registered query's result (the "hello" of seed 000's
// `db.query`): per level the table, its columns and pk, the completed sort, whether it is
// singular, and its relationships. Stateless value type; built by the pipeline builder, read by
// the view fold (view.h) and by presentation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle {

struct SortPart {
  int column = 0;
  bool desc = false;
};

struct QueryShape {
  std::string table;
  TableSpec spec;                   // full columns of the level's table (rows are full width)
  std::vector<SortPart> sort;       // completed with the pk (ascending) — a total order
  bool singular = false;            // one(): presented as a row or null
  bool hidden = false;              // junction level: its children are lifted to the parent
  bool count = false;               // aggregate "count": presented as the number of children
  std::vector<std::string> select;  // empty = all columns
  struct Relationship {
    std::string alias;
    std::vector<int> parent_cols;   // in the parent level's table
    std::vector<int> child_cols;    // in the child level's table
    std::shared_ptr<const QueryShape> child;
  };
  std::vector<Relationship> relationships;

  nlohmann::json ToJson() const;
};

// Compares two full rows of one level by its completed sort (<0, 0, >0).
int CompareBySort(const std::vector<SortPart>& sort, const RowValues& a, const RowValues& b);

}  // namespace rindle
