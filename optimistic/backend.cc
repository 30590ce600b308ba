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
    const bool local = options_.local_tables.count(name) > 0;
    // A synced table's NOT NULL cells may be ABSENT (null) where no query ships the column
    // (projection); the authority enforces NOT NULL, the mutator surface checks what it writes.
    TableSpec engine_spec = spec;
    if (!local) {
      for (auto& c : engine_spec.columns) c.nullable = true;
      for (int pk : engine_spec.primary_key) engine_spec.columns[pk].nullable = false;
    }
    absl::Status s = db_.RegisterTable(name, engine_spec, local);
    if (!s.ok()) Fail(Annotate(s, "optimistic backend: "));
  }
  source_->OnNormalized([this](int64_t qid, const NormalizedEvent& ev) { OnFrame(qid, ev); });
  source_->OnProgress([this](const ProgressFrame& f) { OnProgress(f); });
  source_->OnRestart([this]() { OnRestart(); });
  source_->OnResync([this]() { OnResync(); });
  RegisterLmidQuery();
}

OptimisticBackend::~OptimisticBackend() {
  // Open fold timers would call into a destroyed backend.
  for (auto& [key, f] : folds_) {
    if (f.timer && options_.clock != nullptr) options_.clock->ClearTimeout(*f.timer);
  }
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

void OptimisticBackend::PushEnvelope(const MutationEnvelope& envelope) {
  if (send_observer_) send_observer_(envelope);
  source_->PushMutation(envelope);
}

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
  // Flush-on-enqueue (§4.2): an open fold whose tables overlap this write takes its mid first,
  // so wire order == local-apply order for any pair that can observe each other.
  DrainOverlapping(Touched(writes));
  NoteOvertakenFolds(writes, reads);
  // The prediction stuck: only now is a mid (and seq) dealt — a throw consumed none (#10).
  auto [mid, seq] = DealMid(domain);
  PendingMutation entry;
  entry.id = next_entry_id_++;
  entry.mid = mid;
  entry.seq = seq;
  entry.name = name;
  entry.args = args;
  entry.domain = domain;
  entry.writes = std::move(writes);
  entry.reads = std::move(reads);
  pending_.push_back(std::move(entry));
  ApplyBatches(*batches);
  RefreshAxes();
  PushEnvelope(MutationEnvelope{options_.client_id, mid, name, args});
  return mid;
}

void OptimisticBackend::ApplyBatches(const std::vector<QueryBatch>& batches) {
  for (const auto& b : batches) {
    auto it = queries_.find(b.query_id);
    if (it == queries_.end()) continue;
    absl::Status s = it->second.view->Apply(b.events);
    if (!s.ok()) Fail(Annotate(s, absl::StrCat("view for qid ", b.query_id, ": ")));
    if (batch_observer_) batch_observer_(b, false);
  }
}

// --- folds -----------------------------------------------------------------------------------

std::string OptimisticBackend::FoldKey(const std::string& name, const nlohmann::json& key) {
  return name + std::string(1, '\0') + key.dump();
}

PendingMutation* OptimisticBackend::EntryById(uint64_t id) {
  for (auto& p : pending_) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::vector<std::string> OptimisticBackend::FoldsInCreationOrder() const {
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [key, f] : folds_) order.emplace_back(f.created, key);
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (auto& [c, key] : order) out.push_back(std::move(key));
  return out;
}

std::vector<std::string> OptimisticBackend::OpenFolds() const { return FoldsInCreationOrder(); }

absl::StatusOr<std::string> OptimisticBackend::InvokeFolded(const std::string& name,
                                                            const nlohmann::json& args,
                                                            const FoldOptions& opts) {
  if (!health_.ok()) return Annotate(health_, "optimistic backend is unhealthy: ");
  if (in_cycle_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "invokeFolded \"", name, "\": called re-entrantly inside a reconcile cycle"));
  }
  if (options_.clock == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "invokeFolded \"", name, "\": the backend has no FoldClock (OptimisticOptions::clock)"));
  }
  if (opts.debounce_ms < 0 || (opts.max_wait_ms && *opts.max_wait_ms < 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invokeFolded \"", name, "\": debounce_ms and max_wait_ms must be >= 0 (virtual ms)"));
  }
  ASSIGN_OR_RETURN(const Mutator* mutator, registry_.Find(name));
  // The prediction runs with the read trap armed and NO read log (the two never arm together).
  WriteSet writes;
  std::unique_ptr<WriteTxn> txn = db_.Write();
  TrackingTx tx(txn.get(), &options_.schema, &options_.local_tables, &writes, nullptr);
  tx.TrapReads();
  absl::Status s = (*mutator)(tx, args);
  if (s.ok() && !tx.failure().ok()) s = tx.failure();
  if (!s.ok()) {
    if (txn->open()) txn->Rollback();
    if (tx.fold_read()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot fold \"", name, "\": it reads state via tx.get/tx.row/tx.query, so it is not "
          "absorbing — folded mutators must be last-writer-wins (FOLDED-MUTATIONS-DESIGN §5)"));
    }
    return Annotate(s, absl::StrCat("folded mutator \"", name, "\" failed: "));
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) {
    return Annotate(batches.status(), absl::StrCat("folded mutator \"", name, "\": commit failed: "));
  }
  const std::string key = FoldKey(name, opts.key);
  const int64_t now = options_.clock->Now();
  auto it = folds_.find(key);
  if (it != folds_.end() && EntryById(it->second.entry_id) != nullptr) {
    // Overwrite the single entry in place — the pending stack does not grow (§1 #2). The head
    // already carries this prediction; the entry keeps only the latest args and write-set.
    FoldRecord& f = it->second;
    // Replay keeps the windows in creation order: re-invoking this window after a LATER open
    // window that touches the same tables applies it out of replay order (§4.2 snap).
    const std::set<std::string> touched = Touched(writes);
    for (const auto& [other_key, other] : folds_) {
      if (other.created <= f.created) continue;
      if (const PendingMutation* o = EntryById(other.entry_id)) {
        for (const auto& t : Touched(o->writes)) head_reordered_ = head_reordered_ || touched.count(t) > 0;
      }
    }
    PendingMutation* entry = EntryById(f.entry_id);
    entry->args = args;
    entry->writes = std::move(writes);
    f.args = args;
    if (f.timer) options_.clock->ClearTimeout(*f.timer);
    f.timer.reset();
  } else {
    if (it != folds_.end()) {
      // The window's entry was dropped by a failed re-invocation: ship that window as it stands
      // (the authority decides it), then this invoke opens a fresh one.
      FlushFold(key);
    }
    PendingMutation entry;
    entry.id = next_entry_id_++;
    entry.name = name;
    entry.args = args;
    entry.domain = kDaemonDomain;
    entry.writes = std::move(writes);
    FoldRecord f;
    f.entry_id = entry.id;
    f.created = next_fold_created_++;
    f.name = name;
    f.args = args;
    f.first_at = now;
    f.debounce_ms = opts.debounce_ms;
    f.max_wait_ms = opts.max_wait_ms;
    f.defer_across_writes = opts.defer_across_writes;
    pending_.push_back(std::move(entry));
    it = folds_.emplace(key, std::move(f)).first;
  }
  ApplyBatches(*batches);
  FoldRecord& f = it->second;
  // Re-arm the trailing debounce — unless the maxWait cap is already due (a never-idle drag
  // still persists periodically), in which case flush now.
  if (f.max_wait_ms && now - f.first_at >= *f.max_wait_ms) {
    FlushFold(key);
  } else {
    f.timer = options_.clock->SetTimeout([this, key]() { FlushFold(key); }, f.debounce_ms);
  }
  RefreshAxes();
  return key;
}

void OptimisticBackend::FlushFold(const std::string& fold_key) {
  auto it = folds_.find(fold_key);
  if (it == folds_.end()) return;
  if (in_cycle_) {
    Fail(absl::FailedPreconditionError("flushFold called re-entrantly inside a reconcile cycle"));
    return;
  }
  FoldRecord f = std::move(it->second);
  folds_.erase(it);
  if (f.timer) options_.clock->ClearTimeout(*f.timer);
  if (!health_.ok()) return;
  // The mid is dealt in SEND order (never reserved at invoke), so the wire stays gapless.
  auto [mid, seq] = DealMid(kDaemonDomain);
  if (PendingMutation* entry = EntryById(f.entry_id)) {
    // This window now replays BEFORE every still-open one; one applied earlier that touches the
    // same tables sits below it in head (§4.2 snap).
    const std::set<std::string> touched = Touched(entry->writes);
    for (const auto& [other_key, other] : folds_) {
      if (const PendingMutation* o = EntryById(other.entry_id)) {
        for (const auto& t : Touched(o->writes)) head_reordered_ = head_reordered_ || touched.count(t) > 0;
      }
    }
    entry->mid = mid;
    entry->seq = seq;
  }
  PushEnvelope(MutationEnvelope{options_.client_id, mid, f.name, f.args});
}

void OptimisticBackend::FlushFolds() {
  for (const auto& key : FoldsInCreationOrder()) FlushFold(key);
}

void OptimisticBackend::DrainOverlapping(const std::set<std::string>& tables) {
  for (const auto& key : FoldsInCreationOrder()) {
    const FoldRecord& f = folds_.at(key);
    if (f.defer_across_writes) continue;
    const PendingMutation* entry = EntryById(f.entry_id);
    if (entry == nullptr) continue;
    bool overlaps = false;
    for (const auto& t : Touched(entry->writes)) overlaps = overlaps || tables.count(t) > 0;
    if (overlaps) FlushFold(key);
  }
}

void OptimisticBackend::NoteOvertakenFolds(const WriteSet& writes, const ReadLog& reads) {
  // A fold still open after the drain replays AFTER this write at the next reconcile although
  // its prediction applied BEFORE it: if this write read or wrote a table the fold wrote, head
  // may differ from sync ⊕ replay until then — the §4.2 read-dependent reorder snap.
  std::set<std::string> tables = Touched(writes);
  for (const auto& r : reads.reads) tables.insert(r.table);
  for (const auto& q : reads.queries) {
    for (const auto& t : AstTables(q)) tables.insert(t);
  }
  for (const auto& [key, f] : folds_) {
    const PendingMutation* entry = EntryById(f.entry_id);
    if (entry == nullptr) continue;
    for (const auto& t : Touched(entry->writes)) head_reordered_ = head_reordered_ || tables.count(t) > 0;
  }
}

// --- local-only tables -----------------------------------------------------------------------

absl::Status OptimisticBackend::WriteLocal(const std::vector<RowOp>& ops) {
  if (!health_.ok()) return Annotate(health_, "optimistic backend is unhealthy: ");
  if (in_cycle_) {
    return absl::FailedPreconditionError("writeLocal called re-entrantly inside a reconcile cycle");
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string& t = ops[i].table;
    if (options_.schema.count(t) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("writeLocal: op ", i, ": unknown table \"", t, "\""));
    }
    if (options_.local_tables.count(t) == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "writeLocal: op ", i, ": table \"", t,
          "\" is synced — writeLocal accepts only local-only tables (M2); use a named mutator"));
    }
  }
  std::unique_ptr<WriteTxn> txn = db_.Write();
  for (size_t i = 0; i < ops.size(); ++i) {
    const RowOp& op = ops[i];
    absl::Status s = options_.schema.at(op.table).CheckRow(op.table, op.row);
    if (s.ok() && op.op == RowOp::Kind::kEdit) {
      s = options_.schema.at(op.table).CheckRow(op.table, op.old_row);
    }
    if (s.ok()) {
      switch (op.op) {
        case RowOp::Kind::kAdd: s = txn->Add(op.table, op.row); break;
        case RowOp::Kind::kRemove: s = txn->Remove(op.table, op.row); break;
        case RowOp::Kind::kEdit: s = txn->Edit(op.table, op.old_row, op.row); break;
      }
    }
    if (!s.ok()) {
      if (txn->open()) txn->Rollback();
      return Annotate(s, absl::StrCat("writeLocal: op ", i, " on \"", op.table, "\": "));
    }
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) return Annotate(batches.status(), "writeLocal: commit failed: ");
  ApplyBatches(*batches);
  return absl::OkStatus();
}

// --- queries ---------------------------------------------------------------------------------

std::string_view ResultTypeName(ResultType t) {
  return t == ResultType::kComplete ? "complete" : "unknown";
}

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
  if (remote && retains_.count(qid) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("registerQuery: qid ", qid, " is already a live remote retain"));
  }
  if (auto s = source_to_key_.find(qid);
      remote && s != source_to_key_.end() && s->second != remote->Key()) {
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
    if (absl::Status s = RetainRemoteQuery(qid, *remote, qid); !s.ok()) {
      db_.DestroyQuery(qid);
      queries_.erase(qid);
      return s;
    }
    return absl::OkStatus();
  }
  RefreshAxes();
  return absl::OkStatus();
}

absl::Status OptimisticBackend::RetainRemoteQuery(int64_t retain_qid, const RemoteQuery& remote,
                                                  std::optional<int64_t> local_qid) {
  if (!health_.ok()) return Annotate(health_, "optimistic backend is unhealthy: ");
  if (retain_qid == kLmidQid) {
    return absl::InvalidArgumentError(
        "retainRemoteQuery: qid 0 is reserved for the lmid system query");
  }
  if (in_cycle_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "retainRemoteQuery ", retain_qid, ": called re-entrantly inside a reconcile cycle"));
  }
  if (retains_.count(retain_qid) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("retainRemoteQuery: qid ", retain_qid, " is already a live retain"));
  }
  if (local_qid && queries_.count(*local_qid) == 0) {
    return absl::NotFoundError(absl::StrCat("retainRemoteQuery ", retain_qid,
                                            ": no live local view ", *local_qid));
  }
  const std::string key = remote.Key();
  auto [it, is_new] = subs_.try_emplace(key);
  RemoteSub& sub = it->second;
  if (is_new) {
    if (source_to_key_.count(retain_qid) > 0) {
      subs_.erase(it);
      return absl::FailedPreconditionError(absl::StrCat(
          "retainRemoteQuery: qid ", retain_qid, " is still the wire id of a live remote query"));
    }
    sub.source_qid = retain_qid;
    sub.remote = remote;
    source_to_key_[retain_qid] = key;
  }
  ++sub.ref_count;
  retains_[retain_qid] = Retain{key, local_qid};
  if (local_qid) {
    ++sub.local_qids[*local_qid];
    view_retains_[*local_qid].insert(retain_qid);
    if (sub.hydrated) {
      hydrated_.insert(*local_qid);
      // A late joiner to a hydrated sub: notify kComplete even if it already read kComplete
      // (a swallowed transition is unrecoverable for a consumer; a redundant one is harmless).
      NotifyResultType(*local_qid, ResultType::kComplete, /*force=*/true);
    } else {
      hydrated_.erase(*local_qid);
    }
  }
  if (is_new) source_->RegisterQuery(sub.source_qid, sub.remote);
  RefreshAxes();
  return absl::OkStatus();
}

std::optional<int64_t> OptimisticBackend::ReleaseRetain(int64_t retain_qid) {
  auto r = retains_.find(retain_qid);
  if (r == retains_.end()) return std::nullopt;
  const Retain retain = r->second;
  retains_.erase(r);
  RemoteSub& sub = subs_.at(retain.key);
  if (retain.local_qid) {
    auto lq = sub.local_qids.find(*retain.local_qid);
    if (lq != sub.local_qids.end() && --lq->second <= 0) sub.local_qids.erase(lq);
    auto vr = view_retains_.find(*retain.local_qid);
    if (vr != view_retains_.end()) {
      vr->second.erase(retain_qid);
      if (vr->second.empty()) view_retains_.erase(vr);
    }
  }
  if (--sub.ref_count > 0) return std::nullopt;
  const int64_t source_qid = sub.source_qid;
  source_->UnregisterQuery(source_qid);
  source_to_key_.erase(source_qid);
  subs_.erase(retain.key);
  return source_qid;
}

void OptimisticBackend::DropSub(int64_t source_qid, std::vector<ServerDeltaOp>* gc) {
  gate_.DropQuery(source_qid);
  rejected_.erase(source_qid);
  // GC: rows only this footprint referenced fall to refcount 0 → net removes (and rows it shared
  // narrow to the remaining queries' column union → edits).
  sync_.DropQuery(source_qid);
  std::vector<ServerDeltaOp> d = sync_.TakeDelta();
  gc->insert(gc->end(), d.begin(), d.end());
}

void OptimisticBackend::RunGc(const std::vector<ServerDeltaOp>& gc, const std::string& what) {
  // CRIT#2: the GC must leave BOTH head and sync — a server delta, never an optimistic remove.
  if (gc.empty() || !health_.ok()) return;
  if (absl::Status s = RunReconcileCycle(gc); !s.ok()) {
    Fail(Annotate(s, absl::StrCat(what, ": GC cycle failed: ")));
  }
}

void OptimisticBackend::ReleaseRemoteQuery(int64_t retain_qid) {
  if (retains_.count(retain_qid) == 0) return;
  if (in_cycle_) {
    Fail(absl::FailedPreconditionError(absl::StrCat(
        "releaseRemoteQuery ", retain_qid, ": called re-entrantly inside a reconcile cycle")));
    return;
  }
  std::vector<ServerDeltaOp> gc;
  if (std::optional<int64_t> source_qid = ReleaseRetain(retain_qid)) DropSub(*source_qid, &gc);
  RunGc(gc, absl::StrCat("releaseRemoteQuery ", retain_qid));
  RefreshAxes();
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
  // The view's own retain (RegisterQuery with a remote); other retains feeding this view detach.
  if (std::optional<int64_t> source_qid = ReleaseRetain(qid)) DropSub(*source_qid, &gc);
  if (auto vr = view_retains_.find(qid); vr != view_retains_.end()) {
    for (int64_t retain_qid : vr->second) {
      auto r = retains_.find(retain_qid);
      if (r == retains_.end()) continue;
      r->second.local_qid.reset();
      subs_.at(r->second.key).local_qids.erase(qid);
    }
    view_retains_.erase(vr);
  }
  // Tear the local pipeline + view down first so the GC cycle below skips it.
  db_.DestroyQuery(qid);
  queries_.erase(q);
  hydrated_.erase(qid);
  result_types_.erase(qid);
  pending_axis_.erase(qid);
  RunGc(gc, absl::StrCat("unregisterQuery ", qid));
  RefreshAxes();
}

const ResultView* OptimisticBackend::View(int64_t qid) const {
  auto it = queries_.find(qid);
  return it == queries_.end() ? nullptr : it->second.view.get();
}

bool OptimisticBackend::ViewHydrated(int64_t qid) const {
  // A view no retain feeds is local-only: local data is synchronous.
  if (view_retains_.count(qid) == 0) return true;
  return hydrated_.count(qid) > 0;
}

ResultType OptimisticBackend::GetResultType(int64_t qid) const {
  if (queries_.count(qid) == 0) return ResultType::kUnknown;
  return ViewHydrated(qid) ? ResultType::kComplete : ResultType::kUnknown;
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

void OptimisticBackend::NotifyResultType(int64_t qid, ResultType rt, bool force) {
  auto [it, inserted] = result_types_.try_emplace(qid, rt);
  const bool changed = inserted || it->second != rt;
  it->second = rt;
  if ((changed || force) && result_type_observer_) result_type_observer_(qid, rt);
}

void OptimisticBackend::RefreshAxes() {
  const std::set<std::string> tables = PendingTables();
  for (const auto& [qid, q] : queries_) {
    NotifyResultType(qid, GetResultType(qid), /*force=*/false);
    bool pending = false;
    for (const auto& t : q.tables) pending = pending || tables.count(t) > 0;
    auto [it, inserted] = pending_axis_.try_emplace(qid, pending);
    const bool changed = inserted || it->second != pending;
    it->second = pending;
    if (changed && pending_observer_) pending_observer_(qid, pending);
  }
}

void OptimisticBackend::MarkSubHydrated(int64_t source_qid, std::set<int64_t>* newly) {
  auto k = source_to_key_.find(source_qid);
  if (k == source_to_key_.end()) return;
  RemoteSub& sub = subs_.at(k->second);
  if (sub.hydrated) return;
  sub.hydrated = true;
  for (const auto& [local_qid, n] : sub.local_qids) {
    if (hydrated_.insert(local_qid).second) newly->insert(local_qid);
  }
}

// --- frames ----------------------------------------------------------------------------------

absl::Status OptimisticBackend::CheckHello(const std::vector<WireTable>& tables) const {
  // CRIT#4: a positional row must never be scattered through a skewed column order.
  auto subsequence = [](const std::vector<std::string>& sub, const std::vector<std::string>& sup) {
    size_t i = 0;
    for (const auto& c : sup) {
      if (i < sub.size() && sub[i] == c) ++i;
    }
    return i == sub.size();
  };
  for (const auto& t : tables) {
    auto it = options_.schema.find(t.name);
    if (it == options_.schema.end() || options_.local_tables.count(t.name) > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema skew: server advertises table \"", t.name, "\" not in the client schema"));
    }
    const TableSpec& spec = it->second;
    std::vector<std::string> ours;
    for (const auto& c : spec.columns) ours.push_back(c.name);
    if (!subsequence(t.columns, ours) && !subsequence(ours, t.columns)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema skew: column drift on \"", t.name, "\": server [", absl::StrJoin(t.columns, ","),
          "] is neither a projection nor an expansion of client [", absl::StrJoin(ours, ","), "]"));
    }
    std::vector<std::string> our_pk;
    for (int i : spec.primary_key) our_pk.push_back(spec.columns[i].name);
    for (const auto& c : our_pk) {
      if (std::find(t.columns.begin(), t.columns.end(), c) == t.columns.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "schema skew: \"", t.name, "\": server omits primary-key column \"", c, "\""));
      }
    }
    if (!t.primary_key.empty()) {
      std::vector<std::string> server_pk;
      for (int i : t.primary_key) {
        server_pk.push_back(i >= 0 && static_cast<size_t>(i) < t.columns.size()
                                ? t.columns[static_cast<size_t>(i)]
                                : std::string("?"));
      }
      if (server_pk != our_pk) {
        return absl::FailedPreconditionError(absl::StrCat(
            "schema skew: primary-key drift on \"", t.name, "\": client [",
            absl::StrJoin(our_pk, ","), "] != server [", absl::StrJoin(server_pk, ","), "]"));
      }
    }
  }
  return absl::OkStatus();
}

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
    superseded_dropped_ += static_cast<int64_t>(gate_.OnHello(qid));
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
    if (absl::Status skew = CheckHello(ev.tables); !skew.ok()) {
      // Refuse this epoch: its frames are dropped until a valid hello, and the sub re-subscribes
      // ("drift ⇒ re-subscribe").
      ++schema_rejections_;
      rejected_.insert(qid);
      const RemoteSub& sub = subs_.at(source_to_key_.at(qid));
      source_->UnregisterQuery(qid);
      source_->RegisterQuery(qid, sub.remote);
      return;
    }
    rejected_.erase(qid);
    if (absl::Status s = sync_.SetProjection(qid, ev.tables); !s.ok()) Fail(s);
    return;
  }
  if (qid != kLmidQid && rejected_.count(qid) > 0) return;  // the refused epoch's data
  if (gate_.OnData(qid, ev) == SourceGate::Admit::kOverflow) Overflow();
}

void OptimisticBackend::Overflow() {
  // §8.5: the buffer was dropped; re-register every sub (and the lmid query) so fresh snapshots
  // re-hydrate through the footprint diff. Key order — deterministic.
  ++overflows_;
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
  // mid order. Unflushed folds were never sent.
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
  std::set<int64_t> newly;
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
    if (snapshot) MarkSubHydrated(f.qid, &newly);
  }
  ApplyRelease(sync_.TakeDelta(), newly);
}

void OptimisticBackend::ApplyRelease(const std::vector<ServerDeltaOp>& delta,
                                     const std::set<int64_t>& newly) {
  // Confirm-drop, per domain: a burnt (rejected) mid drops the same way — the release carries no
  // effects for it, so the rewind snaps the prediction back. An unflushed fold is never
  // confirmable.
  const size_t before = pending_.size();
  std::erase_if(pending_, [this](const PendingMutation& p) {
    if (!p.mid) return false;
    auto w = watermark_.find(p.domain);
    return w != watermark_.end() && *p.mid <= w->second;
  });
  const bool pending_changed = pending_.size() != before;
  std::set<int64_t> caught_up;
  if (!delta.empty() || pending_changed) {
    // A just-hydrated view's batch from this cycle is its catch-up delivery.
    auto saved = std::move(batch_observer_);
    batch_observer_ = [&](const QueryBatch& b, bool) {
      const bool catch_up = newly.count(b.query_id) > 0;
      if (catch_up) caught_up.insert(b.query_id);
      if (saved) saved(b, catch_up);
    };
    absl::Status s = RunReconcileCycle(delta);
    batch_observer_ = std::move(saved);
    if (!s.ok()) Fail(Annotate(s, "release: reconcile cycle failed: "));
  }
  RefreshAxes();
  // A newly hydrated view this release delivered nothing to still gets an explicit empty
  // catch-up, or its consumer would wait for a first result forever.
  for (int64_t qid : newly) {
    if (caught_up.count(qid) > 0 || queries_.count(qid) == 0) continue;
    if (batch_observer_) batch_observer_(QueryBatch{qid, {}}, true);
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
  ++reconcile_cycles_;
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
  if (cycle_error.ok() && batches.ok()) head_reordered_ = false;  // head == sync ⊕ replay again
  if (!cycle_error.ok()) return cycle_error;
  if (!batches.ok()) return batches.status();
  ApplyBatches(*batches);
  return absl::OkStatus();
}

// --- introspection ---------------------------------------------------------------------------

Inspect OptimisticBackend::inspect() const {
  std::map<uint64_t, std::pair<std::string, const FoldRecord*>> fold_by_entry;
  for (const auto& [key, f] : folds_) fold_by_entry[f.entry_id] = {key, &f};
  Inspect out;
  for (const auto& p : pending_) {
    PendingInspect e;
    auto fe = fold_by_entry.find(p.id);
    e.key = p.mid ? absl::StrCat("m:", *p.mid)
                  : fe != fold_by_entry.end() ? absl::StrCat("f:", fe->second.first)
                                              : absl::StrCat("?:", p.name);
    e.mid = p.mid;
    e.name = p.name;
    e.args = p.args;
    for (const auto& t : Touched(p.writes)) e.tables.push_back(t);
    e.writes = Flatten(p.writes);
    e.reads = p.reads;
    if (fe != fold_by_entry.end()) {
      const FoldRecord& f = *fe->second.second;
      e.fold = FoldInspect{fe->second.first, f.debounce_ms, f.max_wait_ms, f.defer_across_writes,
                           p.mid.has_value()};
    }
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
