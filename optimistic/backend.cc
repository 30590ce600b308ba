#include "optimistic/backend.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"
#include "engine/status_macros.h"
#include "optimistic/tracking_tx.h"

namespace rindle {

namespace {

absl::Status Annotate(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

RemoteQuery LmidQuery() { return RemoteQuery{kLmidQueryName, nlohmann::json::object()}; }

}  // namespace

OptimisticBackend::OptimisticBackend(OptimisticOptions options, OptimisticSource* daemon)
    : options_(std::move(options)),
      source_(daemon),
      registry_(options_.mutators),
      gate_(kDaemonDomain, options_.buffer_cap),
      sync_(&options_.schema, &options_.local_tables) {
  RINDLE_CHECK(source_ != nullptr);
  next_mid_[kDaemonDomain] = 1;
  watermark_[kDaemonDomain] = 0;
  for (const auto& t : options_.local_tables) {
    if (options_.schema.count(t) == 0) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("optimistic backend: local table \"", t, "\" is not in the schema")));
    }
  }
  for (const auto& [name, spec] : options_.schema) {
    if (name == kClientMutationsTable) {
      Fail(absl::InvalidArgumentError(absl::StrCat("optimistic backend: table \"", name,
                                                   "\" is reserved for confirmations")));
      continue;
    }
    absl::Status s = db_.RegisterTable(name, spec, options_.local_tables.count(name) > 0);
    if (!s.ok()) Fail(Annotate(s, "optimistic backend: "));
  }
  source_->OnNormalized([this](int64_t qid, const NormalizedEvent& ev) { OnFrame(qid, ev); });
  source_->OnProgress([this](const ProgressFrame& f) { OnProgress(f); });
  source_->OnRestart([this]() { OnRestart(); });
  source_->OnResync([this]() { OnResync(); });
  RegisterLmidQuery();
}

OptimisticBackend::~OptimisticBackend() {
  // Detach: the source outlives us and must not call into a destroyed backend.
  source_->OnNormalized([](int64_t, const NormalizedEvent&) {});
  source_->OnProgress([](const ProgressFrame&) {});
  source_->OnRestart([]() {});
  source_->OnResync([]() {});
}

void OptimisticBackend::RegisterLmidQuery() { source_->RegisterQuery(kLmidQid, LmidQuery()); }

void OptimisticBackend::Fail(absl::Status s) {
  if (health_.ok() && !s.ok()) health_ = std::move(s);
}

std::pair<int64_t, int64_t> OptimisticBackend::DealMid(const std::string& domain) {
  auto [it, inserted] = next_mid_.try_emplace(domain, 1);
  int64_t mid = it->second++;
  return {mid, ++deal_seq_};
}

// --- invoke ----------------------------------------------------------------------------------

absl::StatusOr<int64_t> OptimisticBackend::Invoke(const std::string& name,
                                                  const nlohmann::json& args) {
  if (!health_.ok()) return Annotate(health_, "optimistic backend is unhealthy: ");
  if (in_cycle_) {
    return absl::FailedPreconditionError(
        absl::StrCat("invoke \"", name, "\": called re-entrantly inside a reconcile cycle"));
  }
  ASSIGN_OR_RETURN(const Mutator* mutator, registry_.Find(name));
  const std::string domain = kDaemonDomain;
  WriteSet writes;
  ReadLog reads;
  std::unique_ptr<WriteTxn> txn = db_.Write();
  TrackingTx tx(txn.get(), &options_.schema, &options_.local_tables, &writes, &reads);
  absl::Status s = (*mutator)(tx, args);
  if (s.ok() && !tx.failure().ok()) s = tx.failure();
  if (!s.ok()) {
    if (txn->open()) txn->Rollback();
    return Annotate(s, absl::StrCat("mutator \"", name, "\" failed: "));
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) {
    return Annotate(batches.status(), absl::StrCat("mutator \"", name, "\": commit failed: "));
  }
  // The prediction stuck: only now is a mid (and seq) dealt — a throw consumed none (#10).
  auto [mid, seq] = DealMid(domain);
  PendingMutation entry;
  entry.mid = mid;
  entry.seq = seq;
  entry.name = name;
  entry.args = args;
  entry.domain = domain;
  entry.writes = std::move(writes);
  entry.reads = std::move(reads);
  pending_.push_back(std::move(entry));
  ApplyBatches(*batches);
  source_->PushMutation(MutationEnvelope{options_.client_id, mid, name, args});
  return mid;
}

void OptimisticBackend::ApplyBatches(const std::vector<QueryBatch>& batches) {
  for (const auto& b : batches) {
    auto it = queries_.find(b.query_id);
    if (it == queries_.end()) continue;
    absl::Status s = it->second.view->Apply(b.events);
    if (!s.ok()) Fail(Annotate(s, absl::StrCat("view for qid ", b.query_id, ": ")));
    if (batch_observer_) batch_observer_(b);
  }
}

// --- queries ---------------------------------------------------------------------------------

absl::Status OptimisticBackend::RegisterQuery(int64_t qid, const Ast& ast,
                                              std::optional<RemoteQuery> remote) {
  if (!health_.ok()) return Annotate(health_, "optimistic backend is unhealthy: ");
  if (qid == kLmidQid) {
    return absl::InvalidArgumentError(
        "registerQuery: qid 0 is reserved for the lmid system query");
  }
  if (queries_.count(qid) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("registerQuery: qid ", qid, " is already live"));
  }
  if (in_cycle_) {
    return absl::FailedPreconditionError(
        absl::StrCat("registerQuery ", qid, ": called re-entrantly inside a reconcile cycle"));
  }
  if (auto s = source_to_key_.find(qid);
      s != source_to_key_.end() && (!remote || s->second != remote->Key())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "registerQuery: qid ", qid, " is still the wire id of the live remote query \"",
        subs_.at(s->second).remote.name, "\""));
  }
  absl::StatusOr<QuerySnapshot> snap = db_.RegisterQuery(qid, ast);
  if (!snap.ok()) return Annotate(snap.status(), absl::StrCat("registerQuery ", qid, ": "));
  auto view = std::make_unique<ResultView>(snap->shape);
  if (absl::Status s = view->Apply(snap->events); !s.ok()) {
    db_.DestroyQuery(qid);
    return Annotate(s, absl::StrCat("registerQuery ", qid, ": snapshot does not fold: "));
  }
  queries_[qid] = LocalQuery{AstTables(ast), std::move(view)};
  if (remote) {
    const std::string key = remote->Key();
    auto [it, is_new] = subs_.try_emplace(key);
    RemoteSub& sub = it->second;
    if (is_new) {
      sub.source_qid = qid;
      sub.remote = *remote;
      source_to_key_[qid] = key;
    }
    ++sub.ref_count;
    sub.local_qids.insert(qid);
    local_to_key_[qid] = key;
    if (is_new) source_->RegisterQuery(sub.source_qid, sub.remote);
  }
  return absl::OkStatus();
}

void OptimisticBackend::UnregisterQuery(int64_t qid) {
  auto q = queries_.find(qid);
  if (q == queries_.end()) return;
  if (in_cycle_) {
    Fail(absl::FailedPreconditionError(
        absl::StrCat("unregisterQuery ", qid, ": called re-entrantly inside a reconcile cycle")));
    return;
  }
  std::vector<ServerDeltaOp> gc;
  if (auto k = local_to_key_.find(qid); k != local_to_key_.end()) {
    const std::string key = k->second;
    local_to_key_.erase(k);
    RemoteSub& sub = subs_.at(key);
    sub.local_qids.erase(qid);
    if (--sub.ref_count <= 0) {
      const int64_t source_qid = sub.source_qid;
      source_->UnregisterQuery(source_qid);
      gate_.DropQuery(source_qid);
      // GC: rows only this footprint referenced fall to refcount 0 → net removes.
      sync_.DropQuery(source_qid);
      gc = sync_.TakeDelta();
      source_to_key_.erase(source_qid);
      subs_.erase(key);
    }
  }
  // Tear the local pipeline + view down first so the GC cycle below skips it.
  db_.DestroyQuery(qid);
  queries_.erase(q);
  // CRIT#2: the GC must leave BOTH head and sync — a server delta, never an optimistic remove.
  if (!gc.empty() && health_.ok()) {
    if (absl::Status s = RunReconcileCycle(gc); !s.ok()) {
      Fail(Annotate(s, absl::StrCat("unregisterQuery ", qid, ": GC cycle failed: ")));
    }
  }
}

const ResultView* OptimisticBackend::View(int64_t qid) const {
  auto it = queries_.find(qid);
  return it == queries_.end() ? nullptr : it->second.view.get();
}

ResultType OptimisticBackend::GetResultType(int64_t qid) const {
  if (queries_.count(qid) == 0) return ResultType::kUnknown;
  auto k = local_to_key_.find(qid);
  if (k == local_to_key_.end()) return ResultType::kComplete;  // local data is synchronous
  return subs_.at(k->second).hydrated ? ResultType::kComplete : ResultType::kUnknown;
}

std::set<std::string> OptimisticBackend::PendingTables() const {
  std::set<std::string> out;
  for (const auto& p : pending_) {
    for (const auto& t : Touched(p.writes)) out.insert(t);
  }
  return out;
}

bool OptimisticBackend::IsPending(int64_t qid) const {
  auto it = queries_.find(qid);
  if (it == queries_.end()) return false;
  std::set<std::string> tables = PendingTables();
  for (const auto& t : it->second.tables) {
    if (tables.count(t) > 0) return true;
  }
  return false;
}

void OptimisticBackend::MarkSubHydrated(int64_t source_qid) {
  auto k = source_to_key_.find(source_qid);
  if (k == source_to_key_.end()) return;
  subs_.at(k->second).hydrated = true;
}

// --- frames ----------------------------------------------------------------------------------

void OptimisticBackend::OnFrame(int64_t qid, const NormalizedEvent& ev) {
  if (!health_.ok()) return;
  if (in_cycle_) {
    Fail(absl::FailedPreconditionError(
        absl::StrCat("frame for qid ", qid, " delivered re-entrantly inside a reconcile cycle")));
    return;
  }
  // A frame for a qid with no live sub (a late frame of a released sub) has no footprint to
  // feed; folding it would plant rows no DropQuery would ever GC.
  if (qid != kLmidQid && source_to_key_.count(qid) == 0) return;
  if (ev.type == NormalizedEvent::Type::kHello) {
    // A new epoch: frames still buffered for this qid are from the superseded one.
    gate_.OnHello(qid);
    if (qid == kLmidQid) {
      for (const auto& t : ev.tables) {
        if (t.name != kClientMutationsTable) continue;
        for (size_t i = 0; i < t.columns.size(); ++i) {
          const std::string& c = t.columns[i];
          if (c == "client_id" || c == "clientID") lmid_col_client_ = static_cast<int>(i);
          if (c == "last_mutation_id" || c == "lastMutationID") {
            lmid_col_lmid_ = static_cast<int>(i);
          }
        }
      }
      return;
    }
    if (absl::Status s = sync_.SetProjection(qid, ev.tables); !s.ok()) Fail(s);
    return;
  }
  if (gate_.OnData(qid, ev) == SourceGate::Admit::kOverflow) Overflow();
}

void OptimisticBackend::Overflow() {
  // §8.5: the buffer was dropped; re-register every sub (and the lmid query) so fresh snapshots
  // re-hydrate through the footprint diff. Key order — deterministic.
  for (const auto& [key, sub] : subs_) {
    source_->UnregisterQuery(sub.source_qid);
    source_->RegisterQuery(sub.source_qid, sub.remote);
  }
  source_->UnregisterQuery(kLmidQid);
  RegisterLmidQuery();
}

void OptimisticBackend::OnRestart() { gate_.Reset(); }

void OptimisticBackend::OnResync() {
  // §7.5 rule 3: re-send the domain's sent, unconfirmed envelopes with their ORIGINAL mids, in
  // mid order.
  std::vector<const PendingMutation*> sent;
  for (const auto& p : pending_) {
    if (p.domain == kDaemonDomain && p.mid) sent.push_back(&p);
  }
  std::stable_sort(sent.begin(), sent.end(), [](const PendingMutation* a, const PendingMutation* b) {
    return *a->mid < *b->mid;
  });
  for (const PendingMutation* p : sent) {
    source_->PushMutation(MutationEnvelope{options_.client_id, *p->mid, p->name, p->args});
  }
}

void OptimisticBackend::OnProgress(const ProgressFrame& frame) {
  if (!health_.ok()) return;
  if (in_cycle_) {
    Fail(absl::FailedPreconditionError("progress delivered re-entrantly inside a reconcile cycle"));
    return;
  }
  std::vector<BufferedFrame> ready = gate_.Release(frame.cv_min);
  for (const auto& f : ready) {
    if (f.qid == kLmidQid) {
      FoldLmidOps(f.ops);
      if (!health_.ok()) return;
      continue;
    }
    const bool snapshot = f.kind == NormalizedEvent::Type::kSnapshot;
    absl::Status s = snapshot ? sync_.Rehydrate(f.qid, f.ops) : sync_.ApplyBatch(f.qid, f.ops);
    if (!s.ok()) {
      Fail(s);
      return;
    }
    // The first released snapshot is the hydration point — even an empty one.
    if (snapshot) MarkSubHydrated(f.qid);
  }
  ApplyRelease(sync_.TakeDelta());
}

void OptimisticBackend::ApplyRelease(const std::vector<ServerDeltaOp>& delta) {
  // Confirm-drop, per domain: a burnt (rejected) mid drops the same way — the release carries no
  // effects for it, so the rewind snaps the prediction back.
  const size_t before = pending_.size();
  std::erase_if(pending_, [this](const PendingMutation& p) {
    if (!p.mid) return false;  // an unflushed fold is never confirmable
    auto w = watermark_.find(p.domain);
    return w != watermark_.end() && *p.mid <= w->second;
  });
  const bool pending_changed = pending_.size() != before;
  if (delta.empty() && !pending_changed) return;
  if (absl::Status s = RunReconcileCycle(delta); !s.ok()) {
    Fail(Annotate(s, "release: reconcile cycle failed: "));
  }
}

void OptimisticBackend::FoldLmidOps(const std::vector<RowOp>& ops) {
  for (const auto& op : ops) {
    if (op.op == RowOp::Kind::kRemove) continue;  // a remove (client GC) confirms nothing
    const RowValues& row = op.row;
    const size_t lc = static_cast<size_t>(lmid_col_lmid_);
    const size_t cc = static_cast<size_t>(lmid_col_client_);
    if (row.size() <= lc) continue;
    if (cc < row.size() && row[cc].is_string() && row[cc].as_string() != options_.client_id) {
      continue;  // another client's ledger row confirms nothing of ours
    }
    const Value& v = row[lc];
    if (!v.is_number()) continue;
    const int64_t lmid = v.kind() == Value::Kind::kInt ? v.as_int()
                                                       : static_cast<int64_t>(v.as_double());
    FoldConfirm(kDaemonDomain, lmid);
    if (!health_.ok()) return;
  }
}

void OptimisticBackend::FoldConfirm(const std::string& domain, int64_t lmid) {
  auto [nm, ins] = next_mid_.try_emplace(domain, 1);
  const int64_t highest_issued = nm->second - 1;
  if (lmid > highest_issued) {
    size_t sent = 0;
    for (const auto& p : pending_) sent += (p.domain == domain && p.mid) ? 1 : 0;
    if (sent > 0) {
      // Two writers on one client id, or corrupted state: unrecoverable.
      Fail(absl::InternalError(absl::StrCat(
          "optimistic backend: confirmed lmid ", lmid, " is ahead of issued mids (",
          highest_issued, ") on domain \"", domain, "\" with ", sent,
          " sent mutation(s) pending")));
      return;
    }
    // A fresh session over a client id with history: continue the server's sequence.
    nm->second = lmid + 1;
  }
  auto [w, wins] = watermark_.try_emplace(domain, 0);
  w->second = std::max(w->second, lmid);
}

// --- the reconcile cycle ---------------------------------------------------------------------

absl::Status OptimisticBackend::RunReconcileCycle(const std::vector<ServerDeltaOp>& delta) {
  RINDLE_CHECK(!in_cycle_);
  in_cycle_ = true;
  if (absl::Status s = db_.ServerBatchBegin(kDaemonDomain, delta); !s.ok()) {
    in_cycle_ = false;
    return s;
  }
  // Replay in SEND order: seq ascending, unflushed (seq-less) entries last, stable.
  std::vector<size_t> order(pending_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    const auto& sa = pending_[a].seq;
    const auto& sb = pending_[b].seq;
    if (!sa || !sb) return sa.has_value() && !sb.has_value();
    return *sa < *sb;
  });
  std::set<size_t> dropped;
  absl::Status cycle_error;
  for (size_t idx : order) {
    PendingMutation& p = pending_[idx];
    absl::StatusOr<const Mutator*> mutator = registry_.Find(p.name);
    if (!mutator.ok()) {
      dropped.insert(idx);
      if (replay_observer_) replay_observer_(p, false);
      continue;
    }
    WriteSet writes;
    std::unique_ptr<WriteTxn> txn = db_.Write();
    TrackingTx tx(txn.get(), &options_.schema, &options_.local_tables, &writes, nullptr);
    absl::Status s = (**mutator)(tx, p.args);
    if (s.ok() && !tx.failure().ok()) s = tx.failure();
    if (!s.ok()) {
      // A re-invocation that fails on the new base (e.g. its read-dependency vanished upstream)
      // is dead: drop it; its mid still confirms (burnt) upstream.
      if (txn->open()) txn->Rollback();
      dropped.insert(idx);
      if (replay_observer_) replay_observer_(p, false);
      continue;
    }
    absl::StatusOr<std::vector<QueryBatch>> c = txn->Commit();
    if (!c.ok()) {
      cycle_error = Annotate(c.status(), absl::StrCat("re-invoking \"", p.name, "\": "));
      break;
    }
    RINDLE_CHECK(c->empty());  // inside a cycle commits buffer
    // Union-never-shrink: a re-run that no-ops keeps the prior records.
    MergeWriteSet(p.writes, writes);
    if (replay_observer_) replay_observer_(p, true);
  }
  if (!dropped.empty()) {
    std::vector<PendingMutation> kept;
    kept.reserve(pending_.size() - dropped.size());
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (dropped.count(i) == 0) kept.push_back(std::move(pending_[i]));
    }
    pending_ = std::move(kept);
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = db_.ServerBatchEnd();
  in_cycle_ = false;
  if (!cycle_error.ok()) return cycle_error;
  if (!batches.ok()) return batches.status();
  ApplyBatches(*batches);
  return absl::OkStatus();
}

// --- introspection ---------------------------------------------------------------------------

Inspect OptimisticBackend::inspect() const {
  Inspect out;
  for (const auto& p : pending_) {
    PendingInspect e;
    e.key = p.mid ? absl::StrCat("m:", *p.mid) : absl::StrCat("?:", p.name);
    e.mid = p.mid;
    e.seq = p.seq;
    e.name = p.name;
    e.args = p.args;
    e.domain = p.domain;
    for (const auto& t : Touched(p.writes)) e.tables.push_back(t);
    e.writes = Flatten(p.writes);
    e.reads = p.reads;
    out.pending.push_back(std::move(e));
  }
  out.confirmed_lmid = watermark_.at(kDaemonDomain);
  out.next_mid = next_mid_.at(kDaemonDomain);
  out.applied_cv = gate_.applied_cv();
  out.buffered_frames = gate_.buffered();
  for (const auto& t : PendingTables()) out.pending_tables.push_back(t);
  return out;
}

DomainsInspect OptimisticBackend::InspectDomains() const {
  DomainsInspect out;
  out.next_mid = next_mid_;
  out.watermark = watermark_;
  out.gates[gate_.key()] = GateInspect{gate_.applied_cv(), gate_.buffered()};
  for (const auto& p : pending_) out.pending.push_back({p.mid, p.seq, p.name, p.domain});
  return out;
}

}  // namespace rindle
