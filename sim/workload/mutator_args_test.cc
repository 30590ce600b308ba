// mutator_args_test.cc — the declared argument table of the workload mutators (mutators.h):
// it covers exactly the mutators there are, CheckMutatorArgs refuses a wrong type, a missing
// required arg, an unknown arg and a value outside an enum, naming the mutator and the arg, and
// the table agrees with the mutators' own parsing (what fits runs; a missing or mistyped
// required arg is refused by both).
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

// Accepts every write; every issue exists with priority low; queries find nothing.
class OpenTx : public MutationTx {
 public:
  absl::StatusOr<std::optional<RowValues>> Get(std::string_view, const RowValues&) override {
    return std::optional<RowValues>();
  }
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view, const KeyedRow& pk) override {
    KeyedRow row = pk;
    row["priority"] = "low";
    return std::optional<KeyedRow>(row);
  }
  // One child row (closeIssue throws on an issue without comments).
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast&) override {
    TreeNode n;
    n.row = MakeRow({Value::String("q1"), Value::String("x1"), Value::String("n"),
                     Value::String("b"), Value::Int(5)});
    return std::vector<TreeNode>{n};
  }
  absl::Status Add(std::string_view, const RowValues&) override { return absl::OkStatus(); }
  absl::Status Remove(std::string_view, const RowValues&) override { return absl::OkStatus(); }
  absl::Status Edit(std::string_view, const RowValues&, const RowValues&) override {
    return absl::OkStatus();
  }
  absl::Status Insert(std::string_view, const KeyedRow&) override { return absl::OkStatus(); }
  absl::Status Update(std::string_view, const KeyedRow&) override { return absl::OkStatus(); }
  absl::Status Upsert(std::string_view, const KeyedRow&) override { return absl::OkStatus(); }
  absl::Status InsertIgnore(std::string_view, const KeyedRow&) override {
    return absl::OkStatus();
  }
  absl::Status Delete(std::string_view, const KeyedRow&) override { return absl::OkStatus(); }
};

json Example(const MutatorArg& a) {
  switch (a.type) {
    case ArgType::kString: return "text";
    case ArgType::kId: return "x1";
    case ArgType::kInt: return 5;
    case ArgType::kBool: return true;
    case ArgType::kEnum: return a.values.front();
    case ArgType::kDescription: return {{"id", "c1"}, {"body", "b"}};
    case ArgType::kTags: return json::array({{{"id", "t1"}, {"name", "n"}}});
  }
  return nullptr;
}

// A value of the wrong JSON type for `a`.
json WrongType(const MutatorArg& a) {
  return a.type == ArgType::kInt || a.type == ArgType::kBool ? json("text") : json(12345);
}

TEST(MutatorArgsTest, TableAgreesWithTheMutators) {
  for (const auto& mutators : {ClientMutators(), ServerMutators()}) {
    for (const MutatorSignature& sig : MutatorSignatures()) {
      const Mutator& m = mutators.at(sig.name);
      json full = json::object();
      for (const MutatorArg& a : sig.args) full[a.name] = Example(a);
      ASSERT_FALSE(CheckMutatorArgs(sig.name, full)) << sig.name;
      OpenTx tx;
      EXPECT_TRUE(m(tx, full).ok()) << sig.name << " " << full.dump() << ": " << m(tx, full);
      for (const MutatorArg& a : sig.args) {
        json edited = full;
        edited.erase(a.name);
        EXPECT_EQ(CheckMutatorArgs(sig.name, edited).has_value(), a.required)
            << sig.name << " without " << a.name;
        EXPECT_EQ(m(tx, edited).ok(), !a.required) << sig.name << " without " << a.name;
        edited[a.name] = WrongType(a);
        EXPECT_TRUE(CheckMutatorArgs(sig.name, edited)) << sig.name << " " << a.name;
        const absl::Status st = m(tx, edited);
        EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument)
            << sig.name << " " << edited.dump() << ": " << st;
      }
    }
  }
}

}  // namespace
}  // namespace rindle::sim
