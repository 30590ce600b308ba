// room_fixture.h — the shared fixture of the room-plane unit tests (room_tables_test,
// swap_test, downgrade_test): MultiDomainTest plus a recorder of each view's successive states
// (every batch and every swap), the no-flicker check over them, and the upgrade script (a view
// hydrated on the daemon, retargeted onto the room, the room's first snapshot released), and the
// matchers the three files share (a `using namespace backend_test` brings them in). Test use only.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optimistic/testing/multi_domain_fixture.h"

namespace rindle::backend_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class RoomTest : public MultiDomainTest {
 protected:
  RoomTest() {
    backend_->SetBatchObserver([this](const QueryBatch& b, bool) { Record(b.query_id); });
    backend_->SetSwapObserver([this](int64_t qid) {
      ++swaps_[qid];
      Record(qid);
    });
    backend_->SetDowngradeStuckObserver([this](const DowngradeStuckEvent& e) { stuck_.push_back(e); });
    backend_->SetRoomContextJoinObserver(
        [this](const RoomContextJoinEvent& e) { context_joins_.push_back(e); });
  }

  // The view's root rows as "id=title" strings, in view order.
  std::vector<std::string> Rows(int64_t qid) const { return ShownRows(*backend_, qid); }
  std::vector<RowValues> Sync(const std::string& t) const {
    return *backend_->engine().SyncRows(t);
  }
  void Record(int64_t qid) { states_[qid].push_back(Rows(qid)); }

  // The no-flicker property over the recorded states of `qid`: no row that was visible
  // disappears or changes between successive states unless `real` (the harness's own record of
  // the real changes: "id=title" strings removed / replaced upstream) names it.
  void ExpectNoFlicker(int64_t qid, const std::set<std::string>& real = {}) {
    const auto& states = states_[qid];
    for (size_t i = 1; i < states.size(); ++i) {
      const std::set<std::string> now(states[i].begin(), states[i].end());
      for (const auto& row : states[i - 1]) {
        EXPECT_TRUE(now.count(row) > 0 || real.count(row) > 0)
            << "view " << qid << " state " << i << " lost " << row;
      }
    }
  }

  // A view (qid 1, query "issues") hydrated on the daemon with `rows`, the room connected with its
  // `issue` twin, the sub retargeted onto the room and the room's first snapshot (`room_rows`)
  // released at cv 1 — the swap-in and the phase-2 GC have run.
  void Upgrade(std::vector<RowValues> rows, std::vector<RowValues> room_rows) {
    Hydrate(daemon_, "daemon", 1, "issue", "issues", std::move(rows), 1);
    ConnectRoom();
    ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
    ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
    Record(1);
    room_.Hello(1, {});
    room_.Snapshot(1, 1, "issue", std::move(room_rows));
    room_.Progress(1);
    Record(1);
    ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  }
  // One reconcile cycle (a daemon release of an unrelated counter row): every pending entry
  // re-invokes, re-staging through its current domain.
  void Cycle() {
    backend_->TestRelease("daemon", {ServerDeltaOp{"counter", ServerDeltaOp::Type::kAdd,
                                                   Counter("zz" + std::to_string(cycles_++), 1),
                                                   {}}});
  }
  int cycles_ = 0;
  static RemoteQuery Issues() { return RemoteQuery{"issues", json::object()}; }
  static std::string Twin(const std::string& t) { return t + "@" + kRoom; }

  std::map<int64_t, std::vector<std::vector<std::string>>> states_;
  std::map<int64_t, int> swaps_;
  std::vector<DowngradeStuckEvent> stuck_;
  std::vector<RoomContextJoinEvent> context_joins_;
};

}  // namespace rindle::backend_test
