// gapless_mids.cc — gapless-mids (families.h; SPEC §3), every mid check in one place:
//   after every step, per dirty client: the ledger oracle learns every new send the network
//     carried (resends included, with their args: ClientState::carried) and the
//     confirmation watermark; the watermark never goes back; the mids sent are 1..n with no gap
//     and no reuse;
//   when the authority moved: it processed each client's mids in order, each once;
//   at quiescence: the ledger oracle, with every processed mid's fate, holds;
//   at action time: a (folded or failing) invoke deals mids only through the fold flushes it
//     caused.
// Holds state for one run: the ledger oracle, the highest mid fed to it and the last watermark
// per client.
#include <map>
#include <set>
#include <utility>

#include "base/source_key.h"
#include "base/str_util.h"
#include "oracles/ledger_oracle.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

const std::string& Domain() {
  static const std::string kDomain(kDaemonSource);
  return kDomain;
}

class GaplessMids : public PropertyFamily {
 public:
  MaybeViolation AfterStepClient(const World&, const ClientState& c, StepCounters*) override {
    // Every send the network carried, resends included: the oracle checks that a re-issued mid
    // repeats its name and args (a client without a carried record feeds its first sends).
    if (c.carried != nullptr) {
      size_t& fed = carried_fed_[c.id];
      for (; fed < c.carried->size(); ++fed) {
        const MutationEnvelope& e = (*c.carried)[fed];
        ledger_.Issue(c.id, Domain(), e.mid, e.name, e.args);
      }
    } else {
      int64_t& fed = ledger_fed_[c.id];
      for (auto it = c.sent->upper_bound(fed); it != c.sent->end(); ++it) {
        ledger_.Issue(c.id, Domain(), it->first, it->second.name, it->second.args);
        fed = it->first;
      }
    }
    const int64_t wm = c.backend->inspect().confirmed_lmid;
    ledger_.ObserveWatermark(c.id, Domain(), wm);
    int64_t& last = last_watermark_[c.id];
    if (wm < last) {
      return Violation{"gapless-mids",
                       StrCat(c.id, ": watermark went back from ", last, " to ", wm)};
    }
    last = wm;
    int64_t expect = 1;
    for (const auto& [mid, env] : *c.sent) {
      if (mid != expect) {
        return Violation{"gapless-mids",
                         StrCat(c.id, ": sent mids jump from ", expect - 1, " to ", mid)};
      }
      ++expect;
    }
    return std::nullopt;
  }

  MaybeViolation AfterStepAuthority(const World& w) override {
    std::map<std::string, int64_t, std::less<>> last_mid;
    const AuthorityView& a = *w.authority;
    for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
      const ProcessedRef e = a.processed(i);
      if (IsRoomSource(e.client_id)) continue;  // a room flush's seq, not a client's ledger
      auto it = last_mid.find(e.client_id);
      if (it == last_mid.end()) it = last_mid.emplace(std::string(e.client_id), 0).first;
      if (e.mid != it->second + 1) {
        return Violation{"gapless-mids", StrCat("authority processed ", e.client_id, " mid ",
                                                e.mid, " after ", it->second)};
      }
      it->second = e.mid;
    }
    return std::nullopt;
  }

  // Runs after the authority-model replay agreed on every fate (families.h order).
  MaybeViolation AtQuiescence(const World& w) override {
    const AuthorityView& a = *w.authority;
    // A mid an authority rollback forgot and nothing processed again (its client refused the
    // older ledger) keeps the fate it had: it was processed, and its confirmation was seen.
    std::set<std::pair<std::string, int64_t>> now;
    for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
      now.emplace(std::string(a.processed(i).client_id), a.processed(i).mid);
    }
    // Two rollbacks can forget one mid twice (applied, then re-processed and burnt, then
    // forgotten again): the latest record is the fate the client last saw (seed 309).
    std::map<std::pair<std::string, int64_t>, size_t> latest;
    for (size_t i = 0, n = a.forgotten_count(); i < n; ++i) {
      const ProcessedRef e = a.forgotten(i);
      latest[{std::string(e.client_id), e.mid}] = i;
    }
    for (const auto& [key, i] : latest) {
      if (now.contains(key) || IsRoomSource(key.first)) continue;  // a room flush: no client mid
      const ProcessedRef e = a.forgotten(i);
      ledger_.SetFate(key.first, Domain(), e.mid,
                      e.applied ? MidFate::kApplied : MidFate::kBurnt, std::string(e.reason));
    }
    for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
      const ProcessedRef e = a.processed(i);
      if (IsRoomSource(e.client_id)) continue;  // a room flush (its seq), not a client's mid
      ledger_.SetFate(std::string(e.client_id), Domain(), e.mid,
                      e.applied ? MidFate::kApplied : MidFate::kBurnt, std::string(e.reason));
    }
    if (auto s = ledger_.Check(); !s.ok()) {
      return Violation{"gapless-mids", StrCat("ledger oracle: ", s.message())};
    }
    return std::nullopt;
  }

 private:
  LedgerOracle ledger_;
  std::map<std::string, int64_t> ledger_fed_;      // client → highest mid fed to the ledger
  std::map<std::string, size_t> carried_fed_;      // client → carried sends fed to the ledger
  std::map<std::string, int64_t> last_watermark_;  // client → last confirmed_lmid seen
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeGaplessMids() { return std::make_unique<GaplessMids>(); }

MaybeViolation CheckFoldedInvokeDeals(const std::string& client, const std::string& name,
                                      int64_t dealt, int64_t flushes) {
  if (dealt == flushes) return std::nullopt;
  return Violation{"gapless-mids",
                   StrCat(client, ": folded invoke of ", name, " moved nextMid by ", dealt,
                          " with ", flushes,
                          " fold flushes (a folded invoke deals mids only at flush)")};
}

MaybeViolation CheckRejectedInvokeDeals(const std::string& client, const std::string& name,
                                        int64_t next_mid_before, int64_t next_mid_after,
                                        int64_t flushes) {
  // Only an overlapping fold flushed ahead of it may have dealt mids (flush-on-enqueue).
  if (next_mid_after == next_mid_before + flushes) return std::nullopt;
  return Violation{"gapless-mids", StrCat(client, ": mutator ", name,
                                          " failed yet consumed a mid (nextMid ", next_mid_before,
                                          " → ", next_mid_after, ")")};
}

}  // namespace rindle::props
