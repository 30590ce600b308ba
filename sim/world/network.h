// network.h — the simulated network between clients and the authorities (SPEC §2.4). Holds
// state: per-PATH link epochs, the last delivery time of each ordered direction, and partitions.
//
// A path is (client, authority source key) (base/source_key.h): each client has one duplex
// LINK (a websocket) and one push channel per authority endpoint it talks to. Today the daemon
// (kDaemonSource) is the only endpoint, and the client-only methods are the daemon path.
// On a link, messages in each direction arrive in send order, each after
// latency_ms_min..latency_ms_max of virtual time, and only while the link's epoch is unchanged —
// a Break() loses everything in flight both ways. The PUSH path is a request channel: each push
// travels independently (so pushes overtake each other), and may be lost, duplicated, or have
// its acknowledgement lost, with per-mille rates drawn from the seed. A partition makes one path
// unreachable (link down, pushes and acks lost) until it ends; other paths of the same client
// are unaffected. Messages are closures run at delivery time on the event queue.
//
// Randomness: all from the Rng handed in; all time from the EventQueue. Every draw is KEYED by
// its entity, not taken in call order: a message's latency (and a push's loss, duplication and
// ack loss) comes from a stream forked off the Rng as it was at construction with purpose
// "<kind>/<client>/<source key>/<send ms>/<ordinal among that path's <kind> sends in that ms>",
// so removing one message (a shrinker candidate without one action) leaves every other
// message's draws as they were — the schedule of the rest does not re-roll. Preconditions (a
// malformed source key, an empty closure, a negative duration, a config with min > max) are
// CHECKs; a message on a down link is dropped.
// Tap (for the failure report, sim/run/run_observer.h): when set, every message's fate is
// reported as a NetEvent; the tap draws nothing from the Rng and schedules nothing, so setting
// it changes no run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "base/source_key.h"
#include "sim/world/event_queue.h"
#include "base/rng.h"

namespace rindle::sim {

struct NetworkConfig {
  int64_t latency_ms_min = 1;    // virtual ms
  int64_t latency_ms_max = 40;   // virtual ms (jitter = max - min)
  uint32_t push_loss_per_mille = 0;
  uint32_t push_dup_per_mille = 0;
  uint32_t ack_loss_per_mille = 0;
};

// One thing the network did with a message. `id` numbers the messages in send order; a push's
// duplicate copy and its acknowledgements share the push's id.
struct NetEvent {
  enum class Kind {
    kSent,        // on its way; arrives at at_ms unless lost first
    kDelivered,   // reached its receiver at at_ms
    kLost,        // dropped (link down or broken, partition, push loss) at at_ms
    kDuplicated,  // a push's second copy, on its way, arriving at at_ms
    kAckSent,     // the authority acknowledged the push; the ack arrives at at_ms unless lost
    kAckDelivered,
    kAckLost,
  };
  Kind kind = Kind::kSent;
  int64_t id = 0;
  std::string client;
  std::string source;      // the authority endpoint's source key
  bool to_server = false;  // client → authority
  bool push = false;       // a push request (else an ordered link message)
  int64_t now_ms = 0;      // when it happened
  int64_t at_ms = 0;       // kSent, kDuplicated, kAckSent: when it is due; else now_ms
  std::string label;       // the sender's Label() for the message, else ""
};
using NetTap = std::function<void(const NetEvent&)>;

class Network {
 public:
  Network(EventQueue* queue, Rng rng, NetworkConfig config,
          std::map<std::string, int64_t>* counters);

  // ---- keyed by path: (client, authority endpoint source key) ----

  // Link lifecycle. Connect() opens a fresh epoch (the link is up); Break() closes it.
  void Connect(const std::string& client, std::string_view source);
  void Break(const std::string& client, std::string_view source);
  bool up(const std::string& client, std::string_view source) const;
  int64_t epoch(const std::string& client, std::string_view source) const;

  // Ordered link messages; dropped when the link is down at send time or breaks before arrival.
  // Each returns the virtual ms it will arrive at, or -1 when dropped at send time.
  int64_t SendToServer(const std::string& client, std::string_view source,
                       std::function<void()> deliver);
  int64_t SendToClient(const std::string& client, std::string_view source,
                       std::function<void()> deliver);
  // A server→client message that arrives at max(at_ms, now) — possibly ahead of messages
  // already in flight on the link (a reordering fault: the caller, frame_faults.h, decides what
  // it may overtake). The link's ordering point is unchanged; lost if the link breaks first.
  // Returns the arrival time, or -1 when the link is down.
  int64_t SendToClientAt(const std::string& client, int64_t at_ms, std::function<void()> deliver);
  // Raises the link's server→client ordering point to at_ms: every later ordered message arrives
  // at or after it (frame_faults.h: frames a stall held must not be passed by what follows them).
  void HoldClientOrder(const std::string& client, int64_t at_ms);

  // A push request: `deliver` runs at the authority (maybe twice, maybe never); it returns true
  // when the authority acknowledges, and then `ack` runs at the client unless the ack is lost.
  void Push(const std::string& client, std::string_view source, std::function<bool()> deliver,
            std::function<void()> ack);

  // Partition the path until now + duration_ms: its link breaks and pushes/acks are lost.
  void Partition(const std::string& client, std::string_view source, int64_t duration_ms);
  // Ends the path's partition now (pushes and acks pass again; the link stays as it is).
  void EndPartition(const std::string& client, std::string_view source);
  bool partitioned(const std::string& client, std::string_view source) const;

  // ---- the daemon path (client, kDaemonSource): today's callers ----
  void Connect(const std::string& client) { Connect(client, kDaemonSource); }
  void Break(const std::string& client) { Break(client, kDaemonSource); }
  bool up(const std::string& client) const { return up(client, kDaemonSource); }
  int64_t epoch(const std::string& client) const { return epoch(client, kDaemonSource); }
  int64_t SendToServer(const std::string& client, std::function<void()> deliver) {
    return SendToServer(client, kDaemonSource, std::move(deliver));
  }
  int64_t SendToClient(const std::string& client, std::function<void()> deliver) {
    return SendToClient(client, kDaemonSource, std::move(deliver));
  }
  void Push(const std::string& client, std::function<bool()> deliver, std::function<void()> ack) {
    Push(client, kDaemonSource, std::move(deliver), std::move(ack));
  }
  void Partition(const std::string& client, int64_t duration_ms) {
    Partition(client, kDaemonSource, duration_ms);
  }
  bool partitioned(const std::string& client) const {
    return partitioned(client, kDaemonSource);
  }

  // Faults off (the liveness phase): no more loss or duplication; every partition ends.
  void Heal();
  const NetworkConfig& config() const { return config_; }

  // The tap (see the file comment); nullptr removes it.
  void SetTap(NetTap tap) { tap_ = std::move(tap); }
  bool tapped() const { return tap_ != nullptr; }
  // Names the next message sent, for the tap only (cleared by that send).
  void Label(std::string label) { if (tap_) next_label_ = std::move(label); }

 private:
  using PathKey = std::pair<std::string, std::string>;  // (client, source key)
  struct Link {
    int64_t epoch = 0;
    bool up = false;
    int64_t last_to_server_ms = 0;
    int64_t last_to_client_ms = 0;
    int64_t partitioned_until_ms = -1;
  };
  static PathKey Key(const std::string& client, std::string_view source);
  bool Partitioned(const PathKey& key) const;
  // The stream of one message: keyed by (kind, path, send ms, ordinal in that ms) — see above.
  Rng MessageStream(std::string_view kind, const PathKey& key);
  static int64_t Latency(Rng& rng, const NetworkConfig& config);
  // One ordered direction of a link: schedules `deliver` after `*last_ms` and a fresh latency.
  int64_t SendOrdered(const PathKey& key, bool to_server, std::function<void()> deliver);
  void Count(const std::string& name) { ++(*counters_)[name]; }
  // Tap helpers: a fresh message id (taking the pending label), and one event.
  int64_t NewTapId(std::string* label);
  void Tap(NetEvent::Kind kind, int64_t id, const PathKey& key, bool to_server, bool push,
           int64_t at_ms, const std::string& label);

  EventQueue* queue_;
  const Rng origin_;  // the Rng at construction: the parent of every message's stream
  NetworkConfig config_;
  std::map<std::string, int64_t>* counters_;
  std::map<PathKey, Link> links_;
  NetTap tap_;
  std::string next_label_;
  int64_t tap_ids_ = 0;
  // (kind, client, source) → (ms of its last send, sends in that ms): the message ordinal.
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<int64_t, int64_t>>
      ordinals_;
};

}  // namespace rindle::sim
