#include "sim/network.h"

#include <algorithm>

namespace rindle::sim {

Network::Network(EventQueue* queue, Rng rng, NetworkConfig config,
                 std::map<std::string, int64_t>* counters)
    : queue_(queue), rng_(rng), config_(config), counters_(counters) {}

int64_t Network::Latency() { return rng_.Range(config_.latency_ms_min, config_.latency_ms_max); }

void Network::Connect(const std::string& client) {
  Link& l = links_[client];
  ++l.epoch;
  l.up = true;
}

void Network::Break(const std::string& client) {
  Link& l = links_[client];
  if (!l.up) return;
  ++l.epoch;
  l.up = false;
}

bool Network::up(const std::string& client) const {
  auto it = links_.find(client);
  return it != links_.end() && it->second.up;
}

int64_t Network::epoch(const std::string& client) const {
  auto it = links_.find(client);
  return it == links_.end() ? 0 : it->second.epoch;
}

bool Network::partitioned(const std::string& client) const {
  auto it = links_.find(client);
  return it != links_.end() && it->second.partitioned_until_ms > queue_->now_ms();
}

void Network::SendToServer(const std::string& client, std::function<void()> deliver) {
  Link& l = links_[client];
  if (!l.up) return;
  const int64_t at = std::max(l.last_to_server_ms, queue_->now_ms() + Latency());
  l.last_to_server_ms = at;
  const int64_t epoch = l.epoch;
  queue_->ScheduleAt(at, [this, client, epoch, deliver = std::move(deliver)] {
    if (links_[client].epoch != epoch) return;  // the link broke in flight
    deliver();
  });
}

void Network::SendToClient(const std::string& client, std::function<void()> deliver) {
  Link& l = links_[client];
  if (!l.up) return;
  const int64_t at = std::max(l.last_to_client_ms, queue_->now_ms() + Latency());
  l.last_to_client_ms = at;
  const int64_t epoch = l.epoch;
  queue_->ScheduleAt(at, [this, client, epoch, deliver = std::move(deliver)] {
    if (links_[client].epoch != epoch) return;
    deliver();
  });
}

void Network::Push(const std::string& client, std::function<bool()> deliver,
                   std::function<void()> ack) {
  int copies = 1;
  if (partitioned(client) || rng_.Chance(config_.push_loss_per_mille, 1000)) {
    Count("fault.push_lost");
    copies = 0;
  } else if (rng_.Chance(config_.push_dup_per_mille, 1000)) {
    Count("fault.push_duplicated");
    copies = 2;
  }
  for (int i = 0; i < copies; ++i) {
    queue_->Schedule(Latency(), [this, client, deliver, ack] {
      if (partitioned(client)) {
        Count("fault.push_lost");
        return;
      }
      if (!deliver()) return;
      if (rng_.Chance(config_.ack_loss_per_mille, 1000) || partitioned(client)) {
        Count("fault.ack_lost");
        return;
      }
      queue_->Schedule(Latency(), [this, client, ack] {
        if (partitioned(client)) return;
        ack();
      });
    });
  }
}

void Network::Partition(const std::string& client, int64_t duration_ms) {
  Link& l = links_[client];
  l.partitioned_until_ms = std::max(l.partitioned_until_ms, queue_->now_ms() + duration_ms);
  Break(client);
}

void Network::Heal() {
  config_.push_loss_per_mille = 0;
  config_.push_dup_per_mille = 0;
  config_.ack_loss_per_mille = 0;
  for (auto& [client, l] : links_) l.partitioned_until_ms = -1;
}

}  // namespace rindle::sim
