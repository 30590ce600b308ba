#include "optimistic/channel.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"

namespace rindle {

namespace {

RemoteQuery LmidQuery() { return RemoteQuery{kLmidQueryName, nlohmann::json::object()}; }

// Whether `sub` is a subsequence of `sup` (a projection by name, in order).
bool Subsequence(const std::vector<std::string>& sub, const std::vector<std::string>& sup) {
  size_t i = 0;
  for (const auto& c : sup) {
    if (i < sub.size() && sub[i] == c) ++i;
  }
  return i == sub.size();
}

}  // namespace

Channel::Channel(std::string key, std::string client_id, const Schema* schema,
                 const std::set<std::string>* local_tables, size_t buffer_cap,
                 OptimisticSource* source)
    : key_(std::move(key)),
      client_id_(std::move(client_id)),
      schema_(schema),
      local_tables_(local_tables),
      source_(source),
      gate_(key_, buffer_cap),
      sync_(schema, local_tables) {
  RINDLE_CHECK(source_ != nullptr);
  RINDLE_CHECK(schema_ != nullptr);
  RINDLE_CHECK(local_tables_ != nullptr);
  RINDLE_CHECK(!key_.empty());
}

void Channel::Connect(std::function<void(int64_t, const NormalizedEvent&)> on_frame,
                      std::function<void(const ProgressFrame&)> on_progress,
                      std::function<void()> on_restart, std::function<void()> on_resync,
                      std::function<void(const MutationOutcomeFrame&)> on_outcome) {
  source_->OnNormalized(std::move(on_frame));
  source_->OnProgress(std::move(on_progress));
  source_->OnRestart(std::move(on_restart));
  source_->OnResync(std::move(on_resync));
  source_->OnMutationOutcome(std::move(on_outcome));
}

void Channel::Disconnect() {
  source_->OnNormalized([](int64_t, const NormalizedEvent&) {});
  source_->OnProgress([](const ProgressFrame&) {});
  source_->OnRestart([]() {});
  source_->OnResync([]() {});
  source_->OnMutationOutcome([](const MutationOutcomeFrame&) {});
}

void Channel::Register(int64_t qid, const RemoteQuery& remote) {
  source_->RegisterQuery(qid, remote);
}

void Channel::Unregister(int64_t qid) { source_->UnregisterQuery(qid); }

void Channel::Push(const MutationEnvelope& envelope) { source_->PushMutation(envelope); }

void Channel::RegisterLmidQuery() { source_->RegisterQuery(kLmidQid, LmidQuery()); }

void Channel::UnregisterLmidQuery() { source_->UnregisterQuery(kLmidQid); }

void Channel::Resubscribe(int64_t qid, const RemoteQuery& remote) {
  RINDLE_CHECK_NE(qid, kLmidQid);
  source_->UnregisterQuery(qid);
  source_->RegisterQuery(qid, remote);
}

void Channel::Reregister(const std::vector<std::pair<int64_t, const RemoteQuery*>>& live) {
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [source_qid, remote] : live) qids.insert(source_qid);
  gate_.ExpectHellos(qids);  // an older registration's answers may still be in flight (gate.h)
  for (const auto& [source_qid, remote] : live) {
    RINDLE_CHECK(remote != nullptr);
    source_->UnregisterQuery(source_qid);
    source_->RegisterQuery(source_qid, *remote);
  }
  source_->UnregisterQuery(kLmidQid);
  RegisterLmidQuery();
  FenceResync(live);
}

void Channel::FenceResync(const std::vector<std::pair<int64_t, const RemoteQuery*>>& live) {
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [source_qid, remote] : live) qids.insert(source_qid);
  gate_.BeginFence(std::move(qids));
}

void Channel::Resend(const Ledger& ledger, const std::string& client_id,
                     const std::string& domain) {
  int64_t previous = 0;
  for (const PendingMutation* p : ledger.SentInMidOrder(domain)) {
    RINDLE_CHECK_GT(*p->mid, previous);  // mids are unique per domain: a re-send never repeats
    previous = *p->mid;
    source_->PushMutation(MutationEnvelope{client_id, *p->mid, p->name, p->args});
  }
}

absl::Status Channel::CheckHello(const std::vector<WireTable>& tables) const {
  // CRIT#4: a positional row must never be scattered through a skewed column order.
  for (const auto& t : tables) {
    auto it = schema_->find(t.name);
    if (it == schema_->end() || local_tables_->count(t.name) > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema skew: server advertises table \"", t.name, "\" not in the client schema"));
    }
    const TableSpec& spec = it->second;
    std::vector<std::string> ours;
    for (const auto& c : spec.columns) ours.push_back(c.name);
    if (!Subsequence(t.columns, ours) && !Subsequence(ours, t.columns)) {
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

void Channel::LearnLmidColumns(const std::vector<WireTable>& tables) {
  for (const auto& t : tables) {
    if (t.name != kClientMutationsTable) continue;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const std::string& c = t.columns[i];
      if (c == "client_id" || c == "clientID") lmid_col_client_ = static_cast<int>(i);
      if (c == "last_mutation_id" || c == "lastMutationID") lmid_col_lmid_ = static_cast<int>(i);
    }
  }
}

Channel::Action Channel::Admit(int64_t qid, const NormalizedEvent& ev, absl::Status* error,
                               SystemStreams* system) {
  RINDLE_CHECK(error != nullptr);
  if (ev.type == NormalizedEvent::Type::kHello) {
    // A new epoch: frames still buffered for this qid are from the superseded one.
    superseded_dropped_ += static_cast<int64_t>(gate_.OnHello(qid));
    if (qid == kLmidQid) {
      LearnLmidColumns(ev.tables);
      return Action::kNone;
    }
    const bool is_system = system != nullptr && system->Has(qid);
    if (absl::Status skew = is_system ? system->CheckHello(qid, ev.tables) : CheckHello(ev.tables);
        !skew.ok()) {
      // Refuse this epoch: its frames are dropped until a valid hello.
      ++schema_rejections_;
      rejected_.insert(qid);
      return Action::kResubscribe;
    }
    rejected_.erase(qid);
    if (!is_system) *error = sync_.SetProjection(qid, ev.tables);
    return Action::kNone;
  }
  // The refused epoch's data.
  if (qid != kLmidQid && rejected_.count(qid) > 0) return Action::kNone;
  if (gate_.OnData(qid, ev) != SourceGate::Admit::kOverflow) return Action::kNone;
  ++overflows_;
  return Action::kOverflow;
}

absl::Status Channel::Release(int64_t cv_min, Ledger* ledger,
                              absl::FunctionRef<void(int64_t)> on_snapshot,
                              SystemStreams* system) {
  const bool fenced = gate_.fenced();
  std::vector<BufferedFrame> ready = gate_.Release(cv_min);
  if (fenced && gate_.fenced()) return absl::OkStatus();  // held: nothing released
  // The lifecycle system frames fold FIRST — before this release's lmid and data frames and the
  // caller's confirm-drop (seed 002 computeRelease / foldSystemFrames).
  std::vector<const BufferedFrame*> system_frames;
  if (system != nullptr) {
    for (const auto& f : ready) {
      if (system->Has(f.qid)) system_frames.push_back(&f);
    }
  }
  if (!system_frames.empty()) {
    if (absl::Status s = system->Fold(system_frames); !s.ok()) return s;
  }
  for (const auto& f : ready) {
    if (system != nullptr && system->Has(f.qid)) {
      // No view and no sync rows; its snapshot still marks the sub hydrated (uniform bookkeeping).
      if (f.kind == NormalizedEvent::Type::kSnapshot) on_snapshot(f.qid);
      continue;
    }
    if (f.qid == kLmidQid) {
      if (absl::Status s = FoldLmidOps(f.ops, ledger); !s.ok()) return s;
      // A released lmid snapshot without our row says lmid 0 (a restored ledger that never saw
      // us): folded so a regression below the watermark is refused (ledger.h), not missed.
      const bool empty = std::none_of(f.ops.begin(), f.ops.end(),
                                      [](const RowOp& op) { return op.op != RowOp::Kind::kRemove; });
      if (f.kind == NormalizedEvent::Type::kSnapshot && empty) {
        if (absl::Status s = ledger->FoldStreamConfirm(key_, 0); !s.ok()) return s;
      }
      continue;
    }
    const bool snapshot = f.kind == NormalizedEvent::Type::kSnapshot;
    absl::Status s = snapshot ? sync_.Rehydrate(f.qid, f.ops) : sync_.ApplyBatch(f.qid, f.ops);
    if (!s.ok()) return s;
    if (snapshot) on_snapshot(f.qid);
  }
  RINDLE_CHECK_GE(gate_.applied_cv(), cv_min);  // the release raised the applied watermark
  return absl::OkStatus();
}

absl::Status Channel::FoldLmidOps(const std::vector<RowOp>& ops, Ledger* ledger) const {
  for (const auto& op : ops) {
    if (op.op == RowOp::Kind::kRemove) continue;  // a remove (client GC) confirms nothing
    const RowValues& row = op.row;
    const size_t lc = static_cast<size_t>(lmid_col_lmid_);
    const size_t cc = static_cast<size_t>(lmid_col_client_);
    if (row.size() <= lc) continue;
    if (cc < row.size() && row[cc].is_string() && row[cc].as_string() != client_id_) {
      continue;  // another client's ledger row confirms nothing of ours
    }
    const Value& v = row[lc];
    if (!v.is_number()) continue;
    const int64_t lmid = v.kind() == Value::Kind::kInt ? v.as_int()
                                                       : static_cast<int64_t>(v.as_double());
    if (absl::Status s = ledger->FoldStreamConfirm(key_, lmid); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Channel::Reset() {
  gate_.Reset();
  RINDLE_CHECK_EQ(gate_.buffered(), size_t{0});
  RINDLE_CHECK_EQ(gate_.applied_cv(), int64_t{0});
}

void Channel::Leave(int64_t qid) {
  RINDLE_CHECK_NE(qid, kLmidQid);
  source_->UnregisterQuery(qid);
  gate_.DropQuery(qid);
  rejected_.erase(qid);
}

std::vector<ServerDeltaOp> Channel::DropQuery(int64_t qid) {
  RINDLE_CHECK_NE(qid, kLmidQid);
  gate_.DropQuery(qid);
  rejected_.erase(qid);
  // GC: rows only this footprint referenced fall to refcount 0 → net removes (and rows it shared
  // narrow to the remaining queries' column union → edits).
  sync_.DropQuery(qid);
  return sync_.TakeDelta();
}

}  // namespace rindle
