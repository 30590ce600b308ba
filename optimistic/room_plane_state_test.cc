// room_plane_state_test.cc — a RapidCheck state-machine test (rc::state) of the client's ROOM
// PLANE (seed 002 302 §2–§6, I-iv, I-v): RegisterRoomTables / UnregisterRoomTables, the two-phase
// retarget of a live sub onto the room (old-channel frames in flight between the phases), the
// room's first snapshot and the swap-in at its release tail, a late joiner swapping at retain,
// room- and daemon-declared invokes, room batches carrying a table the room does not own, the
// downgrade (retarget back, an old-channel room frame in flight, DemoteRoomSource with the room's
// final flush seq — or a room that died before flushing), the daemon-carried watermark and room
// ledger rows that complete the fence or leave it stuck, the daemon's re-snapshot of the sub, and
// a reconnect cancelling the ghost.
//
// The MODEL is the harness's own record — never the backend's bookkeeping: what each authority
// holds (the daemon's and the room's `issue` rows, which room mids the room applied, its last
// committed flush), what the harness DELIVERED into each engine table (the plain `issue` rows of
// the sub on the daemon channel, the twin's rows of the sub on the room), the pending entries it
// invoked (domain, mid, row) until an lmid it sent retires them, the roomWatermarks value it
// delivered, where the seed's rules put the sub (channel, hydrated, the retarget GC record) and
// the views (swapped or not), the ghost (fence, stuck reported) and the stuck events due.
//
// The CHECK after every command: health ok; every view == the naive evaluation of its table (the
// delivered rows of the table it reads, overlaid with the pending predictions staged on that
// table); SwappedTo; the plain sync rows == the delivered rows (a room delta leaking into the
// plain `issue` would show) and the `counter` table empty (the room's counter ops are unowned:
// the daemon never sends any); the twin's sync == the room's delivered rows; the ghost and its
// fence; the stuck events == the model's (at most one per ghost, naming exactly the unresolved
// sent room mids, in mid order); the room counters == the model's counts; NO FLICKER: every
// intermediate state a view showed inside the command (each batch and each swap) loses no row the
// command's final expected state still holds; NO LOST WRITE: after a ghost drop every write the
// room applied and flushed that the daemon still holds is visible.
#include <algorithm>
#include <deque>
#include <iostream>
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

namespace rindle::room_plane {
namespace {

using json = nlohmann::json;
using backend_test::AddOp;
using backend_test::Issue;
using backend_test::kClient;

const std::string kDaemon = "daemon";
const std::string kRoom = "room:doc:1";
const std::string kDoc = "doc:1";
const std::string kTwin = "issue@room:doc:1";
constexpr int kCases = 500;
constexpr int64_t kView = 1;      // the sub's own view (query "issues")
constexpr int64_t kLateView = 2;  // a late joiner's view, retained as kLateRetain
constexpr int64_t kLateRetain = 20;
constexpr int64_t kLedgerQid = 12;     // daemon-carried room ledger rows of doc:1
constexpr int64_t kWatermarkQid = 13;  // daemon-carried watermark rows of doc:1

using Rows = std::map<std::string, std::string>;  // id → title

struct Entry {
  std::string domain;
  int64_t mid = 0;  // 0: an open fold window, not sent yet
  std::string id;
  std::string title;
};

struct Ghost {
  int64_t fence = 0;
  bool stuck_reported = false;
};

struct Counts {
  int64_t retargets = 0, swap_ins = 0, late_join_swaps = 0, swap_backs = 0, demotes = 0;
  int64_t ghost_drops = 0, ghosts_cancelled = 0, stuck_events = 0, grace_frames = 0;
};

struct Model {
  Rows daemon_data = {{"a", "A"}, {"b", "B"}};  // the daemon authority's rows
  Rows room_data = {{"a", "A"}, {"b", "B"}};    // the room authority's rows (loaded from the doc)
  Rows plain = {{"a", "A"}, {"b", "B"}};        // delivered to `issue` (the sub on the daemon)
  Rows twin;                                     // delivered to the twin (the sub on the room)
  std::vector<Entry> pending;                    // creation order
  std::map<std::string, int64_t> next_mid = {{kDaemon, 1}, {kRoom, 1}};
  std::map<std::string, int64_t> watermark = {{kDaemon, 0}, {kRoom, 0}};
  int64_t dcv = 1, rcv = 0;
  std::string sub_channel = kDaemon;
  bool sub_hydrated = true;
  std::optional<std::string> gc_from;  // the retarget's old channel, until the cutover
  bool room_connected = true, twins = false, swapped = false, late = false;
  bool frozen = false;       // a reconnect cancelled the ghost: the views stay on the frozen twins
  int incarnation = 0;
  int64_t room_applied = 0;  // the highest room mid the room authority applied
  int64_t flush_seq = 0;     // the room's last committed flush (absorbed by the daemon's rows)
  int64_t room_mark = 0;     // roomWatermarks[doc] as delivered
  std::optional<Ghost> ghost;
  std::vector<std::vector<int64_t>> stuck;  // the stuck events due, in order
  Rows room_writes;                         // writes the room applied (id → title)
  int next_id = 0;
  Counts counts;

  bool Staged(const Entry& e, bool on_twin) const { return (e.domain == kRoom && twins) == on_twin; }
  Rows Expect(bool on_twin) const {
    Rows out = on_twin ? twin : plain;
    for (const auto& e : pending) {
      if (Staged(e, on_twin)) out[e.id] = e.title;
    }
    return out;
  }
  Rows ViewExpect() const { return Expect(swapped); }
  std::vector<int64_t> SentRoomMids() const {
    std::vector<int64_t> out;
    for (const auto& e : pending) {
      if (e.domain == kRoom && e.mid > 0) out.push_back(e.mid);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  void Retire(const std::string& domain, int64_t lmid) {
    watermark[domain] = std::max(watermark[domain], lmid);
    std::erase_if(pending, [&](const Entry& e) {
      return e.domain == domain && e.mid > 0 && e.mid <= lmid;
    });
  }
  // seed 002 evaluateGhosts / dropGhost (downgrade.h): fence, then the stuck mids, then the
  // swapped views' feeders re-hydrated; a drop swaps every view back and unregisters the twins.
  void EvaluateGhost() {
    if (!ghost || room_connected || room_mark < ghost->fence) return;
    const std::vector<int64_t> sent = SentRoomMids();
    if (!sent.empty()) {
      if (!ghost->stuck_reported) {
        ghost->stuck_reported = true;
        stuck.push_back(sent);
        ++counts.stuck_events;
      }
      return;
    }
    if (swapped && !sub_hydrated) return;
    ghost.reset();
    ++counts.ghost_drops;
    if (swapped) counts.swap_backs += late ? 2 : 1;
    swapped = false;
    twins = false;
    twin.clear();
  }
  // The tail of a release on `channel` (seed 002 applyRelease: swap-ins, flushRetargetGc, then
  // evaluateGhosts). A GC of the room's rows finds the old gate gone (demoted) or fresh (a
  // reconnect): nothing to drop.
  void ReleaseTail(const std::string& channel) {
    if (gc_from && sub_channel == channel && sub_hydrated) {
      if (*gc_from == kDaemon) plain.clear();
      gc_from.reset();
    }
    EvaluateGhost();
  }
};

std::string Show(const std::string& id, const std::string& title) {
  return "\"" + id + "\"=\"" + title + "\"";
}

std::vector<std::string> Shown(const Rows& rows) {
  std::vector<std::string> out;
  for (const auto& [id, title] : rows) out.push_back(Show(id, title));
  return out;
}

struct Sut {
  Sut() {
    OptimisticOptions o = backend_test::TestOptions(&clock);
    o.domain_policy = backend_test::RoomArgPolicy();
    backend = std::make_unique<OptimisticBackend>(std::move(o), &daemon);
    rooms.emplace_back();
    RC_ASSERT(backend->ConnectSource(kRoom, &rooms.back()).ok());
    RC_ASSERT(backend_test::RetainLifecycleStream(*backend, daemon, kLedgerQid,
                                                  kRoomClientMutationsTable, kDoc, kClient)
                  .ok());
    RC_ASSERT(backend_test::RetainLifecycleStream(*backend, daemon, kWatermarkQid,
                                                  kRoomWatermarkTable, kDoc, kClient)
                  .ok());
    RC_ASSERT(backend->RegisterQuery(kView, backend_test::TableAst("issue"), Issues()).ok());
    daemon.Hello(kView, {});
    daemon.Snapshot(kView, 1, "issue", {Issue("a", "A"), Issue("b", "B")});
    daemon.Progress(1);
    auto record = [this](int64_t qid) {
      if (qid == kView) states.push_back(Rows(kView));
    };
    backend->SetBatchObserver([record](const QueryBatch& b, bool) { record(b.query_id); });
    backend->SetSwapObserver(record);
    backend->SetDowngradeStuckObserver([this](const DowngradeStuckEvent& e) { stuck.push_back(e); });
  }
  static RemoteQuery Issues() { return RemoteQuery{"issues", json::object()}; }
  std::vector<std::string> Rows(int64_t qid) const {
    return backend_test::ShownRows(*backend, qid);
  }
  FakeSource& Room() { return rooms.back(); }
  // The start of a command: the view's current state opens the no-flicker record.
  void Begin() { states = {Rows(kView)}; }

  ManualFoldClock clock;
  FakeSource daemon;
  std::deque<FakeSource> rooms;  // every incarnation outlives the backend
  std::vector<DowngradeStuckEvent> stuck;
  std::vector<std::vector<std::string>> states;  // view kView's successive states this command
  std::unique_ptr<OptimisticBackend> backend;
};

Rows SyncOf(const Sut& sut, const std::string& table) {
  Rows out;
  auto rows = sut.backend->engine().SyncRows(table);
  RC_ASSERT(rows.ok());
  for (const auto& r : *rows) out[r[0].as_string()] = r[1].as_string();
  return out;
}

// No flicker (302 §4.1/I-iv): inside one command no row the view showed disappears or changes
// unless the command's final expected state no longer holds it (a real change removed it).
void CheckNoFlicker(const Model& m, const Sut& sut) {
  const std::vector<std::string> want = Shown(m.ViewExpect());
  const std::set<std::string> final_rows(want.begin(), want.end());
  for (size_t i = 1; i < sut.states.size(); ++i) {
    const std::set<std::string> now(sut.states[i].begin(), sut.states[i].end());
    for (const auto& row : sut.states[i - 1]) {
      RC_ASSERT(now.count(row) > 0 || final_rows.count(row) == 0);
    }
  }
}

void CheckCounters(const Model& m, const Sut& sut) {
  const RoomCounters& c = sut.backend->room_counters();
  RC_ASSERT(c.retargets == m.counts.retargets);
  RC_ASSERT(c.swap_ins == m.counts.swap_ins);
  RC_ASSERT(c.late_join_swaps == m.counts.late_join_swaps);
  RC_ASSERT(c.swap_backs == m.counts.swap_backs);
  RC_ASSERT(c.demotes == m.counts.demotes);
  RC_ASSERT(c.ghost_drops == m.counts.ghost_drops);
  RC_ASSERT(c.ghosts_cancelled == m.counts.ghosts_cancelled);
  RC_ASSERT(c.stuck_events == m.counts.stuck_events);
  RC_ASSERT(c.grace_frames == m.counts.grace_frames);
}

void CheckDowngrade(const Model& m, const Sut& sut) {
  RC_ASSERT(sut.backend->ghosts().count(kRoom) == (m.ghost ? 1u : 0u));
  if (m.ghost) RC_ASSERT(sut.backend->ghosts().at(kRoom).final_flush_seq == m.ghost->fence);
  RC_ASSERT(sut.stuck.size() == m.stuck.size());
  for (size_t i = 0; i < m.stuck.size(); ++i) {
    RC_ASSERT(sut.stuck[i].source_key == kRoom);
    RC_ASSERT(sut.stuck[i].doc == kDoc);
    RC_ASSERT(sut.stuck[i].mids == m.stuck[i]);
  }
  // No lost write: once the views are back on the daemon's re-delivered rows, every write the
  // room applied and the daemon still holds (flushed, not since edited) is visible.
  if (!m.swapped && m.sub_channel == kDaemon && m.sub_hydrated && m.counts.ghost_drops > 0) {
    const std::vector<std::string> rows = sut.Rows(kView);
    for (const auto& [id, title] : m.room_writes) {
      auto it = m.daemon_data.find(id);
      if (it == m.daemon_data.end() || it->second != title) continue;
      RC_ASSERT(std::find(rows.begin(), rows.end(), Show(id, title)) != rows.end());
    }
  }
}

void CheckAll(const Model& m, const Sut& sut) {
  RC_ASSERT(sut.backend->health().ok());
  RC_ASSERT(sut.Rows(kView) == Shown(m.ViewExpect()));
  if (m.late) RC_ASSERT(sut.Rows(kLateView) == Shown(m.ViewExpect()));
  const std::optional<std::string> on = m.swapped ? std::optional<std::string>(kRoom) : std::nullopt;
  RC_ASSERT(sut.backend->SwappedTo(kView) == on);
  // No room delta in a table the room does not own: the plain `issue` sync holds exactly what the
  // daemon delivered, `counter` nothing (only the room ever sends counter rows).
  RC_ASSERT(SyncOf(sut, "issue") == m.plain);
  RC_ASSERT(sut.backend->engine().SyncRows("counter")->empty());
  RC_ASSERT(sut.backend->engine().TableRows("counter")->empty());
  if (m.twins && m.room_connected && !m.frozen) RC_ASSERT(SyncOf(sut, kTwin) == m.twin);
  if (!m.twins) {
    RC_ASSERT(sut.backend->RoomTablesFor(kRoom).empty());
    RC_ASSERT(sut.backend->engine().GetTableSpec(kTwin) == nullptr);
  }
  CheckDowngrade(m, sut);
  CheckCounters(m, sut);
  CheckNoFlicker(m, sut);
}

using Cmd = rc::state::Command<Model, Sut>;

json CreateArgs(const Model& m, const std::string& domain) {
  const std::string id = "n" + std::to_string(m.next_id);
  json args = {{"id", id}, {"title", "T" + id}};
  if (domain == kRoom) args["room"] = kRoom;
  return args;
}

bool NoOpenFold(const Model& m) {
  return std::none_of(m.pending.begin(), m.pending.end(), [](const Entry& e) { return e.mid == 0; });
}

// A createIssue declared for `domain` (the room only while its channel is live and not frozen):
// it stages onto the twin when the room owns `issue`, else onto the plain table. (Not while a
// fold window is open: an overlapping write would flush it first — folds are not this plane.)
struct Invoke : Cmd {
  std::string domain = *rc::gen::element(kDaemon, kRoom);
  void checkPreconditions(const Model& m) const override {
    RC_PRE(NoOpenFold(m));
    RC_PRE(domain == kDaemon || (m.room_connected && !m.frozen));
  }
  void apply(Model& m) const override {
    const json args = CreateArgs(m, domain);
    ++m.next_id;
    m.pending.push_back({domain, m.next_mid[domain]++, args["id"].get<std::string>(),
                         args["title"].get<std::string>()});
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    auto mid = sut.backend->Invoke("createIssue", CreateArgs(s0, domain));
    RC_ASSERT(mid.ok());
    RC_ASSERT(*mid == s0.next_mid.at(domain));
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Invoke " << domain; }
};

// A room-declared createIssue in its own fold window (its own key): staged on the twin, UNSENT
// until FlushFolds — unsent room work does not block a ghost and re-stages onto the daemon's
// tables at the drop.
struct InvokeFolded : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.room_connected && !m.frozen && m.twins);
  }
  void apply(Model& m) const override {
    const json args = CreateArgs(m, kRoom);
    ++m.next_id;
    m.pending.push_back({kRoom, 0, args["id"].get<std::string>(), args["title"].get<std::string>()});
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    const json args = CreateArgs(s0, kRoom);
    FoldOptions fold;
    fold.key = args["id"];
    RC_ASSERT(sut.backend->InvokeFolded("createIssue", args, fold).ok());
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "InvokeFolded"; }
};

// FlushFolds: every open window ships, creation order, each dealt the room's next mid.
struct FlushFolds : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(!NoOpenFold(m) && m.room_connected && !m.frozen);
  }
  void apply(Model& m) const override {
    for (auto& e : m.pending) {
      if (e.mid == 0) e.mid = m.next_mid[e.domain]++;
    }
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    sut.backend->FlushFolds();
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "FlushFolds"; }
};

// The authority of `domain` applies up to `ahead` more of its sent mids, delivers their rows to
// the sub when it lives hydrated on that channel, and confirms them by lmid.
struct Confirm : Cmd {
  std::string domain = *rc::gen::element(kDaemon, kRoom);
  int ahead = *rc::gen::inRange(1, 3);
  void checkPreconditions(const Model& m) const override {
    RC_PRE(domain == kDaemon || (m.room_connected && !m.frozen));
  }
  int64_t Lmid(const Model& m) const {
    return std::min(m.next_mid.at(domain) - 1, m.watermark.at(domain) + ahead);
  }
  bool Delivers(const Model& m) const { return m.sub_channel == domain && m.sub_hydrated; }
  std::vector<Entry> Applied(const Model& m) const {
    std::vector<Entry> out;
    for (const auto& e : m.pending) {
      if (e.domain == domain && e.mid > 0 && e.mid <= Lmid(m)) out.push_back(e);
    }
    return out;
  }
  void apply(Model& m) const override {
    const bool room = domain == kRoom;
    for (const auto& e : Applied(m)) {
      (room ? m.room_data : m.daemon_data)[e.id] = e.title;
      if (room) m.room_writes[e.id] = e.title;
      if (Delivers(m)) (room ? m.twin : m.plain)[e.id] = e.title;
    }
    if (room) m.room_applied = std::max(m.room_applied, Lmid(m));
    ++(room ? m.rcv : m.dcv);
    m.Retire(domain, Lmid(m));
    m.ReleaseTail(domain);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    FakeSource& source = domain == kRoom ? sut.Room() : sut.daemon;
    const int64_t cv = (domain == kRoom ? s0.rcv : s0.dcv) + 1;
    std::vector<RowOp> ops;
    for (const auto& e : Applied(s0)) ops.push_back(AddOp("issue", Issue(e.id, e.title)));
    if (Delivers(s0) && !ops.empty()) source.Batch(kView, cv, std::move(ops));
    source.Lmid(cv, kClient, Lmid(s0));
    source.Progress(cv);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Confirm " << domain << " +" << ahead; }
};

// One real change by an authority to its own `issue` rows: an add, an edit or a remove. `pick`
// chooses the row. Returns the op (against `rows` before it) and applies it to `rows`.
RowOp Change(Rows& rows, int kind, int pick, const std::string& fresh) {
  if (kind == 0 || rows.empty()) {
    rows[fresh] = "T" + fresh;
    return AddOp("issue", Issue(fresh, "T" + fresh));
  }
  auto it = std::next(rows.begin(), pick % static_cast<int>(rows.size()));
  const RowValues old = Issue(it->first, it->second);
  if (kind == 1) {
    it->second += "'";
    return backend_test::EditOp("issue", old, Issue(it->first, it->second));
  }
  rows.erase(it);
  return backend_test::RemoveOp("issue", old);
}

// The daemon changes its rows. Delivered when the sub lives hydrated on the daemon; in the
// retarget window (the sub moved to the room, its first room snapshot not released) the frame is
// already in flight and must be ignored (the grace window); otherwise the daemon sends nothing.
struct DaemonEdit : Cmd {
  int kind = *rc::gen::inRange(0, 3);
  int pick = *rc::gen::inRange(0, 8);
  bool Delivers(const Model& m) const { return m.sub_channel == kDaemon && m.sub_hydrated; }
  bool InFlight(const Model& m) const {
    return m.gc_from == kDaemon && m.sub_channel == kRoom && !m.sub_hydrated;
  }
  void apply(Model& m) const override {
    Change(m.daemon_data, kind, pick, "d" + std::to_string(m.next_id++));
    if (Delivers(m)) m.plain = m.daemon_data;
    if (InFlight(m)) ++m.counts.grace_frames;
    ++m.dcv;
    m.ReleaseTail(kDaemon);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    Rows rows = s0.daemon_data;
    const RowOp op = Change(rows, kind, pick, "d" + std::to_string(s0.next_id));
    if (Delivers(s0) || InFlight(s0)) sut.daemon.Batch(kView, s0.dcv + 1, {op});
    sut.daemon.Progress(s0.dcv + 1);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "DaemonEdit " << kind << " " << pick; }
};

// The room changes its rows and tells the hydrated room sub; `counter` adds a row of a table the
// room does not own to the same batch (dropped: context stays daemon-owned).
struct RoomEdit : Cmd {
  int kind = *rc::gen::inRange(0, 3);
  int pick = *rc::gen::inRange(0, 8);
  bool counter = *rc::gen::arbitrary<bool>();
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.room_connected && !m.frozen && m.sub_channel == kRoom && m.sub_hydrated);
  }
  void apply(Model& m) const override {
    Change(m.room_data, kind, pick, "r" + std::to_string(m.next_id++));
    m.twin = m.room_data;
    ++m.rcv;
    m.ReleaseTail(kRoom);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    Rows rows = s0.room_data;
    std::vector<RowOp> ops = {Change(rows, kind, pick, "r" + std::to_string(s0.next_id))};
    if (counter) ops.push_back(AddOp("counter", backend_test::Counter("k", 1)));
    sut.Room().Batch(kView, s0.rcv + 1, std::move(ops));
    sut.Room().Progress(s0.rcv + 1);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "RoomEdit " << kind << " " << pick << (counter ? " +counter" : "");
  }
};

bool AtHome(const Model& m) {
  return !m.ghost && !m.frozen && m.sub_channel == kDaemon && m.sub_hydrated && !m.swapped;
}
bool NoRoomPending(const Model& m) {
  return std::none_of(m.pending.begin(), m.pending.end(),
                      [](const Entry& e) { return e.domain == kRoom; });
}

// RegisterRoomTables (unknown and local names skipped) or UnregisterRoomTables, at home with no
// room work staged (so no staged prediction changes table under the command).
struct ToggleTwins : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(AtHome(m) && NoRoomPending(m) && !m.gc_from);
  }
  void apply(Model& m) const override {
    m.twins = !m.twins;
    m.twin.clear();
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    if (s0.twins) {
      RC_ASSERT(sut.backend->UnregisterRoomTables(kRoom).ok());
    } else {
      RC_ASSERT(sut.backend->RegisterRoomTables(kRoom, {"issue", "nope", "draft"}).ok());
      RC_ASSERT(sut.backend->RoomTablesFor(kRoom).size() == 1u);
    }
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "ToggleTwins"; }
};

// Phase 1 of the upgrade retarget (twice when `again`: idempotent per target).
struct Retarget : Cmd {
  bool again = *rc::gen::arbitrary<bool>();
  void checkPreconditions(const Model& m) const override {
    RC_PRE(AtHome(m) && m.room_connected && m.twins);
  }
  void apply(Model& m) const override {
    m.sub_channel = kRoom;
    m.sub_hydrated = false;
    m.gc_from = kDaemon;
    ++m.counts.retargets;
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    for (int i = 0; i < (again ? 2 : 1); ++i) {
      auto qid = sut.backend->RetargetRemoteQuery(Sut::Issues(), kRoom);
      RC_ASSERT(qid.ok());
      RC_ASSERT(*qid == kView);
    }
    RC_ASSERT(sut.Room().registered.count(kView) == 1u);
    RC_ASSERT(sut.daemon.registered.count(kView) == 0u);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Retarget" << (again ? " x2" : ""); }
};

// Phase 2: the room's first snapshot of the sub releases — the twins fold it, the views swap at
// the release tail, then the daemon's rows for the sub are GC'd.
struct RoomSnapshot : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.room_connected && !m.frozen && m.sub_channel == kRoom && !m.sub_hydrated);
  }
  void apply(Model& m) const override {
    ++m.rcv;
    m.twin = m.room_data;
    m.sub_hydrated = true;
    if (!m.swapped) {
      m.swapped = true;
      m.counts.swap_ins += m.late ? 2 : 1;
    }
    m.ReleaseTail(kRoom);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    std::vector<RowValues> rows;
    for (const auto& [id, title] : s0.room_data) rows.push_back(Issue(id, title));
    sut.Room().Hello(kView, {});
    sut.Room().Snapshot(kView, s0.rcv + 1, "issue", std::move(rows));
    sut.Room().Progress(s0.rcv + 1);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "RoomSnapshot"; }
};

// A second view joins the hydrated room sub late: it swaps at retain.
struct LateJoin : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(!m.late && m.room_connected && !m.frozen && m.sub_channel == kRoom &&
           m.sub_hydrated && m.swapped);
  }
  void apply(Model& m) const override {
    m.late = true;
    ++m.counts.late_join_swaps;
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    RC_ASSERT(sut.backend->RegisterQuery(kLateView, backend_test::TableAst("issue")).ok());
    RC_ASSERT(sut.backend->RetainRemoteQuery(kLateRetain, Sut::Issues(), kLateView, kRoom).ok());
    RC_ASSERT(sut.backend->SwappedTo(kLateView) == std::optional<std::string>(kRoom));
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "LateJoin"; }
};

// The downgrade: the sub retargets back to the daemon, a room frame for it is already in flight
// (`in_flight`: ignored in the grace window), the room flushes its final state to the daemon
// (`flush`; else it died since its last committed flush) and is demoted with that flush seq.
struct Demote : Cmd {
  bool in_flight = *rc::gen::arbitrary<bool>();
  bool flush = *rc::gen::arbitrary<bool>();
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.room_connected && !m.frozen && !m.ghost && m.sub_channel == kRoom &&
           m.sub_hydrated && m.swapped);
  }
  void apply(Model& m) const override {
    m.sub_channel = kDaemon;
    m.sub_hydrated = false;
    m.gc_from = kRoom;
    ++m.counts.retargets;
    if (in_flight) {
      Change(m.room_data, 0, 0, "r" + std::to_string(m.next_id++));
      ++m.counts.grace_frames;
    }
    if (flush) {  // the room applies every mid it received, then commits its final flush
      for (const auto& e : m.pending) {
        if (e.domain != kRoom || e.mid == 0) continue;
        m.room_data[e.id] = e.title;
        m.room_writes[e.id] = e.title;
      }
      m.room_applied = m.next_mid[kRoom] - 1;
      m.daemon_data = m.room_data;
      ++m.flush_seq;
    }
    m.room_connected = false;
    m.ghost = Ghost{m.flush_seq, false};
    ++m.counts.demotes;
    m.EvaluateGhost();
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    RC_ASSERT(sut.backend->RetargetRemoteQuery(Sut::Issues(), kDaemon).ok());
    if (in_flight) {
      Rows rows = s0.room_data;
      const RowOp op = Change(rows, 0, 0, "r" + std::to_string(s0.next_id));
      sut.Room().Batch(kView, s0.rcv + 1, {op});
      sut.Room().Progress(s0.rcv + 1);
    }
    const Model after = nextState(s0);
    RC_ASSERT(sut.backend->DemoteRoomSource(kRoom, kDoc, after.flush_seq).ok());
    RC_ASSERT(!sut.backend->IsConnected(kRoom));
    CheckAll(after, sut);
  }
  void show(std::ostream& os) const override {
    os << "Demote" << (in_flight ? " in-flight" : "") << (flush ? " flush" : " died");
  }
};

// The daemon re-delivers the sub it got back: its hello and snapshot of the daemon's rows.
struct DaemonSnapshot : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.sub_channel == kDaemon && !m.sub_hydrated);
  }
  void apply(Model& m) const override {
    ++m.dcv;
    m.plain = m.daemon_data;
    m.sub_hydrated = true;
    m.ReleaseTail(kDaemon);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    std::vector<RowValues> rows;
    for (const auto& [id, title] : s0.daemon_data) rows.push_back(Issue(id, title));
    sut.daemon.Hello(kView, {});
    sut.daemon.Snapshot(kView, s0.dcv + 1, "issue", std::move(rows));
    sut.daemon.Progress(s0.dcv + 1);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "DaemonSnapshot"; }
};

// A daemon release carrying doc:1's system rows: the room ledger row (lmid: up to `ahead` more of
// the mids the room applied) and/or the watermark row (a flush seq the room committed).
struct SystemRows : Cmd {
  bool ledger = *rc::gen::arbitrary<bool>();
  int ahead = *rc::gen::inRange(1, 3);
  bool mark = *rc::gen::arbitrary<bool>();
  int back = *rc::gen::inRange(0, 2);  // how many flushes behind the last the watermark row is
  void checkPreconditions(const Model& m) const override {
    RC_PRE(!m.room_connected && (ledger || mark));
  }
  int64_t Lmid(const Model& m) const {
    return std::min(m.room_applied, m.watermark.at(kRoom) + ahead);
  }
  int64_t Seq(const Model& m) const { return std::max<int64_t>(0, m.flush_seq - back); }
  void apply(Model& m) const override {
    ++m.dcv;
    if (mark) m.room_mark = std::max(m.room_mark, Seq(m));
    if (ledger) m.Retire(kRoom, Lmid(m));
    m.ReleaseTail(kDaemon);
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    const int64_t cv = s0.dcv + 1;
    if (ledger) {
      sut.daemon.Batch(kLedgerQid, cv, {backend_test::RoomLedgerAdd(kDoc, kClient, Lmid(s0))});
    }
    if (mark) {
      sut.daemon.Batch(kWatermarkQid, cv, {backend_test::RoomWatermarkAdd(kDoc, Seq(s0))});
    }
    sut.daemon.Progress(cv);
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "SystemRows" << (ledger ? " ledger +" + std::to_string(ahead) : "")
       << (mark ? " mark -" + std::to_string(back) : "");
  }
};

// The demoted room reconnects while its ghost is pending: the ghost is cancelled and the views
// stay on the frozen twins (the model stops driving the room plane from here).
struct Reconnect : Cmd {
  void checkPreconditions(const Model& m) const override { RC_PRE(m.ghost.has_value()); }
  void apply(Model& m) const override {
    m.ghost.reset();
    m.room_connected = true;
    m.frozen = true;
    ++m.incarnation;
    m.rcv = 0;
    ++m.counts.ghosts_cancelled;
  }
  void run(const Model& s0, Sut& sut) const override {
    sut.Begin();
    sut.rooms.emplace_back();
    RC_ASSERT(sut.backend->ConnectSource(kRoom, &sut.rooms.back()).ok());
    CheckAll(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "Reconnect"; }
};

// What the sequences exercised, summed over every case (printed: a precondition starving a
// command shows as a zero here).
RoomCounters g_seen;

void Tally(const RoomCounters& c) {
  g_seen.retargets += c.retargets;
  g_seen.swap_ins += c.swap_ins;
  g_seen.late_join_swaps += c.late_join_swaps;
  g_seen.swap_backs += c.swap_backs;
  g_seen.retarget_gcs += c.retarget_gcs;
  g_seen.grace_frames += c.grace_frames;
  g_seen.demotes += c.demotes;
  g_seen.ghost_drops += c.ghost_drops;
  g_seen.ghosts_cancelled += c.ghosts_cancelled;
  g_seen.stuck_events += c.stuck_events;
}

TEST(RoomPlaneStateMachine, MatchesTheHarnessRecord) {
  props::CheckGTestWithCount(
      [] {
        Sut sut;
        const Model initial;
        sut.Begin();
        CheckAll(initial, sut);
        struct Tallied {
          Sut* sut;
          ~Tallied() { Tally(sut->backend->room_counters()); }
        } tally{&sut};
        rc::state::check(
            initial, sut,
            rc::state::gen::execOneOfWithArgs<Invoke, Invoke, Confirm, Confirm, DaemonEdit,
                                              RoomEdit, ToggleTwins, ToggleTwins, Retarget,
                                              Retarget, RoomSnapshot, RoomSnapshot, LateJoin,
                                              Demote, Demote, DaemonSnapshot, DaemonSnapshot,
                                              SystemRows, SystemRows, Reconnect, InvokeFolded,
                                              FlushFolds>());
      },
      kCases);
  std::cout << "[room plane] retargets " << g_seen.retargets << ", swap-ins " << g_seen.swap_ins
            << ", late-join swaps " << g_seen.late_join_swaps << ", retarget GCs "
            << g_seen.retarget_gcs << ", grace frames " << g_seen.grace_frames << ", demotes "
            << g_seen.demotes << ", ghost drops " << g_seen.ghost_drops << ", swap-backs "
            << g_seen.swap_backs << ", ghosts cancelled " << g_seen.ghosts_cancelled
            << ", stuck " << g_seen.stuck_events << std::endl;
}

}  // namespace
}  // namespace rindle::room_plane
