// state_sut.h — the system under test (StateSource + the backend) and the CHECK after every command (CheckAll: every view, head/sync, pending, inspect, axes, registrations, envelopes against the model).
// Test-only (optimistic/backend_state_test.cc, the rc::state machine of OptimisticBackend); split
// out of that test so each part reads on its own. Header-only; one TU includes it.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>
#include "absl/strings/str_cat.h"
#include "engine/change.h"
#include "optimistic/backend.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/fold_clock.h"
#include "optimistic/source.h"
#include "oracles/fresh_query.h"
#include "oracles/gate_model.h"
#include "oracles/plain_store.h"
#include "oracles/subscription_model.h"
#include "optimistic/testing/state_model.h"

namespace rindle::backend_state {

using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The system under test

class StateSource : public OptimisticSource {
 public:
  void RegisterQuery(int64_t qid, const RemoteQuery& q) override {
    registered[qid] = q;
    ++registrations[qid];
  }
  void UnregisterQuery(int64_t qid) override { registered.erase(qid); }
  void PushMutation(const MutationEnvelope& e) override { pushed.push_back(e); }
  void OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> h) override {
    on_normalized_ = std::move(h);
  }
  void OnProgress(std::function<void(const ProgressFrame&)> h) override {
    on_progress_ = std::move(h);
  }
  void OnRestart(std::function<void()> h) override { on_restart_ = std::move(h); }
  void OnResync(std::function<void()> h) override { on_resync_ = std::move(h); }

  void Deliver(const Action& a) {
    if (a.restart) {
      on_restart_();
    } else {
      on_normalized_(a.qid, a.ev);
    }
  }
  void Progress(int64_t cv_min) { on_progress_(ProgressFrame{cv_min}); }
  void Resync() { on_resync_(); }

  std::map<int64_t, RemoteQuery> registered;
  std::map<int64_t, int> registrations;
  std::vector<MutationEnvelope> pushed;

 private:
  std::function<void(int64_t, const NormalizedEvent&)> on_normalized_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_;
  std::function<void()> on_resync_;
};

struct Sut {
  ManualFoldClock clock;
  StateSource source;
  std::unique_ptr<OptimisticBackend> backend;
  std::map<int64_t, ResultType> rt_seen;
  std::map<int64_t, bool> pending_seen;
  std::vector<std::string> observer_errors;
  std::set<int64_t> catch_ups;  // views that got a catch_up batch (cleared per release command)

  Sut() {
    OptimisticOptions o;
    o.client_id = kClient;
    o.schema = StateSchema();
    o.local_tables = LocalTables();
    o.mutators = StateMutators();
    o.buffer_cap = kCap;
    o.clock = &clock;
    backend = std::make_unique<OptimisticBackend>(std::move(o), &source);
    Setup(backend->RegisterQuery(kIssueQid, IssueAst(), RemoteQuery{"issues", json::object()}));
    Setup(backend->RegisterQuery(kCounterQid, CounterAst()));
    Setup(backend->RetainRemoteQuery(kFirstCounterRetain, RemoteQuery{"counters", json::object()},
                                     kCounterQid));
    Setup(backend->RegisterQuery(kDraftQid, DraftAst()));
    for (const auto& [qid, v] : Views()) {
      rt_seen[qid] = backend->GetResultType(qid);
      pending_seen[qid] = backend->IsPending(qid);
    }
    backend->SetResultTypeObserver([this](int64_t qid, ResultType t) {
      if (rt_seen.count(qid) > 0 && rt_seen[qid] == t && t != ResultType::kComplete) {
        observer_errors.push_back(absl::StrCat("result-type observer repeated ",
                                               std::string(ResultTypeName(t)), " for qid ", qid));
      }
      rt_seen[qid] = t;
    });
    backend->SetBatchObserver([this](const QueryBatch& batch, bool catch_up) {
      if (catch_up) catch_ups.insert(batch.query_id);
    });
    backend->SetPendingObserver([this](int64_t qid, bool p) {
      if (pending_seen.count(qid) > 0 && pending_seen[qid] == p) {
        observer_errors.push_back(
            absl::StrCat("pending observer repeated ", p ? "true" : "false", " for qid ", qid));
      }
      pending_seen[qid] = p;
    });
  }
  ~Sut() { backend.reset(); }
  void Setup(const absl::Status& s) {
    if (!s.ok()) observer_errors.push_back(absl::StrCat("setup: ", s.ToString()));
  }
};

// ---------------------------------------------------------------------------------------------
// The check

inline std::string RowsDump(const std::vector<RowValues>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(RowToJson(r).dump());
  std::sort(out.begin(), out.end());
  return json(out).dump();
}
inline std::string RowsDump(const PlainTable& t) {
  std::vector<RowValues> rows;
  for (const auto& [pk, r] : t) rows.push_back(r);
  return RowsDump(rows);
}
inline std::string TreeDump(const std::vector<TreeNode>& nodes) {
  json out = json::array();
  for (const auto& n : nodes) out.push_back(TreeNodeToJson(n));
  return out.dump();
}
inline std::string OptDump(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("null");
}
inline std::string ModelPendingDump(const Model& m) {
  json out = json::array();
  for (const auto& e : m.pending) {
    out.push_back({e.name, e.args, OptDump(e.mid), OptDump(e.seq)});
  }
  return out.dump();
}
inline std::string SutPendingDump(const OptimisticBackend& b) {
  json out = json::array();
  for (const auto& e : b.pending()) {
    out.push_back({e.name, e.args, OptDump(e.mid), OptDump(e.seq)});
  }
  return out.dump();
}
inline std::string EnvDump(const std::vector<MutationEnvelope>& v) {
  json out = json::array();
  for (const auto& e : v) out.push_back(e.ToJson());
  return out.dump();
}

#define STATE_EXPECT_EQ(a, b, what)                                                        \
  do {                                                                                     \
    const auto& va_ = (a);                                                                 \
    const auto& vb_ = (b);                                                                 \
    if (!(va_ == vb_)) {                                                                   \
      std::ostringstream os_;                                                              \
      os_ << what << ":\n  backend: " << ::testing::PrintToString(va_)                     \
          << "\n  model:   " << ::testing::PrintToString(vb_);                             \
      RC_FAIL(os_.str());                                                                  \
    }                                                                                      \
  } while (0)

inline bool ExpectedPending(const Model& m, const std::string& table) {
  for (const auto& e : m.pending) {
    if (e.touched.count(table) > 0) return true;
  }
  return false;
}

inline ResultType ExpectedResultType(const Model& m, int64_t qid) {
  if (qid == kDraftQid) return ResultType::kComplete;
  const SubscriptionModel::Sub* sub = m.subs.Find(qid == kIssueQid ? "issue" : "counter");
  if (sub == nullptr) return ResultType::kComplete;  // detached split view: local data
  return sub->hydrated ? ResultType::kComplete : ResultType::kUnknown;
}

inline void CheckAll(const Model& m, Sut& sut) {
  const OptimisticBackend& b = *sut.backend;
  if (!b.health().ok()) RC_FAIL("backend unhealthy: " + b.health().ToString());
  if (!sut.observer_errors.empty()) RC_FAIL(sut.observer_errors.front());

  // Pending list, in creation order.
  STATE_EXPECT_EQ(SutPendingDump(b), ModelPendingDump(m), "pending (name, args, mid, seq)");

  // Views == fresh over (released ⊕ pending, local rows).
  PlainStore head = Head(m);
  PlainTables tables = head.tables();
  tables["draft"] = m.draft;
  for (const auto& [qid, v] : Views()) {
    const ResultView* view = b.View(qid);
    if (view == nullptr) RC_FAIL(absl::StrCat("view ", qid, " missing"));
    auto fresh = FreshQuery(v.first, tables, TheSchema());
    if (!fresh.ok()) RC_FAIL("fresh: " + fresh.status().ToString());
    STATE_EXPECT_EQ(TreeDump(view->Tree()), TreeDump(*fresh), absl::StrCat("view ", qid));
  }
  for (const auto& t : SyncedTables()) {
    auto rows = b.engine().TableRows(t);
    auto sync = b.engine().SyncRows(t);
    if (!rows.ok() || !sync.ok()) RC_FAIL("engine rows unavailable for " + t);
    STATE_EXPECT_EQ(RowsDump(*rows), RowsDump(tables.at(t)), "head rows of " + t);
    STATE_EXPECT_EQ(RowsDump(*sync), RowsDump(m.synced.at(t)), "sync rows of " + t);
  }

  // Folds.
  std::vector<std::string> open;
  for (const auto& w : m.folds) open.push_back(w.key);
  STATE_EXPECT_EQ(b.OpenFolds(), open, "open folds");

  // inspect().
  const Inspect in = b.inspect();
  STATE_EXPECT_EQ(in.confirmed_lmid, m.watermark, "confirmedLmid");
  STATE_EXPECT_EQ(in.next_mid, m.next_mid, "nextMid");
  STATE_EXPECT_EQ(in.applied_cv, m.gate.applied_cv(), "appliedCv");
  STATE_EXPECT_EQ(in.buffered_frames, m.gate.buffered(), "bufferedFrames");
  STATE_EXPECT_EQ(in.pending.size(), m.pending.size(), "inspect pending size");
  std::set<std::string> tables_touched;
  for (const auto& e : m.pending) tables_touched.insert(e.touched.begin(), e.touched.end());
  STATE_EXPECT_EQ(in.pending_tables,
                  std::vector<std::string>(tables_touched.begin(), tables_touched.end()),
                  "pendingTables");
  for (size_t i = 0; i < in.pending.size() && i < m.pending.size(); ++i) {
    const Entry& e = m.pending[i];
    const PendingInspect& p = in.pending[i];
    std::string key = e.mid ? absl::StrCat("m:", *e.mid) : std::string("?");
    for (const auto& w : m.folds) {
      if (w.entry_id == e.id) {
        key = "f:" + w.key;
        if (!p.fold || p.fold->fold_key != w.key || p.fold->flushed ||
            p.fold->debounce_ms != w.debounce || p.fold->max_wait_ms != w.max_wait) {
          RC_FAIL(absl::StrCat("inspect pending[", i, "] lacks its open fold: ", p.ToJson().dump()));
        }
      }
    }
    STATE_EXPECT_EQ(p.key, key, absl::StrCat("inspect pending[", i, "].key"));
    STATE_EXPECT_EQ(p.mid, e.mid, absl::StrCat("inspect pending[", i, "].mid"));
    std::vector<std::string> touched(e.touched.begin(), e.touched.end());
    std::vector<std::string> got = p.tables;
    std::sort(got.begin(), got.end());
    STATE_EXPECT_EQ(got, touched, absl::StrCat("inspect pending[", i, "].tables"));
  }
  std::vector<std::pair<int64_t, int64_t>> by_seq;
  for (const auto& p : b.pending()) {
    if (p.mid.has_value() != p.seq.has_value()) RC_FAIL("mid/seq set apart");
    if (p.mid && *p.mid <= in.confirmed_lmid) RC_FAIL("a pending mid ≤ confirmedLmid");
    if (p.mid) by_seq.emplace_back(*p.seq, *p.mid);
  }
  std::sort(by_seq.begin(), by_seq.end());
  for (size_t i = 1; i < by_seq.size(); ++i) {
    if (by_seq[i].first == by_seq[i - 1].first || by_seq[i].second <= by_seq[i - 1].second) {
      RC_FAIL("seq order ≠ mid order among pending entries");
    }
  }

  // The two axes and their observers.
  for (const auto& [qid, v] : Views()) {
    STATE_EXPECT_EQ(b.IsPending(qid), ExpectedPending(m, v.second),
                    absl::StrCat("IsPending(", qid, ")"));
    STATE_EXPECT_EQ(ResultTypeName(b.GetResultType(qid)),
                    ResultTypeName(ExpectedResultType(m, qid)),
                    absl::StrCat("GetResultType(", qid, ")"));
    STATE_EXPECT_EQ(sut.pending_seen.at(qid), b.IsPending(qid),
                    absl::StrCat("last pending notification for ", qid));
    STATE_EXPECT_EQ(ResultTypeName(sut.rt_seen.at(qid)), ResultTypeName(b.GetResultType(qid)),
                    absl::StrCat("last result-type notification for ", qid));
  }

  // The wire: registrations, pushes (first sends gapless from 1), counters.
  std::vector<int64_t> reg, want_reg;
  for (const auto& [qid, q] : sut.source.registered) reg.push_back(qid);
  for (const auto& [qid, l] : m.links) want_reg.push_back(qid);
  STATE_EXPECT_EQ(reg, want_reg, "registered qids");
  STATE_EXPECT_EQ(sut.source.registrations, m.registrations, "RegisterQuery calls per qid");
  STATE_EXPECT_EQ(EnvDump(sut.source.pushed), EnvDump(m.pushed), "pushed envelopes");
  int64_t max_first = 0;
  for (const auto& e : sut.source.pushed) {
    if (e.mid > max_first + 1) RC_FAIL(absl::StrCat("mid ", e.mid, " pushed before ", max_first + 1));
    max_first = std::max(max_first, e.mid);
  }
  Count("checks");
  Count("pending-entries-seen", static_cast<int64_t>(m.pending.size()));
  Count("open-folds-seen", static_cast<int64_t>(m.folds.size()));
  STATE_EXPECT_EQ(b.overflows(), m.overflows, "overflows()");
  STATE_EXPECT_EQ(b.schema_rejections(), m.schema_rejections, "schema_rejections()");
}

// The views whose sub hydrated between s0 and s1 get their catch-up delivery in that release.
inline void CheckCatchUps(const Model& s0, const Model& s1, const Sut& sut) {
  std::set<int64_t> want;
  for (const auto& [table, sub] : s1.subs.subs()) {
    const SubscriptionModel::Sub* before = s0.subs.Find(table);
    if (sub.hydrated && (before == nullptr || !before->hydrated)) {
      want.insert(table == "issue" ? kIssueQid : kCounterQid);
    }
  }
  STATE_EXPECT_EQ(sut.catch_ups, want, "views with a catch-up batch in this release");
}

inline void Deliver(const Model& m, Sut& sut) {
  for (const auto& a : m.outbox) sut.source.Deliver(a);
}


}  // namespace rindle::backend_state
