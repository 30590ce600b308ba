// room_ledger.cc — the room plane's ledger properties (families.h; seed 002 §7.1, H-v §3.3,
// §5.1; issue 12). Expectations come from what the harness carried (each client's room push
// record) and from what the ROOMS did (their own records of every mid's fate), never from the
// client; the backend's pending list and its on_rejected calls are only checked against them.
//
//   room-gapless-mids   per (client, room): the mids first put on the room links' push path are
//                       1, 2, 3... in first-send order, and every re-send of a mid carries its
//                       first send's name and args (a mid is never reused)
//   room-retire         the client's watermark of a room domain (what retires that domain's
//                       entries) never exceeds the last mid the ROOM processed for the client:
//                       no room entry is retired as confirmed before its room's verdict; nor the
//                       highest room lmid the harness saw RELEASED to it — by the room channel's
//                       lmid stream or a daemon-carried room-ledger row of its system stream
//                       (never the daemon's own lmid: a room entry is not retired off another
//                       domain's ledger). (An
//                       entry may still leave pending unprocessed when its replay fails on a new
//                       base — seed 002 drops it — so pending alone is not judged.)
//   room-rejection      every on_rejected call names a mid its room REJECTED, with the room's
//                       reason, at most once per mid; at quiescence every rejected mid whose
//                       outcome frame reached the client was surfaced exactly once
//                       (Outcomes "reached the client" below: its room outcome frame was
//                       delivered, or its outcome row was released by the client's system stream
//                       — the daemon-carried path; world.h system_outcomes.)
//   room-deopt-once     at quiescence a deopted mid whose outcome reached the client became
//                       exactly ONE daemon mid — the one the network carried while the client
//                       handled that deopt (the harness's DealRecord, fed to the ledger oracle) —
//                       which the daemon processed (its log: applied or burnt, the daemon's
//                       verdict) with the mutation's name and args; and never by the room
//   ledger oracle       at quiescence the run's ledger oracle (ledger_feed.h: every room mid the
//                       network carried, each room's record of its fate, every deopt's daemon
//                       mid, every room watermark the client reported) holds for the room
//                       domains — gapless per (client, room) and a re-sent mid repeating its
//                       mutation (room-gapless-mids), fates final (room-gapless-mids), one daemon
//                       mid per deopt and one deopt per daemon mid (room-deopt-once), a room
//                       watermark never confirming a mid the room had not processed
//                       (room-retire); and every room mid the client issued has a fate from its
//                       room (no-lost-writes), unless its link to that room was closed for good
//                       (room_disconnect) with the mid unprocessed
//   channel-isolation   (action time, CheckChannelIsolation) a frame delivered on one channel
//                       never moves another channel's appliedCv or buffer
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "base/source_key.h"
#include "base/str_util.h"
#include "properties/families.h"
#include "properties/ledger_feed.h"

namespace rindle::props {
namespace {

using MidKey = std::tuple<std::string, std::string, int64_t>;  // (client, room key, mid)

class RoomLedger : public PropertyFamily {
 public:
  explicit RoomLedger(std::shared_ptr<LedgerFeed> feed) : feed_(std::move(feed)) {}

  MaybeViolation AfterStep(const World& w) override {
    feed_->Feed(w);  // idempotent: gapless-mids fed this step already
    return std::nullopt;
  }

  MaybeViolation AfterStepClient(const World& w, const ClientState& c, StepCounters*) override {
    if (c.room_carried == nullptr) return std::nullopt;
    if (auto v = CheckGapless(c)) return v;
    if (auto v = CheckRetire(w, c)) return v;
    return CheckRejections(w, c, /*quiescent=*/false);
  }

  // Per client, so the checker leaves out a client it refused (ledger_rollback.h: the app shut
  // it down after an authority rollback — it handles no outcome and its daemon mids are never
  // processed again; seeds 353, 689, 895 counted such a client).
  MaybeViolation AtQuiescenceClient(const World& w, const ClientState& c) override {
    if (c.room_carried == nullptr) return std::nullopt;
    feed_->Feed(w);
    feed_->FeedDaemonFates(w);
    if (auto v = CheckRejections(w, c, /*quiescent=*/true)) return v;
    if (auto v = CheckDeoptOnce(w, c)) return v;
    return CheckRoomMidsProcessed(c);
  }

  // The ledger oracle's rules over the room domains (the daemon's: gapless_mids.cc).
  MaybeViolation AtQuiescence(const World& w) override {
    feed_->Feed(w);
    feed_->FeedDaemonFates(w);
    const auto v = feed_->oracle().FirstViolation(
        [](const std::string& domain) { return IsRoomSource(domain); });
    if (!v) return std::nullopt;
    const char* property = v->rule == LedgerOracle::Rule::kDeopt       ? "room-deopt-once"
                           : v->rule == LedgerOracle::Rule::kWatermark ? "room-retire"
                                                                       : "room-gapless-mids";
    return Violation{property, StrCat("ledger oracle: ", v->status.message())};
  }

 private:
  // Every room mid the client issued has its room's fate, unless the client closed its link to
  // that room for good (room_disconnect) before the room processed it: the app left the room
  // (a dead entry's mid — its replay failed — is not waited for).
  MaybeViolation CheckRoomMidsProcessed(const ClientState& c) {
    const auto fates = feed_->oracle().Fates();
    for (const auto& [key, carried] : *c.room_carried) {
      if (c.backend->channel(key) == nullptr) continue;  // disconnected: nothing more will come
      auto f = fates.find({c.id, key});
      if (f == fates.end()) continue;
      for (const auto& [mid, fate] : f->second) {
        if (fate != MidFate::kPending) continue;
        return Violation{"no-lost-writes",
                         StrCat(c.id, ": ", key, " mid ", mid,
                                " was sent to the room but the room never processed it")};
      }
    }
    return std::nullopt;
  }

  // The room outcome frame was delivered, or the system stream released its outcome row.
  static bool OutcomeReached(const ClientState& c, const std::string& key, int64_t mid) {
    return c.outcomes_delivered->contains({key, mid}) ||
           (c.system_outcomes != nullptr && c.system_outcomes->contains({key, mid}));
  }
  static int64_t ConfirmReleased(const ClientState& c, const std::string& key) {
    if (c.confirms_released == nullptr) return INT64_MAX;
    auto it = c.confirms_released->find(key);
    return it == c.confirms_released->end() ? 0 : it->second;
  }

  static MaybeViolation CheckGapless(const ClientState& c) {
    for (const auto& [key, carried] : *c.room_carried) {
      std::map<int64_t, const MutationEnvelope*> first;
      int64_t next = 1;
      for (const MutationEnvelope& e : carried) {
        auto it = first.find(e.mid);
        if (it == first.end()) {
          if (e.mid != next) {
            return Violation{"room-gapless-mids", StrCat(c.id, " on ", key, ": first-sent mid ",
                                                         e.mid, " where ", next, " was next")};
          }
          ++next;
          first.emplace(e.mid, &e);
        } else if (it->second->name != e.name || it->second->args != e.args) {
          return Violation{"room-gapless-mids",
                           StrCat(c.id, " on ", key, ": mid ", e.mid, " re-sent as ", e.name,
                                  " ", e.args.dump(), ", first sent as ", it->second->name, " ",
                                  it->second->args.dump())};
        }
      }
    }
    return std::nullopt;
  }

  // (client, room, mid) → the room's record index, for every room.
  static std::map<MidKey, RoomMidRef> Records(const World& w) {
    std::map<MidKey, RoomMidRef> out;
    for (const RoomView* r : w.rooms) {
      for (size_t i = 0, n = r->record_count(); i < n; ++i) {
        const RoomMidRef rec = r->record(i);
        out[{std::string(rec.client_id), std::string(r->key()), rec.mid}] = rec;
      }
    }
    return out;
  }

  // The client's confirmation watermark of a room domain (what retires its entries) never runs
  // ahead of the mids that room processed for the client (its own record, in mid order).
  static MaybeViolation CheckRetire(const World& w, const ClientState& c) {
    const DomainsInspect d = c.backend->InspectDomains();
    for (const auto& [key, carried] : *c.room_carried) {
      auto wm = d.watermark.find(key);
      if (wm == d.watermark.end() || wm->second == 0) continue;
      int64_t processed = 0;
      for (const RoomView* r : w.rooms) {
        if (r->key() != key) continue;
        for (size_t i = 0, n = r->record_count(); i < n; ++i) {
          const RoomMidRef rec = r->record(i);
          if (rec.client_id == c.id) processed = std::max(processed, rec.mid);
        }
      }
      const int64_t released = ConfirmReleased(c, key);
      if (wm->second > released) {
        return Violation{"room-retire",
                         StrCat(c.id, ": ", key, " watermark ", wm->second,
                                " retires entries no released room lmid confirmed (the room "
                                "lmid stream and the daemon-carried ledger rows released ",
                                released, ")")};
      }
      if (wm->second > processed) {
        return Violation{"room-retire",
                         StrCat(c.id, ": ", key, " watermark ", wm->second,
                                " retires entries the room never processed (it processed ",
                                processed, ")")};
      }
    }
    return std::nullopt;
  }

  static MaybeViolation CheckRejections(const World& w, const ClientState& c, bool quiescent) {
    if (c.rejections == nullptr) return std::nullopt;
    if (c.rejections->empty() && !quiescent) return std::nullopt;
    const std::map<MidKey, RoomMidRef> records = Records(w);
    std::map<std::pair<std::string, int64_t>, int64_t> surfaced;
    for (const RejectionRecord& r : *c.rejections) {
      if (!IsRoomSource(r.domain)) continue;
      auto rec = records.find({c.id, r.domain, r.envelope.mid});
      if (rec == records.end()) {
        return Violation{"room-rejection", StrCat(c.id, ": on_rejected for ", r.domain, " mid ",
                                                  r.envelope.mid, " the room never processed")};
      }
      if (rec->second.fate == "deopt" &&
          r.reason.starts_with("deopt re-invocation failed")) {
        continue;  // a deopt whose daemon re-invocation failed client-side (outcomes.h step 5)
      }
      if (rec->second.fate != "rejected" || r.reason != rec->second.reason) {
        return Violation{"room-rejection",
                         StrCat(c.id, ": on_rejected(", r.domain, " mid ", r.envelope.mid, ", \"",
                                r.reason, "\") but the room's fate is ", rec->second.fate,
                                " \"", rec->second.reason, "\"")};
      }
      if (++surfaced[{r.domain, r.envelope.mid}] > 1) {
        return Violation{"room-rejection", StrCat(c.id, ": ", r.domain, " mid ", r.envelope.mid,
                                                  "'s rejection surfaced twice")};
      }
    }
    if (!quiescent) return std::nullopt;
    for (const auto& [key, rec] : records) {
      const auto& [client, room, mid] = key;
      if (client != c.id || rec.fate != "rejected") continue;
      if (!OutcomeReached(c, room, mid)) continue;  // lost: not yet released by the daemon
      if (!surfaced.contains({room, mid})) {
        return Violation{"room-rejection", StrCat(c.id, ": ", room, " mid ", mid,
                                                  " was rejected (\"", rec.reason,
                                                  "\") and its outcome delivered, but "
                                                  "on_rejected never surfaced it")};
      }
    }
    return std::nullopt;
  }

  MaybeViolation CheckDeoptOnce(const World& w, const ClientState& c) {
    const LedgerOracle& oracle = feed_->oracle();
    const auto fates = oracle.Fates();
    const auto daemon_fates = fates.find({c.id, std::string(kDaemonSource)});
    for (const RoomView* r : w.rooms) {
      const std::string key(r->key());
      for (size_t i = 0, n = r->record_count(); i < n; ++i) {
        const RoomMidRef rec = r->record(i);
        if (rec.client_id != c.id || rec.fate != "deopt") continue;
        if (!OutcomeReached(c, key, rec.mid)) continue;
        bool failed_client_side = false;  // outcomes.h step 5: surfaced instead
        for (const RejectionRecord& rj : *c.rejections) {
          failed_client_side = failed_client_side ||
                               (rj.domain == key && rj.envelope.mid == rec.mid);
        }
        if (failed_client_side) continue;
        // The daemon mid(s) the network carried for this deopt (one: the flip or the re-invoke).
        const std::vector<int64_t> targets = oracle.DeoptTargets(c.id, key, rec.mid);
        if (targets.size() != 1) {
          return Violation{"room-deopt-once",
                           StrCat(c.id, ": ", key, " deopted mid ", rec.mid, " (", rec.name, " ",
                                  rec.args->dump(), ") was re-sent to the daemon as ",
                                  targets.size(), " daemon mids, not one")};
        }
        // Processed by the daemon (its twin's verdict, applied or burnt, is the daemon's).
        const MidFate fate = daemon_fates == fates.end() || !daemon_fates->second.contains(targets[0])
                                 ? MidFate::kPending
                                 : daemon_fates->second.at(targets[0]);
        if (fate != MidFate::kApplied && fate != MidFate::kBurnt) {
          return Violation{"room-deopt-once",
                           StrCat(c.id, ": ", key, " deopted mid ", rec.mid, " (", rec.name, " ",
                                  rec.args->dump(), ") became daemon mid ", targets[0],
                                  ", which the daemon never processed (", MidFateName(fate), ")")};
        }
      }
    }
    return std::nullopt;
  }

  std::shared_ptr<LedgerFeed> feed_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeRoomLedger(std::shared_ptr<LedgerFeed> feed) {
  return std::make_unique<RoomLedger>(feed ? std::move(feed) : std::make_shared<LedgerFeed>());
}

MaybeViolation CheckChannelIsolation(const std::string& client, const std::string& delivered_on,
                                     const std::map<std::string, std::pair<int64_t, size_t>>& before,
                                     const std::map<std::string, std::pair<int64_t, size_t>>& after) {
  for (const auto& [key, was] : before) {
    if (key == delivered_on) continue;
    auto it = after.find(key);
    if (it == after.end() || it->second == was) continue;
    return Violation{"channel-isolation",
                     StrCat(client, ": a frame on ", delivered_on, " moved channel ", key,
                            " (appliedCv ", was.first, " → ", it->second.first, ", buffered ",
                            was.second, " → ", it->second.second, ")")};
  }
  return std::nullopt;
}

MaybeViolation CheckRoomWatermarks(const std::string& client,
                                   const std::map<std::string, int64_t>& released_max,
                                   const std::map<std::string, int64_t>& reported) {
  for (const auto& [doc, w] : reported) {
    auto max = released_max.find(doc);
    const int64_t bound = max == released_max.end() ? 0 : max->second;
    if (w > bound) {
      return Violation{"room-watermark",
                       StrCat(client, ": roomWatermarks[", doc, "] is ", w,
                              " but the highest flush_seq released to it is ", bound)};
    }
  }
  for (const auto& [doc, max] : released_max) {
    auto it = reported.find(doc);
    const int64_t w = it == reported.end() ? 0 : it->second;
    if (w < max) {
      return Violation{"room-watermark",
                       StrCat(client, ": roomWatermarks[", doc, "] is ", w, " but flush_seq ", max,
                              " was released to it: the fence fell back (watermark rows fold by "
                              "monotone max)")};
    }
  }
  return std::nullopt;
}

}  // namespace rindle::props
