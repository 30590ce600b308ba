#include "properties/optimistic_invariants.h"

#include <algorithm>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/source_key.h"
#include "base/str_util.h"

namespace rindle::props {

namespace {

std::string FoldName(const std::string& fold_key) {
  return fold_key.substr(0, fold_key.find('\0'));
}

std::string Printable(const std::string& fold_key) {
  std::string out = fold_key;
  std::replace(out.begin(), out.end(), '\0', '|');
  return out;
}

Schema WithoutLocal(const Schema& schema, const std::set<std::string>& local) {
  Schema out;
  for (const auto& [name, spec] : schema) {
    if (!local.contains(name)) out.emplace(name, spec);
  }
  return out;
}

// The highest lmid an lmid frame carries for `client` ([client_id, last_mutation_id] rows: the
// lmid query always ships full rows in schema order).
int64_t ConfirmedMid(const std::string& client, const std::vector<RowOp>& ops) {
  int64_t out = 0;
  for (const RowOp& op : ops) {
    if (op.op == RowOp::Kind::kRemove || op.row.size() < 2) continue;
    if (!op.row[0].is_string() || op.row[0].as_string() != client) continue;
    if (op.row[1].kind() == Value::Kind::kInt) out = std::max(out, op.row[1].as_int());
  }
  return out;
}

TapFrame DataTap(const std::string& client, int64_t qid, const NormalizedEvent& ev) {
  TapFrame f;
  f.kind = TapFrame::Kind::kData;
  f.qid = qid;
  f.cv = ev.cv;
  f.snapshot = ev.type == NormalizedEvent::Type::kSnapshot;
  f.hello = ev.type == NormalizedEvent::Type::kHello;
  for (const RowOp& op : ev.ops) f.tables.insert(op.table);
  if (qid == kLmidQid) f.confirms = ConfirmedMid(client, ev.ops);
  return f;
}

bool SameViews(const std::map<int64_t, ViewInfo>& a, const std::map<int64_t, ViewInfo>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.remote_key != ib->second.remote_key ||
        ia->second.tables != ib->second.tables) {
      return false;
    }
  }
  return true;
}

}  // namespace

OptimisticInvariants::OptimisticInvariants(size_t buffer_cap, Schema schema,
                                           std::set<std::string> local_tables,
                                           const std::map<std::string, Mutator>* mutators)
    : buffer_cap_(buffer_cap),
      schema_(std::move(schema)),
      local_tables_(std::move(local_tables)),
      app_schema_(WithoutLocal(schema_, local_tables_)),
      mutators_(mutators) {
  RINDLE_CHECK(mutators_ != nullptr);
}

void OptimisticInvariants::BeginFence(Client& c, bool reregistered) {
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [key, sub] : c.subs.subs()) {
    // A sub a retarget moved onto a room is that channel's (optimistic_invariants_rooms.cc).
    if (!c.sub_room.contains(sub.source_qid)) qids.insert(sub.source_qid);
  }
  if (reregistered) {  // an overflow's re-registration: one hello owed per qid (gate_model.h)
    c.model.ExpectHellos(qids);
    c.gate.ExpectHellos(qids);
  }
  c.resync_since_fence = false;
  c.model.BeginFence(qids);  // the client model's own gate fences alike
  c.gate.BeginFence(std::move(qids));
}

void OptimisticInvariants::BeginStep() {
  for (auto& [id, c] : clients_) c.step = StepRecord{};
}

void OptimisticInvariants::Attach(const std::string& client, OptimisticBackend* backend,
                                  bool observe_sends) {
  Client& c = At(client);
  c.backend = backend;
  c.observe_sends = observe_sends;
  Client* cp = &c;  // std::map nodes are stable
  backend->SetResultTypeObserver(
      [cp](int64_t qid, ResultType t) { cp->rt_calls.emplace_back(qid, t); });
  backend->SetPendingObserver([cp](int64_t qid, bool p) { cp->pending_calls.emplace_back(qid, p); });
  backend->SetReplayObserver([cp, backend](const PendingMutation& p, bool ok) {
    cp->replays.push_back(Client::Replay{backend->reconcile_cycles(), p, ok});
  });
  if (observe_sends) {
    backend->SetSendObserver([cp](const MutationEnvelope& e) { cp->sends.push_back(e); });
  }
}

bool OptimisticInvariants::HelloIsSkewed(const std::vector<WireTable>& tables) const {
  // Independent of the backend's own check: a positional row is only safe to scatter by name
  // when the server's columns keep our order (projection or expansion) and carry the pk.
  auto in_order = [](const std::vector<std::string>& sub, const std::vector<std::string>& sup) {
    auto it = sup.begin();
    for (const auto& c : sub) {
      it = std::find(it, sup.end(), c);
      if (it == sup.end()) return false;
      ++it;
    }
    return true;
  };
  for (const WireTable& t : tables) {
    auto spec = schema_.find(t.name);
    if (spec == schema_.end() || local_tables_.contains(t.name)) return true;
    std::vector<std::string> ours;
    for (const auto& col : spec->second.columns) ours.push_back(col.name);
    if (!in_order(t.columns, ours) && !in_order(ours, t.columns)) return true;
    for (int pk : spec->second.primary_key) {
      if (std::find(t.columns.begin(), t.columns.end(), ours[static_cast<size_t>(pk)]) ==
          t.columns.end()) {
        return true;
      }
    }
  }
  return false;
}

void OptimisticInvariants::OnWelcome(const std::string& client, int64_t boot_id) {
  Client& c = At(client);
  c.step.delivered.push_back(TapFrame{TapFrame::Kind::kWelcome, 0, boot_id, false, false, {}, 0});
  if (c.backend == nullptr) return;
  if (c.last_boot != 0 && boot_id != c.last_boot) {
    // OnRestart: the gate resets (buffer and appliedCv).
    c.gate.Reset();
    c.tables_of.clear();
  }
  // OnResync: a new session; the frames buffered from the dead one are dropped (gate_model.h).
  c.gate.DropAll();
  c.system_ops.clear();
  c.last_boot = boot_id;
  c.model.Welcome(boot_id);
  c.resync_since_fence = true;
}

void OptimisticInvariants::OnData(const std::string& client, int64_t qid,
                                  const NormalizedEvent& ev, int64_t epoch, bool copy) {
  Client& c = At(client);
  c.step.delivered.push_back(DataTap(client, qid, ev));
  c.step.delivered.back().copy = copy;
  if (c.backend == nullptr || !c.backend->health().ok()) return;
  if (qid != kLmidQid && !c.subs.KeyOfSource(qid)) return;  // no live sub: ignored
  // A sub a retarget moved onto a room: the daemon's frames for it are the client's grace frames
  // (or its wiring failure, which client-health reports), never its gate's.
  if (c.sub_room.contains(qid)) return;
  if (ev.type == NormalizedEvent::Type::kHello) {
    // The resync fence (gate_model.h): a new session's first lmid hello is a (re)connect's, which
    // re-registered every live sub and the lmid query. It fences afresh even while the previous
    // session's fence waits (its snapshots are superseded; the frames after them died with the
    // old link). Any other lmid hello answers an overflow's re-registration, which fenced when it
    // overflowed (seed 1921: it may land after that fence released).
    if (qid == kLmidQid && c.resync_since_fence) BeginFence(c);
    c.superseded += static_cast<int64_t>(c.gate.Drop(qid));
    std::erase_if(c.system_ops, [&](const auto& e) { return e.first.first == qid; });
    c.model.Hello(qid, ev.tables);
    c.epoch[qid] = epoch;
    const auto sys = c.system_tables.find(qid);
    if (sys != c.system_tables.end()) {
      c.system_columns[qid] = ev.tables.empty() ? std::vector<std::string>{} : ev.tables[0].columns;
    }
    if (qid != kLmidQid && (sys != c.system_tables.end()
                                ? SystemHelloIsSkewed(sys->second, ev.tables)
                                : HelloIsSkewed(ev.tables))) {
      ++c.rejections;
      c.refused.insert(qid);
    } else {
      c.refused.erase(qid);
    }
    return;
  }
  if (c.refused.contains(qid)) return;  // the refused epoch's data
  // Stale batches are dropped; an overflow clears the buffer (the client re-subscribes).
  c.model.Data(qid, ev);
  const TapFrame& tapped = c.step.delivered.back();
  switch (c.gate.Push({qid, ev.cv, ev.type == NormalizedEvent::Type::kSnapshot, epoch,
                       tapped.confirms})) {
    case GateModel::Arrival::kBuffered:
      c.tables_of[{qid, ev.cv}].insert(tapped.tables.begin(), tapped.tables.end());
      NoteSystemData(c, qid, ev);
      break;
    case GateModel::Arrival::kOverflow:  // the client re-registers everything: a fence
      c.tables_of.clear();
      c.system_ops.clear();
      BeginFence(c, /*reregistered=*/true);
      break;
    case GateModel::Arrival::kStale:
      break;
  }
}

void OptimisticInvariants::OnProgress(const std::string& client, int64_t cv_min) {
  Client& c = At(client);
  c.step.delivered.push_back(TapFrame{TapFrame::Kind::kProgress, 0, cv_min, false, false, {}, 0});
  if (c.backend == nullptr || !c.backend->health().ok()) return;
  c.model.Progress(cv_min);
  for (const GateModel::Frame& f : c.gate.Release(cv_min)) {
    ++frames_released_;
    TapFrame r{TapFrame::Kind::kData, f.qid, f.cv, f.snapshot, false, {}, f.tag};
    if (auto t = c.tables_of.find({f.qid, f.cv}); t != c.tables_of.end()) {
      r.tables = std::move(t->second);
      c.tables_of.erase(t);
    }
    c.step.released.push_back(std::move(r));
    NoteSystemRelease(c, f.qid, f.cv);
    const int64_t current = c.epoch.contains(f.qid) ? c.epoch.at(f.qid) : 0;
    if (f.epoch != current) {
      Defer(c, {"superseded-epoch",
                StrCat(client, ": qid ", f.qid, " released a frame (cv ", f.cv, ") of epoch ",
                       f.epoch, " after the epoch-", current, " hello")});
    }
    if (f.snapshot && f.qid != kLmidQid) c.subs.Hydrate(f.qid);
  }
  FlushCutover(c, std::string(kDaemonSource));
}

void OptimisticInvariants::OnSystemRetain(const std::string& client, int64_t qid,
                                          const std::string& remote_key,
                                          const std::string& table) {
  Client& c = At(client);
  if (c.subs.retained(qid)) return;
  // A fresh key's first retain is its source qid (subscription_model.h), as for a view's sub.
  if (c.subs.Retain(remote_key, qid)) c.system_tables[qid] = table;
}

void OptimisticInvariants::OnSystemRelease(const std::string& client, int64_t qid) {
  Client& c = At(client);
  if (!c.subs.retained(qid)) return;
  if (const std::optional<int64_t> src = c.subs.Release(qid)) {
    c.gate.Forget(*src);
    c.model.DropSource(*src);
    c.epoch.erase(*src);
    c.system_tables.erase(*src);
    c.system_columns.erase(*src);
    std::erase_if(c.system_ops, [&](const auto& e) { return e.first.first == *src; });
  }
}

bool OptimisticInvariants::SystemHelloIsSkewed(const std::string& table,
                                               const std::vector<WireTable>& tables) {
  const LifecycleTableSpec* spec = nullptr;
  for (const LifecycleTableSpec& t : LifecycleTables()) {
    if (t.name == table) spec = &t;
  }
  if (spec == nullptr) return true;
  auto in_order = [](const auto& sub, const auto& sup) {
    auto it = sup.begin();
    for (const auto& col : sub) {
      it = std::find_if(it, sup.end(), [&](const auto& x) { return x == col; });
      if (it == sup.end()) return false;
      ++it;
    }
    return true;
  };
  for (const WireTable& t : tables) {
    if (t.name != table) return true;
    if (!in_order(t.columns, spec->columns) && !in_order(spec->columns, t.columns)) return true;
    for (int pk : spec->primary_key) {
      const std::string_view col = spec->columns[static_cast<size_t>(pk)];
      if (std::find(t.columns.begin(), t.columns.end(), col) == t.columns.end()) return true;
    }
  }
  return false;
}

void OptimisticInvariants::NoteSystemData(Client& c, int64_t qid, const NormalizedEvent& ev) {
  if (!c.system_tables.contains(qid)) return;
  std::vector<RowOp>& ops = c.system_ops[{qid, ev.cv}];
  ops.insert(ops.end(), ev.ops.begin(), ev.ops.end());
}

void OptimisticInvariants::NoteSystemRelease(Client& c, int64_t qid, int64_t cv) {
  auto it = c.system_ops.find({qid, cv});
  if (it == c.system_ops.end()) return;
  const std::string& table = c.system_tables.at(qid);
  const std::vector<std::string>& columns = c.system_columns[qid];
  for (const RowOp& op : it->second) {
    c.system_released.push_back(SystemRow{table, op.op, columns, op.row});
  }
  c.system_ops.erase(it);
}

void OptimisticInvariants::OnInvokeFolded(const std::string& client, const std::string& fold_key,
                                          const nlohmann::json& args) {
  Client& c = At(client);
  c.windows[fold_key] = args;
  c.model.FoldInvoked(fold_key, args);
}

void OptimisticInvariants::OnInvoke(const std::string& client, int64_t mid) {
  At(client).model.Invoked(mid);
}

void OptimisticInvariants::OnRoomOutcome(const std::string& client,
                                         const MutationOutcomeFrame& frame) {
  // A rejection changes nothing the user sees (outcomes.h step 3); only a deopt may re-invoke.
  if (frame.kind != MutationOutcomeFrame::Kind::kDeopt) return;
  if (frame.args.is_object() && frame.args.contains("id") && frame.args["id"].is_string()) {
    At(client).step.room_outcome_ids.insert(frame.args["id"].get<std::string>());
  }
}

const ClientModel* OptimisticInvariants::Model(const std::string& client,
                                               const std::map<int64_t, ViewInfo>& views,
                                               const std::map<int64_t, MutationEnvelope>& sent,
                                               absl::Status* error) {
  RINDLE_CHECK(error != nullptr);
  Client& c = At(client);
  if (c.backend == nullptr || !c.backend->health().ok()) return nullptr;
  SyncViews(c, views);
  for (auto it = sent.upper_bound(c.model.last_sent_mid()); it != sent.end(); ++it) {
    c.model.Sent(it->second);
  }
  *error = c.model.Refresh(*mutators_);
  return error->ok() ? &c.model : nullptr;
}

void OptimisticInvariants::SyncViews(Client& c, const std::map<int64_t, ViewInfo>& views) {
  // The same views as last time: every release and retain below would be a no-op (only this
  // function retains and releases shadow subs), so skip building the key maps.
  if (SameViews(c.views, views)) return;
  std::map<std::string, std::vector<int64_t>> old_by_key, new_by_key;
  for (const auto& [qid, v] : c.views) {
    if (v.remote_key) old_by_key[*v.remote_key].push_back(qid);
  }
  for (const auto& [qid, v] : views) {
    if (v.remote_key) new_by_key[*v.remote_key].push_back(qid);
  }
  std::set<std::string> keys;
  for (const auto& [k, q] : old_by_key) keys.insert(k);
  for (const auto& [k, q] : new_by_key) keys.insert(k);
  for (const std::string& key : keys) {
    // Releases first: the key's sub survives while one of its old views does.
    if (auto o = old_by_key.find(key); o != old_by_key.end()) {
      for (int64_t q : o->second) {
        if (views.contains(q)) continue;
        // The key's last view is gone: its sub was unregistered, its buffered frames dropped.
        if (const std::optional<int64_t> src = c.subs.Release(q)) {
          c.gate.Forget(*src);
          c.model.DropSource(*src);
          c.epoch.erase(*src);
          ForgetRoomSub(c, *src);
        }
      }
    }
    // Then the new views, in qid order: a fresh sub's source qid is the least of them.
    if (auto n = new_by_key.find(key); n != new_by_key.end()) {
      for (int64_t q : n->second) {
        if (c.subs.retained(q)) continue;
        c.subs.Retain(key, q);
        // A late joiner of a sub hydrated on a room swaps onto its twins at retain (302 §4.1).
        const SubscriptionModel::Sub* sub = c.subs.Find(key);
        auto room = c.sub_room.find(sub->source_qid);
        if (room != c.sub_room.end() && sub->hydrated) c.swapped[q] = room->second;
      }
    }
  }
  std::erase_if(c.swapped, [&](const auto& e) { return !views.contains(e.first); });
  c.views = views;
}

MaybeViolation OptimisticInvariants::Check(const std::string& client,
                                           const OptimisticBackend& b,
                                           const std::map<int64_t, ViewInfo>& views,
                                           const std::map<int64_t, MutationEnvelope>& sent) {
  Client& c = At(client);
  if (c.deferred) return c.deferred;
  if (!b.health().ok()) return std::nullopt;  // client-health reports it
  const Inspect insp = b.inspect();
  if (auto v = CheckGate(c, client, b, insp, views)) return v;
  if (auto v = CheckObserverCalls(c, client, views)) return v;
  if (auto v = CheckViewAxes(c, client, b, insp, views, sent)) return v;
  if (auto v = CheckFoldWire(c, client, b, sent)) return v;
  return CheckReplayOrder(c, client);
}

// Gate model / superseded epochs (before the view sync: frames arrived under the old set).
MaybeViolation OptimisticInvariants::CheckGate(Client& c, const std::string& client,
                                               const OptimisticBackend& b, const Inspect& insp,
                                               const std::map<int64_t, ViewInfo>& views) {
  if (b.schema_rejections() != c.rejections) {
    return Violation{"gate-model", StrCat(client, ": the backend rejected ", b.schema_rejections(),
                                          " hello(s); the shadow judged ", c.rejections,
                                          " skewed (CRIT#4)")};
  }
  if (b.superseded_frames_dropped() != c.superseded) {
    return Violation{"superseded-epoch",
                     StrCat(client, ": the backend dropped ", b.superseded_frames_dropped(),
                            " superseded frame(s) at hellos; the shadow gate dropped ",
                            c.superseded)};
  }
  SyncViews(c, views);
  if (insp.buffered_frames != c.gate.buffered()) {
    return Violation{"gate-model", StrCat(client, ": the backend buffers ", insp.buffered_frames,
                                          " frame(s); the shadow gate ", c.gate.buffered())};
  }
  return std::nullopt;
}

// Observers → shadows (transitions only).
MaybeViolation OptimisticInvariants::CheckObserverCalls(Client& c, const std::string& client,
                                                        const std::map<int64_t, ViewInfo>& views) {
  for (const auto& [qid, t] : c.rt_calls) {
    auto it = c.rt_shadow.find(qid);
    if (it != c.rt_shadow.end() && it->second == t) {
      return Violation{"result-type", StrCat(client, " view ", qid, ": the observer fired ",
                                             ResultTypeName(t), " without a transition")};
    }
    c.rt_shadow[qid] = t;
  }
  for (const auto& [qid, p] : c.pending_calls) {
    auto it = c.pending_shadow.find(qid);
    if (it != c.pending_shadow.end() && it->second == p) {
      return Violation{"pending-axis", StrCat(client, " view ", qid, ": the observer fired ",
                                              p ? "pending" : "not pending",
                                              " without a transition")};
    }
    c.pending_shadow[qid] = p;
  }
  c.rt_calls.clear();
  c.pending_calls.clear();
  std::erase_if(c.rt_shadow, [&](const auto& e) { return !views.contains(e.first); });
  std::erase_if(c.pending_shadow, [&](const auto& e) { return !views.contains(e.first); });
  return std::nullopt;
}

// Pending axis and result type of every live view, by definition and against the shadows. The
// pending definition comes from the client model (the harness's record replayed), never from the
// backend's own pending list; the backend's count is checked against it.
MaybeViolation OptimisticInvariants::CheckViewAxes(Client& c, const std::string& client,
                                                   const OptimisticBackend& b, const Inspect& insp,
                                                   const std::map<int64_t, ViewInfo>& views,
                                                   const std::map<int64_t, MutationEnvelope>& sent) {
  absl::Status error;
  const ClientModel* model = Model(client, views, sent, &error);
  if (!error.ok()) return Violation{"pending-axis", std::string(error.message())};
  if (model == nullptr) return std::nullopt;
  const std::vector<const ClientModel::Entry*> expected = model->Pending();
  std::set<std::string> touched;
  nlohmann::json names = nlohmann::json::array();
  for (const ClientModel::Entry* e : expected) {
    touched.insert(e->tables.begin(), e->tables.end());
    names.push_back(e->mid ? StrCat(e->name, "#", *e->mid) : StrCat(e->name, " (open fold)"));
  }
  if (insp.pending.size() != expected.size()) {
    nlohmann::json got = nlohmann::json::array();
    for (const PendingInspect& p : insp.pending) got.push_back(p.key);
    return Violation{"pending-axis",
                     StrCat(client, ": the backend holds ", insp.pending.size(),
                            " pending entr(ies) ", got.dump(), "; the harness's record expects ",
                            expected.size(), " ", names.dump(), " (released lmid ",
                            model->released_lmid(), ")")};
  }
  for (const auto& [qid, v] : views) {
    // pending axis
    bool def = false;
    for (const std::string& t : v.tables) def = def || touched.contains(t);
    if (b.IsPending(qid) != def) {
      return Violation{"pending-axis",
                       StrCat(client, " view ", qid, ": IsPending is ", b.IsPending(qid) ? 1 : 0,
                              ", by the harness's record (expected pending ", names.dump(),
                              " touching ", nlohmann::json(touched).dump(), ") it is ",
                              def ? 1 : 0)};
    }
    auto ps = c.pending_shadow.try_emplace(qid, def).first;
    if (ps->second != def) {
      return Violation{"pending-axis", StrCat(client, " view ", qid, ": is ",
                                              def ? "pending" : "not pending",
                                              " but the observer last said otherwise")};
    }
    // result type
    ResultType want = ResultType::kComplete;
    if (v.remote_key) {
      // The view's own hydration: a retarget re-arms its sub, not the views it already fed.
      want = c.subs.RetainHydrated(qid) ? ResultType::kComplete : ResultType::kUnknown;
    }
    if (b.GetResultType(qid) != want) {
      return Violation{"result-type",
                       StrCat(client, " view ", qid, ": GetResultType is ",
                              ResultTypeName(b.GetResultType(qid)), ", by definition ",
                              ResultTypeName(want),
                              v.remote_key ? " (remote view; hydration from the shadow gate)"
                                           : " (local-only view)")};
    }
    auto rs = c.rt_shadow
                  .try_emplace(qid, v.remote_key ? ResultType::kUnknown : ResultType::kComplete)
                  .first;
    if (rs->second != want) {
      return Violation{"result-type", StrCat(client, " view ", qid, ": is ", ResultTypeName(want),
                                             " but the observer last said ",
                                             ResultTypeName(rs->second))};
    }
  }
  return std::nullopt;
}

// Fold-wire: first-time envelopes gapless in send order; closed windows ship last args.
MaybeViolation OptimisticInvariants::CheckFoldWire(
    Client& c, const std::string& client, const OptimisticBackend& b,
    const std::map<int64_t, MutationEnvelope>& sent) {
  std::vector<MutationEnvelope> fresh;
  if (c.observe_sends) {
    fresh = std::move(c.sends);
    c.sends.clear();
  } else {
    for (auto it = sent.upper_bound(c.last_mid); it != sent.end(); ++it) fresh.push_back(it->second);
  }
  for (const MutationEnvelope& e : fresh) {
    if (e.mid != c.last_mid + 1) {
      return Violation{"fold-wire", StrCat(client, ": first-time envelope mid ", e.mid, " (",
                                           e.name, ") after mid ", c.last_mid)};
    }
    c.last_mid = e.mid;
  }
  const std::vector<std::string> open = b.OpenFolds();
  for (auto it = c.windows.begin(); it != c.windows.end();) {
    if (std::find(open.begin(), open.end(), it->first) != open.end()) {
      ++it;
      continue;
    }
    bool shipped = false;
    nlohmann::json seen = nlohmann::json::array();
    for (const MutationEnvelope& e : fresh) {
      if (e.name != FoldName(it->first)) continue;
      seen.push_back(e.ToJson());
      shipped = shipped || e.args == it->second;
    }
    if (!shipped) {
      return Violation{"fold-wire", StrCat(client, ": fold ", Printable(it->first),
                                           " closed without shipping its last args ",
                                           it->second.dump(), "; sent this step: ", seen.dump())};
    }
    it = c.windows.erase(it);
  }
  return std::nullopt;
}

// Replay order: within one reconcile cycle, dealt seqs ascending, then unflushed folds in
// creation order.
MaybeViolation OptimisticInvariants::CheckReplayOrder(Client& c, const std::string& client) {
  int64_t cycle = -1;
  int64_t last_seq = 0;
  bool any_seq = false;
  bool any_unflushed = false;
  uint64_t last_unflushed = 0;
  for (const auto& r : c.replays) {
    const PendingMutation& p = r.entry;
    if (r.cycle != cycle) {
      cycle = r.cycle;
      any_seq = false;
      any_unflushed = false;
    }
    if (p.seq) {
      if (any_unflushed) {
        return Violation{"replay-order", StrCat(client, ": re-invoked ", p.name, " (seq ", *p.seq,
                                                ") after an unflushed fold")};
      }
      if (any_seq && *p.seq <= last_seq) {
        return Violation{"replay-order", StrCat(client, ": re-invoked seq ", *p.seq,
                                                " after seq ", last_seq)};
      }
      any_seq = true;
      last_seq = *p.seq;
    } else {
      if (any_unflushed && p.id < last_unflushed) {
        return Violation{"replay-order", StrCat(client, ": unflushed folds re-invoked out of "
                                                        "creation order (entry ",
                                                p.id, " after ", last_unflushed, ")")};
      }
      any_unflushed = true;
      last_unflushed = p.id;
    }
  }
  c.replays.clear();
  return std::nullopt;
}

}  // namespace rindle::props
