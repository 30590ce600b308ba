#include "sim/world/network.h"

#include <algorithm>
#include <memory>

#include "base/check.h"
#include "base/str_util.h"

namespace rindle::sim {

Network::Network(EventQueue* queue, Rng rng, NetworkConfig config,
                 std::map<std::string, int64_t>* counters)
    : queue_(queue), origin_(rng), config_(config), counters_(counters) {
  RINDLE_CHECK(queue_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
  RINDLE_CHECK_GE(config_.latency_ms_min, 0);
  RINDLE_CHECK_LE(config_.latency_ms_min, config_.latency_ms_max);
  RINDLE_CHECK_LE(config_.push_loss_per_mille, 1000u);
  RINDLE_CHECK_LE(config_.push_dup_per_mille, 1000u);
  RINDLE_CHECK_LE(config_.ack_loss_per_mille, 1000u);
}

Network::PathKey Network::Key(const std::string& client, std::string_view source) {
  RINDLE_CHECK_MSG(!client.empty(), "a network path needs a client");
  RINDLE_CHECK_MSG(IsDaemonSource(source) || IsRoomSource(source),
                   "malformed source key \"" + std::string(source) + "\"");
  return {client, std::string(source)};
}

int64_t Network::Latency(Rng& rng, const NetworkConfig& config) {
  return rng.Range(config.latency_ms_min, config.latency_ms_max);
}

Rng Network::MessageStream(std::string_view kind, const PathKey& key) {
  auto& [last_ms, count] = ordinals_[{std::string(kind), key.first, key.second}];
  const int64_t now = queue_->now_ms();
  if (last_ms != now) {
    last_ms = now;
    count = 0;
  }
  return origin_.Fork(StrCat(kind, "/", key.first, "/", key.second, "/", now, "/", count++));
}

void Network::Connect(const std::string& client, std::string_view source) {
  Link& l = links_[Key(client, source)];
  ++l.epoch;
  l.up = true;
}

void Network::Break(const std::string& client, std::string_view source) {
  Link& l = links_[Key(client, source)];
  if (!l.up) return;
  ++l.epoch;
  l.up = false;
}

bool Network::up(const std::string& client, std::string_view source) const {
  auto it = links_.find(Key(client, source));
  return it != links_.end() && it->second.up;
}

int64_t Network::epoch(const std::string& client, std::string_view source) const {
  auto it = links_.find(Key(client, source));
  return it == links_.end() ? 0 : it->second.epoch;
}

bool Network::Partitioned(const PathKey& key) const {
  auto it = links_.find(key);
  return it != links_.end() && it->second.partitioned_until_ms > queue_->now_ms();
}

bool Network::partitioned(const std::string& client, std::string_view source) const {
  return Partitioned(Key(client, source));
}

int64_t Network::NewTapId(std::string* label) {
  if (!tap_) return 0;
  *label = std::move(next_label_);
  next_label_.clear();
  return ++tap_ids_;
}

void Network::Tap(NetEvent::Kind kind, int64_t id, const PathKey& key, bool to_server, bool push,
                  int64_t at_ms, const std::string& label) {
  if (!tap_) return;
  tap_({kind, id, key.first, key.second, to_server, push, queue_->now_ms(), at_ms, label});
}

int64_t Network::SendOrdered(const PathKey& key, bool to_server, std::function<void()> deliver) {
  RINDLE_CHECK(deliver != nullptr);
  Link& l = links_[key];
  std::string label;
  const int64_t id = NewTapId(&label);
  if (!l.up) {
    Tap(NetEvent::Kind::kLost, id, key, to_server, false, queue_->now_ms(), label);
    return -1;
  }
  int64_t& last_ms = to_server ? l.last_to_server_ms : l.last_to_client_ms;
  Rng stream = MessageStream(to_server ? "up" : "down", key);
  const int64_t at = std::max(last_ms, queue_->now_ms() + Latency(stream, config_));
  last_ms = at;
  const int64_t epoch = l.epoch;
  Tap(NetEvent::Kind::kSent, id, key, to_server, false, at, label);
  queue_->ScheduleAt(at, [this, key, epoch, id, to_server, label, deliver = std::move(deliver)] {
    if (links_[key].epoch != epoch) {  // the link broke in flight
      Tap(NetEvent::Kind::kLost, id, key, to_server, false, queue_->now_ms(), label);
      return;
    }
    Tap(NetEvent::Kind::kDelivered, id, key, to_server, false, queue_->now_ms(), label);
    deliver();
  });
  return at;
}

int64_t Network::SendToServer(const std::string& client, std::string_view source,
                              std::function<void()> deliver) {
  return SendOrdered(Key(client, source), /*to_server=*/true, std::move(deliver));
}

int64_t Network::SendToClient(const std::string& client, std::string_view source,
                              std::function<void()> deliver) {
  return SendOrdered(Key(client, source), /*to_server=*/false, std::move(deliver));
}

void Network::HoldClientOrder(const std::string& client, int64_t at_ms) {
  Link& l = links_[Key(client, kDaemonSource)];
  l.last_to_client_ms = std::max(l.last_to_client_ms, at_ms);
}

int64_t Network::SendToClientAt(const std::string& client, int64_t at_ms,
                                std::function<void()> deliver) {
  RINDLE_CHECK(deliver != nullptr);
  const PathKey key = Key(client, kDaemonSource);
  Link& l = links_[key];
  std::string label;
  const int64_t id = NewTapId(&label);
  if (!l.up) {
    Tap(NetEvent::Kind::kLost, id, key, false, false, queue_->now_ms(), label);
    return -1;
  }
  const int64_t at = std::max(at_ms, queue_->now_ms());
  const int64_t epoch = l.epoch;
  Tap(NetEvent::Kind::kSent, id, key, false, false, at, label);
  queue_->ScheduleAt(at, [this, key, epoch, id, label, deliver = std::move(deliver)] {
    if (links_[key].epoch != epoch) {  // the link broke in flight
      Tap(NetEvent::Kind::kLost, id, key, false, false, queue_->now_ms(), label);
      return;
    }
    Tap(NetEvent::Kind::kDelivered, id, key, false, false, queue_->now_ms(), label);
    deliver();
  });
  return at;
}

void Network::Push(const std::string& client, std::string_view source,
                   std::function<bool()> deliver, std::function<void()> ack) {
  RINDLE_CHECK(deliver != nullptr);
  RINDLE_CHECK(ack != nullptr);
  const PathKey key = Key(client, source);
  std::string label;
  const int64_t id = NewTapId(&label);
  // One stream per push, shared by its copies: loss, duplication, each copy's latency, each
  // copy's ack loss and ack latency, in that push's own order.
  auto rng = std::make_shared<Rng>(MessageStream("push", key));
  int copies = 1;
  if (Partitioned(key) || rng->Chance(config_.push_loss_per_mille, 1000)) {
    Count("fault.push_lost");
    Tap(NetEvent::Kind::kLost, id, key, true, true, queue_->now_ms(), label);
    copies = 0;
  } else if (rng->Chance(config_.push_dup_per_mille, 1000)) {
    Count("fault.push_duplicated");
    copies = 2;
  }
  for (int i = 0; i < copies; ++i) {
    const int64_t latency = Latency(*rng, config_);
    Tap(i == 0 ? NetEvent::Kind::kSent : NetEvent::Kind::kDuplicated, id, key, true, true,
        queue_->now_ms() + latency, label);
    queue_->Schedule(latency, [this, key, rng, deliver, ack, id, label] {
      if (Partitioned(key)) {
        Count("fault.push_lost");
        Tap(NetEvent::Kind::kLost, id, key, true, true, queue_->now_ms(), label);
        return;
      }
      Tap(NetEvent::Kind::kDelivered, id, key, true, true, queue_->now_ms(), label);
      if (!deliver()) return;
      if (rng->Chance(config_.ack_loss_per_mille, 1000) || Partitioned(key)) {
        Count("fault.ack_lost");
        Tap(NetEvent::Kind::kAckLost, id, key, false, true, queue_->now_ms(), label);
        return;
      }
      const int64_t ack_latency = Latency(*rng, config_);
      Tap(NetEvent::Kind::kAckSent, id, key, false, true, queue_->now_ms() + ack_latency, label);
      queue_->Schedule(ack_latency, [this, key, ack, id, label] {
        if (Partitioned(key)) {
          Tap(NetEvent::Kind::kAckLost, id, key, false, true, queue_->now_ms(), label);
          return;
        }
        Tap(NetEvent::Kind::kAckDelivered, id, key, false, true, queue_->now_ms(), label);
        ack();
      });
    });
  }
}

void Network::Partition(const std::string& client, std::string_view source,
                        int64_t duration_ms) {
  RINDLE_CHECK_GE(duration_ms, 0);
  const PathKey key = Key(client, source);
  Link& l = links_[key];
  l.partitioned_until_ms = std::max(l.partitioned_until_ms, queue_->now_ms() + duration_ms);
  Break(client, source);
}

void Network::EndPartition(const std::string& client, std::string_view source) {
  auto it = links_.find(Key(client, source));
  if (it != links_.end()) it->second.partitioned_until_ms = -1;
}

void Network::Heal() {
  config_.push_loss_per_mille = 0;
  config_.push_dup_per_mille = 0;
  config_.ack_loss_per_mille = 0;
  for (auto& [key, l] : links_) l.partitioned_until_ms = -1;
}

}  // namespace rindle::sim
