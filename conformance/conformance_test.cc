// conformance_test.cc — the conformance suites, one test per case:
//   RindleWasm/*  every fixtures/rindle-wasm case (recorded by @rindle/wasm@0.9.0) must match
//                 after hydration and after every txn (case_check.h);
//   ZqlDiff/*     every ../shared/fixtures/zql-diff case (recorded by Zero's JS engine; never
//                 copied into the project) — skipped, naming the folder, when it is absent.
// Plus the harness's own tests: a corrupted recorded value fails at the right step with a
// readable diff, a requery listed in checks.mismatches overrides the incremental data, and
// malformed case files give errors naming the file and field.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/case_check.h"
#include "conformance/json_file.h"
#include "conformance/peer_case.h"
#include "conformance/zql_diff_case.h"
#include "gtest/gtest.h"

namespace rindle::conformance {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kRindleWasmDir = fs::path(RINDLE_FIXTURES_DIR) / "rindle-wasm";
const fs::path kZqlDiffDir = fs::path(RINDLE_SHARED_DIR) / "fixtures" / "zql-diff";
constexpr char kZqlDiffAbsent[] = "zql_diff_folder_absent";

std::vector<std::string> RindleWasmCases() {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(kRindleWasmDir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("case-", 0) == 0 && name.find(".expected.") == std::string::npos) {
      out.push_back(it->path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ZqlDiffCases() {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(kZqlDiffDir, ec)) return {kZqlDiffAbsent};
  for (fs::directory_iterator it(kZqlDiffDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") out.push_back(it->path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

std::string CasePath(const std::string& stem) { return (kRindleWasmDir / (stem + ".json")).string(); }

// ---------------------------------------------------------------------------------------------

class RindleWasm : public ::testing::TestWithParam<std::string> {};

TEST_P(RindleWasm, MatchesTheRealEngineAfterHydrationAndEveryTxn) {
  const std::string path = CasePath(GetParam());
  absl::StatusOr<PeerCase> c = LoadPeerCase(path);
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<PeerExpected> e = LoadPeerExpected(ExpectedPathFor(path), *c);
  ASSERT_TRUE(e.ok()) << e.status();
  CaseResult r = CheckPeerCase(*c, *e);
  EXPECT_TRUE(r.ok) << c->name << " (" << c->extra.value("query", json::object()).value("name", "")
                    << ") step=" << r.step << "\n" << r.detail;
  if (r.ok) {
    EXPECT_EQ(r.steps_checked, static_cast<int>(c->txns.size()) + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RindleWasm, ::testing::ValuesIn(RindleWasmCases()), TestName);

TEST(RindleWasmFixtures, AllFortyCasesArePresent) { EXPECT_EQ(RindleWasmCases().size(), 40u); }

class ZqlDiff : public ::testing::TestWithParam<std::string> {};

TEST_P(ZqlDiff, MatchesZeroJsEngineData) {
  if (GetParam() == kZqlDiffAbsent) {
    GTEST_SKIP() << "the zql-diff fixtures folder " << kZqlDiffDir.string()
                 << " is absent (it lives in ../shared and is never copied into the project)";
  }
  absl::StatusOr<ZqlDiffCase> c = LoadZqlDiffCase((kZqlDiffDir / (GetParam() + ".json")).string());
  ASSERT_TRUE(c.ok()) << c.status();
  CaseResult r = CheckZqlDiffCase(*c);
  EXPECT_TRUE(r.ok) << c->name << " step=" << r.step << "\n" << r.detail;
  if (r.ok) {
    EXPECT_EQ(r.steps_checked, static_cast<int>(c->pushes.size()) + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ZqlDiff, ::testing::ValuesIn(ZqlDiffCases()), TestName);

TEST(ZqlDiffFixtures, AllTwentySixCasesArePresentWhenTheFolderIs) {
  if (!fs::is_directory(kZqlDiffDir)) GTEST_SKIP() << kZqlDiffDir.string() << " is absent";
  EXPECT_EQ(ZqlDiffCases().size(), 26u);
}

// ---------------------------------------------------------------------------------------------
// The harness itself, on single-table cases our engine runs today.

// A single-table fixture whose query and txns change the result (tagOptions).
constexpr char kSingleTable[] = "case-0015";

struct Loaded {
  PeerCase c;
  json expected;
};

Loaded LoadSingleTable() {
  Loaded l;
  absl::StatusOr<PeerCase> c = LoadPeerCase(CasePath(kSingleTable));
  EXPECT_TRUE(c.ok()) << c.status();
  if (c.ok()) l.c = *c;
  absl::StatusOr<json> e = ReadJsonFile(ExpectedPathFor(CasePath(kSingleTable)));
  EXPECT_TRUE(e.ok()) << e.status();
  if (e.ok()) l.expected = *e;
  return l;
}

CaseResult Check(const Loaded& l, const json& expected) {
  absl::StatusOr<PeerExpected> e = ParsePeerExpected(expected, "corrupted.expected.json", l.c);
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return CaseResult{};
  return CheckPeerCase(l.c, *e);
}

TEST(CaseCheckTest, TheSingleTableFixturePassesUnchanged) {
  Loaded l = LoadSingleTable();
  CaseResult r = Check(l, l.expected);
  EXPECT_TRUE(r.ok) << r.step << "\n" << r.detail;
  EXPECT_EQ(r.steps_checked, static_cast<int>(l.c.txns.size()) + 1);
}

TEST(CaseCheckTest, ACorruptedValueFailsAtItsStepWithADiff) {
  Loaded l = LoadSingleTable();
  ASSERT_GE(l.c.txns.size(), 3u);
  json bad = l.expected;
  json& data = bad["txns"][2]["data"];
  ASSERT_TRUE(data.is_array() && !data.empty());
  data[0]["name"] = "CORRUPTED";
  CaseResult r = Check(l, bad);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.step, "txn 2");
  EXPECT_NE(r.detail.find("$[0].name"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("CORRUPTED"), std::string::npos) << r.detail;

  json hydrate = l.expected;
  hydrate["hydrate"]["data"].erase(0);  // one row fewer
  r = Check(l, hydrate);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.step, "hydrate");
}

TEST(CaseCheckTest, ARequeryInMismatchesOverridesTheIncrementalData) {
  Loaded l = LoadSingleTable();
  json bad = l.expected;
  const json right = bad["txns"][1]["data"];
  bad["txns"][1]["data"][0]["name"] = "the real engine's wrong incremental value";
  // The requery presents only the selected columns (name), not the pk: drop "id".
  json requery = right;
  for (json& row : requery) row.erase("id");
  bad["checks"]["mismatches"] = json::array({{{"step", "txn"}, {"txn", 1}, {"requery", requery}}});
  CaseResult r = Check(l, bad);
  EXPECT_TRUE(r.ok) << r.step << "\n" << r.detail;

  // A wrong requery fails that step.
  requery[0]["name"] = "WRONG";
  bad["checks"]["mismatches"][0]["requery"] = requery;
  r = Check(l, bad);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.step, "txn 1");
  EXPECT_NE(r.detail.find("requery"), std::string::npos) << r.detail;
}

TEST(CaseCheckTest, ProjectOntoKeepsOnlyTheShapesKeys) {
  const json actual = json::parse(R"([{"a":1,"b":2,"kids":[{"x":1,"y":2}]},{"a":3,"b":4}])");
  const json shape = json::parse(R"([{"a":0,"kids":[{"x":0}]}])");
  EXPECT_EQ(ProjectOnto(actual, shape),
            json::parse(R"([{"a":1,"kids":[{"x":1}]},{"a":3,"b":4}])"));
  EXPECT_EQ(ProjectOnto(json(nullptr), json::object()), json(nullptr));
}

TEST(CaseCheckTest, AnEngineErrorFailsTheStepNamingIt) {
  Loaded l = LoadSingleTable();
  // A txn removing a row that is not there: our engine rejects it (the real one did not).
  RowOp op = l.c.txns[0][0];
  op.kind = RowOp::Kind::kRemove;
  op.row[0] = Value::String("no-such-tag");
  l.c.txns[0] = {op};
  CaseResult r = Check(l, l.expected);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.step, "txn 0");
  EXPECT_NE(r.detail.find("engine error: op 0 (remove " + op.table + "): "), std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("no-such-tag"), std::string::npos) << r.detail;
}

// ---------------------------------------------------------------------------------------------
// Malformed inputs name the file and the field.

json SingleTableInput() {
  absl::StatusOr<json> j = ReadJsonFile(CasePath(kSingleTable));
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? *j : json();
}

std::string ParseError(const json& j) {
  absl::StatusOr<PeerCase> c = ParsePeerCase(j, "x.json");
  EXPECT_FALSE(c.ok());
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(PeerCaseTest, MalformedInputsNameTheFileAndField) {
  json j = SingleTableInput();
  j["format"] = "rindle-peer-case/2";
  EXPECT_NE(ParseError(j).find("x.json: $.format: expected \"rindle-peer-case/1\""),
            std::string::npos);
  j = SingleTableInput();
  j["rows"]["tag"][0]["colour"] = "red";
  EXPECT_NE(ParseError(j).find("x.json: $.rows.tag[0]: unknown column \"colour\""),
            std::string::npos)
      << ParseError(j);
  j = SingleTableInput();
  j["txns"][1][0]["op"] = "upsert";
  EXPECT_NE(ParseError(j).find("$.txns[1][0].op: expected \"add\", \"remove\" or \"edit\""),
            std::string::npos)
      << ParseError(j);
  j = SingleTableInput();
  j["txns"][0][0]["table"] = "nope";
  EXPECT_NE(ParseError(j).find("$.txns[0][0].table: expected one of the schema's tables"),
            std::string::npos)
      << ParseError(j);
  j = SingleTableInput();
  j["ast"]["limit"] = -1;
  EXPECT_NE(ParseError(j).find("x.json: $.ast.limit"), std::string::npos) << ParseError(j);
  j = SingleTableInput();
  j.erase("txns");
  EXPECT_NE(ParseError(j).find("$.txns: expected an array"), std::string::npos);
}

TEST(PeerCaseTest, ExpectedFileMustMatchItsInput) {
  Loaded l = LoadSingleTable();
  json e = l.expected;
  e["txns"].erase(0);
  absl::StatusOr<PeerExpected> p = ParsePeerExpected(e, "y.expected.json", l.c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("y.expected.json: $.txns: expected "), std::string::npos)
      << p.status();
  e = l.expected;
  e["checks"]["mismatches"] = json::array({{{"step", "txn"}, {"txn", 999}, {"requery", 1}}});
  p = ParsePeerExpected(e, "y.expected.json", l.c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("$.checks.mismatches[0].txn"), std::string::npos);
}

TEST(PeerCaseTest, RoundTripsThroughJson) {
  Loaded l = LoadSingleTable();
  absl::StatusOr<PeerCase> again = ParsePeerCase(PeerCaseToJson(l.c), "again.json");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PeerCaseToJson(*again), PeerCaseToJson(l.c));
  EXPECT_EQ(ExpectedPathFor("d/case-0007.json"), "d/case-0007.expected.json");
}

TEST(ZqlDiffCaseTest, MalformedCasesNameTheField) {
  const json base = json::parse(R"({"kind":"push","input":{
      "sources":{"t":{"columns":{"id":{"type":"number"}},"primaryKeys":["id"]}},
      "sourceContents":{"t":[{"id":1}]},"ast":{"table":"t"},
      "pushes":[["t",{"type":"add","row":{"id":2}}]]},"expected":{"data":[{"id":1},{"id":2}]}})");
  absl::StatusOr<ZqlDiffCase> ok = ParseZqlDiffCase(base, "z.json");
  ASSERT_TRUE(ok.ok()) << ok.status();
  CaseResult r = CheckZqlDiffCase(*ok);
  EXPECT_TRUE(r.ok) << r.step << r.detail;
  EXPECT_EQ(r.steps_checked, 2);

  json bad = base;
  bad["expected"]["data"][1]["id"] = 3;
  r = CheckZqlDiffCase(*ParseZqlDiffCase(bad, "z.json"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.step, "push 0");

  bad = base;
  bad["input"]["pushes"][0][0] = "nope";
  auto e = ParseZqlDiffCase(bad, "z.json");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("z.json: $.input.pushes[0][0]"), std::string::npos);
  bad = base;
  bad["input"]["pushes"][0][1]["type"] = "child";
  e = ParseZqlDiffCase(bad, "z.json");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("$.input.pushes[0][1].type"), std::string::npos);
  bad = base;
  bad["kind"] = "pull";
  e = ParseZqlDiffCase(bad, "z.json");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("$.kind"), std::string::npos);
}

}  // namespace
}  // namespace rindle::conformance
