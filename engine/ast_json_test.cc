// ast_json_test.cc — malformed `related` / `correlatedSubquery` JSON gets a clear error naming
// the `$.` path into the AST (issue 3): missing correlation, mismatched or empty field lists,
// unknown correlation columns on either side, unknown child tables, a bad EXISTS op, a missing
// subquery or alias, a correlated subquery where a row-local predicate is required — at the
// root, inside and/or trees and nested subqueries. Also ties the cases to the real engine's
// probes (fixtures/rindle-wasm/errors.json): what it threw on, we reject too.
#include "engine/ast_json.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

json ReadFixture(const std::string& rel) {
  std::ifstream in(std::string(RINDLE_FIXTURES_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
}

class AstErrorTest : public ::testing::Test {
 protected:
  AstErrorTest() {
    auto s = SchemaFromJson(ReadFixture("app/app-schema.json"), "app-schema.json");
    EXPECT_TRUE(s.ok()) << s.status();
    if (s.ok()) schema_ = *s;
  }

  TableLookup Lookup() const {
    return [this](std::string_view t) -> const TableSpec* {
      auto it = schema_.find(std::string(t));
      return it == schema_.end() ? nullptr : &it->second;
    };
  }

  // The error of parsing then validating `text`; "" when it is accepted.
  std::string Error(const std::string& text) const {
    auto ast = ParseAstText(text);
    if (!ast.ok()) return std::string(ast.status().message());
    absl::Status s = ValidateAst(*ast, Lookup());
    return s.ok() ? "" : std::string(s.message());
  }

  Schema schema_;
};

// `{"table":"issue","related":[<rel>]}`
std::string Related(const std::string& rel) {
  return R"({"table":"issue","related":[)" + rel + "]}";
}
// `{"table":"issue","where":<cond>}`
std::string Where(const std::string& cond) { return R"({"table":"issue","where":)" + cond + "}"; }
std::string Exists(const std::string& related, const std::string& op = "EXISTS") {
  return R"({"type":"correlatedSubquery","op":")" + op + R"(","related":)" + related + "}";
}
constexpr char kComments[] = R"({"table":"comment","alias":"comments"})";
std::string Corr(const std::string& parent, const std::string& child) {
  return R"({"parentField":)" + parent + R"(,"childField":)" + child + "}";
}
std::string Rel(const std::string& corr, const std::string& sub = kComments) {
  return R"({"correlation":)" + corr + R"(,"subquery":)" + sub + "}";
}
const std::string kGoodCorr = Corr(R"(["id"])", R"(["issueId"])");
constexpr char kSimple[] =
    R"({"type":"simple","op":"=","left":{"type":"column","name":"status"},"right":{"type":"literal","value":"todo"}})";

bool Has(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

TEST_F(AstErrorTest, WellFormedRelatedAndExistsAreAccepted) {
  EXPECT_EQ(Error(Related(Rel(kGoodCorr))), "");
  EXPECT_EQ(Error(Where(Exists(Rel(kGoodCorr)))), "");
  EXPECT_EQ(Error(Where(Exists(Rel(kGoodCorr), "NOT EXISTS"))), "");
}

TEST_F(AstErrorTest, MissingCorrelation) {
  std::string e = Error(Related(R"({"subquery":{"table":"comment","alias":"c"}})"));
  EXPECT_TRUE(Has(e, "$.related[0].correlation: missing correlation")) << e;
  e = Error(Where(Exists(R"({"subquery":{"table":"comment"}})")));
  EXPECT_TRUE(Has(e, "$.where.related.correlation: missing correlation")) << e;
  e = Error(Related(Rel(R"({"parentField":["id"]})")));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.childField: missing")) << e;
  e = Error(Related(Rel(R"({"childField":["issueId"]})")));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.parentField: missing")) << e;
  e = Error(Related(Rel(R"("id")")));
  EXPECT_TRUE(Has(e, "$.related[0].correlation: missing correlation")) << e;
}

TEST_F(AstErrorTest, MismatchedOrEmptyFieldCounts) {
  std::string e = Error(Related(Rel(Corr(R"(["id","title"])", R"(["issueId"])"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation: parentField has 2 columns but childField has 1"))
      << e;
  e = Error(Where(R"({"type":"and","conditions":[)" + std::string(kSimple) + "," +
                  Exists(Rel(Corr(R"(["id"])", R"(["issueId","authorId"])"))) + "]}"));
  EXPECT_TRUE(Has(e, "$.where.conditions[1].related.correlation: parentField has 1 columns but "
                     "childField has 2"))
      << e;
  e = Error(Related(Rel(Corr("[]", "[]"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.parentField: expected at least one column")) << e;
  e = Error(Related(Rel(Corr(R"(["id"])", R"([7])"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.childField[0]: expected a column name")) << e;
}

TEST_F(AstErrorTest, UnknownCorrelationColumnOnEitherSide) {
  std::string e = Error(Related(Rel(Corr(R"(["zzz"])", R"(["issueId"])"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.parentField[0]: unknown column \"zzz\" in table "
                     "\"issue\" (columns: id, title"))
      << e;
  e = Error(Related(Rel(Corr(R"(["id"])", R"(["zzz"])"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation.childField[0]: unknown column \"zzz\" in table "
                     "\"comment\" (columns: id, issueId"))
      << e;
  e = Error(Where(Exists(Rel(Corr(R"(["nope"])", R"(["issueId"])")))));
  EXPECT_TRUE(Has(e, "$.where.related.correlation.parentField[0]: unknown column \"nope\""))
      << e;
  e = Error(Where(Exists(Rel(Corr(R"(["id"])", R"(["nope"])")))));
  EXPECT_TRUE(Has(e, "$.where.related.correlation.childField[0]: unknown column \"nope\"")) << e;
  // Nested: a related level inside a related subquery.
  const std::string inner = R"({"table":"comment","alias":"comments","related":[)" +
                            Rel(Corr(R"(["authorId"])", R"(["zzz"])"),
                                R"({"table":"user","alias":"author"})") +
                            "]}";
  e = Error(Related(Rel(kGoodCorr, inner)));
  EXPECT_TRUE(Has(e, "$.related[0].subquery.related[0].correlation.childField[0]: unknown "
                     "column \"zzz\" in table \"user\""))
      << e;
}

TEST_F(AstErrorTest, CorrelationTypesMustMatch) {
  std::string e = Error(Related(Rel(Corr(R"(["createdAt"])", R"(["issueId"])"))));
  EXPECT_TRUE(Has(e, "$.related[0].correlation: parentField \"createdAt\" (number) and "
                     "childField \"issueId\" (string) differ in type"))
      << e;
  e = Error(Where(Exists(Rel(Corr(R"(["createdAt"])", R"(["issueId"])")))));
  EXPECT_TRUE(Has(e, "$.where.related.correlation: parentField \"createdAt\" (number)")) << e;
}

TEST_F(AstErrorTest, UnknownChildTable) {
  std::string e = Error(Related(Rel(kGoodCorr, R"({"table":"nope","alias":"n"})")));
  EXPECT_TRUE(Has(e, "$.related[0].subquery.table: unknown table \"nope\"")) << e;
  e = Error(Where(R"({"type":"or","conditions":[)" + std::string(kSimple) + "," +
                  Exists(Rel(kGoodCorr, R"({"table":"nope"})")) + "]}"));
  EXPECT_TRUE(Has(e, "$.where.conditions[1].related.subquery.table: unknown table \"nope\""))
      << e;
}

TEST_F(AstErrorTest, BadOrMissingExistsOp) {
  std::string e = Error(Where(Exists(Rel(kGoodCorr), "IN")));
  EXPECT_TRUE(Has(e, "$.where.op: expected \"EXISTS\" or \"NOT EXISTS\", got \"IN\"")) << e;
  e = Error(Where(Exists(Rel(kGoodCorr), "exists")));
  EXPECT_TRUE(Has(e, "$.where.op: expected \"EXISTS\" or \"NOT EXISTS\", got \"exists\"")) << e;
  e = Error(Where(R"({"type":"correlatedSubquery","related":)" + Rel(kGoodCorr) + "}"));
  EXPECT_TRUE(Has(e, "$.where.op: expected \"EXISTS\" or \"NOT EXISTS\"")) << e;
  e = Error(Where(R"({"type":"correlatedSubquery","op":"EXISTS","related":)" + Rel(kGoodCorr) +
                  R"(,"flip":"yes"})"));
  EXPECT_TRUE(Has(e, "$.where.flip: expected a boolean")) << e;
}

TEST_F(AstErrorTest, MissingSubqueryOrRelated) {
  std::string e = Error(Related(R"({"correlation":)" + kGoodCorr + "}"));
  EXPECT_TRUE(Has(e, "$.related[0].subquery: missing subquery")) << e;
  e = Error(Where(Exists(R"({"correlation":)" + kGoodCorr + "}")));
  EXPECT_TRUE(Has(e, "$.where.related.subquery: missing subquery")) << e;
  e = Error(Related(Rel(kGoodCorr, R"("comment")")));
  EXPECT_TRUE(Has(e, "$.related[0].subquery: expected a query object")) << e;
  e = Error(Where(R"({"type":"correlatedSubquery","op":"EXISTS"})"));
  EXPECT_TRUE(Has(e, "$.where.related: missing")) << e;
  e = Error(Related(Rel(kGoodCorr, R"({"table":"comment"})")));
  EXPECT_TRUE(Has(e, "$.related[0].subquery.alias: a related subquery needs an alias")) << e;
  e = Error(Where(Exists(R"({"correlation":)" + kGoodCorr +
                         R"(,"subquery":{"table":"comment"},"hidden":true})")));
  EXPECT_TRUE(Has(e, "$.where.related: unknown key \"hidden\"")) << e;
}

TEST_F(AstErrorTest, ACorrelatedSubqueryIsRejectedWhereARowLocalPredicateIsRequired) {
  const TableSpec& issue = schema_.at("issue");
  auto parse = [](const std::string& text) {
    auto c = ParseCondition(json::parse(text), "$.predicate");
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : Condition{};
  };
  EXPECT_TRUE(ValidateRowLocalCondition(parse(kSimple), "issue", issue, "$.predicate").ok());
  absl::Status s = ValidateRowLocalCondition(
      parse(R"({"type":"or","conditions":[)" + std::string(kSimple) + "," +
            Exists(Rel(kGoodCorr)) + "]}"),
      "issue", issue, "$.predicate");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(std::string(s.message()),
                  "$.predicate.conditions[1]: a correlated subquery (EXISTS / NOT EXISTS) is "
                  "not allowed in a row-local predicate"))
      << s;
  s = ValidateRowLocalCondition(parse(Exists(Rel(kGoodCorr), "NOT EXISTS")), "issue", issue,
                                "$.predicate");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(std::string(s.message()), "$.predicate: a correlated subquery")) << s;
  // A row-local predicate still gets the ordinary column checks.
  s = ValidateRowLocalCondition(
      parse(R"({"type":"simple","op":"=","left":{"type":"column","name":"zzz"},"right":{"type":"literal","value":1}})"),
      "issue", issue, "$.predicate");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(std::string(s.message()), "$.predicate.left.name: unknown column \"zzz\"")) << s;
}

// The real engine threw on these probes (fixtures/rindle-wasm/errors.json); each has its
// equivalent AST here, which we reject with a path.
TEST_F(AstErrorTest, RejectsWhatTheRealEngineThrewOn) {
  const json errors = ReadFixture("rindle-wasm/errors.json");
  ASSERT_TRUE(errors.is_object()) << "fixtures/rindle-wasm/errors.json unreadable";
  const std::vector<std::pair<std::string, std::string>> probes = {
      {"query: unknown correlation column", Related(Rel(Corr(R"(["zzz"])", R"(["issueId"])")))},
      {"query: correlation arity mismatch",
       Related(Rel(Corr(R"(["id","title"])", R"(["issueId"])")))},
      {"query: related without alias", Related(Rel(kGoodCorr, R"({"table":"comment"})"))},
      {"query: EXISTS over unknown table", Where(Exists(Rel(kGoodCorr, R"({"table":"nope"})")))},
  };
  for (const auto& [name, ast] : probes) {
    const json* probe = nullptr;
    for (const json& p : errors["probes"]) {
      if (p.value("name", "") == name) probe = &p;
    }
    ASSERT_NE(probe, nullptr) << "probe \"" << name << "\" not in errors.json";
    EXPECT_EQ(probe->value("outcome", ""), "throws") << name;
    const std::string e = Error(ast);
    EXPECT_TRUE(Has(e, "$.")) << name << ": " << e;
  }
}

}  // namespace
}  // namespace rindle
