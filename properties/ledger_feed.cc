// ledger_feed.cc — see ledger_feed.h.
#include "properties/ledger_feed.h"

#include <tuple>

#include "base/source_key.h"

namespace rindle::props {
namespace {

MidFate RoomFate(std::string_view fate) {
  if (fate == "confirmed") return MidFate::kApplied;
  if (fate == "rejected") return MidFate::kRejected;
  return MidFate::kDeopted;
}

}  // namespace

void LedgerFeed::Feed(const World& w) {
  // Issues first: a room processes a mid only after the network carried it.
  for (const ClientState& c : w.clients) FeedIssues(c);
  for (const RoomView* r : w.rooms) {
    const std::string key(r->key());
    size_t& fed = room_records_fed_[key];
    for (const size_t n = r->record_count(); fed < n; ++fed) {
      const RoomMidRef rec = r->record(fed);
      oracle_.SetFate(std::string(rec.client_id), key, rec.mid, RoomFate(rec.fate),
                      std::string(rec.reason));
    }
  }
  for (const ClientState& c : w.clients) {
    FeedDeopts(c);
    if (c.dirty) FeedWatermarks(c);
  }
}

void LedgerFeed::FeedIssues(const ClientState& c) {
  const std::string daemon(kDaemonSource);
  if (c.carried != nullptr) {
    size_t& fed = carried_fed_[c.id];
    for (; fed < c.carried->size(); ++fed) {
      const MutationEnvelope& e = (*c.carried)[fed];
      oracle_.Issue(c.id, daemon, e.mid, e.name, e.args);
    }
  } else if (c.sent != nullptr) {  // a client without a carried record: its first sends
    int64_t& fed = sent_fed_[c.id];
    for (auto it = c.sent->upper_bound(fed); it != c.sent->end(); ++it) {
      oracle_.Issue(c.id, daemon, it->first, it->second.name, it->second.args);
      fed = it->first;
    }
  }
  if (c.room_carried == nullptr) return;
  for (const auto& [key, carried] : *c.room_carried) {
    size_t& fed = room_carried_fed_[{c.id, key}];
    for (; fed < carried.size(); ++fed) {
      oracle_.Issue(c.id, key, carried[fed].mid, carried[fed].name, carried[fed].args);
    }
  }
}

void LedgerFeed::FeedDeopts(const ClientState& c) {
  if (c.deals == nullptr) return;
  for (const auto& [room_mid, daemon_mids] : c.deals->daemon_mids) {
    for (const int64_t d : daemon_mids) {
      if (!deopts_fed_.emplace(c.id, room_mid.first, room_mid.second, d).second) continue;
      oracle_.Deopt(c.id, room_mid.first, room_mid.second, d);
    }
  }
}

void LedgerFeed::FeedWatermarks(const ClientState& c) {
  const DomainsInspect d = c.backend->InspectDomains();
  for (const auto& [domain, wm] : d.watermark) {
    auto [seen, fresh] = watermark_seen_.try_emplace({c.id, domain}, wm);
    if (!fresh && seen->second == wm) continue;
    seen->second = wm;
    // A room domain's fates are fed as the room processes: its watermark must not run ahead.
    oracle_.ObserveWatermark(c.id, domain, wm, /*require_processed=*/IsRoomSource(domain));
  }
}

void LedgerFeed::FeedDaemonFates(const World& w) {
  if (daemon_fates_fed_) return;
  daemon_fates_fed_ = true;
  const std::string daemon(kDaemonSource);
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
    oracle_.SetFate(key.first, daemon, e.mid, e.applied ? MidFate::kApplied : MidFate::kBurnt,
                    std::string(e.reason));
  }
  for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
    const ProcessedRef e = a.processed(i);
    if (IsRoomSource(e.client_id)) continue;  // a room flush (its seq), not a client's mid
    oracle_.SetFate(std::string(e.client_id), daemon, e.mid,
                    e.applied ? MidFate::kApplied : MidFate::kBurnt, std::string(e.reason));
  }
}

}  // namespace rindle::props
