// multi_domain_fixture.h — the shared fixture of the multi-channel / multi-domain / outcome unit
// tests: the backend_test schema and mutators, a daemon FakeSource, a room FakeSource for
// kRoom ("room:doc:1"), a domain policy that routes a mutation to args["room"] when present,
// and a recorder for onRejected. Test use only.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "optimistic/backend.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/testing/fake_source.h"

namespace rindle::backend_test {

inline const std::string kRoom = "room:doc:1";

class MultiDomainTest : public ::testing::Test {
 protected:
  explicit MultiDomainTest(size_t cap = 1024) {
    OptimisticOptions o = TestOptions(&clock_, cap);
    o.domain_policy = [this](const std::string& name,
                             const json& args) -> std::optional<std::string> {
      ++policy_calls_;
      if (args.is_object() && args.contains("room")) return args["room"].get<std::string>();
      (void)name;
      return std::nullopt;
    };
    o.on_rejected = [this](const MutationEnvelope& e, const std::string& reason) {
      rejected_.emplace_back(e, reason);
    };
    backend_ = std::make_unique<OptimisticBackend>(std::move(o), &daemon_);
    EXPECT_TRUE(backend_->health().ok()) << backend_->health();
  }

  void ConnectRoom() {
    ASSERT_TRUE(backend_->ConnectSource(kRoom, &room_).ok());
  }
  static json RoomArgs(json args) {
    args["room"] = kRoom;
    return args;
  }
  static MutationOutcomeFrame Deopt(int64_t mid, std::optional<std::string> name = std::nullopt,
                                    json args = json::object()) {
    MutationOutcomeFrame f;
    f.mid = mid;
    f.kind = MutationOutcomeFrame::Kind::kDeopt;
    f.name = std::move(name);
    f.args = std::move(args);
    return f;
  }
  static MutationOutcomeFrame Rejected(int64_t mid, std::string reason) {
    MutationOutcomeFrame f;
    f.mid = mid;
    f.kind = MutationOutcomeFrame::Kind::kRejected;
    f.reason = std::move(reason);
    return f;
  }
  static std::vector<int64_t> Mids(const FakeSource& s) {
    std::vector<int64_t> out;
    for (const auto& e : s.pushed) out.push_back(e.mid);
    return out;
  }
  // Hydrates `qid` over `table` on `source` (registered on `channel`).
  void Hydrate(FakeSource& source, const std::string& channel, int64_t qid,
               const std::string& table, const std::string& remote, std::vector<RowValues> rows,
               int64_t cv) {
    ASSERT_TRUE(backend_
                    ->RegisterQuery(qid, TableAst(table), RemoteQuery{remote, json::object()},
                                    channel)
                    .ok());
    source.Hello(qid, {});
    source.Snapshot(qid, cv, table, std::move(rows));
    source.Progress(cv);
  }
  std::vector<RowValues> Head(const std::string& t) const {
    return *backend_->engine().TableRows(t);
  }
  const DomainPendingInspect* PendingNamed(const std::string& name) const {
    static DomainsInspect d;
    d = backend_->InspectDomains();
    for (const auto& p : d.pending) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

  ManualFoldClock clock_;
  FakeSource daemon_;
  FakeSource room_;
  FakeSource room_again_;  // a reconnect's fresh source
  int policy_calls_ = 0;
  std::vector<std::pair<MutationEnvelope, std::string>> rejected_;
  std::unique_ptr<OptimisticBackend> backend_;
};

}  // namespace rindle::backend_test
