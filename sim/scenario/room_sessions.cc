// room_sessions.cc — see room_sessions.h.
#include "sim/scenario/room_sessions.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/str_util.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/scenario/scenario_knobs.h"
#include "sim/workload/generator.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {
namespace {

const GeneratorKnobs& K = kGeneratorKnobs;

constexpr int64_t kReplyMaxMs = 2;  // a reply 0..2 ms after the move: before its deopt lands
const size_t kDocPrefixSize = std::string_view(kIssueDocPrefix).size();

// The thread moves of session k of client c on `doc` in [t+1, end] (see the header), from their
// own stream: 1..2 times a seed comment of another issue moved into the doc's thread, then a reply.
void AddThreadMoves(const Rng& root, int c, int k, int64_t t, int64_t end, const std::string& doc,
                    const Schema& schema, const Scenario& s, std::vector<ScenarioAction>& added) {
  Rng mv = root.Fork(StrCat("workload/rooms/moves/", c, "/", k));
  auto comments = s.seed_rows.find("comment");
  if (comments == s.seed_rows.end()) return;
  const int issue_col = schema.at("comment").ColumnIndex("issueId");
  if (issue_col < 0) return;
  const std::string issue = doc.substr(kDocPrefixSize);
  std::vector<std::string> outside;  // seed comments of other threads, in seed order
  for (const RowValues& row : comments->second) {
    const Value& in = row[static_cast<size_t>(issue_col)];
    if (row[0].is_string() && in.is_string() && in.as_string() != issue) {
      outside.push_back(row[0].as_string());
    }
  }
  if (outside.empty()) return;
  for (int64_t n = 0, moves = mv.Range(1, 2); n < moves && !outside.empty(); ++n) {
    ScenarioAction m;
    m.t_ms = mv.Range(t + 1, std::max(t + 1, end));
    m.client = c;
    m.kind = ScenarioAction::Kind::kMutate;
    m.name = "moveComment";
    const size_t pick = static_cast<size_t>(mv.Below(outside.size()));
    m.args = {{"id", outside[pick]}, {"issueId", issue}};
    outside.erase(outside.begin() + static_cast<std::ptrdiff_t>(pick));  // two moves, two comments
    ScenarioAction reply;
    reply.t_ms = std::max(m.t_ms, std::min(end, m.t_ms + mv.Range(0, kReplyMaxMs)));
    reply.client = c;
    reply.kind = ScenarioAction::Kind::kMutate;
    reply.name = "addComment";
    reply.args = {{"id", StrCat("rm", c, "-", k, "-", n)},
                  {"issueId", issue},
                  {"authorId", ClientUserId(c)},
                  {"body", "re: moved here"},
                  {"createdAt", reply.t_ms}};
    added.push_back(std::move(m));
    added.push_back(std::move(reply));
  }
}

// The room-declared invokes of the room sessions (`added`, in generation order: each client's
// sessions in time order), each with the doc it is routed to: an invoke made while its client is
// connected to that doc.
std::vector<std::pair<const ScenarioAction*, std::string>> RoomDeclaredInvokes(
    const std::vector<ScenarioAction>& added) {
  std::vector<std::pair<const ScenarioAction*, std::string>> out;
  std::map<int, std::string> connected;  // client → the doc it is connected to
  for (const ScenarioAction& a : added) {
    if (a.kind == ScenarioAction::Kind::kRoomConnect) connected[a.client] = a.doc;
    if (a.kind == ScenarioAction::Kind::kRoomDisconnect) connected.erase(a.client);
    if (a.kind != ScenarioAction::Kind::kMutate) continue;
    const std::optional<std::string> doc = RoomDocFor(a.name, a.args);
    auto c = connected.find(a.client);
    if (doc && c != connected.end() && c->second == *doc) out.emplace_back(&a, *doc);
  }
  return out;
}

bool AimedAtInvokes(ScenarioFault::Kind kind) {
  using K = ScenarioFault::Kind;
  return kind == K::kOutcomeLoss || kind == K::kOutcomeDuplicate || kind == K::kOutcomeDelay ||
         kind == K::kDeoptStorm || kind == K::kRejectStorm || kind == K::kFlushLag;
}

// The first room-declared invoke on `doc` at or after `t` — of `client` when it is not -1 — or
// nullptr. `invokes`: (doc, time) → the invoke, of every session.
const ScenarioAction* NextRoomInvoke(
    const std::multimap<std::pair<std::string, int64_t>, const ScenarioAction*>& invokes,
    const std::string& doc, int64_t t, int client = -1) {
  for (auto it = invokes.lower_bound({doc, t}); it != invokes.end() && it->first.first == doc;
       ++it) {
    if (client < 0 || it->second->client == client) return it->second;
  }
  return nullptr;
}

// The room faults the swarm counted, each on a doc some client connects (a link fault on one of
// its clients); none without a room (the recorded draw then says none). The outcome faults, the
// storms and flush_lag are aimed: their drawn time moves to 1 ms before the doc's next
// room-declared invoke (a lag window with no confirmed write lags nothing: fault.flush_lagged in
// 328 of 2000 seeds at uniform times); a room_link_break's to 1 ms after its client's next one; a
// room_crash's to the latency ceiling + 5 ms after the doc's next one — its push has reached the
// room, whose flush (10–80 ms after the confirm) is often still due, so the crash loses a
// confirmed, unflushed write (fault.room_crash_lost, 62 of 2000 seeds at uniform times). No extra
// draw, so the other kinds' placements are unchanged.
void PlaceRoomFaults(const Rng& root, const SwarmDraw& swarm,
                     const std::map<std::string, std::vector<int>>& clients_of,
                     const std::vector<ScenarioAction>& added, Scenario& s) {
  std::multimap<std::pair<std::string, int64_t>, const ScenarioAction*> invokes;
  for (const auto& [a, doc] : RoomDeclaredInvokes(added)) {
    invokes.emplace(std::make_pair(doc, a->t_ms), a);
  }
  if (clients_of.empty()) {
    for (const FaultKindSpec* spec : FaultKindsInDrawOrder()) {
      if (FaultNamesRoom(spec->kind)) s.swarm["faults"][std::string(spec->name)] = 0;
    }
    return;
  }
  const int64_t safety = s.config.safety_ms;
  Rng f = root.Fork("faults/rooms");
  for (const FaultKindSpec* spec : FaultKindsInDrawOrder()) {
    if (!FaultNamesRoom(spec->kind) || spec->kind == ScenarioFault::Kind::kRoomFlushLinkDown) {
      continue;  // placed by PlaceFlushLinkDowns
    }
    auto it = swarm.fault_counts.find(std::string(spec->name));
    const int count = it == swarm.fault_counts.end() ? 0 : it->second;
    for (int i = 0; i < count; ++i) {
      auto room = clients_of.begin();
      std::advance(room, static_cast<std::ptrdiff_t>(f.Below(clients_of.size())));
      ScenarioFault fault;
      fault.kind = spec->kind;
      fault.doc = room->first;
      fault.t_ms = f.Range(K.fault_earliest_ms, safety);
      if (AimedAtInvokes(fault.kind)) {
        const ScenarioAction* next = NextRoomInvoke(invokes, fault.doc, fault.t_ms);
        if (next != nullptr && next->t_ms - 1 <= safety) {
          fault.t_ms = std::max<int64_t>(fault.t_ms, next->t_ms - 1);
        }
      }
      if (FaultTargetsClient(fault.kind)) fault.client = f.Pick(room->second);
      if (fault.kind == ScenarioFault::Kind::kRoomLinkBreak) {
        // 1 ms after the client's next room-declared invoke: its push still reaches the room,
        // whose verdict and lmid batch die with the link (the reconnect's lmid snapshot and the
        // re-send's re-answered outcome then race the system stream's row).
        const ScenarioAction* next = NextRoomInvoke(invokes, fault.doc, fault.t_ms, fault.client);
        if (next != nullptr && next->t_ms + 1 <= safety) fault.t_ms = next->t_ms + 1;
      }
      if (fault.kind == ScenarioFault::Kind::kRoomCrash) {
        const ScenarioAction* next = NextRoomInvoke(invokes, fault.doc, fault.t_ms);
        const int64_t after = s.config.network.latency_ms_max + 5;
        if (next != nullptr && next->t_ms + after <= safety) fault.t_ms = next->t_ms + after;
      }
      if (FaultHasDuration(fault.kind)) fault.duration_ms = f.Range(50, 400);
      if (FaultHasCount(fault.kind)) fault.count = f.Range(1, 3);
      s.faults.push_back(fault);
    }
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const ScenarioFault& x, const ScenarioFault& y) { return x.t_ms < y.t_ms; });
}

// The slow answers to thread moves, from their own stream: each move (a moveComment inside a
// session) with 1 in 2 has its room's next outcome frame delayed behind the lmid release that
// burns its mid, or lost (the verdict then comes only through the system stream, after the
// release) — an outcome_delay / outcome_loss {count 1} armed 1 ms before the move. Either way the
// deopt reaches the client after its entry retired: the re-invoke path (seed 002 H-v step 5).
void PlaceSlowMoveAnswers(const Rng& root, const std::vector<ScenarioAction>& added, Scenario& s) {
  Rng f = root.Fork("faults/rooms/moves");
  for (const auto& [a, doc] : RoomDeclaredInvokes(added)) {
    if (a->name != "moveComment" || !f.Chance(1, 2)) continue;
    ScenarioFault fault;
    fault.kind = f.Chance(1, 2) ? ScenarioFault::Kind::kOutcomeDelay
                                : ScenarioFault::Kind::kOutcomeLoss;
    fault.doc = doc;
    fault.count = 1;
    fault.t_ms = std::max<int64_t>(0, a->t_ms - 1);
    s.faults.push_back(fault);
    // The recorded draw says what was placed (as PlaceRoomFaults' "none without a room").
    nlohmann::json& placed = s.swarm["faults"][std::string(FaultKindName(fault.kind))];
    placed = (placed.is_number_integer() ? placed.get<int>() : 0) + 1;
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const ScenarioFault& x, const ScenarioFault& y) { return x.t_ms < y.t_ms; });
}

// room_flush_link_down, from its own stream: each armed 1 ms before a room-declared invoke a
// client makes while connected to the doc (the push it fires on).
void PlaceFlushLinkDowns(const Rng& root, const SwarmDraw& swarm,
                         const std::vector<ScenarioAction>& added, Scenario& s) {
  const ScenarioFault::Kind kind = ScenarioFault::Kind::kRoomFlushLinkDown;
  auto it = swarm.fault_counts.find(std::string(FaultKindName(kind)));
  const int count = it == swarm.fault_counts.end() ? 0 : it->second;
  std::vector<const ScenarioAction*> invokes;  // room-declared invokes inside a room session
  for (const auto& [a, doc] : RoomDeclaredInvokes(added)) invokes.push_back(a);
  if (invokes.empty()) {
    s.swarm["faults"][std::string(FaultKindName(kind))] = 0;
    return;
  }
  Rng f = root.Fork("faults/rooms/flush_link_down");
  for (int i = 0; i < count; ++i) {
    const ScenarioAction* at = f.Pick(invokes);
    ScenarioFault fault;
    fault.kind = kind;
    fault.doc = *RoomDocFor(at->name, at->args);
    fault.client = at->client;
    fault.t_ms = std::max<int64_t>(0, at->t_ms - 1);
    s.faults.push_back(fault);
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const ScenarioFault& x, const ScenarioFault& y) { return x.t_ms < y.t_ms; });
}

// Session k of client c in doc, from t until end: connect, open the issue's detail view, 1..3
// comments and the thread moves, and — when it is not the client's last session, or in 1 of 4
// last ones — leave at end + 1 (disconnect and close the view). Draws from r in that order.
void AddRoomSession(const Rng& root, Rng& r, int c, int k, bool last, int64_t t, int64_t end,
                    const std::string& doc, const Schema& schema, const Scenario& s,
                    int* comments, int64_t* handle, std::vector<ScenarioAction>& added) {
  ScenarioAction a;
  a.t_ms = t;
  a.client = c;
  a.kind = ScenarioAction::Kind::kRoomConnect;
  a.doc = doc;
  added.push_back(a);
  // The app opens the issue it joins the room of (its detail view: the issue row and thread
  // the session's comments and moves predict against), and closes it as it leaves.
  ScenarioAction open;
  open.t_ms = t;
  open.client = c;
  open.kind = ScenarioAction::Kind::kRetain;
  open.query = RemoteQuery{"issueDetail", nlohmann::json(doc.substr(kDocPrefixSize))};
  open.handle = std::max<int64_t>(*handle, 1);
  *handle = open.handle + 1;
  added.push_back(open);
  for (int64_t n = r.Range(1, 4); n > 0; --n) {
    ScenarioAction m;
    m.t_ms = r.Range(t + 1, std::max(t + 1, end));
    m.client = c;
    m.kind = ScenarioAction::Kind::kMutate;
    m.name = "addComment";
    m.args = {{"id", StrCat("rc", c, "-", (*comments)++)},
              {"issueId", doc.substr(kDocPrefixSize)},
              {"authorId", ClientUserId(c)},
              {"body", r.Chance(1, 5) ? "  " : "room note"},
              {"createdAt", m.t_ms}};
    added.push_back(std::move(m));
  }
  AddThreadMoves(root, c, k, t, end, doc, schema, s, added);
  if (!last || r.Chance(1, 4)) {
    ScenarioAction d = a;
    d.t_ms = std::min(s.config.safety_ms, end + 1);
    d.kind = ScenarioAction::Kind::kRoomDisconnect;
    added.push_back(d);
    ScenarioAction close;
    close.t_ms = d.t_ms;
    close.client = c;
    close.kind = ScenarioAction::Kind::kRelease;
    close.handle = open.handle;
    added.push_back(close);
  }
}

}  // namespace

void AddRoomSessions(const Rng& root, const SwarmDraw& swarm, const Schema& schema, Scenario& s) {
  auto issues = s.seed_rows.find("issue");
  if (issues == s.seed_rows.end() || issues->second.empty()) return;
  std::vector<std::string> docs;
  for (size_t i = 0; i < issues->second.size() && i < 3; ++i) {
    docs.push_back(IssueDoc(issues->second[i][0].as_string()));
  }
  const int64_t safety = s.config.safety_ms;
  std::map<std::string, std::vector<int>> clients_of;  // doc → clients that connect it
  std::vector<ScenarioAction> added;
  std::map<int, int64_t> next_handle;  // per client: past every view handle it already uses
  for (const ScenarioAction& a : s.actions) {
    if (a.kind == ScenarioAction::Kind::kRetain || a.kind == ScenarioAction::Kind::kLocalView) {
      next_handle[a.client] = std::max(next_handle[a.client], a.handle + 1);
    }
  }
  for (int c = 0; c < s.config.clients; ++c) {
    Rng r = root.Fork(StrCat("workload/rooms/", c));
    if (r.Below(1000) >= swarm.room_connect_per_mille) continue;
    int64_t t = std::max<int64_t>(s.config.connect_ms[static_cast<size_t>(c)], 0) +
                r.Range(0, safety / 4);
    const int sessions = r.Chance(1, 3) ? 2 : 1;
    int comments = 0;
    for (int k = 0; k < sessions && t < safety; ++k) {
      const std::string doc = r.Pick(docs);
      clients_of[doc].push_back(c);
      const bool last = k + 1 == sessions;
      const int64_t end = last ? safety : std::min(safety, t + safety / 3);
      AddRoomSession(root, r, c, k, last, t, end, doc, schema, s, &comments, &next_handle[c],
                     added);
      t = end + 2;
    }
  }
  PlaceRoomFaults(root, swarm, clients_of, added, s);
  PlaceFlushLinkDowns(root, swarm, added, s);
  PlaceSlowMoveAnswers(root, added, s);
  for (ScenarioAction& a : added) s.actions.push_back(std::move(a));
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const ScenarioAction& x, const ScenarioAction& y) { return x.t_ms < y.t_ms; });
}

}  // namespace rindle::sim
