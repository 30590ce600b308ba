// simulation_room_views.cc — the Simulation's room view plane (simulation.h "Room view plane";
// issue 13, seed 002 302): the retarget / late-join / demote drive, the faults in their windows,
// the watermark feed, the stuck-event check and the flags the model families read.
#include "base/source_key.h"
#include "base/str_util.h"
#include "properties/room_views.h"
#include "sim/run/simulation.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {

namespace {

bool HasView(const SimClient& c, const RemoteQuery& q) {
  for (const auto& [qid, view] : c.views()) {
    if (view.first.Key() == q.Key()) return true;
  }
  return false;
}

}  // namespace

void Simulation::PlanRoomViews(SimClient* client, RoomAuthority* room) {
  if (!room_view_plane_) return;
  const int64_t now = queue_.now_ms();
  Rng r = root_.Fork(StrCat("roomviews/", client->client_id(), "/", room->doc(), "/", now));
  if (!r.Chance(2, 3)) return;
  // The app covers the detail view's context (seed 002 302 §6.1: `user` and `tag`, which the
  // room does not own, keep reading the plain daemon tables after the swap) with daemon subs of
  // its own BEFORE it upgrades: the retarget's phase-2 GC takes the rows only the moved sub held,
  // and without a cover the join renders empty for the whole room session. Retained once, never
  // released (a scenario's navigation does not know them).
  for (const RemoteQuery& cover : {RemoteQuery{"users", nlohmann::json()},
                                   RemoteQuery{"issueTags", room->issue_id()}}) {
    if (!context_covered_.insert({client->client_id(), cover.Key()}).second) continue;
    if (!client->Retain(cover).ok()) return;
    Count("action.room_context_cover");
  }
  const RemoteQuery q{"issueDetail", room->issue_id()};
  if (!HasView(*client, q)) {
    if (!client->Retain(q).ok()) return;  // view==fresh / health report a failing retain
    Count("action.room_view_retain");
  }
  const int64_t at = r.Range(20, 150);
  const int64_t fault_after = r.Chance(1, 3) ? r.Range(1, 20) : -1;
  const int64_t late_after = r.Chance(1, 2) ? r.Range(100, 400) : -1;
  const std::string doc = room->doc();
  if (r.Chance(1, 2)) {
    // The app leaves the room while its comments may still be in flight (a stuck ghost): half
    // the time it posts one through the room in the same instant.
    const bool post = r.Chance(1, 2);
    queue_.Schedule(at + r.Range(200, 900), [this, client, room, post] {
      if (client->refused() || client->room_link(std::string(room->source_key())) == nullptr) {
        return;
      }
      opt_props_->OnLocalAction(client->client_id());
      if (post) {
        const int64_t t = queue_.now_ms();
        auto mid = client->Invoke("addComment", {{"id", StrCat("rv", client->index(), "-", t)},
                                                 {"issueId", room->issue_id()},
                                                 {"authorId", client->user_id()},
                                                 {"body", "leaving note"},
                                                 {"createdAt", t}});
        observer_->OnInvoke(client->client_id(), t, "addComment",
                            mid.ok() ? std::optional<int64_t>(*mid) : std::nullopt);
        if (mid.ok()) Count("action.room_leave_post");
      }
      ScenarioAction leave;
      leave.doc = room->doc();
      if (!MaybeDemote(client, room, leave, /*force=*/true)) return;
      Count("action.room_planned_demote");
    });
  }
  queue_.Schedule(at, [this, client, q, doc, fault_after, late_after] {
    RetargetIntoRoom(client, q, doc);
    const std::string key = RoomSourceKey(doc);
    if (client->retargeted().count(q.Key()) == 0) return;
    if (fault_after >= 0) {
      // Between the two phases: the room's first snapshot for the moved sub is not released yet.
      queue_.Schedule(fault_after, [this, client, key] {
        RoomLink* link = client->room_link(key);
        if (link == nullptr) return;
        Count("fault.retarget_window_break");
        network_->Break(client->client_id(), key);
        link->LinkBroken();
      });
    }
    if (late_after >= 0) {
      queue_.Schedule(late_after, [this, client, q, key] { LateJoinRoom(client, q, key); });
    }
  });
}

void Simulation::RetargetIntoRoom(SimClient* client, const RemoteQuery& query,
                                  const std::string& doc) {
  const std::string key = RoomSourceKey(doc);
  if (client->refused() || client->room_link(key) == nullptr || !HasView(*client, query)) {
    Count("action.room_retarget_noop");
    return;
  }
  // Not a local action for no-flicker: phase 1 keeps every visible row (the old channel's rows
  // stay until the room's first snapshot released; 302 I-iv), so a row the move itself hides is
  // a flash.
  if (auto s = client->RetargetView(query, key); !s.ok()) {
    Fail({"workload", StrCat(client->client_id(), ": retarget ", query.name, " → ", key,
                             " failed: ", s.message())});
    return;
  }
  Count("action.room_retarget");
  observer_->OnMark(client->client_id(), queue_.now_ms(), StrCat("retarget into ", doc), "action");
}

void Simulation::LateJoinRoom(SimClient* client, const RemoteQuery& query, const std::string& key) {
  auto on = client->retargeted().find(query.Key());
  if (client->refused() || on == client->retargeted().end() || on->second != key ||
      client->room_link(key) == nullptr) {
    Count("action.room_late_join_noop");
    return;
  }
  opt_props_->OnLocalAction(client->client_id());
  if (auto s = client->Retain(query); !s.ok()) {
    Fail({"workload", StrCat(client->client_id(), ": late join ", query.name, " on ", key,
                             " failed: ", s.message())});
    return;
  }
  Count("action.room_late_join");
}

bool Simulation::MaybeDemote(SimClient* client, RoomAuthority* room, const ScenarioAction& action,
                             bool force) {
  if (!room_view_plane_) return false;
  const std::string key(room->source_key());
  bool has_views = false;
  for (const auto& [q, channel] : client->retargeted()) has_views |= channel == key;
  Rng r = root_.Fork(StrCat("demote/", client->client_id(), "/", action.doc, "/", queue_.now_ms()));
  if (!force && !has_views && !r.Chance(1, 2)) return false;
  // The final flush: the room authority's record — the last flush it took, or the next one when
  // it holds unflushed verdicts (a flush is always scheduled for those).
  const int64_t final_seq = room->flush_seq() + (room->HasUnflushed() ? 1 : 0);
  MaybeScheduleFlush(room);
  // The ghost's record first: the demote evaluates the ghost at once (a stuck event may fire).
  RoomViewState& st = room_views_state_[{client->client_id(), key}];
  ++st.ghost;
  st.stuck_fired = 0;
  st.ghost_open = true;
  st.final_flush_seq = final_seq;
  st.doc = action.doc;
  if (auto s = client->DemoteRoom(key, action.doc, final_seq); !s.ok()) {
    st.ghost_open = false;
    Fail({"workload", StrCat(client->client_id(), ": demote ", action.doc, " failed: ",
                             s.message())});
    return true;
  }
  Count("action.room_demote");
  observer_->OnMark(client->client_id(), queue_.now_ms(), StrCat("demote ", action.doc), "action");
  if (r.Chance(1, 3)) {
    // Between the demote and its fence: the daemon link drops before the flush's watermark.
    queue_.Schedule(r.Range(1, 30), [this, client] {
      if (!client->connected()) return;
      Count("fault.demote_window_break");
      network_->Break(client->client_id());
      client->LinkBroken();
    });
  }
  FeedWatermarks(client);
  return true;
}

void Simulation::FeedWatermarks(SimClient* client) {
  const std::string& id = client->client_id();
  auto progress = daemon_progress_.find(id);
  if (progress == daemon_progress_.end()) return;
  for (auto& [k, st] : room_views_state_) {
    if (k.first != id || !st.ghost_open) continue;
    int64_t& fed = watermark_fed_[{id, st.doc}];
    int64_t due = fed;
    for (auto it = flush_at_.lower_bound({st.doc, fed + 1});
         it != flush_at_.end() && it->first.first == st.doc; ++it) {
      const auto& at = it->second;
      const bool covered = progress->second.first > at.first ||
                           (progress->second.first == at.first &&
                            progress->second.second >= at.second);
      if (covered) due = it->first.second;
    }
    if (due > fed) {
      fed = due;
      Count("room.watermark_fed");
      client->FeedRoomWatermark(st.doc, due);
    }
    // The harness's view of seed 002 302 dropGhost: the fence is met, no sent room mid is
    // unresolved, and every view it expects on the twins is fed again by a daemon sub whose
    // snapshot the shadow gate released (the views swap back only then).
    if (fed >= st.final_flush_seq && HoldingRoomMids(*client, k.second).empty() &&
        opt_props_->SwapBackReady(id, k.second)) {
      st.ghost_open = false;
      auto& [step, qids] = room_swap_back_[id];
      if (step != step_ + 1) qids.clear();
      step = step_ + 1;  // the step being run (Run increments after it)
      qids.merge(opt_props_->OnGhostDrop(id, k.second));
      Count("room.ghost_drop_expected");
    }
  }
}

std::set<int64_t> Simulation::UnresolvedRoomMids(const SimClient& c, const std::string& key) {
  std::set<int64_t> out;
  // Confirmed through the room channel's lmid stream or a daemon-carried room-ledger row of the
  // system stream (ShadowRoomFrame and NoteSystemRows max-fold both into the record).
  const SystemRecord& sys = system_record_[c.client_id()];
  auto confirmed = sys.confirms.find(key);
  const int64_t released = std::max(room_lmid_[{c.client_id(), key}].released,
                                    confirmed == sys.confirms.end() ? 0 : confirmed->second);
  const RoomAuthority* room = rooms_.at(std::string(RoomDocOf(key))).room.get();
  for (const RoomLink* link : c.all_room_links()) {
    if (link->key() != key) continue;
    for (const auto& [mid, e] : link->sent()) {
      if (mid <= released) continue;
      // A deopt verdict that reached the client (its frame, or its system-stream row) moves the
      // entry to the daemon domain (outcomes.h); a rejection retires only at the lmid release.
      const bool handled = c.outcomes_delivered().contains({key, mid}) ||
                           sys.outcomes.contains({key, mid});
      bool deopt = false;
      for (const RoomRecord& r : room->records()) {
        if (r.client_id == c.client_id() && r.mid == mid) deopt = r.fate == RoomFate::kDeopt;
      }
      if (handled && deopt) continue;
      out.insert(mid);
    }
  }
  return out;
}

std::set<int64_t> Simulation::HoldingRoomMids(const SimClient& c, const std::string& key) {
  // An unresolved mid the client no longer lists was dropped by a failed replay (seed 002: a
  // re-invocation that fails on the new base is dead — an addComment whose issue another client
  // deleted): it no longer holds the ghost. The one fact read from the backend here — the
  // single-domain client model cannot replay room entries (README "Not yet", as room-deopt-seq).
  std::set<int64_t> unresolved = UnresolvedRoomMids(c, key);
  std::set<int64_t> listed;
  for (const PendingMutation& p : c.backend().pending()) {
    if (p.mid && p.domain == key) listed.insert(*p.mid);
  }
  const size_t before = unresolved.size();
  std::erase_if(unresolved, [&](int64_t mid) { return !listed.contains(mid); });
  if (unresolved.size() < before) Count("check.room_ghost_fence.dropped_unverified");
  return unresolved;
}

void Simulation::OnRoomStuck(SimClient* client, const DowngradeStuckEvent& e) {
  RoomViewState& st = room_views_state_[{client->client_id(), e.source_key}];
  Count("room.stuck_event");
  CheckNow("room-stuck",
           props::CheckStuckEvent(client->client_id(), e.source_key, st.stuck_fired, e.mids,
                                  HoldingRoomMids(*client, e.source_key)));
  if (st.stuck_fired++ > 0) return;
  // The app recovers a stuck ghost by reconnecting the room (which cancels the ghost): the
  // re-sent verdicts resolve there.
  Rng r = root_.Fork(StrCat("stuck/", client->client_id(), "/", e.source_key, "/", st.ghost));
  const std::string doc = st.doc;
  queue_.Schedule(r.Range(50, 200), [this, client, doc] {
    RoomState& room = rooms_.at(doc);
    const std::string key(room.room->source_key());
    if (client->refused() || client->room_link(key) != nullptr) return;
    opt_props_->OnLocalAction(client->client_id());
    RoomAuthority* raw = room.room.get();
    if (!client->ConnectRoom(raw, [this, raw] { MaybeScheduleFlush(raw); }).ok()) return;
    Count("action.room_stuck_reconnect");
    ShadowSystemRetains(*client);
    AfterRoomReconnect(client, raw);
  });
}

void Simulation::AfterRoomReconnect(SimClient* client, RoomAuthority* room) {
  if (!room_view_plane_) return;
  const std::string key(room->source_key());
  // The reconnect cancelled a pending ghost (302 §4.2 connectSource): the views it held stay on
  // the room's twins while their sub is back on the daemon, so the app upgrades the detail view
  // into the room again (a retarget; the views stay swapped).
  room_views_state_[{client->client_id(), key}].ghost_open = false;
  const RemoteQuery q{"issueDetail", room->issue_id()};
  for (const auto& [qid, view] : client->views()) {
    if (view.first.Key() != q.Key() || !opt_props_->SwappedOnto(client->client_id(), qid, key)) {
      continue;
    }
    Count("action.room_reupgrade");
    RetargetIntoRoom(client, q, room->doc());
    return;
  }
}

bool Simulation::RoomViewsMoving(const SimClient& c) {
  if (!c.retargeted().empty() || opt_props_->RoomBacked(c.client_id())) return true;
  for (const auto& [k, st] : room_views_state_) {
    if (k.first == c.client_id() && st.ghost_open) return true;
  }
  return false;
}

void Simulation::CheckGhostFences() {
  for (const auto& [k, st] : room_views_state_) {
    if (!st.ghost_open) continue;
    const SimClient& c = *by_id_.at(k.first);
    if (c.refused() || c.room_link(k.second) != nullptr || !c.backend().health().ok()) continue;
    const SystemRecord& sys = system_record_[k.first];
    auto released = sys.watermark_released.find(st.doc);
    const int64_t mark = std::max(watermark_fed_[{k.first, st.doc}],
                                  released == sys.watermark_released.end() ? 0 : released->second);
    std::map<int64_t, std::optional<std::string>> swapped_to;
    for (int64_t qid : opt_props_->SwappedViews(k.first, k.second)) {
      // A view released since the shadow last synced its views (a release at the demote) is gone.
      if (!c.views().contains(qid)) continue;
      swapped_to[qid] = c.backend().SwappedTo(qid);
    }
    CheckNow("room-ghost-fence",
             props::CheckGhostFence(k.first, k.second, mark, st.final_flush_seq,
                                    HoldingRoomMids(c, k.second),
                                    c.backend().ghosts().contains(k.second), swapped_to));
  }
}

void Simulation::RefreshRoomViewFlags() {
  CheckGhostFences();
  for (size_t i = 0; i < clients_.size(); ++i) {
    const SimClient& c = *clients_[i];
    props::ClientState& s = world_.clients[i];
    const bool now = RoomViewsMoving(c);
    bool& prev = room_moving_prev_[c.client_id()];
    s.room_views_moving = now || prev;
    prev = now;
    if (s.room_views_moving) {
      s.room_flux = true;
      Count("check.room_views_moving_step");
    }
    auto d = room_data_step_.find(c.client_id());
    s.room_data_released = d != room_data_step_.end() && d->second == step_;
    auto back = room_swap_back_.find(c.client_id());
    s.room_swapped_back.clear();
    if (back != room_swap_back_.end() && back->second.first == step_) {
      s.room_swapped_back = back->second.second;
    }
  }
}

PlainTables Simulation::ContextRows(const SimClient& c) const {
  PlainTables out;
  for (const std::string& table : RoomContextTables()) {
    auto rows = c.backend().engine().TableRows(table);
    PlainTable& t = out[table];
    if (!rows.ok()) continue;
    const TableSpec& spec = schema_.at(table);
    for (auto& row : *rows) t.emplace(spec.PkOf(row), std::move(row));
  }
  return out;
}

}  // namespace rindle::sim
