// network.h — the simulated network between clients and the authority (SPEC §2.4). Holds state:
// per-client link epochs and the last delivery time of each ordered direction.
//
// Each client has one duplex LINK (a websocket): messages in each direction arrive in send order,
// each after latency_ms_min..latency_ms_max of virtual time, and only while the link's epoch is
// unchanged — a Break() loses everything in flight both ways. The PUSH path is a request
// channel: each push travels independently (so pushes overtake each other), and may be lost,
// duplicated, or have its acknowledgement lost, with per-mille rates drawn from the seed.
// A partition makes a client unreachable (link down, pushes and acks lost) until it ends.
// Messages are closures run at delivery time on the event queue. All randomness comes from the
// Rng handed in; all time from the EventQueue.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "sim/event_queue.h"
#include "sim/rng.h"

namespace rindle::sim {

struct NetworkConfig {
  int64_t latency_ms_min = 1;    // virtual ms
  int64_t latency_ms_max = 40;   // virtual ms (jitter = max - min)
  uint32_t push_loss_per_mille = 0;
  uint32_t push_dup_per_mille = 0;
  uint32_t ack_loss_per_mille = 0;
};

class Network {
 public:
  Network(EventQueue* queue, Rng rng, NetworkConfig config,
          std::map<std::string, int64_t>* counters);

  // Link lifecycle. Connect() opens a fresh epoch (the link is up); Break() closes it.
  void Connect(const std::string& client);
  void Break(const std::string& client);
  bool up(const std::string& client) const;
  int64_t epoch(const std::string& client) const;

  // Ordered link messages; dropped when the link is down at send time or breaks before arrival.
  void SendToServer(const std::string& client, std::function<void()> deliver);
  void SendToClient(const std::string& client, std::function<void()> deliver);

  // A push request: `deliver` runs at the authority (maybe twice, maybe never); it returns true
  // when the authority acknowledges, and then `ack` runs at the client unless the ack is lost.
  void Push(const std::string& client, std::function<bool()> deliver, std::function<void()> ack);

  // Partition `client` until now + duration_ms: its link breaks and pushes/acks are lost.
  void Partition(const std::string& client, int64_t duration_ms);
  bool partitioned(const std::string& client) const;

  // Faults off (the liveness phase): no more loss or duplication; partitions end.
  void Heal();
  const NetworkConfig& config() const { return config_; }

 private:
  struct Link {
    int64_t epoch = 0;
    bool up = false;
    int64_t last_to_server_ms = 0;
    int64_t last_to_client_ms = 0;
    int64_t partitioned_until_ms = -1;
  };
  int64_t Latency();
  void Count(const std::string& name) { ++(*counters_)[name]; }

  EventQueue* queue_;
  Rng rng_;
  NetworkConfig config_;
  std::map<std::string, int64_t>* counters_;
  std::map<std::string, Link> links_;
};

}  // namespace rindle::sim
