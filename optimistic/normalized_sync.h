// normalized_sync.h — one channel's cross-query row refcount (seed 002 `NormalizedSync`, §1.3
// release, CRIT#2 GC, PROJECTION-SUPPORT-DESIGN §5.2). Holds state: per (table, pk) the current
// authoritative row and how many remote qids reference it; per qid the pks it references; per
// (qid, table) the hello's column projection; and the net change since the last TakeDelta().
//
// Shapes: incoming RowOp rows are positional against the hello's column list for that table
// (projection by name; a schema column the hello omits is null); stored rows and emitted deltas
// are full-width in schema column order. Keys are ordered (table name, then pk by
// CompareRowValues), so TakeDelta() is deterministic.
//
// Semantics:
//   SetProjection(qid, hello tables) — learn the wire→schema column map (identity ⇒ none).
//   Rehydrate(qid, adds)  — a snapshot: the qid's set becomes exactly these rows (diff against its
//                            previous set: rows it no longer names are released).
//   ApplyBatch(qid, ops)   — add (or overwrite) / remove / edit (a pk-moving edit = remove + add).
//                            A remove of a pk the qid does not hold is ignored.
//   DropQuery(qid)         — release every row the qid references, forget its projection.
//   A row whose refcount falls to 0 is GC'd (a net remove); the stored image of a shared row is
//   the last one any qid delivered.
//   TakeDelta()            — ONE net list of ServerDeltaOp (add/remove/edit per changed key)
//                            since the previous call; a key that ended where it started emits
//                            nothing.
// Errors (InvalidArgument, naming qid/table/column; the call then changes nothing): an unknown
// table, a local-only table, a hello column not in the schema, a hello omitting a pk column, a
// row of the wrong width for the projection, a row failing TableSpec::CheckRow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "optimistic/source.h"

namespace rindle {

class NormalizedSync {
 public:
  struct RowLess {
    bool operator()(const RowValues& a, const RowValues& b) const {
      return CompareRowValues(a, b) < 0;
    }
  };

  // `schema` / `local_tables` must outlive this object.
  NormalizedSync(const Schema* schema, const std::set<std::string>* local_tables);

  absl::Status SetProjection(int64_t qid, const std::vector<WireTable>& tables);
  absl::Status Rehydrate(int64_t qid, const std::vector<RowOp>& adds);
  absl::Status ApplyBatch(int64_t qid, const std::vector<RowOp>& ops);
  void DropQuery(int64_t qid);
  std::vector<ServerDeltaOp> TakeDelta();

  // Introspection.
  std::optional<RowValues> Row(const std::string& table, const RowValues& pk) const;
  int RefCount(const std::string& table, const RowValues& pk) const;
  size_t row_count() const;
  bool HasQuery(int64_t qid) const { return by_qid_.count(qid) > 0; }

 private:
  struct Entry {
    RowValues row;
    int refs = 0;
  };
  struct Mapped {
    RowOp::Kind op;
    std::string table;
    RowValues row;      // full width
    RowValues old_row;  // edit only
  };
  absl::StatusOr<const TableSpec*> SpecFor(int64_t qid, const std::string& table) const;
  absl::StatusOr<RowValues> Project(int64_t qid, const std::string& table,
                                    const RowValues& wire) const;
  absl::StatusOr<std::vector<Mapped>> MapOps(int64_t qid, const std::vector<RowOp>& ops) const;
  void Mark(const std::string& table, const RowValues& pk);
  void Hold(int64_t qid, const std::string& table, const RowValues& pk, const RowValues& row);
  void Release(int64_t qid, const std::string& table, const RowValues& pk);

  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  std::map<std::string, std::map<RowValues, Entry, RowLess>> rows_;
  std::map<int64_t, std::map<std::string, std::set<RowValues, RowLess>>> by_qid_;
  std::map<int64_t, std::map<std::string, std::vector<int>>> projection_;
  std::map<std::string, std::map<RowValues, std::optional<RowValues>, RowLess>> before_;
};

}  // namespace rindle
