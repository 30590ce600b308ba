// normalized_sync.h — one channel's cross-query row refcount and per-row column union (seed 002
// NormalizedSync / PROJECTION-SUPPORT-DESIGN §4-§5; §1.3 release, CRIT#2 GC). Holds state: per
// (table, pk) the current authoritative row, which cells of it are PRESENT, and the set of remote
// qids referencing it; per qid the pks it references; per (qid, table) the hello's column map;
// and the net change since the last TakeDelta().
//
// Shapes: incoming RowOp rows are positional against the hello's column list for that table.
// The hello is matched to the schema BY NAME: a narrower hello (a projected query) carries only
// its columns, the rest of the row is not covered by that qid; a wider hello (the server has
// extra columns mid expand-then-contract) covers every schema column and its extra wire cells
// are dropped. Stored rows and emitted deltas are full width in schema column order; an ABSENT
// cell (no referencing qid covers it) is null, since the engine has no absent token. Keys are
// ordered (table name, then pk by CompareRowValues), so TakeDelta() is deterministic.
//
// Semantics:
//   SetProjection(qid, hello tables) — learn the wire→schema column map per table; a table whose
//                            hello is exactly the schema's layout (or is not in the hello) is
//                            '*': all cells, no map (this also clears a previous map).
//   Rehydrate(qid, adds)  — a snapshot: the qid's set becomes exactly these rows (diff against its
//                            previous set: rows it no longer names are released).
//   ApplyBatch(qid, ops)   — add (or overwrite) / remove / edit (a pk-moving edit = remove + add).
//                            A remove of a pk the qid does not hold is ignored.
//   DropQuery(qid)         — release every row the qid references, forget its projection.
//   Column union: an add/edit from qid A writes A's covered cells into the shared row and makes
//   them present; other cells keep their values. Whenever a row is touched or released, cells no
//   current holder covers become ABSENT (a holder that still covers a cell keeps its last
//   delivered value, whichever qid delivered it). A row whose last holder releases it is GC'd.
//   TakeDelta()            — ONE net list of ServerDeltaOp (add/remove/edit per changed key)
//                            since the previous call; a key whose visible row ended where it
//                            started emits nothing (a presence-only change, e.g. a null cell
//                            going absent, is invisible).
// Errors (InvalidArgument, naming qid/table/columns; the call then changes nothing): an unknown
// table, a local-only table, a hello whose column list is neither a subsequence of the schema's
// nor the schema's a subsequence of it (a rename or reorder), a hello repeating a column or
// omitting a pk column, a row of the wrong width for the hello, a covered cell failing the
// column's type/nullability, a null pk.
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
  // The stored row, full width; absent cells are null.
  std::optional<RowValues> Row(const std::string& table, const RowValues& pk) const;
  // Per schema column, whether the stored row's cell is present (some holder covers it).
  std::optional<std::vector<bool>> Presence(const std::string& table, const RowValues& pk) const;
  int RefCount(const std::string& table, const RowValues& pk) const;
  size_t row_count() const;
  bool HasQuery(int64_t qid) const { return by_qid_.count(qid) > 0; }
  // Whether (qid, table) has a non-identity column map (a narrower or wider hello).
  bool HasProjection(int64_t qid, const std::string& table) const;

 private:
  struct Entry {
    RowValues row;             // absent cells are null
    std::vector<bool> present;
    std::set<int64_t> holders;  // its size is the refcount
  };
  // A hello's map for one table. No entry for a (qid, table) means '*' (identity, all cells).
  struct Projection {
    std::vector<int> wire_to_col;  // per wire column: schema index, or -1 = dropped extra column
    std::vector<bool> covers;      // per schema column
  };
  struct Mapped {
    RowOp::Kind op;
    std::string table;
    RowValues row;      // full width; uncovered cells null
    RowValues old_row;  // edit only
  };
  absl::StatusOr<const TableSpec*> SpecFor(int64_t qid, const std::string& table) const;
  const Projection* ProjectionFor(int64_t qid, const std::string& table) const;
  std::vector<bool> CoversOf(int64_t qid, const std::string& table, size_t width) const;
  absl::StatusOr<RowValues> Project(int64_t qid, const std::string& table,
                                    const RowValues& wire) const;
  absl::StatusOr<std::vector<Mapped>> MapOps(int64_t qid, const std::vector<RowOp>& ops) const;
  void Mark(const std::string& table, const RowValues& pk);
  // Resets to absent every present cell that no current holder of `e` covers.
  void Narrow(const std::string& table, Entry& e) const;
  // Adds qid as a holder and merges its covered cells of `row` (full width) into the entry.
  void Hold(int64_t qid, const std::string& table, const RowValues& pk, const RowValues& row);
  void Release(int64_t qid, const std::string& table, const RowValues& pk);

  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  std::map<std::string, std::map<RowValues, Entry, RowLess>> rows_;
  std::map<int64_t, std::map<std::string, std::set<RowValues, RowLess>>> by_qid_;
  std::map<int64_t, std::map<std::string, Projection>> projection_;
  std::map<std::string, std::map<RowValues, std::optional<RowValues>, RowLess>> before_;
};

}  // namespace rindle
