// sim_client_room_views.cc — SimClient's room view plane (sim_client.h "Room view plane"; issue
// 13, seed 002 302): twins at room connect, retarget, demote, the watermark feed, the room
// counters and the backend's room events. Kept apart from sim_client.cc (the link and actions).
#include "base/source_key.h"
#include "base/str_util.h"
#include "sim/run/sim_client.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {

void SimClient::InstallRoomViewObservers() {
  backend_->SetDowngradeStuckObserver([this](const DowngradeStuckEvent& e) {
    Count("client.room.stuck_observed");
    TraceLine({{"ev", "downgrade_stuck"}, {"room", e.source_key}, {"mids", e.mids}});
    if (on_stuck_) on_stuck_(e);
  });
  backend_->SetSwapObserver([this](int64_t qid) {
    if (const ResultView* v = backend_->View(qid)) swap_states_[qid].push_back(v->Tree());
  });
  backend_->SetBatchObserver([this](const QueryBatch& b, bool) {
    auto it = swap_states_.find(b.query_id);
    if (it == swap_states_.end()) return;  // no swap of this view this step: nothing to record
    if (const ResultView* v = backend_->View(b.query_id)) it->second.push_back(v->Tree());
  });
  backend_->SetRoomContextJoinObserver([this](const RoomContextJoinEvent& e) {
    ++context_joins_seen_;
    TraceLine({{"ev", "context_join"}, {"room", e.source_key}, {"query", e.name},
               {"tables", e.tables}});
  });
}

void SimClient::AttachRoomTables(const std::string& key) {
  if (!room_views_) return;
  if (auto s = backend_->RegisterRoomTables(key, RoomOwnedTables()); !s.ok()) {
    Count("client.room_tables_failed");  // client-health reports a sticky failure
    return;
  }
  Count("client.room_tables_registered");
}

absl::Status SimClient::RetargetView(const RemoteQuery& query, const std::string& key) {
  MarkDirty();
  auto moved = backend_->RetargetRemoteQuery(query, key);
  TraceLine({{"ev", "retarget"}, {"query", query.name}, {"args", query.args}, {"to", key},
             {"ok", moved.ok()}});
  if (!moved.ok()) return moved.status();
  if (IsDaemonSource(key)) {
    retargeted_.erase(query.Key());
  } else {
    retargeted_[query.Key()] = key;
  }
  if (on_retargeted_) on_retargeted_(query, key);
  SyncRoomCounters();
  return absl::OkStatus();
}

absl::Status SimClient::DemoteRoom(const std::string& key, const std::string& doc,
                                   int64_t final_flush_seq) {
  MarkDirty();
  auto it = rooms_.find(key);
  if (it == rooms_.end()) return absl::NotFoundError(StrCat("room ", key, " not connected"));
  std::vector<RemoteQuery> back;
  for (const auto& [qkey, channel] : retargeted_) {
    if (channel != key) continue;
    for (const auto& [qid, view] : views_) {
      if (view.first.Key() == qkey) {
        back.push_back(view.first);
        break;
      }
    }
  }
  for (const RemoteQuery& q : back) {
    if (auto s = RetargetView(q, std::string(kDaemonSource)); !s.ok()) return s;
  }
  if (auto s = backend_->DemoteRoomSource(key, doc, final_flush_seq); !s.ok()) return s;
  it->second->Close();
  closed_rooms_.push_back(std::move(it->second));
  rooms_.erase(it);
  if (on_room_channel_) on_room_channel_(key, false);
  TraceLine({{"ev", "room_demote"}, {"room", key}, {"final_flush_seq", final_flush_seq}});
  SyncRoomCounters();
  return absl::OkStatus();
}

void SimClient::FeedRoomWatermark(const std::string& doc, int64_t flush_seq) {
  MarkDirty();
  backend_->TestRoomWatermark(doc, flush_seq);
  SyncRoomCounters();
}

void SimClient::ForgetRetargetOf(int64_t local_qid) {
  auto v = views_.find(local_qid);
  if (v == views_.end()) return;
  const std::string qkey = v->second.first.Key();
  for (const auto& [qid, view] : views_) {
    if (qid != local_qid && view.first.Key() == qkey) return;  // another view keeps the sub
  }
  retargeted_.erase(qkey);
}

void SimClient::SyncRoomCounters() {
  const RoomCounters& r = backend_->room_counters();
  const std::pair<const char*, int64_t> now[] = {
      {"client.room.swap_in", r.swap_ins},
      {"client.room.late_join_swap", r.late_join_swaps},
      {"client.room.swap_back", r.swap_backs},
      {"client.room.context_join", r.context_joins},
      {"client.room.retarget_phase1", r.retargets},
      {"client.room.retarget_phase2", r.retarget_gcs},
      {"client.room.grace_frame", r.grace_frames},
      {"client.room.demote", r.demotes},
      {"client.room.ghost_drop", r.ghost_drops},
      {"client.room.ghost_cancelled", r.ghosts_cancelled},
      {"client.room.stuck", r.stuck_events},
      {"client.room.cross_authority_warning", r.cross_authority_warnings},
      {"client.room.delta_dropped", backend_->room_deltas_dropped()}};
  for (const auto& [name, value] : now) {
    int64_t& seen = seen_room_counters_[name];
    if (value > seen) (*counters_)[name] += value - seen;
    seen = value;
  }
}

}  // namespace rindle::sim
