// lifecycle_tables.h — the ONE spelling of the four daemon-registered lifecycle system tables
// (seed 002 Slice I-iii, "foldSystemFrames"): their names, their wire columns in order and their
// primary keys, and the reserved query name a system retain subscribes under. Stateless.
//
// Written by the room authority's flush into the daemon's store (co-committed with the flushed
// writes in ONE daemon transaction, seed 002 I-ii), served by the daemon on the lifecycle query,
// folded by the client's system streams in this fixed category order: outcome rows, room-ledger
// rows, watermark rows, scope-session rows (kLifecycleFoldOrder).
//
//   _rindle_scope_sessions          (scope, client_id, expires_at)            pk (scope, client_id)
//   _rindle_room_watermark          (doc, flush_seq)                          pk (doc)
//   _rindle_room_client_mutations   (doc, client_id, last_mutation_id)        pk (doc, client_id)
//   _rindle_room_mutation_outcomes  (doc, client_id, mid, kind, reason, name, args)
//                                                                             pk (doc, client_id, mid)
// `kind` is "deopt" or "rejected" (an ABSENT row under a covering room lmid means applied);
// `reason` / `name` are strings or null; `args` is the mutation's args as JSON TEXT (or null).
// `expires_at` and `flush_seq`, `last_mutation_id`, `mid` are integers (virtual ms for
// expires_at).
//
// The lifecycle query (kLifecycleQueryName) is a RemoteQuery whose args name the table and the
// doc (room tables) or scope (sessions) it serves, plus the subscribing client:
//   {"table": <one of the four>, "doc": <doc>}            — the three room tables
//   {"table": "_rindle_scope_sessions", "scope": <scope>}
//   and "client_id": <client id> on every one (the server scopes client-keyed tables by it; the
//   client still filters every row by its own id and the retain's doc/scope — defense in depth).
// The daemon resolves it to `SELECT * FROM table WHERE doc = ? [AND client_id = ?]` (or scope).
#pragma once

#include <array>
#include <string_view>
#include <vector>

namespace rindle {

inline constexpr std::string_view kScopeSessionsTable = "_rindle_scope_sessions";
inline constexpr std::string_view kRoomWatermarkTable = "_rindle_room_watermark";
inline constexpr std::string_view kRoomClientMutationsTable = "_rindle_room_client_mutations";
inline constexpr std::string_view kRoomMutationOutcomesTable = "_rindle_room_mutation_outcomes";

// The reserved name system retains subscribe under (never an app query).
inline constexpr std::string_view kLifecycleQueryName = "_rindle/lifecycle";

// Outcome kinds as the rows (and mutationOutcome frames) spell them.
inline constexpr std::string_view kOutcomeDeopt = "deopt";
inline constexpr std::string_view kOutcomeRejected = "rejected";

struct LifecycleTableSpec {
  std::string_view name;
  std::vector<std::string_view> columns;  // wire order
  std::vector<int> primary_key;           // indexes into columns
};

// The four schemas, in the seed's FOLD order: outcomes, room ledger, watermark, scope sessions.
inline const std::array<LifecycleTableSpec, 4>& LifecycleTables() {
  static const std::array<LifecycleTableSpec, 4> kTables = {{
      {kRoomMutationOutcomesTable,
       {"doc", "client_id", "mid", "kind", "reason", "name", "args"},
       {0, 1, 2}},
      {kRoomClientMutationsTable, {"doc", "client_id", "last_mutation_id"}, {0, 1}},
      {kRoomWatermarkTable, {"doc", "flush_seq"}, {0}},
      {kScopeSessionsTable, {"scope", "client_id", "expires_at"}, {0, 1}},
  }};
  return kTables;
}

inline bool IsLifecycleTable(std::string_view name) {
  for (const LifecycleTableSpec& t : LifecycleTables()) {
    if (t.name == name) return true;
  }
  return false;
}

}  // namespace rindle
