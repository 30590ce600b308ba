// source_set.h — the per-source slices of one Merged table (seed 000 §merge: addRoomSource,
// holdBack, holdBackAbsent, dropHeldBack, heldBackState, freezeSource, writableMatches). Holds
// state: per physical source ("daemon", "room:doc:X") its confirmed baseline, its hold-back overlay
// (§7.3: a parked row or a tombstone, consulted before the baseline) and whether it is frozen; per
// room its compiled writable scope. It knows nothing about queries, head or delivery: merge.h
// chooses the visible row per pk from these slices and writes it into the table.
//
// Winner tiering (merge.h Winner): a frozen source that holds the pk wins; else a room whose
// writable scope covers its own copy wins; else the daemon's copy; else (a row only an uncovering
// room holds) that room's copy. Ties inside a tier go to the daemon, then rooms in key order.
//
// Writable scopes: kAll (every row), kNone (none: a context table, the daemon stays
// authoritative), kColEq (row[col] == value, SQL equality: a null never matches), kPredicate (a
// row-local wire Condition compiled through ivm/predicate.h, the same code query filters use; a
// correlated subquery is rejected by ValidateRowLocalCondition at AddRoomSource).
// Invariant: the daemon slice always exists; a room slice exists iff the room is attached.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/ivm/predicate.h"
#include "engine/schema.h"
#include "engine/table.h"

namespace rindle {

// How the merge decides, per row, whether an attached room may write it (seed WritableDescriptor).
struct WritableScope {
  enum class Kind { kAll, kNone, kColEq, kPredicate };
  Kind kind = Kind::kAll;
  int col = -1;                    // kColEq: column index into the table's columns
  Value value;                     // kColEq
  std::optional<Condition> where;  // kPredicate: row-local wire Condition (ast.h)
};

// One parked hold-back, as heldBackState reports it.
struct HeldBackInfo {
  bool absent = false;                // the tombstone variant (holdBackAbsent)
  std::optional<RowValues> baseline;  // the source's CURRENT confirmed-baseline row at the pk
};

// pk → row (full width).
using PkRowMap = absl::btree_map<RowValues, Row, RowKeyLess>;

// A writable scope compiled against one table's spec.
class CompiledScope {
 public:
  // Validates and compiles `w` (errors name `where`, e.g. "addRoomSource(t, room:doc:X)").
  static absl::StatusOr<CompiledScope> Compile(const WritableScope& w, std::string_view table,
                                               const TableSpec& spec, std::string_view where);
  bool Covers(const RowValues& row) const;

 private:
  WritableScope::Kind kind_ = WritableScope::Kind::kAll;
  int col_ = -1;
  Value value_;
  Predicate predicate_;
};

// One physical source's slice of a Merged table.
struct SourceSlice {
  PkRowMap baseline;  // the confirmed rows of this source
  // The §7.3 hold-back overlay: pk → parked row, or nullptr for a tombstone (holdBackAbsent).
  PkRowMap held;
  bool frozen = false;
  std::optional<CompiledScope> scope;  // rooms only

  // Overlay-first: the parked row (or absence) at pk, else the baseline row; nullptr = absent.
  Row Effective(const RowValues& pk) const;
};

// The slices of one Merged table, by source key (daemon first: "daemon" < "room:...").
using SourceSet = std::map<std::string, SourceSlice, std::less<>>;

// The visible row at a pk and the source serving it; {nullptr, nullptr} when no source holds it.
struct SourceWinner {
  const std::string* source = nullptr;
  Row row;
};
// The winner tiering (see the header comment).
SourceWinner Winner(const SourceSet& set, const RowValues& pk);

}  // namespace rindle
