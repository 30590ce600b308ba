// room_tables.h — the client's room-table registry (seed 002 302 §2/§6 `registerRoomTables` /
// `roomTablesFor` / `unregisterRoomTables` / `roomEngineTable` / `mapGateDeltas` /
// `remapAstTables` / `stagingMap` / `warnCrossAuthorityWrites`). Holds state: per room source key,
// the wire-table → engine-table map of the tables that room OWNS, the count of dropped unowned
// deltas and the mutator names the cross-authority warning already fired for. Not thread-safe.
//
// Shapes: a room's engine table for wire table `t` is `t@<source_key>` (RoomEngineTable; source
// keys are "room:doc:X", so `deck@room:doc:X`). `@` is illegal in schema table names (engine
// SchemaFromJson and the backend's table registration refuse it), so a twin never collides with a
// real table. A twin is an ordinary tracked engine table with the wire table's engine spec.
//
// Register(key, tables): one twin per owned wire table, idempotent per (key, table); a wire table
// unknown to the schema or local-only is skipped (nothing to hold rows for); the daemon is refused
// (InvalidArgument: "the daemon is not a room"). Unregister(key) drops the twins and the record
// (no view may read them — the engine refuses otherwise, FailedPrecondition); unknown key: no-op.
// TablesFor(key): the map (empty when none) — the one source of truth.
// MapDelta(key, delta): a room channel's released (or GC) delta renamed into its twins; an op on
// a wire table outside the map (context the room still relays, or unknown) is DROPPED and counted
// (302 §6: the daemon is the sole authority for context). Identity when `key` has no record (the
// daemon, or a room that registered nothing — its deltas apply verbatim, the pre-302 path).
// StagingMap(domain): the map a room-DECLARED mutation stages through (nullptr for the daemon or
// a room with no record): its reads, writes and one-shot queries land on the twins.
// NoteCrossAuthority(name, domain, written): the 302 §5.1 dev-time guard — a room-declared
// mutator wrote engine tables that are not the room's twins; true (and the outside tables) only
// the first time per mutator name.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"

namespace rindle {

using RoomTableMap = std::map<std::string, std::string>;  // wire table → engine table

std::string RoomEngineTable(std::string_view table, std::string_view source_key);

// Every TABLE reference renamed through `map` — root, `related` subqueries, EXISTS conditions
// (walking the AST's shape, never a key scan: `start.row` is keyed by COLUMN and stays untouched).
// Tables absent from the map keep their name (the client-side join across kinds). A copy.
Ast RemapAstTables(const Ast& ast, const RoomTableMap& map);

class RoomTables {
 public:
  // All pointers must outlive this object.
  RoomTables(Db* db, const Schema* schema, const std::set<std::string>* local_tables);

  absl::Status Register(const std::string& source_key, const std::vector<std::string>& tables);
  absl::Status Unregister(const std::string& source_key);
  const RoomTableMap& TablesFor(const std::string& source_key) const;
  bool Has(const std::string& source_key) const { return rooms_.count(source_key) > 0; }

  std::vector<ServerDeltaOp> MapDelta(const std::string& source_key,
                                      std::vector<ServerDeltaOp> delta);
  const RoomTableMap* StagingMap(const std::string& domain) const;
  bool NoteCrossAuthority(const std::string& name, const std::string& domain,
                          const std::set<std::string>& written, std::vector<std::string>* outside);

  // Key order — deterministic.
  const std::map<std::string, RoomTableMap>& all() const { return rooms_; }
  int64_t dropped_unowned() const { return dropped_unowned_; }

 private:
  Db* db_;
  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  std::map<std::string, RoomTableMap> rooms_;
  std::set<std::string> warned_;  // mutator names NoteCrossAuthority fired for
  int64_t dropped_unowned_ = 0;
};

}  // namespace rindle
