// room_policy.h — the app's realtime use of rooms (issue 12): a room per issue, doc
// "issue:<id>", owning that issue's comment thread. Stateless.
//
// Room-declared mutators: addComment and moveComment — their args name the issue (args.issueId:
// the thread a comment is added to, or moved INTO), so the client's domain policy can route them
// to RoomSourceKey("issue:<id>") when the client is connected to that room, and the room runs the
// same server twins. Every other mutator confirms on the daemon. A move is a derived route the
// room refuses (room.h kDeopt): the moved comment lives in another thread (the room does not hold
// it) or, already in this one, is a row the room did not add — so a room answers `deopt` and the
// daemon applies it (seed 002 H-v: "derived-and-deopted routes"). RoomDocFor(name, args) is that
// declaration: the doc a room-declared mutation belongs to, or nullopt (not room-declared, or args
// without a string issueId). Source: seed 002 §7.1 domainPolicy, §3.3; the app's comment thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"

namespace rindle::sim {

inline constexpr char kIssueDocPrefix[] = "issue:";

// "issue:" + id.
std::string IssueDoc(const std::string& issue_id);
std::optional<std::string> RoomDocFor(const std::string& name, const nlohmann::json& args);
// The wire tables a room owns (its doc: the issue row and its comment thread) — what a client
// registers twins for (RegisterRoomTables) — and the context tables the room's store also holds
// and relays (the comment authors) but does not own: the client keeps reading the daemon's.
std::vector<std::string> RoomOwnedTables();
std::vector<std::string> RoomContextTables();
// The room-declared mutators' names, and the room's twins: their server twins (ServerMutators()).
const std::vector<std::string>& RoomDeclaredMutators();
std::map<std::string, Mutator> RoomTwins();

}  // namespace rindle::sim
