// simulation_rooms.cc — the Simulation's room part (simulation.h "Rooms"): making the rooms,
// their frames and outcome faults, the room actions, the flush schedule and the room faults. What
// the outcome frames and system streams released, and the deal record: simulation_system_record.cc.
#include <algorithm>
#include <cstdint>
#include <set>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/source_key.h"
#include "base/str_util.h"
#include "sim/run/simulation.h"
#include "properties/families.h"
#include "properties/room_views.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/workload/generator.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {

namespace {

constexpr int64_t kFlushLagMinMs = 10;
constexpr int64_t kFlushLagMaxMs = 80;
constexpr int64_t kLongLagMinMs = 400;
constexpr int64_t kLongLagMaxMs = 1200;
constexpr uint32_t kStormPerMille = 800;  // "most" mutations in a storm window
constexpr int64_t kOutcomeDelayMs = 60;   // behind the lmid release on the ordered link
// room_flush_link_down: the longest the link stays down when no system release covers its mid
// (a room crash lost the flush, the client's daemon link is down too).
constexpr int64_t kLinkDownMaxMs = 2000;

}  // namespace

void Simulation::MakeRooms() {
  std::set<std::string> docs;
  for (const ScenarioAction& a : scenario_.actions) {
    if (a.kind == ScenarioAction::Kind::kRoomConnect) docs.insert(a.doc);
  }
  for (const ScenarioFault& f : scenario_.faults) {
    if (FaultNamesRoom(f.kind)) docs.insert(f.doc);
  }
  std::map<std::string, std::string> user_of;
  for (int i = 0; i < scenario_.config.clients; ++i) user_of[StrCat("c", i)] = ClientUserId(i);
  for (const std::string& doc : docs) {
    RoomState& st = rooms_[doc];
    st.room = std::make_unique<RoomAuthority>(
        doc, schema_, RoomTwins(), user_of,
        [this, doc](const std::string& client, ServerFrame frame) {
          SendRoomFrame(rooms_.at(doc).room.get(), client, std::move(frame));
        },
        &counters_, root_.Fork(StrCat("room/", doc)));
    if (auto s = st.room->Seed(scenario_.seed_rows); !s.ok()) setup_status_ = s;
  }
}

void Simulation::SendRoomFrame(RoomAuthority* room, const std::string& client, ServerFrame frame) {
  const std::string key(room->source_key());
  if (frame.kind != ServerFrame::Kind::kOutcome) return PutRoomFrame(client, key, std::move(frame));
  RoomState& st = rooms_.at(room->doc());
  if (st.outcome_loss > 0) {
    --st.outcome_loss;
    Count("fault.outcome_lost");
    return;
  }
  if (st.outcome_delay > 0) {
    --st.outcome_delay;
    Count("fault.outcome_delayed");
    // Re-sent later on the ordered link: behind the lmid batch that burns its mid.
    queue_.Schedule(kOutcomeDelayMs, [this, client, key, frame] { PutRoomFrame(client, key, frame); });
    return;
  }
  if (st.outcome_duplicate > 0) {
    --st.outcome_duplicate;
    Count("fault.outcome_duplicated");
    PutRoomFrame(client, key, frame);
    queue_.Schedule(kOutcomeDelayMs, [this, client, key, frame] { PutRoomFrame(client, key, frame); });
    return;
  }
  PutRoomFrame(client, key, std::move(frame));
}

void Simulation::PutRoomFrame(const std::string& client, const std::string& key, ServerFrame frame) {
  auto it = by_id_.find(client);
  if (it == by_id_.end()) return;
  SimClient* c = it->second;
  if (network_->tapped()) network_->Label(FrameLabel(frame));
  network_->SendToClient(client, key, [this, c, key, frame] { DeliverRoom(c, key, frame); });
}

void Simulation::DeliverRoom(SimClient* c, const std::string& key, const ServerFrame& frame) {
  RoomLink* link = c->room_link(key);
  if (link == nullptr) {
    Count("room.frame_after_disconnect");
    return;
  }
  ShadowRoomFrame(c->client_id(), key, frame);
  c->MarkRoomDelivery();
  const auto before = ChannelMarks(*c);
  if (frame.kind != ServerFrame::Kind::kOutcome) {
    const bool releases = room_view_plane_ && frame.kind == ServerFrame::Kind::kProgress;
    const PlainTables context = releases ? ContextRows(*c) : PlainTables();
    link->Receive(frame);
    CheckNow("channel-isolation",
             props::CheckChannelIsolation(c->client_id(), key, before, ChannelMarks(*c)));
    if (releases) {
      CheckNow("room-context-leak",
               props::CheckRoomContextUntouched(c->client_id(), key, context, ContextRows(*c)));
    }
    return;
  }
  const size_t pushes = c->outcome_pushes().size();
  const int64_t confirmed = std::max(room_lmid_[{c->client_id(), key}].released,
                                     system_record_[c->client_id()].confirms[key]);
  const std::set<std::pair<std::string, int64_t>> pending = RoomPending(*c);
  opt_props_->OnRoomOutcome(c->client_id(), frame.outcome);
  c->BeginOutcome(key, frame.outcome.mid);
  link->Receive(frame);
  c->EndOutcome();
  CheckNow("channel-isolation",
           props::CheckChannelIsolation(c->client_id(), key, before, ChannelMarks(*c)));
  // A deopt's daemon push is the client model's normal invoke of that daemon mid.
  for (size_t i = pushes; i < c->outcome_pushes().size(); ++i) {
    opt_props_->OnInvoke(c->client_id(), c->outcome_pushes()[i]);
  }
  if (frame.outcome.kind == MutationOutcomeFrame::Kind::kDeopt && frame.outcome.name) {
    std::set<int64_t> taken;
    NoteDeoptPushes(c, key, frame.outcome.mid, *frame.outcome.name, frame.outcome.args, confirmed,
                    pending.contains({key, frame.outcome.mid}), pushes, SIZE_MAX, &taken);
  }
}

std::map<std::string, std::pair<int64_t, size_t>> Simulation::ChannelMarks(const SimClient& c) {
  std::map<std::string, std::pair<int64_t, size_t>> out;
  auto mark = [&](const std::string& key) {
    if (const Channel* ch = c.backend().channel(key)) {
      out[key] = {ch->gate().applied_cv(), ch->gate().buffered()};
    }
  };
  mark(std::string(kDaemonSource));
  for (const auto& [key, link] : c.rooms()) mark(key);
  return out;
}

void Simulation::ShadowRoomFrame(const std::string& client, const std::string& key,
                                 const ServerFrame& f) {
  // With the view plane on, the room channel's lmid frames are released by its shadow gate (a
  // reconnect's fence holds them until the room subs' snapshots arrive — seed 658: the room's
  // fresh-session lmid row at cv 1 waited behind issueDetail's resubscription while the cvMin 1
  // progress came); without it the channel carries only the lmid stream and cvMin releases it.
  std::optional<std::set<int64_t>> gate_released;
  if (room_view_plane_) {  // the room channel's shadow gate (optimistic_invariants_rooms.cc)
    switch (f.kind) {
      case ServerFrame::Kind::kWelcome:
        opt_props_->OnRoomWelcome(client, key, f.boot_id);
        break;
      case ServerFrame::Kind::kData:
        opt_props_->OnRoomData(client, key, f.qid, f.event);
        break;
      case ServerFrame::Kind::kProgress:
        gate_released = opt_props_->OnRoomProgress(client, key, f.cv_min);
        break;
      case ServerFrame::Kind::kOutcome:
        break;
    }
  }
  RoomLmidShadow& s = room_lmid_[{client, key}];
  switch (f.kind) {
    case ServerFrame::Kind::kWelcome:
      s.buffered.clear();  // a new session: what the old one buffered is dropped
      s.data_cvs.clear();
      return;
    case ServerFrame::Kind::kData:
      if (f.event.type == NormalizedEvent::Type::kHello) return;
      if (f.qid != kLmidQid) {
        s.data_cvs.push_back(f.event.cv);
        return;
      }
      for (const RowOp& op : f.event.ops) {
        if (op.op == RowOp::Kind::kRemove || op.row.size() < 2) continue;
        if (op.row[0] == Value::String(client) && op.row[1].kind() == Value::Kind::kInt) {
          s.buffered.emplace_back(f.event.cv, op.row[1].as_int());
        }
      }
      return;
    case ServerFrame::Kind::kProgress: {
      const int64_t was = s.released;
      if (std::erase_if(s.data_cvs, [&](int64_t cv) { return cv <= f.cv_min; }) > 0) {
        room_data_step_[client] = step_ + 1;  // the step being run (Run increments after it)
      }
      std::erase_if(s.buffered, [&](const std::pair<int64_t, int64_t>& b) {
        if (gate_released ? !gate_released->contains(b.first) : b.first > f.cv_min) return false;
        s.released = std::max(s.released, b.second);
        return true;
      });
      // The release retires room entries: the client reconciles off the daemon channel.
      if (s.released > was) {
        Count("check.room_release_cycle");
        opt_props_->OnRoomRelease(client, RoomBurnt(client, key, was, s.released));
      }
      int64_t& confirmed = system_record_[client].confirms[key];
      confirmed = std::max(confirmed, s.released);
      return;
    }
    case ServerFrame::Kind::kOutcome:
      return;
  }
}

// world.h room_flux / room_unsettled_ids, from the rooms' records and the harness's shadows.
void Simulation::RefreshRoomFlags() {
  std::map<std::tuple<std::string, std::string, int64_t>, const RoomRecord*> records;
  for (const auto& [doc, st] : rooms_) {
    const std::string key(st.room->source_key());
    for (const RoomRecord& r : st.room->records()) records[{r.client_id, key, r.mid}] = &r;
  }
  for (size_t i = 0; i < clients_.size(); ++i) {
    const SimClient& c = *clients_[i];
    props::ClientState& s = world_.clients[i];
    // Settling is judged after the step that settled it: the step where a verdict or a flush is
    // released still counts as unsettled (its effect is that step's change).
    auto& [was_flux, was_ids] = room_prev_[c.client_id()];  // the previous step's own values
    s.room_flux = false;
    s.room_unsettled_ids.clear();
    const auto progress = daemon_progress_.find(c.client_id());
    for (const auto& [key, carried] : c.room_carried()) {
      // The room lmid stream's release, or a daemon-carried room-ledger row's (system streams).
      const int64_t released = std::max(room_lmid_[{c.client_id(), key}].released,
                                        system_record_[c.client_id()].confirms[key]);
      const auto& sys_outcomes = system_record_[c.client_id()].outcomes;
      for (const MutationEnvelope& e : carried) {
        auto rec = records.find({c.client_id(), key, e.mid});
        // A rejected or confirmed entry retires only at its room lmid release; a deopt leaves
        // the room domain as its outcome is handled (then its daemon re-send is tracked below).
        bool settled = rec != records.end() &&
                       (released >= e.mid || (rec->second->fate == RoomFate::kDeopt &&
                                              (c.outcomes_delivered().contains({key, e.mid}) ||
                                               sys_outcomes.contains({key, e.mid}))));
        // The room's verdict shows in the client's views at its next daemon release (one
        // engine baseline, backend.h): settled once a daemon progress arrived after it.
        if (settled) {
          const int64_t n = daemon_progress_count_[c.client_id()];
          auto [mark, fresh] = room_verdict_mark_.try_emplace({c.client_id(), key, e.mid}, n);
          settled = !fresh && n > mark->second;
        }
        if (settled && rec->second->fate == RoomFate::kConfirmed) {
          auto at = flush_at_.find({std::string(RoomDocOf(key)), rec->second->flush_seq});
          settled = at != flush_at_.end() && progress != daemon_progress_.end() &&
                    (progress->second.first > at->second.first ||
                     (progress->second.first == at->second.first &&
                      progress->second.second >= at->second.second));
        }
        if (settled) continue;
        s.room_flux = true;
        if (e.args.is_object() && e.args.contains("id") && e.args["id"].is_string()) {
          s.room_unsettled_ids.insert(e.args["id"].get<std::string>());
        }
      }
    }
    // A deopt's daemon re-send is unsettled until its confirmation is RELEASED to the client:
    // until then the single-domain model holds it as a fresh invoke, while the backend's flipped
    // entry keeps its original seq and write-set (union-never-shrink, seed 002 H-v step 4).
    const int64_t released_lmid = opt_props_->ReleasedLmid(c.client_id());
    for (const int64_t mid : c.outcome_pushes()) {
      if (released_lmid < mid) s.room_flux = true;
    }
    const bool flux_now = s.room_flux;
    std::set<std::string> ids_now = s.room_unsettled_ids;
    s.room_flux = flux_now || was_flux;
    s.room_unsettled_ids.insert(was_ids.begin(), was_ids.end());
    was_flux = flux_now;
    was_ids = std::move(ids_now);
  }
}

void Simulation::ActRoomConnect(const ScenarioAction& action, SimClient* client) {
  RoomState& st = rooms_.at(action.doc);
  RoomAuthority* room = st.room.get();
  if (client->room_link(std::string(room->source_key())) != nullptr) {
    Count("action.room_connect_noop");
    return;
  }
  if (auto s = client->ConnectRoom(
          room, [this, room, id = client->client_id()] { AfterRoomPush(room, id); });
      !s.ok()) {
    Fail({"workload", StrCat(client->client_id(), ": room_connect ", action.doc,
                             " failed: ", s.message())});
    return;
  }
  Count("action.room_connect");
  ShadowSystemRetains(*client);
  AfterRoomReconnect(client, room);
  observer_->OnMark(client->client_id(), queue_.now_ms(), StrCat("room connect ", action.doc),
                    "action");
  PlanRoomViews(client, room);
}

bool Simulation::RoomBurnt(const std::string& client, const std::string& key, int64_t from,
                           int64_t to) const {
  for (const auto& [doc, st] : rooms_) {
    if (st.room->source_key() != key) continue;
    for (const RoomRecord& r : st.room->records()) {
      if (r.client_id == client && r.mid > from && r.mid <= to && r.fate != RoomFate::kConfirmed) {
        return true;
      }
    }
  }
  return false;
}

void Simulation::ActRoomDisconnect(const ScenarioAction& action, SimClient* client) {
  const std::string key = RoomSourceKey(action.doc);
  if (client->room_link(key) == nullptr) {
    Count("action.room_disconnect_noop");
    return;
  }
  if (MaybeDemote(client, rooms_.at(action.doc).room.get(), action)) return;
  if (!client->DisconnectRoom(key)) {
    Count("action.room_disconnect_deferred");
    return;
  }
  Count("action.room_disconnect");
  observer_->OnMark(client->client_id(), queue_.now_ms(), StrCat("room disconnect ", action.doc),
                    "action");
}

void Simulation::AfterRoomPush(RoomAuthority* room, const std::string& client) {
  MaybeScheduleFlush(room);
  RoomState& st = rooms_.at(room->doc());
  auto armed = st.link_down_armed.find(client);
  if (armed == st.link_down_armed.end() || room->lmid(client) <= armed->second) return;
  st.link_down_armed.erase(armed);
  const std::string key(room->source_key());
  RoomLink* link = by_id_.at(client)->room_link(key);
  if (link == nullptr) {
    Count("fault.room_flush_link_down_noop");
    return;
  }
  // Down now: the outcome frame, lmid batch and progress the room just sent die in flight, and
  // pushes / acks are lost until the hold ends (the room's flush carries the verdict instead).
  Count("fault.room_flush_link_down_fired");
  observer_->OnMark(key, queue_.now_ms(), StrCat("link down until the flush: ", client), "fault");
  network_->Partition(client, key, kLinkDownMaxMs);
  link->LinkBroken();
  link->HoldDown();
  const int64_t generation = ++st.link_down_generation;
  st.link_down[client] = {room->lmid(client), generation};
  const std::string doc = room->doc();
  queue_.Schedule(kLinkDownMaxMs, [this, doc, client, generation] {
    const auto& held = rooms_.at(doc).link_down;
    auto it = held.find(client);
    if (it != held.end() && it->second.generation == generation) {
      ReleaseLinkDown(doc, client, "at_cap");
    }
  });
}

void Simulation::ReleaseLinkDown(const std::string& doc, const std::string& client,
                                 const char* why) {
  RoomState& st = rooms_.at(doc);
  if (st.link_down.erase(client) == 0) return;
  const std::string key(st.room->source_key());
  Count(StrCat("fault.room_flush_link_down_released_", why));
  network_->EndPartition(client, key);
  if (RoomLink* link = by_id_.at(client)->room_link(key)) link->ReleaseHold();
}

void Simulation::MaybeReleaseLinkDowns(const std::string& client) {
  const SystemRecord& rec = system_record_[client];
  for (auto& [doc, st] : rooms_) {
    auto held = st.link_down.find(client);
    if (held == st.link_down.end()) continue;
    auto confirmed = rec.confirms.find(std::string(st.room->source_key()));
    if (confirmed != rec.confirms.end() && confirmed->second >= held->second.mid) {
      ReleaseLinkDown(doc, client, "by_system");
    }
  }
}

void Simulation::MaybeScheduleFlush(RoomAuthority* room) {
  RoomState& st = rooms_.at(room->doc());
  if (st.flush_scheduled || !room->HasUnflushed()) return;
  st.flush_scheduled = true;
  Rng r = root_.Fork(StrCat("flush/", room->doc(), "/", room->flush_seq() + 1));
  const bool long_lag = queue_.now_ms() < st.lag_until_ms;
  if (long_lag) Count("fault.flush_lagged");
  const int64_t lag = long_lag ? r.Range(kLongLagMinMs, kLongLagMaxMs)
                               : r.Range(kFlushLagMinMs, kFlushLagMaxMs);
  queue_.Schedule(lag, [this, room] { Flush(room); });
}

void Simulation::Flush(RoomAuthority* room) {
  RoomState& st = rooms_.at(room->doc());
  st.flush_scheduled = false;
  if (!room->HasUnflushed()) return;
  const RoomFlush flush = room->TakeFlush();
  if (!daemon_->ApplyRoomFlush(flush)) return;  // the daemon's health carries it
  Count("room.flush_applied");
  flush_at_[{room->doc(), flush.flush_seq}] = {daemon_->boot_id(), daemon_->cv()};
  counters_["room.flushed_outcome_rows"] += static_cast<int64_t>(flush.outcomes.size());
}

void Simulation::BreakRoomLinks(RoomAuthority* room) {
  const std::string key(room->source_key());
  for (auto& c : clients_) {
    RoomLink* link = c->room_link(key);
    if (link == nullptr) continue;
    network_->Break(c->client_id(), key);
    link->LinkBroken();
  }
}

void Simulation::InjectRoomStorm(RoomAuthority* room, RoomAuthority::Storm storm,
                                 int64_t duration_ms) {
  RoomState& st = rooms_.at(room->doc());
  const int64_t generation = ++st.storm_generation;
  room->SetStorm(storm, kStormPerMille);
  queue_.Schedule(duration_ms, [this, room, generation] {
    if (rooms_.at(room->doc()).storm_generation == generation) {
      room->SetStorm(RoomAuthority::Storm::kNone, 0);
    }
  });
}

void Simulation::InjectRoomFault(const ScenarioFault& fault) {
  RoomState& st = rooms_.at(fault.doc);
  RoomAuthority* room = st.room.get();
  const std::string key(room->source_key());
  const int64_t now = queue_.now_ms();
  Count(StrCat("fault.", FaultKindName(fault.kind)));
  observer_->OnMark(key, now, std::string(FaultKindName(fault.kind)), "fault");
  switch (fault.kind) {
    case ScenarioFault::Kind::kRoomRestart:
      room->Restart();
      return BreakRoomLinks(room);
    case ScenarioFault::Kind::kRoomCrash:
      counters_["fault.room_crash_lost"] += room->CrashBeforeFlush();
      // The rebuilt room reloads the daemon's doc rows.
      if (room_view_plane_) room->MirrorDaemon(daemon_->store());
      return BreakRoomLinks(room);
    case ScenarioFault::Kind::kRoomLinkBreak:
    case ScenarioFault::Kind::kRoomPartition: {
      SimClient* c = clients_[static_cast<size_t>(fault.client)].get();
      RoomLink* link = c->room_link(key);
      if (link == nullptr) {
        Count("fault.room_link_noop");
        return;
      }
      if (fault.kind == ScenarioFault::Kind::kRoomPartition) {
        network_->Partition(c->client_id(), key, fault.duration_ms);
      } else {
        network_->Break(c->client_id(), key);
      }
      link->LinkBroken();
      return;
    }
    case ScenarioFault::Kind::kOutcomeLoss:
      st.outcome_loss += fault.count;
      return;
    case ScenarioFault::Kind::kOutcomeDuplicate:
      st.outcome_duplicate += fault.count;
      return;
    case ScenarioFault::Kind::kOutcomeDelay:
      st.outcome_delay += fault.count;
      return;
    case ScenarioFault::Kind::kDeoptStorm:
      return InjectRoomStorm(room, RoomAuthority::Storm::kDeopt, fault.duration_ms);
    case ScenarioFault::Kind::kRejectStorm:
      return InjectRoomStorm(room, RoomAuthority::Storm::kReject, fault.duration_ms);
    case ScenarioFault::Kind::kFlushLag:
      st.lag_until_ms = std::max(st.lag_until_ms, now + fault.duration_ms);
      return;
    case ScenarioFault::Kind::kRoomFlushLinkDown: {
      const std::string& client = clients_[static_cast<size_t>(fault.client)]->client_id();
      st.link_down_armed[client] = room->lmid(client);  // fires at its next handled push
      return;
    }
    default:
      RINDLE_CHECK_MSG(false, StrCat("not a room fault: ", FaultKindName(fault.kind)));
  }
}

}  // namespace rindle::sim
