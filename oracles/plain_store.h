// plain_store.h — the oracles' plain table store: every table an ordered map pk → full row, with
// the engine's write preconditions, and a MutationTx over it. Holds state (the tables).
//
// Shapes: rows are full-width positional RowValues in the table's column order (TableSpec);
// a table's map is keyed by the row's pk cells (TableSpec::PkOf) and ordered by
// CompareRowValues (PkLess), so iteration is deterministic. Every table of the schema has an
// entry (possibly empty) in tables().
//
// PlainStore preconditions (the same as the engine's Db, SPEC §2.1 "Write transactions"):
//   Add(table, row)           — row passes TableSpec::CheckRow; its pk must be absent.
//   Remove(table, row)        — a row with that pk must be stored and equal `row` exactly.
//   Edit(table, old, new)     — `old` must equal the stored row; `new` passes CheckRow; the pk may
//                               change (then the new pk must be absent).
//   Get(table, pk)            — nullopt when absent.
// Errors: InvalidArgument for an unknown table (listing the valid tables) or a bad row (naming
// table and column), FailedPrecondition for a failed precondition (naming table and pk). A
// failing call changes nothing.
//
// PlainMutationTx implements optimistic/mutation_tx.h over a PlainStore with transactional
// semantics: writes stage on a private copy; Commit() installs the copy into the store; a
// failing operation leaves the staged copy as it was before that operation (and the store is
// never touched before Commit). Keyed writers follow seed 002 `trackingTx`:
//   insert       — full keyed row (omitted nullable columns are null), add; error if pk exists
//   update       — pk columns required; named columns overwrite the current row; no-op if absent
//   upsert       — full keyed row; edit(current → row) if present, else add
//   insertIgnore — full keyed row; add only if absent
//   delete       — pk columns required; remove the current row; no-op if absent
// KeyedRow is a JSON object {column: value}; an unknown column is InvalidArgument listing the
// valid names; a missing non-nullable (insert/upsert) or pk (update/delete/get) column is
// InvalidArgument naming it; a JSON object/array in a `json` column is stored as its dump.
// Query() evaluates with the fresh-query oracle (oracles/fresh_query.h) over the staged copy.
// Source: SPEC §3 (oracles), seed 002 `MutationTx` / `trackingTx`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/change.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"

namespace rindle {

// Orders pk tuples by CompareRowValues.
struct PkLess {
  bool operator()(const RowValues& a, const RowValues& b) const {
    return CompareRowValues(a, b) < 0;
  }
};

// pk cells → full row.
using PlainTable = std::map<RowValues, RowValues, PkLess>;
// table name → its rows.
using PlainTables = std::map<std::string, PlainTable>;

bool PlainTablesEqual(const PlainTables& a, const PlainTables& b);
// {"table": [[cells...], ...]} in pk order — for diffs and traces.
nlohmann::json PlainTablesToJson(const PlainTables& tables);

class PlainStore {
 public:
  PlainStore() = default;
  // Creates an empty table for every table of `schema`.
  explicit PlainStore(Schema schema);

  const Schema& schema() const { return schema_; }
  const PlainTables& tables() const { return tables_; }

  // The spec of `table`, or InvalidArgument listing the known tables.
  absl::StatusOr<const TableSpec*> Spec(std::string_view table) const;

  absl::Status Add(std::string_view table, const RowValues& row);
  // Add of a STORED row of a client's synced state: a projected row may carry ABSENT (null)
  // NOT NULL cells (TableSpec::CheckRowCarryingAbsent). Remove/Edit accept carried absences too.
  absl::Status AddStored(std::string_view table, const RowValues& row);
  absl::Status Remove(std::string_view table, const RowValues& row);
  absl::Status Edit(std::string_view table, const RowValues& old_row, const RowValues& new_row);
  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table, const RowValues& pk) const;

  // Keyed ↔ positional conversions against the table's spec (see header comment).
  // full=true: every non-nullable column must be given, omitted nullable columns are null.
  absl::StatusOr<RowValues> RowFromKeyed(std::string_view table, const nlohmann::json& keyed) const;
  absl::StatusOr<RowValues> PkFromKeyed(std::string_view table, const nlohmann::json& keyed) const;
  // Overwrites the columns named in `keyed` on `current`.
  absl::StatusOr<RowValues> MergeKeyed(std::string_view table, const RowValues& current,
                                       const nlohmann::json& keyed) const;
  absl::StatusOr<nlohmann::json> ToKeyed(std::string_view table, const RowValues& row) const;

  // Fresh-query oracle over the current tables.
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) const;

  nlohmann::json ToJson() const { return PlainTablesToJson(tables_); }

 private:
  absl::Status AddChecked(std::string_view table, const TableSpec* spec, const RowValues& row);
  // Validates the keys of `keyed` against the spec; `required` lists column indices that must be
  // present.
  absl::Status CheckKeyedColumns(std::string_view table, const TableSpec& spec,
                                 const nlohmann::json& keyed, const std::vector<int>& required) const;

  Schema schema_;
  PlainTables tables_;
};

class PlainMutationTx : public MutationTx {
 public:
  // Stages on a copy of `*store`; the store must outlive the tx.
  explicit PlainMutationTx(PlainStore* store);

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                               const RowValues& pk) override;
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                 const KeyedRow& pk) override;
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override;
  absl::Status Add(std::string_view table, const RowValues& row) override;
  absl::Status Remove(std::string_view table, const RowValues& row) override;
  absl::Status Edit(std::string_view table, const RowValues& old_row,
                    const RowValues& new_row) override;
  absl::Status Insert(std::string_view table, const KeyedRow& row) override;
  absl::Status Update(std::string_view table, const KeyedRow& row) override;
  absl::Status Upsert(std::string_view table, const KeyedRow& row) override;
  absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) override;
  absl::Status Delete(std::string_view table, const KeyedRow& pk) override;

  // The staged state (reads see it).
  const PlainStore& staged() const { return staged_; }
  // Installs the staged state into the store. The tx may not be used afterwards.
  void Commit();

 private:
  PlainStore* store_;
  PlainStore staged_;
  bool committed_ = false;
};

}  // namespace rindle
