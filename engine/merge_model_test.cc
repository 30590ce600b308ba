// merge_model_test.cc — seeded random sequences of merge operations (room add/remove, per-source
// batches, hold-backs, tombstones, drops, freezes) against a naive in-test model: per-source
// maps, the winner found by brute force over the tiers, hold-backs as plain maps, and the set of
// pks whose install has not been shown yet (installs change only the confirmed layer; the next
// rewind shows it). After every step: the live view folded from the delivered events == the
// pipeline's materialization == the model's visible rows; ProvenanceOf, HeldBackState and
// SourceRows agree with the model; a call the model says fails fails and changes nothing.
// (The campaign's oracles/ model is the independent one; this is the engine's own check.)
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/rng.h"
#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "engine/testing/merge_fixture.h"

namespace rindle {
namespace {

using merge_fixture::TSpec;

using MRow = std::optional<RowValues>;  // nullopt = absent / tombstone
struct MSource {
  std::map<std::string, RowValues> base;
  std::map<std::string, MRow> held;
  bool frozen = false;
  int scope = 0;  // 0 all, 1 none, 2 colEq(owner == "x"); daemon: unused
  MRow Eff(const std::string& pk) const {
    if (auto h = held.find(pk); h != held.end()) return h->second;
    if (auto b = base.find(pk); b != base.end()) return b->second;
    return std::nullopt;
  }
  bool Covers(const RowValues& r) const {
    return scope == 0 || (scope == 2 && r[2].is_string() && r[2].as_string() == "x");
  }
};

struct Model {
  bool merged = false;
  std::map<std::string, MSource> src{{"daemon", {}}};
  std::map<std::string, RowValues> visible;
  std::set<std::string> unshown;  // pks whose confirmed row changed without reaching head

  std::pair<std::string, MRow> Win(const std::string& pk) const {
    for (int tier = 1; tier <= 4; ++tier) {
      for (const auto& [key, s] : src) {
        MRow r = s.Eff(pk);
        if (!r) continue;
        const bool d = key == "daemon";
        if ((tier == 1 && s.frozen) || (tier == 2 && !d && s.Covers(*r)) || (tier == 3 && d) ||
            tier == 4) {
          return {key, r};
        }
      }
    }
    return {"", std::nullopt};
  }
  void Show(const std::string& pk) {
    MRow w = Win(pk).second;
    if (w) {
      visible[pk] = *w;
    } else {
      visible.erase(pk);
    }
  }
  // A delivering change at pk (drop, freeze, remove room).
  void Deliver(const std::string& pk) {
    if (!unshown.contains(pk)) Show(pk);
  }
  // An install at pk: only the confirmed layer moves.
  void Install(const std::string& pk) {
    MRow w = Win(pk).second;
    auto v = visible.find(pk);
    const bool same = w ? (v != visible.end() && v->second == *w) : v == visible.end();
    if (!same) unshown.insert(pk);
  }
  void Rewind() {
    unshown.clear();
    for (int i = 0; i < 6; ++i) Show(absl::StrCat("p", i));
  }
};

class MergeModelRun {
 public:
  explicit MergeModelRun(uint64_t seed) : rng_(seed) {
    RINDLE_CHECK(db_.RegisterTable("t", TSpec(), false).ok());
    auto ast = ParseAstText(R"({"table":"t","orderBy":[["v","desc"]],"limit":4})");
    auto all = ParseAstText(R"({"table":"t","orderBy":[["id","asc"]]})");
    for (int q = 0; q < 2; ++q) {
      auto snap = db_.RegisterQuery(q, q == 0 ? *all : *ast);
      RINDLE_CHECK(snap.ok());
      views_.emplace(q, ResultView(snap->shape));
      RINDLE_CHECK(views_.at(q).Apply(snap->events).ok());
    }
  }
  void Run(int steps) {
    for (int i = 0; i < steps && !::testing::Test::HasFailure(); ++i) {
      Step();
      Check(i);
    }
  }

 private:
  std::string Pk() { return absl::StrCat("p", rng_.Below(6)); }
  RowValues Row(const std::string& pk) {
    const int o = static_cast<int>(rng_.Below(3));
    return {Value::String(pk), Value::Int(rng_.Range(0, 3)),
            o == 2 ? Value::Null() : Value::String(o ? "x" : "y")};
  }
  std::string Source() {
    std::vector<std::string> keys;
    for (const auto& [k, s] : m_.src) keys.push_back(k);
    if (rng_.Chance(1, 10)) keys.push_back("room:doc:C");  // maybe unattached
    return rng_.Pick(keys);
  }
  void Fold(const absl::StatusOr<std::vector<QueryBatch>>& b) {
    ASSERT_TRUE(b.ok()) << b.status();
    for (const auto& qb : *b) ASSERT_TRUE(views_.at(qb.query_id).Apply(qb.events).ok());
  }
  void Step();
  void StepBatch(const std::string& s);
  void StepRoom();
  void StepHold(const std::string& s);
  void Check(int step);

  sim::Rng rng_;
  Db db_;
  Model m_;
  std::map<int64_t, ResultView> views_;
};

void MergeModelRun::StepRoom() {
  const std::string key = rng_.Chance(1, 2) ? "room:doc:A" : "room:doc:B";
  if (m_.src.contains(key) && rng_.Chance(1, 2)) {
    auto pks = m_.src.at(key).base;
    for (const auto& [pk, r] : m_.src.at(key).held) pks.emplace(pk, RowValues{});
    m_.src.erase(key);
    Fold(db_.RemoveRoomSource("t", key));
    for (const auto& [pk, r] : pks) m_.Deliver(pk);
    return;
  }
  WritableScope w;
  const int scope = static_cast<int>(rng_.Below(3));
  w.kind = scope == 0 ? WritableScope::Kind::kAll
                      : scope == 1 ? WritableScope::Kind::kNone : WritableScope::Kind::kColEq;
  w.col = 2;
  w.value = Value::String("x");
  absl::Status s = db_.AddRoomSource("t", key, w);
  if (m_.src.contains(key)) {
    EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
    return;
  }
  ASSERT_TRUE(s.ok()) << s;
  if (!m_.merged) {
    m_.merged = true;
  }
  m_.src[key].scope = scope;
}

void MergeModelRun::StepBatch(const std::string& s) {
  std::vector<ServerDeltaOp> ops;
  std::map<std::string, RowValues> base = m_.src.count(s) ? m_.src.at(s).base
                                                          : std::map<std::string, RowValues>();
  const int n = static_cast<int>(rng_.Range(0, 3));
  for (int i = 0; i < n; ++i) {
    const std::string pk = Pk();
    auto it = base.find(pk);
    if (it == base.end()) {
      ops.push_back({"t", ServerDeltaOp::Type::kAdd, Row(pk), {}});
      base[pk] = ops.back().row;
    } else if (rng_.Chance(1, 2)) {
      ops.push_back({"t", ServerDeltaOp::Type::kRemove, it->second, {}});
      base.erase(it);
    } else {
      ops.push_back({"t", ServerDeltaOp::Type::kEdit, Row(pk), it->second});
      base[pk] = ops.back().row;
    }
  }
  const bool attached = m_.src.contains(s) && (m_.merged || s == "daemon");
  const bool ok = attached && (ops.empty() || !m_.src.at(s).frozen);
  absl::Status st = db_.ServerBatchBegin(s, ops);
  ASSERT_EQ(st.ok(), ok) << s << " " << st;
  if (!ok) return;
  Fold(db_.ServerBatchEnd());
  MSource& src = m_.src.at(s);
  src.base = base;
  for (auto it = src.held.begin(); it != src.held.end();) {
    auto b = src.base.find(it->first);
    const bool caught = it->second ? (b != src.base.end() && b->second == *it->second)
                                   : b == src.base.end();
    it = caught ? src.held.erase(it) : std::next(it);
  }
  m_.Rewind();
}

void MergeModelRun::StepHold(const std::string& s) {
  const std::string pk = Pk();
  const bool attached = m_.merged && m_.src.contains(s);
  const int kind = static_cast<int>(rng_.Below(3));
  if (kind == 2) {  // drop
    Fold(db_.DropHeldBack("t", s, Row(pk)));
    if (attached && m_.src.at(s).held.erase(pk)) m_.Deliver(pk);
    return;
  }
  const RowValues row = Row(pk);
  absl::Status st = kind == 0 ? db_.HoldBack("t", s, row) : db_.HoldBackAbsent("t", s, row);
  ASSERT_EQ(st.ok(), attached) << st;
  if (!attached) return;
  m_.src.at(s).held[pk] = kind == 0 ? MRow(row) : MRow();
  m_.Install(pk);
}

void MergeModelRun::Step() {
  const uint64_t r = rng_.Below(20);
  if (r < 3) return StepRoom();
  if (r < 11) return StepBatch(Source());
  if (r < 19) return StepHold(Source());
  const std::string s = Source();
  const bool attached = m_.merged && m_.src.contains(s);
  auto b = db_.FreezeSource("t", s);
  ASSERT_EQ(b.ok(), attached) << b.status();
  if (!attached) return;
  Fold(b);
  if (!m_.src.at(s).frozen) {
    m_.src.at(s).frozen = true;
    for (int i = 0; i < 6; ++i) m_.Deliver(absl::StrCat("p", i));
  }
}

void MergeModelRun::Check(int step) {
  SCOPED_TRACE(::testing::Message() << "step " << step);
  for (auto& [qid, v] : views_) {
    auto r = db_.QueryResult(qid);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(v.RawJson(), TreeToJson(*r)) << "qid " << qid;
  }
  std::vector<RowValues> want;
  for (const auto& [pk, row] : m_.visible) want.push_back(row);
  ASSERT_EQ(*db_.TableRows("t"), want);
  for (int i = 0; i < 6; ++i) {
    const std::string pk = absl::StrCat("p", i);
    const RowValues probe = {Value::String(pk), Value::Int(0), Value::Null()};
    auto [who, row] = m_.Win(pk);
    auto p = db_.ProvenanceOf("t", probe);
    ASSERT_TRUE(p.ok());
    ASSERT_EQ(p->value_or(""), who) << pk;
    for (const auto& [key, s] : m_.src) {
      auto h = db_.HeldBackState("t", key, probe);
      ASSERT_TRUE(h.ok());
      auto it = s.held.find(pk);
      ASSERT_EQ(h->has_value(), it != s.held.end()) << key << " " << pk;
      if (!h->has_value()) continue;
      ASSERT_EQ((*h)->absent, !it->second.has_value());
      auto b = s.base.find(pk);
      ASSERT_EQ((*h)->baseline.has_value(), b != s.base.end());
    }
  }
  for (const auto& [key, s] : m_.src) {
    std::vector<RowValues> rows;
    for (const auto& [pk, row] : s.base) rows.push_back(row);
    ASSERT_EQ(*db_.SourceRows("t", key), rows) << key;
  }
}

TEST(MergeModelTest, RandomSequencesAgreeWithTheNaiveModel) {
  for (uint64_t seed = 1; seed <= 300 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    MergeModelRun(seed).Run(80);
  }
}

}  // namespace
}  // namespace rindle
