// daemon_endpoint_test.cc — the daemon seen through the AuthorityEndpoint interface
// (authority_endpoint.h): its source key, the session/subscription/restart contract, and the
// precondition CHECKs on an unknown client.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/source_key.h"
#include "gtest/gtest.h"
#include "sim/authority/authority_endpoint.h"
#include "sim/authority/daemon.h"
#include "sim/workload/mutators.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

struct Endpoint {
  std::vector<std::pair<std::string, ServerFrame>> frames;
  std::map<std::string, int64_t> counters;
  std::unique_ptr<AuthorityEndpoint> authority;
  Endpoint() {
    auto schema = LoadAppSchema();
    RINDLE_CHECK(schema.ok());
    authority = std::make_unique<DaemonAuthority>(
        *schema, ServerMutators(), std::map<std::string, std::string>{{"c0", "u01"}},
        [this](const std::string& c, ServerFrame f) { frames.emplace_back(c, std::move(f)); },
        &counters);
  }
};

TEST(DaemonEndpoint, IsTheDaemonSource) {
  Endpoint e;
  EXPECT_EQ(e.authority->source_key(), kDaemonSource);
  EXPECT_TRUE(IsDaemonSource(e.authority->source_key()));
}

TEST(DaemonEndpoint, SessionSubscriptionAndRestart) {
  Endpoint e;
  ASSERT_TRUE(e.authority->Seed({}).ok());
  e.authority->Register("c0", 1, RemoteQuery{"tagOptions", nullptr});  // no session: ignored
  EXPECT_TRUE(e.frames.empty());
  e.authority->Connect("c0");
  ASSERT_EQ(e.frames.size(), 1u);
  EXPECT_EQ(e.frames[0].second.kind, ServerFrame::Kind::kWelcome);
  EXPECT_EQ(e.frames[0].second.boot_id, 1);
  e.authority->Register("c0", 1, RemoteQuery{"tagOptions", nullptr});
  ASSERT_TRUE(e.authority->health().ok()) << e.authority->health();
  EXPECT_EQ(e.frames.size(), 4u);  // welcome, hello, snapshot, progress
  EXPECT_EQ(e.authority->Subscriptions(),
            (std::vector<std::pair<std::string, int64_t>>{{"c0", 1}}));
  EXPECT_NE(e.authority->SubscriptionAst("c0", 1), nullptr);
  EXPECT_TRUE(e.authority->TakeDirty());
  EXPECT_FALSE(e.authority->TakeDirty());
  e.authority->Restart();
  EXPECT_EQ(e.authority->boot_id(), 2);
  EXPECT_EQ(e.authority->cv(), 0);
  EXPECT_TRUE(e.authority->Subscriptions().empty());
  EXPECT_TRUE(e.authority->TakeDirty());
}

TEST(DaemonEndpointDeathTest, UnknownClientIsAProgrammerError) {
  Endpoint e;
  EXPECT_DEATH(e.authority->Connect("c9"), "unknown client");
  MutationEnvelope env;
  env.client_id = "c9";
  env.mid = 1;
  EXPECT_DEATH(e.authority->HandlePush(env), "unknown client");
}

}  // namespace
}  // namespace rindle::sim
