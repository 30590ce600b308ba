// ledger_feed.h — the run's ONE ledger oracle (oracles/ledger_oracle.h) over every domain, fed
// from the harness's records and from what the AUTHORITIES did, never from what the client
// reports about its fates (issue 12; SPEC §3 "Ledger oracle"). Shared by gapless-mids (the daemon
// domain) and the room ledger properties (room_ledger.cc). Holds state for one run.
//
// Fed, per step (Feed; idempotent within a step: each record is fed from where it stopped):
//   issues      every envelope the network carried, per client: the daemon link's
//               (ClientState::carried) as domain "daemon", each room link's (room_carried) as its
//               room key — re-sends included (the oracle checks they repeat name and args);
//   room fates  each room's own record of every mid it processed, as it grows: confirmed →
//               applied, rejected → rejected, deopt → deopted (RoomView records);
//   deopts      → the daemon mid(s) the client first pushed for that deopt (the harness's
//               DealRecord, from what the network carried while the outcome was handled);
//   watermarks  per DIRTY client, every domain's confirmation watermark the client reports
//               (InspectDomains) — observations the oracle checks: monotone, never above an
//               issued mid, and for a room domain never above a mid the room had processed.
// At quiescence (FeedDaemonFates, once): the daemon's processed log — applied / burnt; a mid an
// authority rollback forgot and nothing re-processed keeps its latest record (seed 309).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "oracles/ledger_oracle.h"
#include "properties/world.h"

namespace rindle::props {

class LedgerFeed {
 public:
  void Feed(const World& w);
  void FeedDaemonFates(const World& w);
  const LedgerOracle& oracle() const { return oracle_; }

 private:
  void FeedIssues(const ClientState& c);
  void FeedDeopts(const ClientState& c);
  void FeedWatermarks(const ClientState& c);

  LedgerOracle oracle_;
  std::map<std::string, size_t> carried_fed_;                           // client → carried fed
  std::map<std::string, int64_t> sent_fed_;                             // client → highest sent
  std::map<std::pair<std::string, std::string>, size_t> room_carried_fed_;  // (client, key)
  std::map<std::string, size_t> room_records_fed_;                      // room key → records fed
  std::set<std::tuple<std::string, std::string, int64_t, int64_t>> deopts_fed_;
  std::map<std::pair<std::string, std::string>, int64_t> watermark_seen_;  // (client, domain)
  bool daemon_fates_fed_ = false;
};

}  // namespace rindle::props
