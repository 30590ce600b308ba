// fake_source.h — a hand-driven OptimisticSource for unit tests (seed 002's test harness seam).
// Holds state: the upstream calls it received (an ordered log, the live registrations, every
// pushed envelope) and the four handlers. Header-only; test use only.
//
// Upstream log lines: "register <qid> <name>" / "unregister <qid>". Downstream helpers deliver
// frames synchronously to the backend's handlers: Hello / Snapshot / Batch / Lmid (a batch or
// snapshot on qid 0 carrying [client_id, lmid]) / Progress / Restart / Resync / Outcome.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "optimistic/source.h"

namespace rindle {

class FakeSource : public OptimisticSource {
 public:
  void RegisterQuery(int64_t qid, const RemoteQuery& query) override {
    log.push_back("register " + std::to_string(qid) + " " + query.name);
    registered[qid] = query;
  }
  void UnregisterQuery(int64_t qid) override {
    log.push_back("unregister " + std::to_string(qid));
    registered.erase(qid);
  }
  void PushMutation(const MutationEnvelope& envelope) override { pushed.push_back(envelope); }
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

  void Hello(int64_t qid, std::vector<WireTable> tables) {
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kHello;
    ev.tables = std::move(tables);
    on_normalized_(qid, ev);
  }
  void Snapshot(int64_t qid, int64_t cv, const std::string& table, std::vector<RowValues> rows) {
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kSnapshot;
    ev.cv = cv;
    for (auto& r : rows) ev.ops.push_back(RowOp{RowOp::Kind::kAdd, table, std::move(r), {}});
    on_normalized_(qid, ev);
  }
  void Batch(int64_t qid, int64_t cv, std::vector<RowOp> ops) {
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kBatch;
    ev.cv = cv;
    ev.ops = std::move(ops);
    on_normalized_(qid, ev);
  }
  void Lmid(int64_t cv, const std::string& client, int64_t lmid) {
    Batch(kLmidQid, cv,
          {RowOp{RowOp::Kind::kAdd, kClientMutationsTable,
                 {Value::String(client), Value::Int(lmid)}, {}}});
  }
  void Progress(int64_t cv_min) { on_progress_(ProgressFrame{cv_min}); }
  void Restart() { on_restart_(); }
  void Resync() { on_resync_(); }
  void Outcome(const MutationOutcomeFrame& f) {
    if (on_outcome_) on_outcome_(f);
  }

  std::vector<std::string> log;
  std::map<int64_t, RemoteQuery> registered;
  std::vector<MutationEnvelope> pushed;

 private:
  std::function<void(int64_t, const NormalizedEvent&)> on_normalized_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_;
  std::function<void()> on_resync_;
  std::function<void(const MutationOutcomeFrame&)> on_outcome_;
};

}  // namespace rindle
