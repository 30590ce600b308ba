// ledger_oracle.h — the ledger oracle: every mid issued per (client, domain), its name/args, its
// fate, and the confirmation watermarks observed, checked against the mid rules of seed 002
// (SPEC §2.2 "Mutation ids", §3, §4 property 3 "gapless per-domain mids"). Holds state.
//
// Recording never fails: every call appends to an ordered event log, and Check() replays that
// log and returns the FIRST violation in recording order (FailedPrecondition naming client,
// domain, mid and what was expected), or OK. Rules:
//   - issue: per (client, domain) mids are dealt 1, 2, 3... with no gap (after the `Adopt`ed
//     lmid, if any); re-issuing an already issued mid (a resend) must repeat the same name and
//     args exactly — a mid reused for a different mutation is a violation;
//   - fate: set only for an issued mid; applied / burnt / rejected / deopted are final (setting a
//     different final fate later is a violation; repeating the same one is not);
//   - deopt: the mid's fate becomes deopted and its re-issue is `daemon_mid` in domain "daemon",
//     which by the end of the log must have been issued with the same name and args; a deopted
//     mid becomes ONE daemon mid (a second is the mutation applied twice), and a daemon mid is
//     the re-issue of at most one deopt;
//   - watermark observations per (client, domain) never go backwards, and never confirm a mid
//     that was not issued (watermark > highest issued mid); an observation made with
//     `require_processed` (a domain whose authority's fates are fed as they happen: the rooms)
//     never confirms a mid that has no final fate yet (its authority had not processed it).
// Violation(filter) says which rule broke and in which domain (the properties report room-domain
// violations under the room properties' names).
// `Adopt(client, domain, lmid)` starts a domain's history after `lmid` (a fresh session over a
// client id with history, seed 002: nextMid = lmid + 1).
// Deterministic: ordered maps only.
// Source: SPEC §2.2, §3 "Ledger oracle", §4.3.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace rindle {

enum class MidFate { kPending, kApplied, kBurnt, kRejected, kDeopted };
std::string_view MidFateName(MidFate f);

class LedgerOracle {
 public:
  void Adopt(const std::string& client, const std::string& domain, int64_t lmid);
  void Issue(const std::string& client, const std::string& domain, int64_t mid,
             const std::string& name, const nlohmann::json& args);
  void SetFate(const std::string& client, const std::string& domain, int64_t mid, MidFate fate,
               const std::string& reason = "");
  void Deopt(const std::string& client, const std::string& domain, int64_t mid,
             int64_t daemon_mid);
  void ObserveWatermark(const std::string& client, const std::string& domain, int64_t watermark,
                        bool require_processed = false);

  enum class Rule { kIssue, kFate, kDeopt, kWatermark };
  struct Violation {
    std::string domain;
    Rule rule = Rule::kIssue;
    absl::Status status;  // FailedPrecondition naming client, domain, mid and what was expected
  };
  // The first violation (recording order; the deopt targets after the whole log) among the
  // events whose domain `which` accepts (nullptr: every domain), or nullopt. The log is replayed
  // whole either way.
  std::optional<Violation> FirstViolation(
      const std::function<bool(const std::string& domain)>& which = nullptr) const;
  // FirstViolation() over every domain as a status (OK: none).
  absl::Status Check() const;
  // The daemon mids recorded for (client, domain, mid)'s deopt, in recording order.
  std::vector<int64_t> DeoptTargets(const std::string& client, const std::string& domain,
                                    int64_t mid) const;

  // Summary after replay (ignores violations): per (client, domain), mid → fate.
  std::map<std::pair<std::string, std::string>, std::map<int64_t, MidFate>> Fates() const;
  size_t event_count() const { return events_.size(); }

 private:
  struct Event {
    enum class Kind { kAdopt, kIssue, kFate, kDeopt, kWatermark } kind;
    std::string client, domain;
    int64_t mid = 0;  // lmid for kAdopt, watermark for kWatermark
    std::string name;
    nlohmann::json args;
    MidFate fate = MidFate::kPending;
    std::string reason;
    int64_t daemon_mid = 0;
    bool require_processed = false;  // kWatermark
  };
  std::vector<Event> events_;
};

}  // namespace rindle
