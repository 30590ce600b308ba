// ledger_plane_state_test.cc — a RapidCheck state-machine test (rc::state) of the client's LEDGER
// PLANE over two channels: the daemon and a room ("room:doc:1") that disconnects and reconnects,
// declared-domain invokes, per-channel lmid confirms, rejected / deopt outcome frames (any mid:
// unissued, duplicate, pending, retired), per-channel restart and resync, and the daemon-carried
// lifecycle SYSTEM frames (seed 002 I-iii): one daemon release co-committing an outcome row, the
// room ledger row and a watermark row for doc:1 — folded outcomes first, then the ledger.
//
// The MODEL is what the harness issued and what the authorities answered — never the backend's
// report: per domain the next mid and the confirmed watermark, the client-global seq, the pending
// entries (domain, mid, seq, args) in creation order, the processed (domain, mid) outcomes, the
// rejections surfaced, every envelope each source must have received (first sends, deopt flips,
// re-invokes, resync re-sends — each channel its own domain only), each
// connected channel's applied cv, and roomWatermarks (the max of the flush seqs sent). The seed's rules are
// the model's (seed 002 dealMid / handleMutationOutcome / resendPending / applyRelease).
// No data subscriptions: the views' plane is backend_state_test's.
//
// The CHECK after every command: health ok; InspectDomains() pending (mid, seq, domain) in
// creation order, nextMid, watermark and the connected gates' appliedCv == the model's; the
// rejections surfaced == the model's; every source's pushed mids == the model's; roomWatermarks.
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "base/lifecycle_tables.h"
#include "optimistic/backend.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/testing/fake_source.h"
#include "properties/suites/rc_check.h"

namespace rindle::ledger_plane {
namespace {

using json = nlohmann::json;
using backend_test::kClient;

const std::string kDaemon = "daemon";
const std::string kRoom = "room:doc:1";
const std::string kDoc = "doc:1";
constexpr int kCases = 500;
// The daemon-carried system retains of doc:1.
constexpr int64_t kOutcomesQid = 11;
constexpr int64_t kLedgerQid = 12;
constexpr int64_t kWatermarkQid = 13;

struct Entry {
  std::string domain;
  int64_t mid = 0;
  int64_t seq = 0;
};

struct Model {
  std::vector<Entry> pending;  // creation order
  std::map<std::string, int64_t> next_mid = {{kDaemon, 1}, {kRoom, 1}};
  std::map<std::string, int64_t> watermark = {{kDaemon, 0}, {kRoom, 0}};
  int64_t seq = 0;
  int next_id = 0;
  bool room_connected = true;
  int room_incarnation = 0;
  std::map<std::string, int64_t> cv = {{kDaemon, 0}, {kRoom, 0}};  // connected gates only
  std::map<std::string, std::set<int64_t>> processed;
  std::map<std::pair<std::string, int64_t>, json> echo;  // (domain, mid) → the args it carried
  std::map<std::string, std::vector<int64_t>> pushed;    // "daemon" / "room#<incarnation>"
  std::vector<int64_t> rejected;
  std::map<std::string, int64_t> room_watermarks;

  std::string SourceOf(const std::string& domain) const {
    if (domain == kRoom && room_connected) return "room#" + std::to_string(room_incarnation);
    return kDaemon;  // a gate-less domain ships on the daemon channel
  }
  void Deal(const std::string& domain, int64_t seq_value, const json& args) {
    const int64_t mid = next_mid[domain]++;
    pending.push_back({domain, mid, seq_value});
    echo[{domain, mid}] = args;
    pushed[SourceOf(domain)].push_back(mid);
  }
};

struct Sut {
  Sut() {
    OptimisticOptions o = backend_test::TestOptions(&clock);
    o.domain_policy = backend_test::RoomArgPolicy();
    o.on_rejected = [this](const MutationEnvelope& e, const std::string&) {
      rejected.push_back(e.mid);
    };
    backend = std::make_unique<OptimisticBackend>(std::move(o), &daemon);
    rooms.emplace_back();
    RC_ASSERT(backend->ConnectSource(kRoom, &rooms.back()).ok());
    RetainSystem(kOutcomesQid, kRoomMutationOutcomesTable);
    RetainSystem(kLedgerQid, kRoomClientMutationsTable);
    RetainSystem(kWatermarkQid, kRoomWatermarkTable);
  }
  void RetainSystem(int64_t qid, std::string_view table) {
    RC_ASSERT(backend_test::RetainLifecycleStream(*backend, daemon, qid, table, kDoc).ok());
  }
  FakeSource& Source(const std::string& domain) { return domain == kRoom ? rooms.back() : daemon; }

  ManualFoldClock clock;
  FakeSource daemon;
  std::deque<FakeSource> rooms;  // every incarnation outlives the backend
  std::vector<int64_t> rejected;
  std::unique_ptr<OptimisticBackend> backend;
};

std::vector<int64_t> Mids(const FakeSource& s) {
  std::vector<int64_t> out;
  for (const auto& e : s.pushed) out.push_back(e.mid);
  return out;
}

void CheckAll(const Model& m, Sut& sut) {
  RC_ASSERT(sut.backend->health().ok());
  const DomainsInspect d = sut.backend->InspectDomains();
  RC_ASSERT(d.pending.size() == m.pending.size());
  for (size_t i = 0; i < m.pending.size(); ++i) {
    RC_ASSERT(d.pending[i].domain == m.pending[i].domain);
    RC_ASSERT(d.pending[i].mid == std::optional<int64_t>(m.pending[i].mid));
    RC_ASSERT(d.pending[i].seq == std::optional<int64_t>(m.pending[i].seq));
  }
  RC_ASSERT(d.next_mid == m.next_mid);
  RC_ASSERT(d.watermark == m.watermark);
  RC_ASSERT(d.gates.size() == m.cv.size());
  for (const auto& [key, cv] : m.cv) RC_ASSERT(d.gates.at(key).applied_cv == cv);
  RC_ASSERT(sut.rejected == m.rejected);
  RC_ASSERT(sut.backend->room_watermarks() == m.room_watermarks);
  auto expected = [&](const std::string& source) {
    auto it = m.pushed.find(source);
    return it == m.pushed.end() ? std::vector<int64_t>{} : it->second;
  };
  RC_ASSERT(Mids(sut.daemon) == expected(kDaemon));
  for (size_t i = 0; i < sut.rooms.size(); ++i) {
    RC_ASSERT(Mids(sut.rooms[i]) == expected("room#" + std::to_string(i)));
  }
}

using Cmd = rc::state::Command<Model, Sut>;

rc::Gen<std::string> GenDomain() { return rc::gen::element(kDaemon, kRoom); }

struct Invoke : Cmd {
  std::string domain = *GenDomain();
  void apply(Model& m) const override {
    json args = {{"id", "i" + std::to_string(m.next_id++)}, {"title", "t"}};
    if (domain == kRoom) args["room"] = kRoom;
    m.Deal(domain, ++m.seq, args);
  }
  void run(const Model& s0, Sut& sut) const override {
    json args = {{"id", "i" + std::to_string(s0.next_id)}, {"title", "t"}};
    if (domain == kRoom) args["room"] = kRoom;
    RC_ASSERT(sut.backend->Invoke("createIssue", args).ok());
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Invoke " << domain; }
};

// The domain's authority confirms up to `ahead` more of its mids (lmid at the next cv of that
// channel, then its progress).
struct Confirm : Cmd {
  std::string domain = *GenDomain();
  int ahead = *rc::gen::inRange(0, 3);
  void checkPreconditions(const Model& m) const override {
    RC_PRE(domain == kDaemon || m.room_connected);
  }
  int64_t Lmid(const Model& m) const {
    return std::min(m.next_mid.at(domain) - 1, m.watermark.at(domain) + ahead);
  }
  void apply(Model& m) const override {
    const int64_t lmid = Lmid(m);
    m.watermark[domain] = lmid;
    ++m.cv[domain];
    std::erase_if(m.pending,
                  [&](const Entry& e) { return e.domain == domain && e.mid <= lmid; });
  }
  void run(const Model& s0, Sut& sut) const override {
    const int64_t cv = s0.cv.at(domain) + 1;
    sut.Source(domain).Lmid(cv, kClient, Lmid(s0));
    sut.Source(domain).Progress(cv);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Confirm " << domain << " +" << ahead; }
};

// The seed's handleMutationOutcome on the model (frames and rows share it).
void ApplyOutcome(Model& m, const std::string& domain, bool deopt, int64_t mid) {
  if (mid < 1 || mid >= m.next_mid.at(domain)) return;  // never issued
  if (!m.processed[domain].insert(mid).second) return;  // duplicate
  if (!deopt) {
    m.rejected.push_back(mid);
    return;
  }
  for (auto& e : m.pending) {
    if (e.domain != domain || e.mid != mid) continue;
    // The flip: a fresh daemon mid, the original seq, sent now on the daemon channel.
    const json args = m.echo.at({domain, mid});
    e.domain = kDaemon;
    e.mid = m.next_mid[kDaemon]++;
    ++m.seq;  // the dealt seq is discarded, the counter still moves (seed 002 dealMid)
    m.echo[{kDaemon, e.mid}] = args;
    m.pushed[kDaemon].push_back(e.mid);
    return;
  }
  m.Deal(kDaemon, ++m.seq, m.echo.at({domain, mid}));  // the retired mid's echo, re-invoked
}

struct Outcome : Cmd {
  std::string domain = *GenDomain();
  bool deopt = *rc::gen::arbitrary<bool>();
  int64_t mid = *rc::gen::inRange<int64_t>(0, 8);
  void checkPreconditions(const Model& m) const override {
    RC_PRE(domain == kDaemon || m.room_connected);
  }
  void apply(Model& m) const override { ApplyOutcome(m, domain, deopt, mid); }
  void run(const Model& s0, Sut& sut) const override {
    MutationOutcomeFrame f;
    f.mid = mid;
    f.kind = deopt ? MutationOutcomeFrame::Kind::kDeopt : MutationOutcomeFrame::Kind::kRejected;
    f.reason = "r";
    f.name = "createIssue";
    auto it = s0.echo.find({domain, mid});
    f.args = it != s0.echo.end() ? it->second : json::object();
    sut.Source(domain).Outcome(f);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "Outcome " << domain << " " << (deopt ? "deopt" : "rejected") << " mid " << mid;
  }
};

// One daemon release co-committing doc:1's system rows (seed 002 I-ii / I-iii): optionally an
// outcome row, the room ledger row confirming up to `ahead` more room mids, optionally a
// watermark row. The model judges the outcome FIRST, then confirms (the fixed fold order).
struct SystemRelease : Cmd {
  bool outcome = *rc::gen::arbitrary<bool>();
  bool deopt = *rc::gen::arbitrary<bool>();
  int64_t mid = *rc::gen::inRange<int64_t>(0, 8);
  int ahead = *rc::gen::inRange(0, 3);
  bool flush = *rc::gen::arbitrary<bool>();
  int64_t flush_seq = *rc::gen::inRange<int64_t>(0, 20);
  int64_t Lmid(const Model& m) const {
    return std::min(m.next_mid.at(kRoom) - 1, m.watermark.at(kRoom) + ahead);
  }
  void apply(Model& m) const override {
    const int64_t lmid = Lmid(m);
    ++m.cv[kDaemon];
    if (outcome) ApplyOutcome(m, kRoom, deopt, mid);
    m.watermark[kRoom] = lmid;
    std::erase_if(m.pending, [&](const Entry& e) { return e.domain == kRoom && e.mid <= lmid; });
    if (flush) {
      int64_t& w = m.room_watermarks[kDoc];
      w = std::max(w, flush_seq);
    }
  }
  void run(const Model& s0, Sut& sut) const override {
    const int64_t cv = s0.cv.at(kDaemon) + 1;
    if (outcome) {
      auto it = s0.echo.find({kRoom, mid});
      const json args = it != s0.echo.end() ? it->second : json::object();
      sut.daemon.Batch(kOutcomesQid, cv,
                       {RowOp{RowOp::Kind::kAdd, std::string(kRoomMutationOutcomesTable),
                              {Value::String(kDoc), Value::String(kClient), Value::Int(mid),
                               Value::String(std::string(deopt ? kOutcomeDeopt : kOutcomeRejected)),
                               Value::String("r"), Value::String("createIssue"),
                               Value::String(args.dump())},
                              {}}});
    }
    sut.daemon.Batch(kLedgerQid, cv, {backend_test::RoomLedgerAdd(kDoc, kClient, Lmid(s0))});
    if (flush) {
      sut.daemon.Batch(kWatermarkQid, cv, {backend_test::RoomWatermarkAdd(kDoc, flush_seq)});
    }
    sut.daemon.Progress(cv);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "SystemRelease";
    if (outcome) os << " " << (deopt ? "deopt" : "rejected") << " mid " << mid;
    os << " ledger +" << ahead;
    if (flush) os << " flush " << flush_seq;
  }
};

struct Resync : Cmd {
  std::string domain = *GenDomain();
  void checkPreconditions(const Model& m) const override {
    RC_PRE(domain == kDaemon || m.room_connected);
  }
  void apply(Model& m) const override {
    auto resend = [&](const std::string& of) {
      std::vector<int64_t> mids;
      for (const auto& e : m.pending) {
        if (e.domain == of) mids.push_back(e.mid);
      }
      std::sort(mids.begin(), mids.end());
      auto& out = m.pushed[m.SourceOf(domain)];
      out.insert(out.end(), mids.begin(), mids.end());
    };
    // §7.5 rule 3: a resync re-sends its own domain only (a gate-less domain is not re-sent
    // on the daemon channel: envelopes carry no domain, backend.cc HandleResync).
    resend(domain);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Source(domain).Resync();
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Resync " << domain; }
};

struct Restart : Cmd {
  std::string domain = *GenDomain();
  void checkPreconditions(const Model& m) const override {
    RC_PRE(domain == kDaemon || m.room_connected);
  }
  void apply(Model& m) const override { m.cv[domain] = 0; }
  void run(const Model& s0, Sut& sut) const override {
    sut.Source(domain).Restart();
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Restart " << domain; }
};

struct ToggleRoom : Cmd {
  void apply(Model& m) const override {
    if (m.room_connected) {
      m.cv.erase(kRoom);  // the gate goes; the domain's ledger and processed set stay
    } else {
      ++m.room_incarnation;
      m.cv[kRoom] = 0;
    }
    m.room_connected = !m.room_connected;
  }
  void run(const Model& s0, Sut& sut) const override {
    if (s0.room_connected) {
      RC_ASSERT(sut.backend->DisconnectSource(kRoom).ok());
    } else {
      sut.rooms.emplace_back();
      RC_ASSERT(sut.backend->ConnectSource(kRoom, &sut.rooms.back()).ok());
    }
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "ToggleRoom"; }
};

TEST(LedgerPlaneStateMachine, MatchesTheAuthoritiesRecord) {
  props::CheckGTestWithCount(
      [] {
        Sut sut;
        const Model initial;
        CheckAll(initial, sut);
        rc::state::check(initial, sut,
                         rc::state::gen::execOneOfWithArgs<Invoke, Invoke, Invoke, Confirm,
                                                           Confirm, Outcome, Outcome, Outcome,
                                                           SystemRelease, SystemRelease, Resync,
                                                           Restart, ToggleRoom>());
      },
      kCases);
}

}  // namespace
}  // namespace rindle::ledger_plane
