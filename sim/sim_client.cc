#include "sim/sim_client.h"

#include <algorithm>

#include "engine/str_util.h"
#include "sim/query_resolution.h"

namespace rindle::sim {

SimClient::SimClient(int index, std::string client_id, std::string user_id,
                     OptimisticOptions options, EventQueue* queue, Network* network,
                     DaemonAuthority* daemon, Trace* trace,
                     std::map<std::string, int64_t>* counters, Rng rng, ClientTiming timing)
    : index_(index),
      client_id_(std::move(client_id)),
      user_id_(std::move(user_id)),
      queue_(queue),
      network_(network),
      daemon_(daemon),
      trace_(trace),
      counters_(counters),
      rng_(rng),
      timing_(timing) {
  options.client_id = client_id_;
  backend_ = std::make_unique<OptimisticBackend>(std::move(options), this);
}

SimClient::~SimClient() = default;

void SimClient::TraceLine(nlohmann::json j) {
  j["t"] = queue_->now_ms();
  j["c"] = client_id_;
  trace_->Add(j);
}

void SimClient::OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> handler) {
  on_normalized_ = std::move(handler);
}
void SimClient::OnProgress(std::function<void(const ProgressFrame&)> handler) {
  on_progress_ = std::move(handler);
}
void SimClient::OnRestart(std::function<void()> handler) { on_restart_ = std::move(handler); }
void SimClient::OnResync(std::function<void()> handler) { on_resync_ = std::move(handler); }

void SimClient::RegisterQuery(int64_t qid, const RemoteQuery& query) {
  registry_[qid] = query;
  const std::string client = client_id_;
  network_->SendToServer(client_id_, [this, client, qid, query] {
    daemon_->Register(client, qid, query);
  });
}

void SimClient::UnregisterQuery(int64_t qid) {
  // Only the gate's overflow escape unregisters the reserved lmid query (seed 002 §8.5).
  if (qid == kLmidQid) Count("client.gate_overflow");
  registry_.erase(qid);
  const std::string client = client_id_;
  network_->SendToServer(client_id_, [this, client, qid] { daemon_->Unregister(client, qid); });
}

void SimClient::PushMutation(const MutationEnvelope& envelope) {
  dirty_ = true;
  if (!sent_.contains(envelope.mid)) sent_[envelope.mid] = envelope;
  TraceLine({{"ev", "push"}, {"mid", envelope.mid}, {"name", envelope.name}});
  unacked_[envelope.mid] = envelope;
  SendPush(envelope.mid, 0);
}

void SimClient::SendPush(int64_t mid, int attempt) {
  auto it = unacked_.find(mid);
  if (it == unacked_.end()) return;
  const MutationEnvelope env = it->second;
  if (attempt > 0) Count("client.push_retry");
  network_->Push(
      client_id_, [this, env] { return daemon_->HandlePush(env); },
      [this, mid] {
        if (unacked_.erase(mid) > 0) TraceLine({{"ev", "ack"}, {"mid", mid}});
      });
  const int64_t backoff =
      std::min(timing_.push_backoff_max_ms, timing_.push_timeout_ms << std::min(attempt, 4));
  queue_->Schedule(backoff, [this, mid, attempt] { SendPush(mid, attempt + 1); });
}

void SimClient::Connect() {
  reconnect_scheduled_ = false;
  if (network_->up(client_id_)) return;
  network_->Connect(client_id_);
  TraceLine({{"ev", "connect"}});
  const std::string client = client_id_;
  network_->SendToServer(client_id_, [this, client] { daemon_->Connect(client); });
  for (const auto& [qid, query] : registry_) {
    network_->SendToServer(client_id_, [this, client, qid = qid, query = query] {
      daemon_->Register(client, qid, query);
    });
  }
}

void SimClient::LinkBroken() {
  if (reconnect_scheduled_) return;
  reconnect_scheduled_ = true;
  TraceLine({{"ev", "link_broken"}});
  const std::string client = client_id_;
  queue_->Schedule(rng_.Range(timing_.reconnect_ms_min, timing_.reconnect_ms_max), [this, client] {
    // The authority notices the dead socket and drops the session before the new one opens.
    daemon_->Disconnect(client);
    Connect();
  });
}

void SimClient::Receive(const ServerFrame& frame) {
  dirty_ = true;
  nlohmann::json t = FrameToTrace(frame);
  t["ev"] = "recv";
  TraceLine(std::move(t));
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      if (last_boot_id_ != 0 && frame.boot_id != last_boot_id_ && on_restart_) {
        Count("client.restart_seen");
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
  }
}

absl::StatusOr<int64_t> SimClient::Invoke(const std::string& name, const nlohmann::json& args) {
  dirty_ = true;
  auto r = backend_->Invoke(name, args);
  TraceLine({{"ev", "invoke"}, {"name", name}, {"args", args},
             {"mid", r.ok() ? nlohmann::json(*r) : nlohmann::json(nullptr)},
             {"error", r.ok() ? "" : std::string(r.status().message())}});
  return r;
}

absl::Status SimClient::Retain(const RemoteQuery& query) {
  dirty_ = true;
  auto ast = ResolveRemoteQuery(query, client_id_, user_id_);
  if (!ast.ok()) return ast.status();
  const int64_t qid = next_local_qid_++;
  auto s = backend_->RegisterQuery(qid, *ast, query);
  TraceLine({{"ev", "retain"}, {"qid", qid}, {"query", query.name}, {"args", query.args},
             {"ok", s.ok()}});
  if (!s.ok()) return s;
  views_[qid] = {query, *ast};
  return absl::OkStatus();
}

void SimClient::ReleaseOne(int64_t local_qid) {
  dirty_ = true;
  if (!views_.contains(local_qid)) return;
  backend_->UnregisterQuery(local_qid);
  views_.erase(local_qid);
  TraceLine({{"ev", "release"}, {"qid", local_qid}});
}

}  // namespace rindle::sim
