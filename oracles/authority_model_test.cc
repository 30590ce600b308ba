// authority_model_test.cc — the authority model applies twins in processing order, burns failing
// mids without effect, and refuses out-of-order mids.
#include "oracles/authority_model.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

Schema TestSchema() {
  auto s = SchemaFromJson(json::parse(R"({"tables": {
    "counter": {"columns": [{"name": "id", "type": "string", "nullable": false},
                            {"name": "n", "type": "number", "nullable": false}],
                "primaryKey": ["id"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

std::map<std::string, Mutator> Twins() {
  std::map<std::string, Mutator> twins;
  twins["create"] = [](MutationTx& tx, const json& args) -> absl::Status {
    return tx.Insert("counter", json{{"id", args["id"]}, {"n", 0}});
  };
  twins["bump"] = [](MutationTx& tx, const json& args) -> absl::Status {
    auto row = tx.GetRow("counter", json{{"id", args["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no counter");
    const int64_t n = (**row)["n"].get<int64_t>();
    return tx.Update("counter", json{{"id", args["id"]}, {"n", n + 1}});
  };
  // Writes, then fails: nothing of it may apply.
  twins["half"] = [](MutationTx& tx, const json& args) -> absl::Status {
    absl::Status s = tx.Insert("counter", json{{"id", args["id"]}, {"n", 99}});
    if (!s.ok()) return s;
    return absl::AbortedError("threw after writing");
  };
  return twins;
}

int64_t CounterValue(const PlainStore& store, const std::string& id) {
  auto row = store.Get("counter", {Value::String(id)});
  EXPECT_TRUE(row.ok());
  if (!row.ok() || !row->has_value()) return -1;
  return (**row)[1].as_int();
}

TEST(AuthorityModelTest, AppliesTwinsInProcessingOrderAndBurnsFailures) {
  std::vector<Envelope> log = {
      {"c1", 1, "create", json{{"id", "a"}}},
      {"c2", 1, "create", json{{"id", "b"}}},
      {"c1", 2, "bump", json{{"id", "a"}}},
      {"c1", 3, "half", json{{"id", "z"}}},      // burnt: its insert must not survive
      {"c2", 2, "bump", json{{"id", "nope"}}},   // burnt: twin fails
      {"c2", 3, "unknownMutator", json::object()},  // burnt: no twin
      {"c1", 4, "bump", json{{"id", "a"}}},
  };
  ASSERT_TRUE(CheckMidOrder(log).ok());
  auto model = ReplayAuthority(PlainStore(TestSchema()), log, Twins());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(CounterValue(model->store(), "a"), 2);
  EXPECT_EQ(CounterValue(model->store(), "b"), 0);
  EXPECT_EQ(CounterValue(model->store(), "z"), -1);
  ASSERT_EQ(model->processed().size(), log.size());
  EXPECT_EQ(model->processed()[3].fate, EnvelopeFate::kBurnt);
  EXPECT_EQ(model->processed()[4].fate, EnvelopeFate::kBurnt);
  EXPECT_EQ(model->processed()[5].fate, EnvelopeFate::kBurnt);
  EXPECT_EQ(model->processed()[6].fate, EnvelopeFate::kApplied);
  EXPECT_EQ(model->lmids().at("c1"), 4);
  EXPECT_EQ(model->lmids().at("c2"), 3);
}

TEST(AuthorityModelTest, OutOfOrderMidsAreReportedAndNotApplied) {
  std::vector<Envelope> gap = {{"c1", 1, "create", json{{"id", "a"}}},
                               {"c1", 3, "bump", json{{"id", "a"}}}};
  absl::Status s = CheckMidOrder(gap);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("log[1]"), std::string::npos) << s;
  EXPECT_NE(s.message().find("\"c1\""), std::string::npos) << s;

  AuthorityModel model(PlainStore(TestSchema()), Twins());
  ASSERT_TRUE(model.Process(gap[0]).ok());
  EXPECT_FALSE(model.Process(gap[1]).ok());
  EXPECT_EQ(CounterValue(model.store(), "a"), 0);
  // A duplicate (already processed mid) is refused too.
  EXPECT_FALSE(model.Process(gap[0]).ok());
  EXPECT_FALSE(ReplayAuthority(PlainStore(TestSchema()), gap, Twins()).ok());
}

TEST(AuthorityModelTest, InitialLmidsStartTheSequence) {
  std::vector<Envelope> log = {{"c1", 5, "create", json{{"id", "a"}}}};
  EXPECT_FALSE(CheckMidOrder(log).ok());
  EXPECT_TRUE(CheckMidOrder(log, {{"c1", 4}}).ok());
  auto model = ReplayAuthority(PlainStore(TestSchema()), log, Twins(), {{"c1", 4}});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(CounterValue(model->store(), "a"), 0);
}

}  // namespace
}  // namespace rindle
