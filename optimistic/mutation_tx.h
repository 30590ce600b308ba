// mutation_tx.h — the surface a named mutator runs against (seed 002 `MutationTx`, SPEC §2.2).
// Interface only: implemented over the client engine (optimistic/tracking_tx), over the
// authority's engine (sim/daemon) and over the oracles' plain store (oracles/plain_store).
//
// Keyed rows are JSON objects {column: value} validated against the table's spec: an unknown
// table or column is InvalidArgument listing the valid names. Positional rows are RowValues in
// the table's column order.
//   get(table, pk cells) / row(table, keyed pk) — point reads (nullopt when absent)
//   query(ast)                                   — one-shot read, result tree
//   add / remove / edit                          — raw positional writes (engine preconditions)
//   insert                                       — add; error if the pk exists
//   update                                       — named columns overwrite; no-op if absent
//   upsert                                       — edit if present, else add
//   insertIgnore                                 — add only if absent
//   remove_keyed (seed `delete`)                 — remove if present, no-op if absent
// A mutator signals failure ("the mutator threw") by returning a non-OK Status.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"

namespace rindle {

using KeyedRow = nlohmann::json;  // {column: value}

class MutationTx {
 public:
  virtual ~MutationTx() = default;
  virtual absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                                       const RowValues& pk) = 0;
  virtual absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                         const KeyedRow& pk) = 0;
  virtual absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) = 0;
  virtual absl::Status Add(std::string_view table, const RowValues& row) = 0;
  virtual absl::Status Remove(std::string_view table, const RowValues& row) = 0;
  virtual absl::Status Edit(std::string_view table, const RowValues& old_row,
                            const RowValues& new_row) = 0;
  virtual absl::Status Insert(std::string_view table, const KeyedRow& row) = 0;
  virtual absl::Status Update(std::string_view table, const KeyedRow& row) = 0;
  virtual absl::Status Upsert(std::string_view table, const KeyedRow& row) = 0;
  virtual absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) = 0;
  virtual absl::Status Delete(std::string_view table, const KeyedRow& pk) = 0;
};

// A named mutator: runs against a tx with JSON args. Non-OK = it threw (nothing applies).
using Mutator = std::function<absl::Status(MutationTx& tx, const nlohmann::json& args)>;

}  // namespace rindle
