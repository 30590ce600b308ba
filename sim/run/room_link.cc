// room_link.cc — see room_link.h.
#include "sim/run/room_link.h"

#include <algorithm>

#include "base/check.h"
#include "base/source_key.h"
#include "base/str_util.h"

namespace rindle::sim {

RoomLink::RoomLink(std::string client_id, RoomAuthority* room, EventQueue* queue,
                   Network* network, std::map<std::string, int64_t>* counters, Rng rng,
                   Timing timing, std::function<void()> after_push,
                   std::vector<MutationEnvelope>* carried_sink)
    : client_id_(std::move(client_id)),
      room_(room),
      key_(std::string(room->source_key())),
      queue_(queue),
      network_(network),
      counters_(counters),
      rng_(rng),
      timing_(timing),
      after_push_(std::move(after_push)),
      carried_sink_(carried_sink) {
  RINDLE_CHECK(room_ != nullptr);
  RINDLE_CHECK(IsRoomSource(key_));
}

void RoomLink::RegisterQuery(int64_t qid, const RemoteQuery& query) {
  registry_[qid] = query;
  if (closed_) return;
  // The tap's labels name room messages as the daemon link's do (sim_client.cc): the timeline
  // page sorts them by kind.
  if (network_->tapped()) network_->Label(StrCat("register q", qid, " ", query.name));
  network_->SendToServer(client_id_, key_,
                         [this, qid, query] { room_->Register(client_id_, qid, query); });
}

void RoomLink::UnregisterQuery(int64_t qid) {
  registry_.erase(qid);
  if (closed_) return;
  if (network_->tapped()) network_->Label(StrCat("unregister q", qid));
  network_->SendToServer(client_id_, key_, [this, qid] { room_->Unregister(client_id_, qid); });
}

void RoomLink::PushMutation(const MutationEnvelope& envelope) {
  if (closed_) return;
  if (sent_.contains(envelope.mid)) {
    Count("client.room_resync_resend");
  } else {
    sent_[envelope.mid] = envelope;
    if (on_first_push_) on_first_push_(envelope);
  }
  unacked_[envelope.mid] = envelope;
  SendPush(envelope.mid, 0);
}

void RoomLink::SendPush(int64_t mid, int attempt) {
  auto it = unacked_.find(mid);
  if (it == unacked_.end() || closed_) return;
  const MutationEnvelope env = it->second;
  if (attempt > 0) Count("client.room_push_retry");
  carried_.push_back(env);
  if (carried_sink_ != nullptr) carried_sink_->push_back(env);
  if (network_->tapped()) {
    network_->Label(StrCat("push mid ", mid, " ", env.name, attempt > 0 ? " (retry)" : ""));
  }
  network_->Push(
      client_id_, key_,
      [this, env] {
        const bool acked = room_->HandlePush(env);
        if (after_push_) after_push_();
        return acked;
      },
      [this, mid] { unacked_.erase(mid); });
  const int64_t backoff =
      std::min(timing_.push_backoff_max_ms, timing_.push_timeout_ms << std::min(attempt, 4));
  queue_->Schedule(backoff, [this, mid, attempt] { SendPush(mid, attempt + 1); });
}

void RoomLink::Connect() {
  reconnect_scheduled_ = false;
  if (closed_ || up()) return;
  network_->Connect(client_id_, key_);
  Count("client.room_link_connect");
  if (network_->tapped()) network_->Label("connect");
  network_->SendToServer(client_id_, key_, [this] { room_->Connect(client_id_); });
  for (const auto& [qid, query] : registry_) {
    if (network_->tapped()) network_->Label(StrCat("register q", qid, " ", query.name, " (resync)"));
    network_->SendToServer(client_id_, key_, [this, qid = qid, query = query] {
      room_->Register(client_id_, qid, query);
    });
  }
}

void RoomLink::LinkBroken() {
  if (reconnect_scheduled_ || closed_) return;
  reconnect_scheduled_ = true;
  const int64_t now = queue_->now_ms();
  break_ordinal_ = now == last_break_ms_ ? break_ordinal_ + 1 : 0;
  last_break_ms_ = now;
  Rng delay = rng_.Fork(StrCat("reconnect/", now, "/", break_ordinal_));
  queue_->Schedule(delay.Range(timing_.reconnect_ms_min, timing_.reconnect_ms_max), [this] {
    if (closed_) return;
    if (up()) return;
    if (held_) {  // ReleaseHold reconnects
      reconnect_scheduled_ = false;
      return;
    }
    room_->Disconnect(client_id_);
    Connect();
  });
}

void RoomLink::ReleaseHold() {
  if (!held_) return;
  held_ = false;
  if (closed_ || up() || reconnect_scheduled_) return;
  room_->Disconnect(client_id_);
  Connect();
}

void RoomLink::Close() {
  if (closed_) return;
  closed_ = true;
  unacked_.clear();
  network_->Break(client_id_, key_);
  room_->Disconnect(client_id_);
}

void RoomLink::Receive(const ServerFrame& frame) {
  if (closed_) return;
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      if (last_boot_id_ != 0 && frame.boot_id != last_boot_id_ && on_restart_) {
        Count("client.room_restart_seen");
        on_restart_();
      }
      last_boot_id_ = frame.boot_id;
      if (on_resync_) on_resync_();
      return;
    case ServerFrame::Kind::kData:
      if (on_normalized_) on_normalized_(frame.qid, frame.event);
      return;
    case ServerFrame::Kind::kProgress:
      if (on_progress_) on_progress_(ProgressFrame{frame.cv_min});
      return;
    case ServerFrame::Kind::kOutcome:
      Count(frame.outcome.kind == MutationOutcomeFrame::Kind::kDeopt
                ? "client.outcome_handled.deopt"
                : "client.outcome_handled.rejected");
      if (on_outcome_) on_outcome_(frame.outcome);
      return;
  }
}

}  // namespace rindle::sim
