// room_link.h — one simulated client's channel to ONE room (sim/authority/room.h): the
// OptimisticSource the client's backend attaches with ConnectSource(RoomSourceKey(doc)), over
// the network PATH (client, room key) — independent of the client's daemon link. Holds state:
// the source's query registry (the room lmid query, qid 0), the push transport's unacked
// envelopes, the link state, the last room boot id seen and the harness's record of every
// envelope it carried.
//
// Like SimClient's daemon link (sim_client.h): Connect() opens the path, sends the handshake and
// re-registers every query; the room's welcome with a new boot id fires OnRestart, then OnResync
// (the backend re-sends that domain's unconfirmed envelopes). A break schedules a reconnect after
// a delay keyed by the break's ms. Pushes retry with doubling backoff until acknowledged.
// Outcome frames (ServerFrame::kOutcome) are dispatched on arrival to the backend's outcome
// handler (out of band). Close() ends the link for good (room_disconnect): no reconnect, the
// room drops the session; the object stays alive while network closures may name it.
// Source: seed 002 connectSource / onMutationOutcome, §7.5; SPEC §2.4.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/rng.h"
#include "optimistic/source.h"
#include "sim/authority/room.h"
#include "sim/world/event_queue.h"
#include "sim/world/frames.h"
#include "sim/world/network.h"

namespace rindle::sim {

class RoomLink : public OptimisticSource {
 public:
  struct Timing {
    int64_t push_timeout_ms = 250;
    int64_t push_backoff_max_ms = 2000;
    int64_t reconnect_ms_min = 50;
    int64_t reconnect_ms_max = 400;
  };
  // `after_push` runs after every push the room handled (the simulation schedules its flush).
  RoomLink(std::string client_id, RoomAuthority* room, EventQueue* queue, Network* network,
           std::map<std::string, int64_t>* counters, Rng rng, Timing timing,
           std::function<void()> after_push, std::vector<MutationEnvelope>* carried_sink);

  // OptimisticSource
  void RegisterQuery(int64_t qid, const RemoteQuery& query) override;
  void UnregisterQuery(int64_t qid) override;
  void PushMutation(const MutationEnvelope& envelope) override;
  void OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> h) override {
    on_normalized_ = std::move(h);
  }
  void OnProgress(std::function<void(const ProgressFrame&)> h) override {
    on_progress_ = std::move(h);
  }
  void OnRestart(std::function<void()> h) override { on_restart_ = std::move(h); }
  void OnResync(std::function<void()> h) override { on_resync_ = std::move(h); }
  void OnMutationOutcome(std::function<void(const MutationOutcomeFrame&)> h) override {
    on_outcome_ = std::move(h);
  }

  // Runs at every first-time push of a room mid on this link (the client's one deal order,
  // world.h DealRecord).
  void SetFirstPushObserver(std::function<void(const MutationEnvelope&)> observer) {
    on_first_push_ = std::move(observer);
  }

  void Connect();
  void LinkBroken();
  void Close();
  // The link stays down (no reconnect) until ReleaseHold(), which reconnects it if it is down
  // (the room_flush_link_down fault: down while the room's flush reaches the daemon).
  void HoldDown() { held_ = true; }
  void ReleaseHold();
  bool held() const { return held_; }
  // A frame the network delivered from the room.
  void Receive(const ServerFrame& frame);

  const std::string& key() const { return key_; }
  RoomAuthority* room() const { return room_; }
  bool closed() const { return closed_; }
  bool up() const { return network_->up(client_id_, key_); }
  // Every envelope put on this link's push path, in send order (first sends and re-sends).
  const std::vector<MutationEnvelope>& carried() const { return carried_; }
  // Every envelope this link pushed first-time, by room mid.
  const std::map<int64_t, MutationEnvelope>& sent() const { return sent_; }

 private:
  void SendPush(int64_t mid, int attempt);
  void Count(const std::string& name) { ++(*counters_)[name]; }

  std::string client_id_;
  RoomAuthority* room_;
  std::string key_;
  EventQueue* queue_;
  Network* network_;
  std::map<std::string, int64_t>* counters_;
  const Rng rng_;
  Timing timing_;
  std::function<void()> after_push_;
  std::vector<MutationEnvelope>* carried_sink_;  // the client's record across its links
  int64_t last_break_ms_ = -1;
  int64_t break_ordinal_ = 0;
  bool reconnect_scheduled_ = false;
  bool closed_ = false;
  bool held_ = false;
  int64_t last_boot_id_ = 0;
  std::map<int64_t, RemoteQuery> registry_;
  std::map<int64_t, MutationEnvelope> unacked_;
  std::map<int64_t, MutationEnvelope> sent_;
  std::vector<MutationEnvelope> carried_;
  std::function<void(int64_t, const NormalizedEvent&)> on_normalized_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_;
  std::function<void()> on_resync_;
  std::function<void(const MutationOutcomeFrame&)> on_outcome_;
  std::function<void(const MutationEnvelope&)> on_first_push_;
};

}  // namespace rindle::sim
