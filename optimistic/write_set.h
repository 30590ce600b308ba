// write_set.h — the pk-granular write-set and read log captured over ONE mutator invocation
// (seed 002 `WriteRecord` / `WriteSet` / `ReadRecord` / `ReadLog`, §3.2 #1/#2 and the H-ii
// coalescing matrix). Stateless value types plus the pure coalescing functions that build them.
//
// Shapes: WriteSet = table (ENGINE name) → pk-key (PkKey: compact JSON of the pk cells) →
// WriteRecord. `row` is the post-write image (full-width positional cells, schema column order);
// nullopt marks a remove. `old_row` is the full-width PRE-IMAGE of a remove/edit.
//
// Coalescing within one invocation (last-write-wins per pk on `row`, `old_row` pinned to the
// txn-entry base) — the seed's H-ii matrix, implemented by RecordAdd/RecordRemove/RecordEdit:
//   first remove / edit : old_row = the txn-visible row before the write, else the caller's
//                         asserted row (a raw write of an absent row; a pk-moving edit is keyed
//                         by the NEW pk yet carries the caller's OLD row)
//   edit-after-add / edit-after-remove : a (re-)insert — post-image only, NO old_row
//   edit-after-edit     : keeps the FIRST pre-image
//   remove-after-edit / remove-after-remove : keeps the ORIGINAL pre-image
//   remove-after-add    : the txn-visible (transient added) row
//   add (incl. add-after-remove) : post-image, no old_row
// Across rebase re-invocations MergeWriteSet is union-never-shrink: every key of the fresh set
// overwrites, keys only the accumulated set holds stay.
//
// `Touched(ws)` is the table-granular pending-axis footprint: exactly the write-set's keys.
// No errors: callers validate tables/rows before recording.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"

namespace rindle {

struct WriteRecord {
  std::string table;
  RowValues pk;
  std::optional<RowValues> row;      // nullopt = removed
  std::optional<RowValues> old_row;  // pre-image (see the matrix above)
  bool operator==(const WriteRecord&) const = default;
  nlohmann::json ToJson() const;
};

using WriteSet = std::map<std::string, std::map<std::string, WriteRecord>>;

enum class ReadOutcome { kPresent, kAbsent };

struct ReadRecord {
  std::string table;
  RowValues pk;
  ReadOutcome outcome = ReadOutcome::kAbsent;
  nlohmann::json ToJson() const;
};

struct ReadLog {
  std::vector<ReadRecord> reads;
  std::vector<Ast> queries;
  nlohmann::json ToJson() const;  // queries are reported by root table only
};

// Stable key of a pk: compact JSON of its cells ("[1,\"a\"]").
std::string PkKey(const RowValues& pk);

// The previous record of (table, pk) in this invocation, or nullptr.
const WriteRecord* PriorWrite(const WriteSet& ws, const std::string& table, const RowValues& pk);

// An add of `row` (pk `pk`).
void RecordAdd(WriteSet& ws, const std::string& table, const RowValues& pk, const RowValues& row);
// A remove: `visible` is the txn-visible row at pk BEFORE the write (nullopt when absent),
// `asserted` the row the caller passed.
void RecordRemove(WriteSet& ws, const std::string& table, const RowValues& pk,
                  const std::optional<RowValues>& visible, const RowValues& asserted);
// An edit to `new_row` (keyed by its pk `pk`): `visible` is the txn-visible row at the NEW pk
// before the write, `asserted_old` the caller's old row.
void RecordEdit(WriteSet& ws, const std::string& table, const RowValues& pk,
                const RowValues& new_row, const std::optional<RowValues>& visible,
                const RowValues& asserted_old);

// Union-never-shrink merge of a fresh invocation's set into an accumulated one.
void MergeWriteSet(WriteSet& dest, const WriteSet& src);

// Tables written (the write-set's keys), sorted.
std::set<std::string> Touched(const WriteSet& ws);

// The ONE table-overlap test (folds' flush-on-enqueue and reorder detection, the pending axis):
// whether some table of `tables` (any range of table names) is in `set`.
template <typename Tables>
bool AnyTableIn(const Tables& tables, const std::set<std::string>& set) {
  for (const auto& t : tables) {
    if (set.count(t) > 0) return true;
  }
  return false;
}
// Flattened records in (table, pk-key) order.
std::vector<WriteRecord> Flatten(const WriteSet& ws);

}  // namespace rindle
