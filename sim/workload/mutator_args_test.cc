// mutator_args_test.cc — the declared argument table of the workload mutators (mutators.h):
// it covers exactly the mutators there are, and CheckMutatorArgs refuses a wrong type, a missing
// required arg, an unknown arg and a value outside an enum, naming the mutator and the arg.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/workload/mutators.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

TEST(MutatorArgsTest, TableCoversEveryMutator) {
  std::vector<std::string> names;
  for (const MutatorSignature& s : MutatorSignatures()) names.push_back(s.name);
  EXPECT_EQ(names, WorkloadMutatorNames());
  EXPECT_EQ(FindMutatorSignature("noSuchMutator"), nullptr);
}

TEST(MutatorArgsTest, AcceptsWellFormedArgs) {
  EXPECT_FALSE(CheckMutatorArgs("setPriority", {{"id", "i1"}, {"priority", "low"},
                                                {"updatedAt", 5}}));
  // An optional arg may be absent or null.
  EXPECT_FALSE(CheckMutatorArgs("setOwner", {{"id", "i1"}, {"ownerId", "u1"}, {"updatedAt", 5}}));
  EXPECT_FALSE(CheckMutatorArgs("setOwner", {{"id", "i1"}, {"ownerId", "u1"},
                                             {"ownerName", nullptr}, {"updatedAt", 5}}));
  EXPECT_FALSE(CheckMutatorArgs(
      "createIssue", {{"id", "i1"}, {"title", " "}, {"status", "todo"}, {"priority", "high"},
                      {"ownerId", "u1"}, {"ownerName", "Al"}, {"createdAt", 0},
                      {"description", {{"id", "c1"}, {"body", ""}}},
                      {"tags", json::array({{{"id", "t1"}, {"name", "bug"}}})}}));
}

TEST(MutatorArgsTest, RefusesEachKindOfBadArg) {
  auto problem = [](const std::string& mutator, const json& args) {
    std::optional<ArgProblem> p = CheckMutatorArgs(mutator, args);
    EXPECT_TRUE(p.has_value()) << mutator << " " << args.dump();
    return p.value_or(ArgProblem{});
  };
  // A typo: the real arg is missing.
  ArgProblem p = problem("setPriority", {{"id", "i1"}, {"prority", "low"}, {"updatedAt", 5}});
  EXPECT_EQ(p.arg, "priority");
  EXPECT_NE(p.expected.find("setPriority"), std::string::npos) << p.expected;
  EXPECT_NE(p.expected.find("missing"), std::string::npos) << p.expected;
  // Unknown arg (everything required present).
  p = problem("removeTag", {{"id", "t1"}, {"force", true}});
  EXPECT_EQ(p.arg, "force");
  EXPECT_NE(p.expected.find("removeTag takes id"), std::string::npos) << p.expected;
  // Wrong JSON type.
  p = problem("editTitle", {{"id", "i1"}, {"title", 7}, {"updatedAt", 5}});
  EXPECT_EQ(p.arg, "title");
  EXPECT_EQ(p.got, json(7));
  p = problem("editTitle", {{"id", "i1"}, {"title", "x"}, {"updatedAt", 6.9}});
  EXPECT_EQ(p.arg, "updatedAt");
  p = problem("deleteIssue", {{"id", ""}});
  EXPECT_EQ(p.arg, "id");
  // An enum keeps to its values.
  p = problem("setPriority", {{"id", "i1"}, {"priority", "l"}, {"updatedAt", 5}});
  EXPECT_EQ(p.arg, "priority");
  EXPECT_NE(p.expected.find("one of low, medium, high, urgent"), std::string::npos) << p.expected;
  p = problem("setStatus", {{"id", "i1"}, {"status", "closed"}, {"updatedAt", 5}});
  EXPECT_EQ(p.arg, "status");
  // Nested shapes.
  p = problem("createIssue", {{"id", "i1"}, {"title", "t"}, {"status", "todo"},
                              {"priority", "high"}, {"ownerId", "u1"}, {"ownerName", "Al"},
                              {"createdAt", 0}, {"tags", json::array({{{"id", "t1"}}})}});
  EXPECT_EQ(p.arg, "tags");
  // Not an object; an unknown mutator.
  p = problem("removeTag", json::array());
  EXPECT_EQ(p.arg, "");
  p = problem("removeTagg", json::object());
  EXPECT_NE(p.expected.find("workload mutator"), std::string::npos);
}

}  // namespace
}  // namespace rindle::sim
