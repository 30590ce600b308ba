// scenario_kinds.cc — see scenario_kinds.h. The rows are the one place a kind is described.
#include "sim/scenario/scenario_kinds.h"

#include <algorithm>

#include "base/check.h"
#include "base/str_util.h"

namespace rindle::sim {
namespace {

using AK = ScenarioAction::Kind;
using FK = ScenarioFault::Kind;
using FT = FieldType;

std::vector<ActionKindSpec> BuildActionKinds() {
  return {
      {AK::kRetain, "retain",
       {{"query", FT::kNamedQuery, true}, {"handle", FT::kNewHandle, true}},
       "a new live view of a named query; `handle` names it for a later release",
       R"({"query": {"name": "users", "args": null}, "handle": 1})"},
      {AK::kRelease, "release", {{"handle", FT::kHandleRef, true}},
       "releases the view the retain with that handle opened (a no-op when there is none)",
       R"({"handle": 1})"},
      {AK::kMutate, "mutate",
       {{"name", FT::kMutatorName, true}, {"args", FT::kMutatorArgs, true}},
       "invokes a named mutator with concrete args (missing targets no-op or fail)",
       R"({"name": "setStatus", "args": {"id": "i001", "status": "done", "updatedAt": 5}})"},
      {AK::kMutateFolded, "mutate_folded",
       {{"name", FT::kMutatorName, true},
        {"args", FT::kMutatorArgs, true},
        {"key", FT::kFoldKey, true},
        {"debounce_ms", FT::kDurationMs, true},
        {"max_wait_ms", FT::kDurationMs, false},
        {"defer_across_writes", FT::kBool, false}},
       "InvokeFolded: invokes of one (name, key) inside a window collapse, last value wins",
       R"({"name": "setPriority", "args": {"id": "i001", "priority": "high", "updatedAt": 7},
           "key": {"id": "i001"}, "debounce_ms": 40, "max_wait_ms": 90,
           "defer_across_writes": true})"},
      {AK::kFlushFolds, "flush_folds", {}, "FlushFolds: every open fold window flushes now",
       "{}"},
      {AK::kWriteLocal, "write_local", {{"ops", FT::kLocalOps, true}},
       "one WriteLocal batch of intents on the local-only UI tables",
       R"({"ops": [{"op": "set_draft", "id": "d1", "issueId": "i001", "body": "wip"},
                   {"op": "clear_draft", "id": "d2"}, {"op": "select", "id": "s1", "issueId": "i001"},
                   {"op": "unselect", "id": "s2"}, {"op": "synced_write", "id": "x1"}]})"},
      {AK::kLocalView, "local_view",
       {{"query", FT::kLocalQueryName, true}, {"handle", FT::kNewHandle, true}},
       "a local-only view over the local tables; shares the retain handles' namespace",
       R"({"query": "drafts", "handle": 2})"},
      {AK::kRoomConnect, "room_connect", {{"doc", FT::kRoomDoc, true}},
       "the client connects to the doc's room (ConnectSource): room-declared mutations of that "
       "doc confirm there while it stays connected",
       R"({"doc": "issue:i001"})"},
      {AK::kRoomDisconnect, "room_disconnect", {{"doc", FT::kRoomDoc, true}},
       "the client disconnects from the doc's room (deferred while that domain has pending "
       "entries; a no-op when not connected)",
       R"({"doc": "issue:i001"})"},
  };
}

std::vector<FaultKindSpec> RoomFaultKinds();

std::vector<FaultKindSpec> BuildFaultKinds() {
  // The swarm columns: {rank, late, off_count_max, on_num, on_den, on_count_max}.
  std::vector<FaultKindSpec> kinds = {
      {FK::kLinkBreak, "link_break", {{"client", FT::kClient, true}},
       "the client's link drops; it reconnects after a drawn delay", R"({"client": 1})",
       {0, false, 4, 1, 2, 6}},
      {FK::kPartition, "partition",
       {{"client", FT::kClient, true}, {"duration_ms", FT::kDurationMs, true}},
       "the client's link is cut for duration_ms", R"({"client": 1, "duration_ms": 100})",
       {2, false, 2, 1, 2, 3}},
      {FK::kAuthorityRestart, "authority_restart", {},
       "the authority restarts (every link drops, state is kept)", "{}",
       {1, false, 2, 1, 2, 3}},
      {FK::kProgressStarvation, "progress_starvation", {{"duration_ms", FT::kDurationMs, true}},
       "the authority sends no progress for duration_ms", R"({"duration_ms": 80})",
       {3, false, 2, 1, 2, 3}},
      {FK::kResubscribeStorm, "resubscribe_storm",
       {{"client", FT::kClient, true}, {"count", FT::kCount, true}},
       "the client releases and re-retains every remote view, count times kStormGapMs apart",
       R"({"client": 0, "count": 3})", {4, true, 1, 1, 2, 3}},
      {FK::kSchemaSkew, "schema_skew", {{"client", FT::kClient, true}},
       "the authority's next data hello to the client lists its columns skewed (CRIT#4)",
       R"({"client": 1})", {5, true, 1, 1, 3, 3}},
      // The frame faults (sim/run/frame_faults.h says what a real transport can do and why).
      {FK::kStaleRedelivery, "stale_redelivery", {{"client", FT::kClient, true}},
       "the client's link breaks; the resumed session to the same authority process replays "
       "batches the client already released, right after the welcome (a resumable transport's "
       "replayed tail; never across a restart) — the appliedCv stale-batch defense",
       R"({"client": 1})", {6, true, 2, 2, 3, 3}},
      {FK::kFrameDuplicate, "frame_duplicate",
       {{"client", FT::kClient, true}, {"count", FT::kCount, true}},
       "each of the client's next count batches is delivered again after the progress that "
       "covers it, and its next count progress frames twice (a relay retransmit)",
       R"({"client": 0, "count": 2})", {7, true, 2, 2, 3, 3}},
      {FK::kSnapshotOvertake, "snapshot_overtake", {{"client", FT::kClient, true}},
       "the client's next data hello and its snapshot overtake batches of other queries in "
       "flight (a per-query multiplexed transport; one query's frames stay in order, "
       "nothing passes a welcome or progress)",
       R"({"client": 1})", {8, true, 3, 2, 3, 6}},
      // Drawn by DrawSwarm from a fork of its own (swarm.cc), so adding it moved no other draw;
      // the row's columns here are unused.
      {FK::kAuthorityRollback, "authority_rollback", {{"count", FT::kCount, true}},
       "the authority restarts from an older backup of its durable state: the store and the "
       "ledgers as they were before the last `count` processed envelopes (lmid and cv go back)",
       R"({"count": 2})", {9, true, 0, 0, 1, 0}},
  };
  for (FaultKindSpec& k : RoomFaultKinds()) kinds.push_back(std::move(k));
  return kinds;
}

std::vector<FaultKindSpec> RoomFaultKinds() {
  return {
      // The room kinds: placed by the generator's room pass (scenario_generator.cc), counts
      // drawn by DrawRooms (swarm.cc); the swarm columns here are unused.
      {FK::kRoomRestart, "room_restart", {{"doc", FT::kRoomDoc, true}},
       "the room restarts (new boot id, cv 0, sessions gone; store and ledgers kept) — every "
       "client's room link drops, the daemon links stay",
       R"({"doc": "issue:i001"})", {10, true, 0, 0, 1, 0}},
      {FK::kRoomLinkBreak, "room_link_break",
       {{"client", FT::kClient, true}, {"doc", FT::kRoomDoc, true}},
       "the client's link to the room drops (its daemon link stays)",
       R"({"client": 0, "doc": "issue:i001"})", {11, true, 0, 0, 1, 0}},
      {FK::kRoomPartition, "room_partition",
       {{"client", FT::kClient, true}, {"doc", FT::kRoomDoc, true},
        {"duration_ms", FT::kDurationMs, true}},
       "the client's path to the room is cut for duration_ms",
       R"({"client": 0, "doc": "issue:i001", "duration_ms": 100})", {12, true, 0, 0, 1, 0}},
      {FK::kOutcomeLoss, "outcome_loss",
       {{"doc", FT::kRoomDoc, true}, {"count", FT::kCount, true}},
       "the room's next count mutationOutcome frames are lost (the flush's outcome row stays)",
       R"({"doc": "issue:i001", "count": 1})", {13, true, 0, 0, 1, 0}},
      {FK::kOutcomeDuplicate, "outcome_duplicate",
       {{"doc", FT::kRoomDoc, true}, {"count", FT::kCount, true}},
       "the room's next count outcome frames arrive twice (the second after the lmid release)",
       R"({"doc": "issue:i001", "count": 1})", {14, true, 0, 0, 1, 0}},
      {FK::kOutcomeDelay, "outcome_delay",
       {{"doc", FT::kRoomDoc, true}, {"count", FT::kCount, true}},
       "the room's next count outcome frames are re-sent behind the lmid release that burns "
       "their mid (reordered against it)",
       R"({"doc": "issue:i001", "count": 1})", {15, true, 0, 0, 1, 0}},
      {FK::kDeoptStorm, "deopt_storm",
       {{"doc", FT::kRoomDoc, true}, {"duration_ms", FT::kDurationMs, true}},
       "for duration_ms the room deopts most mutations it processes",
       R"({"doc": "issue:i001", "duration_ms": 200})", {16, true, 0, 0, 1, 0}},
      {FK::kRejectStorm, "reject_storm",
       {{"doc", FT::kRoomDoc, true}, {"duration_ms", FT::kDurationMs, true}},
       "for duration_ms the room rejects most mutations it processes",
       R"({"doc": "issue:i001", "duration_ms": 200})", {17, true, 0, 0, 1, 0}},
      {FK::kFlushLag, "flush_lag",
       {{"doc", FT::kRoomDoc, true}, {"duration_ms", FT::kDurationMs, true}},
       "for duration_ms the room's flushes to the daemon lag long",
       R"({"doc": "issue:i001", "duration_ms": 300})", {18, true, 0, 0, 1, 0}},
      {FK::kRoomCrash, "room_crash", {{"doc", FT::kRoomDoc, true}},
       "the room crashes between confirming and flushing: a restart that loses its "
       "confirmed-unflushed writes (recorded by the harness)",
       R"({"doc": "issue:i001"})", {19, true, 0, 0, 1, 0}},
      // Drawn and placed from forks of its own (swarm.cc DrawRooms, room_sessions.cc), so adding
      // it moved no other room draw.
      {FK::kRoomFlushLinkDown, "room_flush_link_down",
       {{"client", FT::kClient, true}, {"doc", FT::kRoomDoc, true}},
       "the client's link to the room goes down right after the room handles the client's next "
       "push (its outcome frame and lmid batch die in flight) and stays down while the room's "
       "flush reaches the daemon: the verdict and the confirmation reach the client only "
       "through its system streams",
       R"({"client": 0, "doc": "issue:i001"})", {20, true, 0, 0, 1, 0}},
  };
}

// "a", "b" or "c".
std::string QuotedList(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    StrAppend(&out, "\"", names[i], "\"");
  }
  return out;
}

template <typename Spec>
std::string QuotedList(const std::vector<Spec>& rows) {
  std::vector<std::string_view> names;
  for (const Spec& row : rows) names.push_back(row.name);
  return QuotedList(names);
}

template <typename Spec>
std::vector<std::string> KnownFields(std::vector<std::string> common, const Spec& spec) {
  for (const KindField& f : spec.fields) common.emplace_back(f.name);
  return common;
}

template <typename Spec>
bool HasField(const Spec& spec, FieldType type) {
  return std::any_of(spec.fields.begin(), spec.fields.end(),
                     [type](const KindField& f) { return f.type == type; });
}

}  // namespace

std::string_view FieldTypeName(FieldType type) {
  switch (type) {
    case FT::kClient: return "client index";
    case FT::kNewHandle: return "new view handle";
    case FT::kHandleRef: return "view handle";
    case FT::kNamedQuery: return "named query {name, args}";
    case FT::kLocalQueryName: return "local query name";
    case FT::kMutatorName: return "mutator name";
    case FT::kMutatorArgs: return "mutator args object";
    case FT::kFoldKey: return "fold key (non-null JSON)";
    case FT::kDurationMs: return "virtual ms";
    case FT::kBool: return "bool";
    case FT::kLocalOps: return "local ops array";
    case FT::kCount: return "count";
    case FT::kRoomDoc: return "room doc \"issue:<id>\"";
  }
  return "?";
}

const std::vector<ActionKindSpec>& ActionKindTable() {
  static const std::vector<ActionKindSpec>* table = [] {
    auto* t = new std::vector<ActionKindSpec>(BuildActionKinds());
    for (size_t i = 0; i < t->size(); ++i) RINDLE_CHECK_EQ(static_cast<size_t>((*t)[i].kind), i);
    return t;
  }();
  return *table;
}

const std::vector<FaultKindSpec>& FaultKindTable() {
  static const std::vector<FaultKindSpec>* table = [] {
    auto* t = new std::vector<FaultKindSpec>(BuildFaultKinds());
    for (size_t i = 0; i < t->size(); ++i) RINDLE_CHECK_EQ(static_cast<size_t>((*t)[i].kind), i);
    return t;
  }();
  return *table;
}

std::vector<const FaultKindSpec*> FaultKindsInDrawOrder() {
  std::vector<const FaultKindSpec*> out;
  for (const FaultKindSpec& spec : FaultKindTable()) out.push_back(&spec);
  std::sort(out.begin(), out.end(), [](const FaultKindSpec* a, const FaultKindSpec* b) {
    return a->swarm.rank < b->swarm.rank;
  });
  return out;
}

const ActionKindSpec& ActionKindInfo(ScenarioAction::Kind kind) {
  const auto& table = ActionKindTable();
  RINDLE_CHECK(static_cast<size_t>(kind) < table.size());
  return table[static_cast<size_t>(kind)];
}

const FaultKindSpec& FaultKindInfo(ScenarioFault::Kind kind) {
  const auto& table = FaultKindTable();
  RINDLE_CHECK(static_cast<size_t>(kind) < table.size());
  return table[static_cast<size_t>(kind)];
}

const ActionKindSpec* FindActionKind(std::string_view name) {
  for (const ActionKindSpec& spec : ActionKindTable()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const FaultKindSpec* FindFaultKind(std::string_view name) {
  for (const FaultKindSpec& spec : FaultKindTable()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string ActionKindNameList() { return QuotedList(ActionKindTable()); }
std::string FaultKindNameList() { return QuotedList(FaultKindTable()); }

std::vector<std::string> ActionKnownFields(const ActionKindSpec& spec) {
  return KnownFields({"kind", "t", "client"}, spec);
}
std::vector<std::string> FaultKnownFields(const FaultKindSpec& spec) {
  return KnownFields({"kind", "t"}, spec);
}

bool ActionHasField(ScenarioAction::Kind kind, FieldType type) {
  return HasField(ActionKindInfo(kind), type);
}
bool FaultHasField(ScenarioFault::Kind kind, FieldType type) {
  return HasField(FaultKindInfo(kind), type);
}

std::string_view ActionKindName(ScenarioAction::Kind kind) { return ActionKindInfo(kind).name; }
std::string_view FaultKindName(ScenarioFault::Kind kind) { return FaultKindInfo(kind).name; }

std::optional<ScenarioFault::Kind> FaultKindFromName(std::string_view name) {
  const FaultKindSpec* spec = FindFaultKind(name);
  if (spec == nullptr) return std::nullopt;
  return spec->kind;
}

bool FaultTargetsClient(ScenarioFault::Kind kind) { return FaultHasField(kind, FT::kClient); }
bool FaultHasDuration(ScenarioFault::Kind kind) { return FaultHasField(kind, FT::kDurationMs); }
bool FaultHasCount(ScenarioFault::Kind kind) { return FaultHasField(kind, FT::kCount); }
bool FaultNamesRoom(ScenarioFault::Kind kind) { return FaultHasField(kind, FT::kRoomDoc); }
bool IsRoomDocName(std::string_view doc) { return doc.starts_with("issue:") && doc.size() > 6; }

std::vector<ScenarioAction::Kind> AllActionKinds() {
  std::vector<ScenarioAction::Kind> out;
  for (const ActionKindSpec& spec : ActionKindTable()) out.push_back(spec.kind);
  return out;
}

std::vector<ScenarioFault::Kind> AllFaultKinds() {
  std::vector<ScenarioFault::Kind> out;
  for (const FaultKindSpec& spec : FaultKindTable()) out.push_back(spec.kind);
  return out;
}

std::string_view LocalOpKindName(LocalOp::Kind kind) {
  switch (kind) {
    case LocalOp::Kind::kSetDraft: return "set_draft";
    case LocalOp::Kind::kClearDraft: return "clear_draft";
    case LocalOp::Kind::kSelect: return "select";
    case LocalOp::Kind::kUnselect: return "unselect";
    case LocalOp::Kind::kSyncedWrite: return "synced_write";
  }
  return "?";
}

std::vector<LocalOp::Kind> AllLocalOpKinds() {
  using K = LocalOp::Kind;
  return {K::kSetDraft, K::kClearDraft, K::kSelect, K::kUnselect, K::kSyncedWrite};
}

std::string LocalOpKindNameList() {
  std::vector<std::string_view> names;
  for (LocalOp::Kind kind : AllLocalOpKinds()) names.push_back(LocalOpKindName(kind));
  return QuotedList(names);
}

}  // namespace rindle::sim
