// checker_test.cc — the Checker's visiting order (checker.h): which family and client it asks
// first decides which violation a run reports when several properties fail at once.
#include "properties/checker.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/str_util.h"

namespace rindle::props {
namespace {

// Every getter unreachable: the recording families never read the authority.
class NoAuthority : public AuthorityView {
 public:
  const absl::Status& health() const override { return ok_; }
  const Db& store() const override { std::abort(); }
  std::vector<std::pair<std::string, int64_t>> Subscriptions() const override { return {}; }
  absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string&,
                                                           int64_t) const override {
    return absl::NotFoundError("none");
  }
  const Ast* SubscriptionAst(const std::string&, int64_t) const override { return nullptr; }
  size_t processed_count() const override { return 0; }
  ProcessedRef processed(size_t) const override { std::abort(); }
  int64_t lmid(const std::string&) const override { return 0; }
  Coverage CoverageOf(const std::string&) const override { return {}; }

 private:
  absl::Status ok_;
};

// Records every call as "<family>:<phase>[:<client>]"; fails on `fail_at`.
class Recorder : public PropertyFamily {
 public:
  Recorder(std::string name, std::vector<std::string>* log, std::string fail_at = "")
      : name_(std::move(name)), log_(log), fail_at_(std::move(fail_at)) {}
  MaybeViolation AfterStep(const World&) override { return Note("step"); }
  MaybeViolation AfterStepClient(const World&, const ClientState& c, StepCounters*) override {
    return Note(StrCat("client:", c.id));
  }
  MaybeViolation AfterStepAuthority(const World&) override { return Note("authority"); }
  MaybeViolation AfterStepLocal(const World&, const ClientState& c) override {
    return Note(StrCat("local:", c.id));
  }
  MaybeViolation AtQuiescenceClient(const World&, const ClientState& c) override {
    return Note(StrCat("quiet:", c.id));
  }
  MaybeViolation AtQuiescence(const World&) override { return Note("quiet"); }

 private:
  MaybeViolation Note(const std::string& what) {
    const std::string entry = StrCat(name_, ":", what);
    log_->push_back(entry);
    if (entry == fail_at_) return Violation{name_, entry};
    return std::nullopt;
  }
  std::string name_;
  std::vector<std::string>* log_;
  std::string fail_at_;
};

World TwoClients(const AuthorityView* a) {
  World w;
  w.authority = a;
  w.clients.resize(2);
  w.clients[0].id = "c0";
  w.clients[1].id = "c1";
  return w;
}

TEST(CheckerTest, AfterStepVisitsEveryFamilyPerDirtyClientThenAuthorityThenLocal) {
  NoAuthority a;
  World w = TwoClients(&a);
  w.clients[0].dirty = false;  // untouched clients are skipped
  w.clients[1].dirty = true;
  w.clients[0].local_dirty = true;
  w.authority_dirty = true;
  std::vector<std::string> log;
  Checker checker;
  checker.Add(std::make_unique<Recorder>("a", &log));
  checker.Add(std::make_unique<Recorder>("b", &log));
  StepCounters counters;
  EXPECT_FALSE(checker.AfterStep(w, &counters).has_value());
  EXPECT_EQ(log, (std::vector<std::string>{"a:step", "b:step", "a:client:c1", "b:client:c1",
                                            "a:authority", "b:authority", "a:local:c0",
                                            "b:local:c0"}));
}

TEST(CheckerTest, FirstViolationInVisitingOrderWins) {
  NoAuthority a;
  World w = TwoClients(&a);
  w.clients[0].dirty = true;
  w.clients[1].dirty = true;
  std::vector<std::string> log;
  Checker checker;
  checker.Add(std::make_unique<Recorder>("a", &log, "a:client:c1"));
  checker.Add(std::make_unique<Recorder>("b", &log, "b:client:c0"));
  StepCounters counters;
  auto v = checker.AfterStep(w, &counters);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "b");  // client c0 (every family) before client c1
  EXPECT_EQ(log.back(), "b:client:c0");
}

TEST(CheckerTest, AtQuiescenceVisitsEveryClientBeforeTheOnceChecks) {
  NoAuthority a;
  World w = TwoClients(&a);
  std::vector<std::string> log;
  Checker checker;
  checker.Add(std::make_unique<Recorder>("a", &log));
  checker.Add(std::make_unique<Recorder>("b", &log));
  EXPECT_FALSE(checker.AtQuiescence(w).has_value());
  EXPECT_EQ(log, (std::vector<std::string>{"a:quiet:c0", "b:quiet:c0", "a:quiet:c1", "b:quiet:c1",
                                            "a:quiet", "b:quiet"}));
}

}  // namespace
}  // namespace rindle::props
