// authority_model.cc — authority-model (families.h; SPEC §4, seed 002 §1.3): at quiescence the
// authority's processed log, replayed sequentially by the naive AuthorityModel over the
// scenario's seed rows with the server twins, gives every envelope the fate the authority gave
// it, and ends in the authority's store. Two phases of the one family: the replay runs before
// the ledger oracle (gapless_mids.cc), the store comparison after it; the replayed store passes
// from the first to the second.
#include <optional>

#include "base/check.h"
#include "base/str_util.h"
#include "oracles/authority_model.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class AuthorityReplay : public PropertyFamily {
 public:
  MaybeViolation AtQuiescence(const World& w) override {
    PlainStore initial(*w.schema);
    for (const auto& [table, rows] : *w.seed_rows) {
      for (const auto& r : rows) {
        if (auto s = initial.Add(table, r); !s.ok()) {
          return Violation{"authority-model", StrCat("seed rejected: ", s.message())};
        }
      }
    }
    AuthorityModel model(std::move(initial), *w.server_mutators);
    const AuthorityView& a = *w.authority;
    for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
      const ProcessedRef e = a.processed(i);
      auto fate = model.Process({std::string(e.client_id), e.mid, std::string(e.name), *e.args});
      if (!fate.ok()) {
        return Violation{"authority-model",
                         StrCat(e.client_id, " mid ", e.mid, ": ", fate.status().message())};
      }
      const bool applied = *fate == EnvelopeFate::kApplied;
      if (applied != e.applied) {
        return Violation{"authority-model",
                         StrCat(e.client_id, " mid ", e.mid, " (", e.name, "): the model ",
                                applied ? "applied" : "burnt", " it, the authority ",
                                e.applied ? "applied" : "burnt", " it")};
      }
    }
    replayed_ = PlainTablesToJson(model.store().tables());
    return std::nullopt;
  }

  const std::optional<nlohmann::json>& replayed() const { return replayed_; }

 private:
  std::optional<nlohmann::json> replayed_;  // the model's store, once the replay agreed
};

class AuthorityStore : public PropertyFamily {
 public:
  explicit AuthorityStore(const AuthorityReplay* replay) : replay_(replay) {}

  MaybeViolation AtQuiescence(const World& w) override {
    RINDLE_CHECK(replay_->replayed().has_value());  // the replay phase ran and agreed
    const nlohmann::json actual =
        PlainTablesToJson(PlainTablesOf(w.authority->store(), *w.schema, false));
    if (*replay_->replayed() != actual) {
      return Violation{"authority-model", "authority store differs from the sequential model"};
    }
    return std::nullopt;
  }

 private:
  const AuthorityReplay* replay_;
};

}  // namespace

AuthorityModelFamilies MakeAuthorityModel() {
  auto replay = std::make_unique<AuthorityReplay>();
  auto store = std::make_unique<AuthorityStore>(replay.get());
  return {std::move(replay), std::move(store)};
}

}  // namespace rindle::props
