#include "optimistic/backend.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "optimistic/run_mutator.h"

namespace rindle {

OptimisticBackend::OptimisticBackend(OptimisticOptions options, OptimisticSource* daemon)
    : options_(std::move(options)),
      registry_(options_.mutators),
      channels_(options_.client_id, &options_.schema, &options_.local_tables,
                options_.buffer_cap, daemon),  // CHECKs daemon non-null
      subs_(&channels_),
      views_(&db_, &health_, &subs_, &ledger_),
      domains_(options_.domain_policy),
      folds_(
          options_.clock, &ledger_, &health_,
          [this](const std::string& name, const nlohmann::json& args) {
            return domains_.Resolve(name, args);
          },
          options_.client_id,
          [this](const std::string& domain, const MutationEnvelope& e) { PushEnvelope(domain, e); },
          [this](const std::string& key) { FlushFold(key); }),
      reconcile_(&db_, &health_, &registry_, &options_.schema, &options_.local_tables, &ledger_,
                 &views_, &folds_),
      outcomes_(&ledger_, options_.client_id,
                Outcomes::Hooks{
                    [this](const std::string& domain, const MutationEnvelope& e) {
                      PushEnvelope(domain, e);
                    },
                    [this](const std::string& name, const nlohmann::json& args) {
                      return InvokeWith(name, args, std::string(kDaemonSource)).status();
                    },
                    options_.on_rejected}),
      system_(options_.client_id, options_.clock,
              SystemStreams::Hooks{
                  // The SAME handler the channels' mutationOutcome frames use (outcomes.h).
                  [this](const std::string& domain, const MutationOutcomeFrame& f) {
                    outcomes_.Handle(domain, f);
                  },
                  // The SAME confirm core as every channel's lmid stream (ledger.h) — but a
                  // daemon-carried row is the room's ledger AS OF ITS LAST FLUSH, which lags the
                  // room channel's own lmid stream: below the watermark it is stale, not an
                  // authority that forgot (the seed's foldConfirm max-folds; the regression
                  // refusal belongs to the room's own stream).
                  [this](const std::string& domain, int64_t lmid) {
                    ledger_.EnsureDomain(domain);
                    if (lmid < ledger_.watermark().at(domain)) {
                      ++system_.mutable_counters().stale_ledger_rows;
                      return absl::OkStatus();
                    }
                    return ledger_.FoldConfirm(domain, lmid);
                  }}),
      rooms_(&db_, &options_.schema, &options_.local_tables),
      swaps_(&channels_, &subs_, &views_, &rooms_, &reconcile_, &options_.local_tables, &health_,
             &room_counters_),
      downgrades_(&channels_, &subs_, &ledger_, &views_, &rooms_, &swaps_, &reconcile_, &health_,
                  &room_counters_) {
  RINDLE_CHECK_GT(options_.buffer_cap, size_t{0});
  // A re-invocation re-stages through its entry's CURRENT domain (302 §2).
  reconcile_.stage_for = [this](const std::string& domain) { return rooms_.StagingMap(domain); };
  downgrades_.room_watermark = [this](const std::string& doc) { return RoomWatermark(doc); };
  // A ghost drop rides the release's one reconcile cycle (downgrade.h).
  reconcile_.before_cycle = [this] { return downgrades_.BeforeCycle(); };
  reconcile_.after_cycle = [this] { downgrades_.AfterCycle(); };
  ledger_.AddDomain(kDaemonSource);
  RegisterTables();
  WireChannel(channels_.daemon());
  channels_.daemon().RegisterLmidQuery();
}

// Detach: the sources outlive us and must not call into a destroyed backend (folds_ clears its
// timers as it is destroyed).
OptimisticBackend::~OptimisticBackend() {
  for (const auto& [key, channel] : channels_.all()) channel->Disconnect();
}

void OptimisticBackend::WireChannel(Channel& channel) {
  const std::string key = channel.key();
  channel.Connect(
      [this, key](int64_t qid, const NormalizedEvent& ev) { HandleFrame(key, qid, ev); },
      [this, key](const ProgressFrame& f) { HandleProgress(key, f); },
      [this, key]() { HandleRestart(key); }, [this, key]() { HandleResync(key); },
      // Out of band: on arrival, never behind this channel's cv buffer (outcomes.h).
      [this, key](const MutationOutcomeFrame& f) { OnOutcome(key, f); });
}

// --- channels --------------------------------------------------------------------------------

absl::Status OptimisticBackend::ConnectSource(const std::string& source_key,
                                              OptimisticSource* source) {
  RINDLE_CHECK(source != nullptr);
  absl::Status arg_error;
  if (source_key.empty()) {
    arg_error = absl::InvalidArgumentError("connectSource: the source key is empty");
  } else if (channels_.Has(source_key)) {
    arg_error = absl::AlreadyExistsError(
        absl::StrCat("optimistic backend: source ", source_key, " is already connected"));
  }
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck,
                        [&] { return absl::StrCat("connectSource ", source_key, ": called"); },
                        std::move(arg_error)));
  Channel& channel = channels_.Add(source_key, source);
  downgrades_.Cancel(source_key);  // a re-upgrade cancels a pending ghost (its twins stay live)
  if (auto kept = surviving_sync_.find(source_key); kept != surviving_sync_.end()) {
    // The twins the last incarnation filled are still registered: adopt its row record.
    if (!rooms_.TablesFor(source_key).empty()) channel.AdoptSync(std::move(kept->second));
    surviving_sync_.erase(kept);
  }
  // The channel's lmid stream folds into watermark[key]: a reconnected domain continues its
  // surviving nextMid / watermark (its lmid snapshot max-folds into them).
  ledger_.EnsureDomain(source_key);
  WireChannel(channel);
  channel.RegisterLmidQuery();
  RINDLE_CHECK(channels_.Has(source_key));
  return absl::OkStatus();
}

absl::Status OptimisticBackend::DisconnectSource(const std::string& source_key) {
  absl::Status arg_error;
  if (IsDaemonSource(source_key)) {
    arg_error = absl::FailedPreconditionError(
        "optimistic backend: the daemon source cannot be disconnected");
  } else if (subs_.AnyOn(source_key)) {
    arg_error = absl::FailedPreconditionError(absl::StrCat(
        "optimistic backend: cannot disconnect \"", source_key,
        "\" — a query is still retained on it (release or move it first)"));
  }
  RETURN_IF_ERROR(Guard(HealthCheck::kSkip,
                        [&] { return absl::StrCat("disconnectSource ", source_key, ": called"); },
                        std::move(arg_error)));
  Channel* channel = channels_.Find(source_key);
  if (channel == nullptr) return absl::OkStatus();
  channel->Disconnect();
  channel->UnregisterLmidQuery();
  swaps_.ForgetGcFrom(source_key);
  if (!rooms_.TablesFor(source_key).empty()) {
    surviving_sync_.insert_or_assign(source_key, channel->TakeSync());
  }
  channels_.Remove(source_key);  // the domain's ledger state and processed outcomes stay
  RINDLE_CHECK(ledger_.HasDomain(source_key));
  return absl::OkStatus();
}

void OptimisticBackend::RegisterTables() {
  for (const auto& t : options_.local_tables) {
    if (options_.schema.count(t) == 0) {
      health_.Fail(absl::InvalidArgumentError(
          absl::StrCat("optimistic backend: local table \"", t, "\" is not in the schema")));
    }
  }
  for (const auto& [name, spec] : options_.schema) {
    if (name.find('@') != std::string::npos) {  // `@` is the room twins' namespace (302 §2)
      health_.Fail(absl::InvalidArgumentError(absl::StrCat(
          "optimistic backend: table \"", name, "\": '@' is reserved for room tables")));
      continue;
    }
    if (name == kClientMutationsTable) {
      health_.Fail(absl::InvalidArgumentError(absl::StrCat(
          "optimistic backend: table \"", name, "\" is reserved for confirmations")));
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
    if (!s.ok()) health_.Fail(AnnotateStatus(s, "optimistic backend: "));
  }
}

absl::Status OptimisticBackend::Guard(HealthCheck health, absl::FunctionRef<std::string()> act,
                                      absl::Status arg_error) const {
  if (health == HealthCheck::kCheck && !health_.ok()) {
    return AnnotateStatus(health_.status, "optimistic backend is unhealthy: ");
  }
  if (!arg_error.ok()) return arg_error;
  if (health_.in_cycle) {
    return absl::FailedPreconditionError(
        absl::StrCat(act(), " re-entrantly inside a reconcile cycle"));
  }
  return absl::OkStatus();
}

void OptimisticBackend::PushEnvelope(const std::string& domain, const MutationEnvelope& envelope) {
  if (send_observer_) send_observer_(envelope);
  channels_.For(domain).Push(envelope);
}

// --- invoke ----------------------------------------------------------------------------------

absl::StatusOr<int64_t> OptimisticBackend::Invoke(const std::string& name,
                                                  const nlohmann::json& args) {
  return InvokeWith(name, args, std::nullopt);
}

absl::StatusOr<int64_t> OptimisticBackend::InvokeWith(const std::string& name,
                                                      const nlohmann::json& args,
                                                      const std::optional<std::string>& pin) {
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck,
                        [&] { return absl::StrCat("invoke \"", name, "\": called"); }));
  ASSIGN_OR_RETURN(const Mutator* mutator, registry_.Find(name));
  // Declared, resolved BEFORE the prediction runs (domains.h).
  const std::string domain = domains_.Resolve(name, args, pin);
  MutatorRun run = RunMutator(db_, options_.schema, options_.local_tables, *mutator, args,
                              RunMode::kInvoke, rooms_.StagingMap(domain));
  if (!run.ok()) return RunFailure(run, absl::StrCat("mutator \"", name, "\""));
  NoteCrossAuthority(name, domain, run.writes);
  // Flush-on-enqueue (§4.2): an open fold whose tables overlap this write takes its mid first,
  // so wire order == local-apply order for any pair that can observe each other.
  folds_.DrainOverlapping(Touched(run.writes));
  folds_.NoteOvertaken(run.writes, run.reads);
  // The prediction stuck: only now is a mid (and seq) dealt — a throw consumed none (#10).
  auto [mid, seq] = ledger_.DealMid(domain);
  PendingMutation entry;
  entry.mid = mid;
  entry.seq = seq;
  entry.name = name;
  entry.args = args;
  entry.domain = domain;
  entry.writes = std::move(run.writes);
  entry.reads = std::move(run.reads);
  const PendingMutation& appended = ledger_.Append(std::move(entry));
  RINDLE_CHECK_EQ(appended.mid.value_or(0), mid);
  views_.ApplyBatches(run.batches);
  views_.RefreshAxes();
  PushEnvelope(domain, MutationEnvelope{options_.client_id, mid, name, args});
  return mid;
}

// --- folds -----------------------------------------------------------------------------------

absl::StatusOr<std::string> OptimisticBackend::InvokeFolded(const std::string& name,
                                                            const nlohmann::json& args,
                                                            const FoldOptions& opts) {
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck,
                        [&] { return absl::StrCat("invokeFolded \"", name, "\": called"); }));
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
  // The declared domain picks the staging map up front, like invoke's (the flush re-resolves).
  const std::string domain = domains_.Resolve(name, args, std::nullopt);
  MutatorRun run = RunMutator(db_, options_.schema, options_.local_tables, *mutator, args,
                              RunMode::kFolded, rooms_.StagingMap(domain));
  if (!run.ok()) {
    if (run.stage == MutatorRun::Stage::kMutatorFailed && run.fold_read) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot fold \"", name, "\": it reads state via tx.get/tx.row/tx.query, so it is not "
          "absorbing — folded mutators must be last-writer-wins (FOLDED-MUTATIONS-DESIGN §5)"));
    }
    return RunFailure(run, absl::StrCat("folded mutator \"", name, "\""));
  }
  NoteCrossAuthority(name, domain, run.writes);
  const std::string key = FoldKey(name, opts.key);
  const int64_t now = options_.clock->Now();
  folds_.Absorb(key, name, args, opts, std::move(run.writes), run.probed, now);
  views_.ApplyBatches(run.batches);
  folds_.Arm(key, now);
  views_.RefreshAxes();
  return key;
}

void OptimisticBackend::FlushFold(const std::string& fold_key) {
  if (!folds_.IsOpen(fold_key)) return;
  const absl::Status s = Guard(HealthCheck::kSkip, [] { return std::string("flushFold called"); });
  if (!s.ok()) return health_.Fail(s);
  folds_.Flush(fold_key);
  RINDLE_CHECK(!folds_.IsOpen(fold_key));
}

void OptimisticBackend::FlushFolds() {
  for (const auto& key : folds_.InCreationOrder()) FlushFold(key);
  // Inside a cycle each FlushFold only records the re-entry in health.
  RINDLE_CHECK(health_.in_cycle || folds_.records().empty());
}

// --- local-only tables -----------------------------------------------------------------------

absl::Status OptimisticBackend::WriteLocal(const std::vector<RowOp>& ops) {
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck, [] { return std::string("writeLocal called"); }));
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
  const size_t pending_before = ledger_.pending().size();
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
      return AnnotateStatus(s, absl::StrCat("writeLocal: op ", i, " on \"", op.table, "\": "));
    }
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) return AnnotateStatus(batches.status(), "writeLocal: commit failed: ");
  views_.ApplyBatches(*batches);
  // Local writes live outside the optimistic cycle: no mid, no pending entry.
  RINDLE_CHECK_EQ(ledger_.pending().size(), pending_before);
  return absl::OkStatus();
}

// --- queries ---------------------------------------------------------------------------------

absl::Status OptimisticBackend::RegisterQuery(int64_t qid, const Ast& ast,
                                              std::optional<RemoteQuery> remote,
                                              const std::string& channel) {
  absl::Status arg_error;
  if (remote && !channels_.Has(channel)) {
    arg_error = channels_.Require(channel).status();  // a bad channel fails first (seed 002)
  } else if (qid == kLmidQid) {
    arg_error = absl::InvalidArgumentError(
        "registerQuery: qid 0 is reserved for the lmid system query");
  } else if (views_.Has(qid)) {
    arg_error =
        absl::AlreadyExistsError(absl::StrCat("registerQuery: qid ", qid, " is already live"));
  }
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck,
                        [&] { return absl::StrCat("registerQuery ", qid, ": called"); },
                        std::move(arg_error)));
  if (remote && subs_.HasRetain(qid)) {
    return absl::AlreadyExistsError(
        absl::StrCat("registerQuery: qid ", qid, " is already a live remote retain"));
  }
  if (remote) RETURN_IF_ERROR(subs_.CheckWireId(qid, *remote));
  RETURN_IF_ERROR(views_.Register(qid, ast));
  if (remote) {
    if (absl::Status s = RetainRemoteQuery(qid, *remote, qid, channel); !s.ok()) {
      views_.Destroy(qid);
      return s;
    }
  } else {
    views_.RefreshAxes();
  }
  RINDLE_CHECK(views_.Has(qid));
  return absl::OkStatus();
}

absl::Status OptimisticBackend::RetainRemoteQuery(int64_t retain_qid, const RemoteQuery& remote,
                                                  std::optional<int64_t> local_qid,
                                                  const std::string& channel) {
  absl::Status arg_error = channels_.Require(channel).status();  // first (seed 002 requireGate)
  if (arg_error.ok() && retain_qid == kLmidQid) {
    arg_error =
        absl::InvalidArgumentError("retainRemoteQuery: qid 0 is reserved for the lmid system query");
  }
  RETURN_IF_ERROR(Guard(
      HealthCheck::kCheck,
      [&] { return absl::StrCat("retainRemoteQuery ", retain_qid, ": called"); },
      std::move(arg_error)));
  if (subs_.HasRetain(retain_qid)) {
    return absl::AlreadyExistsError(
        absl::StrCat("retainRemoteQuery: qid ", retain_qid, " is already a live retain"));
  }
  if (local_qid && !views_.Has(*local_qid)) {
    return absl::NotFoundError(absl::StrCat("retainRemoteQuery ", retain_qid,
                                            ": no live local view ", *local_qid));
  }
  ASSIGN_OR_RETURN(const bool late_joiner, subs_.Retain(retain_qid, remote, local_qid, channel));
  // A late joiner to a hydrated sub: notify kComplete even if it already read kComplete.
  if (late_joiner) {
    const bool was_complete = views_.Notified(*local_qid) == ResultType::kComplete;
    // 302 §4.1 late join: a room sub's views swapped at its first snapshot, long ago.
    swaps_.SwapLateJoiner(subs_.SubOfRetain(retain_qid)->first);
    // The swap refreshes the axes: when that already notified the flip to kComplete, forcing a
    // second one is a notify without a transition (seed 11 --room-views on). The seed's swap
    // leaves the result type alone and forces its one notify — the same single event.
    if (was_complete || views_.Notified(*local_qid) != ResultType::kComplete) {
      views_.NotifyResultType(*local_qid, ResultType::kComplete, /*force=*/true);
    }
  }
  views_.RefreshAxes();
  RINDLE_CHECK(subs_.HasRetain(retain_qid));
  return absl::OkStatus();
}

void OptimisticBackend::ReleaseRemoteQuery(int64_t retain_qid) {
  if (!subs_.HasRetain(retain_qid)) return;
  const absl::Status s = Guard(HealthCheck::kSkip, [&] {
    return absl::StrCat("releaseRemoteQuery ", retain_qid, ": called");
  });
  if (!s.ok()) return health_.Fail(s);
  const auto sub = subs_.SubOfRetain(retain_qid);
  std::vector<ServerDeltaOp> gc = subs_.Release(retain_qid);
  // The last retain of a system sub: forget its spec (its folded state stays).
  if (sub && !subs_.HasSource(sub->first)) system_.Remove(sub->first);
  RunReleaseGc(sub, std::move(gc), absl::StrCat("releaseRemoteQuery ", retain_qid));
  views_.RefreshAxes();
  RINDLE_CHECK(!subs_.HasRetain(retain_qid));
}

absl::Status OptimisticBackend::RetainSystemQuery(int64_t retain_qid, const RemoteQuery& remote,
                                                  const SystemStreamSpec& spec,
                                                  const std::string& channel) {
  absl::Status arg_error = channels_.Require(channel).status();  // first (seed 002 requireGate)
  if (arg_error.ok() && retain_qid == kLmidQid) {
    arg_error =
        absl::InvalidArgumentError("retainSystemQuery: qid 0 is reserved for the lmid system query");
  }
  if (arg_error.ok()) arg_error = SystemStreams::CheckSpec(spec);
  RETURN_IF_ERROR(Guard(
      HealthCheck::kCheck,
      [&] { return absl::StrCat("retainSystemQuery ", retain_qid, ": called"); },
      std::move(arg_error)));
  if (subs_.HasRetain(retain_qid)) {
    return absl::AlreadyExistsError(
        absl::StrCat("retainSystemQuery: qid ", retain_qid, " is already a live retain"));
  }
  // No view: nothing to hydrate or notify.
  ASSIGN_OR_RETURN(const bool late_joiner, subs_.Retain(retain_qid, remote, std::nullopt, channel));
  RINDLE_CHECK(!late_joiner);
  const std::optional<int64_t> source_qid = subs_.SourceOf(retain_qid);
  RINDLE_CHECK(source_qid.has_value());
  system_.Add(*source_qid, spec);  // a duplicate retain of the same remote keeps the first spec
  return absl::OkStatus();
}

void OptimisticBackend::ReleaseSystemQuery(int64_t retain_qid) { ReleaseRemoteQuery(retain_qid); }

void OptimisticBackend::AnnounceScopeSessions() {
  for (const std::string& scope : system_.TakeTouchedScopes()) {
    ++system_.mutable_counters().scope_events;
    if (scope_sessions_observer_) {
      scope_sessions_observer_(ScopeSessionsEvent{scope, system_.OtherScopeSessions(scope)});
    }
  }
}

void OptimisticBackend::UnregisterQuery(int64_t qid) {
  if (!views_.Has(qid)) return;
  const absl::Status s =
      Guard(HealthCheck::kSkip, [&] { return absl::StrCat("unregisterQuery ", qid, ": called"); });
  if (!s.ok()) return health_.Fail(s);
  // The view's own retain (RegisterQuery with a remote); other retains feeding this view detach.
  const auto sub = subs_.SubOfRetain(qid);
  std::vector<ServerDeltaOp> gc = subs_.Release(qid);
  subs_.DetachView(qid);
  // Tear the local pipeline + view down first so the GC cycle below skips it.
  views_.Destroy(qid);
  swaps_.ForgetView(qid);
  RunReleaseGc(sub, std::move(gc), absl::StrCat("unregisterQuery ", qid));
  views_.RefreshAxes();
  RINDLE_CHECK(!views_.Has(qid));
}

// --- frames ----------------------------------------------------------------------------------

void OptimisticBackend::HandleFrame(const std::string& key, int64_t qid,
                                    const NormalizedEvent& ev) {
  Channel* channel = channels_.Find(key);
  if (channel == nullptr) return;  // a late call of a disconnected channel
  const absl::Status s =
      Guard(HealthCheck::kCheck, [&] { return absl::StrCat("frame for qid ", qid, " delivered"); });
  if (!s.ok()) return health_.Fail(s);  // a no-op when already unhealthy (health is sticky)
  if (qid != kLmidQid) {
    // A frame for a qid with no live sub (a late frame of a released sub) has no footprint to
    // feed; folding it would plant rows no DropQuery would ever GC.
    const std::optional<std::string> owner = subs_.ChannelOf(qid);
    if (!owner) return;
    // A qid lives on the ONE channel its sub registered on: a frame on another is a wiring bug
    // that would split the query's frames across two cv timelines.
    if (*owner != key) {
      // A frame in flight from the channel a retargeted sub left is stale, not a wiring bug.
      if (swaps_.InGrace(qid, key)) {
        ++room_counters_.grace_frames;
        return;
      }
      return health_.Fail(absl::InternalError(absl::StrCat(
          "optimistic backend: qid ", qid, " arrived on ", key, " but is owned by ", *owner)));
    }
  }
  // The lmid query's first hello after a (re)connect (the source re-registers every query): fence
  // the gate until all their snapshots are here (gate.h; the seed is silent — see there). An
  // overflow's Reregister fences by itself, and its own lmid hello is no reconnect's: it may come
  // after that fence released (seed 1921: another re-registration's lmid snapshot, still in flight,
  // completed it), and fencing then waits for data snapshots nobody will send — every later frame
  // held, every later mutation pending forever.
  // A fence still waiting from the previous session does not count (seed 48): its snapshots
  // are of that session's epochs, and the frames after them died with its link — releasing them
  // with the new lmid snapshot would drop a confirmed write from the view.
  if (qid == kLmidQid && ev.type == NormalizedEvent::Type::kHello &&
      channel->resync_since_fence()) {
    channel->FenceResync(subs_.Live(key));
    channel->set_resync_since_fence(false);
  }
  absl::Status error;
  switch (channel->Admit(qid, ev, &error, &system_)) {
    case Channel::Action::kResubscribe:  // "drift ⇒ re-subscribe"
      channel->Resubscribe(qid, subs_.RemoteOf(qid));
      break;
    case Channel::Action::kOverflow:  // §8.5: this channel's subs only, key order
      channel->Reregister(subs_.Live(key));
      channel->set_resync_since_fence(false);
      break;
    case Channel::Action::kNone:
      break;
  }
  health_.Fail(std::move(error));
}

// This channel's gate resets (CHECKed empty by the channel); pending stays for the resync to
// re-send; the other channels are untouched (an authority restart is per channel, §5.1).
void OptimisticBackend::HandleRestart(const std::string& key) {
  if (Channel* channel = channels_.Find(key)) channel->Reset();
}

void OptimisticBackend::HandleResync(const std::string& key) {
  RINDLE_CHECK(!health_.in_cycle);  // a source must not resync from inside RegisterQuery/Push
  Channel* channel = channels_.Find(key);
  if (channel == nullptr) return;
  // A reconnect: the buffered frames came on the dead connection (gate.h DropConnection).
  channel->DropConnection();
  channel->set_resync_since_fence(true);
  // §7.5 rule 3: THIS domain's sent envelopes, original mids, mid order, on its own channel —
  // seed 002 resendPending(gate.key), and only that (the seed wins). A gate-less domain's
  // envelopes are NOT re-sent on the daemon channel: an envelope carries no domain, so the
  // daemon would take a room's mid N for its own mid N (a duplicate, acked and dropped: the
  // room write lost). The campaign found exactly that (seed 588, resend-faithful, after a room
  // disconnect) when the daemon's resync re-sent gate-less domains.
  channel->Resend(ledger_, options_.client_id, key);
}

void OptimisticBackend::HandleProgress(const std::string& key, const ProgressFrame& frame) {
  Channel* channel = channels_.Find(key);
  if (channel == nullptr) return;
  const absl::Status s =
      Guard(HealthCheck::kCheck, [] { return std::string("progress delivered"); });
  if (!s.ok()) return health_.Fail(s);  // a no-op when already unhealthy (health is sticky)
  std::set<int64_t> newly;
  // The first released snapshot is the hydration point — even an empty one. The channel's lmid
  // frames fold into watermark[key] alone.
  const absl::Status released = channel->Release(
      frame.cv_min, &ledger_,
      [&](int64_t qid) {
        // A room sub's first snapshot queues its swap-in for the release tail (swap.h).
        if (!subs_.SubHydrated(qid)) swaps_.QueueSwapIn(qid);
        subs_.MarkHydrated(qid, &newly);
      },
      &system_);
  if (!released.ok()) {
    system_.TakeTouchedScopes();  // the release failed: no doorbell for half a release
    return health_.Fail(released);
  }
  // The confirm-drop is per domain (each entry's own watermark); the engine rebases every
  // channel's delta through the daemon baseline it attaches today (see backend.h "Channels") —
  // a room's delta renamed into its twins first (room_tables.h).
  reconcile_.ApplyRelease(daemon_key(), rooms_.MapDelta(key, channel->TakeDelta()), newly);
  RINDLE_CHECK(!health_.in_cycle);
  // The release tail, in the seed's order: swap-ins (after the reconcile folded the snapshot),
  // the retarget's phase-2 GC (after the swap, invisible to it), the ghosts (their drop rode the
  // cycle above; a GC cycle may have cleared one more).
  swaps_.ProcessSwapIns();
  swaps_.FlushRetargetGc(key);
  downgrades_.Evaluate();
  // The doorbell LAST: everything this release carried is applied (seed 002 onGateProgress).
  AnnounceScopeSessions();
}

void OptimisticBackend::TestRelease(const std::string& domain,
                                    const std::vector<ServerDeltaOp>& delta,
                                    std::optional<int64_t> watermark_update) {
  const absl::Status s =
      Guard(HealthCheck::kCheck, [] { return std::string("testRelease called"); });
  if (!s.ok()) return health_.Fail(s);
  if (watermark_update) ledger_.RaiseWatermark(domain, *watermark_update);
  reconcile_.ApplyRelease(daemon_key(), delta, {});
}

void OptimisticBackend::OnOutcome(const std::string& domain, const MutationOutcomeFrame& frame) {
  const absl::Status s = Guard(HealthCheck::kCheck, [&] {
    return absl::StrCat("mutationOutcome for ", domain, " mid ", frame.mid, " delivered");
  });
  if (!s.ok()) return health_.Fail(s);  // a no-op when already unhealthy (health is sticky)
  outcomes_.Handle(domain, frame);
  views_.RefreshAxes();
}

// --- introspection ---------------------------------------------------------------------------

Inspect OptimisticBackend::inspect() const {
  std::map<uint64_t, std::pair<std::string, const Folds::Record*>> fold_by_entry;
  for (const auto& [key, f] : folds_.records()) fold_by_entry[f.entry_id] = {key, &f};
  Inspect out;
  for (const auto& p : ledger_.pending()) {
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
      const Folds::Record& f = *fe->second.second;
      e.fold = FoldInspect{fe->second.first, f.debounce_ms, f.max_wait_ms, f.defer_across_writes,
                           p.mid.has_value()};
    }
    out.pending.push_back(std::move(e));
  }
  out.confirmed_lmid = ledger_.watermark().at(daemon_key());
  out.next_mid = ledger_.next_mid().at(daemon_key());
  out.applied_cv = daemon().gate().applied_cv();
  out.buffered_frames = daemon().gate().buffered();
  for (const auto& t : ledger_.PendingTables()) out.pending_tables.push_back(t);
  return out;
}

DomainsInspect OptimisticBackend::InspectDomains() const {
  DomainsInspect out;
  out.next_mid = ledger_.next_mid();
  out.watermark = ledger_.watermark();
  for (const auto& [key, channel] : channels_.all()) {
    out.gates[channel->gate().key()] =
        GateInspect{channel->gate().applied_cv(), channel->gate().buffered()};
  }
  for (const auto& p : ledger_.pending()) out.pending.push_back({p.mid, p.seq, p.name, p.domain});
  out.lifecycle.room_watermarks = system_.room_watermarks();
  out.lifecycle.scope_sessions = system_.scope_sessions();
  return out;
}

}  // namespace rindle
