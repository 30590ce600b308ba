// gapless_mids.cc — gapless-mids (families.h; SPEC §3), every mid check in one place:
//   after every step: the run's ledger oracle (ledger_feed.h, shared with room_ledger.cc) learns
//     every new send the network carried on every link (resends included, with their args), each
//     room's fates and every dirty client's watermarks; per dirty client the daemon watermark
//     never goes back and the mids sent are 1..n with no gap and no reuse;
//   when the authority moved: it processed each client's mids in order, each once;
//   at quiescence: the ledger oracle, with every processed mid's fate, holds for the daemon
//     domain (the room domains are room_ledger.cc's to report);
//   at action time: a (folded or failing) invoke deals mids only through the fold flushes it
//     caused.
// Holds state for one run: the shared ledger feed and the last daemon watermark per client.
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "base/source_key.h"
#include "base/str_util.h"
#include "properties/families.h"
#include "properties/ledger_feed.h"

namespace rindle::props {
namespace {

class GaplessMids : public PropertyFamily {
 public:
  explicit GaplessMids(std::shared_ptr<LedgerFeed> feed) : feed_(std::move(feed)) {}

  // The ledger oracle learns every send the network carried (resends included, with their args:
  // it checks that a re-issued mid repeats its name and args), every room fate and every dirty
  // client's watermarks (ledger_feed.h).
  MaybeViolation AfterStep(const World& w) override {
    feed_->Feed(w);
    return std::nullopt;
  }

  MaybeViolation AfterStepClient(const World&, const ClientState& c, StepCounters*) override {
    const int64_t wm = c.backend->inspect().confirmed_lmid;
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

  // Runs after the authority-model replay agreed on every fate (families.h order). The daemon
  // domain's rules; the room domains' are room_ledger.cc's.
  MaybeViolation AtQuiescence(const World& w) override {
    feed_->Feed(w);
    feed_->FeedDaemonFates(w);
    const auto v = feed_->oracle().FirstViolation(
        [](const std::string& domain) { return domain == kDaemonSource; });
    if (v) return Violation{"gapless-mids", StrCat("ledger oracle: ", v->status.message())};
    return std::nullopt;
  }

 private:
  std::shared_ptr<LedgerFeed> feed_;
  std::map<std::string, int64_t> last_watermark_;  // client → last confirmed_lmid seen
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeGaplessMids(std::shared_ptr<LedgerFeed> feed) {
  return std::make_unique<GaplessMids>(feed ? std::move(feed) : std::make_shared<LedgerFeed>());
}

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
