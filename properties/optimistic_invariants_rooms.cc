// optimistic_invariants_rooms.cc — OptimisticInvariants' room view plane (optimistic_invariants.h
// "Room view plane"; issue 13, seed 002 302 retargetRemoteQuery / flushRetargetGc / the swap-in at
// the release tail, the per-channel SourceGate): the harness's retargets and the room channels'
// shadow gates. Expectations only: fed by the runner's record of the retargets it issued and by
// the room delivery tap, never by the backend.
#include <utility>

#include "base/source_key.h"
#include "properties/optimistic_invariants.h"

namespace rindle::props {

void OptimisticInvariants::OnRetarget(const std::string& client,
                                      const std::map<int64_t, ViewInfo>& views,
                                      const std::string& remote_key, const std::string& channel) {
  Client& c = At(client);
  if (c.backend == nullptr) return;
  SyncViews(c, views);
  const SubscriptionModel::Sub* sub = c.subs.Find(remote_key);
  if (sub == nullptr) return;
  const int64_t qid = sub->source_qid;
  auto on = c.sub_room.find(qid);
  const std::string from = on == c.sub_room.end() ? std::string(kDaemonSource) : on->second;
  if (from == channel) return;  // already there: the client moves nothing
  // Phase 1: the old channel unregisters the sub and drops its buffered frames (it leaves that
  // gate's fence); its rows stay.
  if (IsDaemonSource(from)) {
    c.gate.Forget(qid);
    std::erase_if(c.tables_of, [&](const auto& e) { return e.first.first == qid; });
    c.model.Leave(qid);
  } else if (auto g = c.room_gates.find(from); g != c.room_gates.end()) {
    g->second.gate.Forget(qid);
  }
  if (auto w = c.cutover.find(qid); w != c.cutover.end()) {
    // A second move inside the window: the intermediate channel's rows go now (swap.h).
    if (IsDaemonSource(from)) c.model.DropSource(qid);
    if (w->second == channel) c.cutover.erase(w);  // back home: its rows are the sub's again
  } else {
    c.cutover[qid] = from;
  }
  if (IsDaemonSource(channel)) {
    c.sub_room.erase(qid);
  } else {
    c.sub_room[qid] = channel;
  }
  c.subs.Rearm(qid);  // the new channel's first snapshot is the cutover point
}

void OptimisticInvariants::FlushCutover(Client& c, const std::string& channel) {
  for (auto it = c.cutover.begin(); it != c.cutover.end();) {
    const int64_t qid = it->first;
    auto on = c.sub_room.find(qid);
    const std::string now = on == c.sub_room.end() ? std::string(kDaemonSource) : on->second;
    const std::optional<std::string> key = c.subs.KeyOfSource(qid);
    const SubscriptionModel::Sub* sub = key ? c.subs.Find(*key) : nullptr;
    if (now != channel || sub == nullptr || !sub->hydrated) {
      ++it;
      continue;
    }
    // Phase 2: the channel it left drops the sub's rows (a room's twins are not the model's).
    if (IsDaemonSource(it->second)) c.model.DropSource(qid);
    it = c.cutover.erase(it);
  }
}

void OptimisticInvariants::ForgetRoomSub(Client& c, int64_t source_qid) {
  for (auto& [key, g] : c.room_gates) g.gate.Forget(source_qid);
  c.sub_room.erase(source_qid);
  c.cutover.erase(source_qid);
}

void OptimisticInvariants::OnRoomChannel(const std::string& client, const std::string& key,
                                         bool attached) {
  Client& c = At(client);
  c.room_gates.erase(key);
  if (attached) c.room_gates.emplace(key, Client::RoomGate(buffer_cap_));
}

void OptimisticInvariants::BeginRoomFence(Client& c, const std::string& key, bool reregistered) {
  Client::RoomGate& g = c.room_gates.at(key);
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [qid, room] : c.sub_room) {
    if (room == key) qids.insert(qid);
  }
  if (reregistered) g.gate.ExpectHellos(qids);
  g.resync_since_fence = false;
  g.gate.BeginFence(std::move(qids));
}

void OptimisticInvariants::OnRoomWelcome(const std::string& client, const std::string& key,
                                         int64_t boot_id) {
  Client& c = At(client);
  auto g = c.room_gates.find(key);
  if (c.backend == nullptr || g == c.room_gates.end()) return;
  if (g->second.last_boot != 0 && boot_id != g->second.last_boot) g->second.gate.Reset();
  g->second.gate.DropAll();
  g->second.last_boot = boot_id;
  g->second.resync_since_fence = true;
}

void OptimisticInvariants::OnRoomData(const std::string& client, const std::string& key,
                                      int64_t qid, const NormalizedEvent& ev) {
  Client& c = At(client);
  auto g = c.room_gates.find(key);
  if (c.backend == nullptr || !c.backend->health().ok() || g == c.room_gates.end()) return;
  if (qid != kLmidQid) {
    auto on = c.sub_room.find(qid);
    if (on == c.sub_room.end() || on->second != key) return;  // not the room's sub: grace
  }
  if (ev.type == NormalizedEvent::Type::kHello) {
    if (qid == kLmidQid && g->second.resync_since_fence) BeginRoomFence(c, key, false);
    g->second.gate.Drop(qid);
    return;
  }
  if (g->second.gate.Push({qid, ev.cv, ev.type == NormalizedEvent::Type::kSnapshot, 0, 0}) ==
      GateModel::Arrival::kOverflow) {
    BeginRoomFence(c, key, /*reregistered=*/true);  // the channel re-registers its subs
  }
}

std::optional<std::set<int64_t>> OptimisticInvariants::OnRoomProgress(const std::string& client,
                                                                      const std::string& key,
                                                                      int64_t cv_min) {
  Client& c = At(client);
  auto g = c.room_gates.find(key);
  if (c.backend == nullptr || !c.backend->health().ok() || g == c.room_gates.end()) {
    return std::nullopt;
  }
  std::set<int64_t> lmid_cvs;
  for (const GateModel::Frame& f : g->second.gate.Release(cv_min)) {
    if (f.qid == kLmidQid) lmid_cvs.insert(f.cv);
    if (f.snapshot && f.qid != kLmidQid && c.subs.Hydrate(f.qid)) SwapViews(c, f.qid, key);
  }
  FlushCutover(c, key);
  return lmid_cvs;
}

void OptimisticInvariants::SwapViews(Client& c, int64_t source_qid, const std::string& key) {
  const std::optional<std::string> remote = c.subs.KeyOfSource(source_qid);
  if (!remote) return;
  for (int64_t qid : c.subs.Find(*remote)->retains) c.swapped[qid] = key;
}

bool OptimisticInvariants::SwapBackReady(const std::string& client, const std::string& key) {
  Client& c = At(client);
  for (const auto& [qid, room] : c.swapped) {
    if (room != key) continue;
    for (const auto& [remote, sub] : c.subs.subs()) {
      if (!sub.retains.contains(qid)) continue;
      if (c.sub_room.contains(sub.source_qid) || !sub.hydrated) return false;
    }
  }
  return true;
}

std::set<int64_t> OptimisticInvariants::OnGhostDrop(const std::string& client,
                                                    const std::string& key) {
  std::set<int64_t> back;
  std::erase_if(At(client).swapped, [&](const auto& e) {
    if (e.second != key) return false;
    back.insert(e.first);
    return true;
  });
  return back;
}

}  // namespace rindle::props
