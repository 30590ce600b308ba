// outcomes.h — the client half of the outcome handshake (seed 002 H-v §3.3 `handleMutationOutcome`
// / `markOutcomeProcessed`): one `mutationOutcome` frame from a domain's channel, handled OUT OF
// BAND — on arrival, never behind that channel's cv buffer (a deopt must migrate its entry before
// the buffered lmid release that would otherwise retire it as a success). Holds state: the
// processed (domain, mid) sets and the counters; the entries it acts on are the ledger's.
//
// Handle(domain, frame), the seed's state machine in order:
//   1. mid never issued on `domain` (mid < 1 or ≥ nextMid[domain]) ⇒ ignored (unissued).
//   2. (domain, mid) already processed ⇒ ignored (duplicate). The processed set is per domain,
//      FIFO-capped at kMaxProcessedOutcomesPerDomain (past it a duplicate of an evicted mid is
//      re-processed — the seed's bounded-window trade, mirroring the sender's 512 cap). It is
//      never cleared: a disconnected channel's domain keeps it (seed 002 disconnectSource).
//   3. rejected ⇒ on_rejected(envelope, reason) and NOTHING else: the authority burnt the mid and
//      its lmid release retires the entry like any failed mutation (ledger.h). The envelope is
//      the pending entry's (or the frame's echo when none is pending); reason defaults to
//      "mutation rejected".
//   4. deopt, (domain, mid) pending ⇒ FLIP IN PLACE (Ledger::Redeal): domain "daemon", a fresh
//      daemon mid, the ORIGINAL seq kept, and the envelope pushed now (on the daemon channel).
//      The prediction stays applied; nothing re-runs.
//   5. deopt, not pending (already retired, or a replay re-answer) ⇒ re-invoke the echoed
//      name/args pinned to the daemon; no echoed name ⇒ dropped; a failing re-invocation ⇒
//      on_rejected(echo, "deopt re-invocation failed: <status message>").
// Errors: none returned (a frame is advisory input; a failing re-invocation is surfaced as above).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "optimistic/ledger.h"
#include "optimistic/source.h"

namespace rindle {

inline constexpr size_t kMaxProcessedOutcomesPerDomain = 512;

using RejectedHandler = std::function<void(const MutationEnvelope&, const std::string& reason)>;

struct OutcomeCounters {
  int64_t frames = 0;
  int64_t unissued = 0;
  int64_t duplicates = 0;
  int64_t rejected = 0;
  int64_t deopt_flips = 0;
  int64_t deopt_reinvokes = 0;
  int64_t deopt_reinvoke_failures = 0;
  int64_t deopt_unnamed = 0;  // a deopt for a retired mid with no echo: nothing to re-invoke
};

class Outcomes {
 public:
  struct Hooks {
    // Ships a freshly dealt envelope of `domain` (the backend's PushEnvelope).
    std::function<void(const std::string& domain, const MutationEnvelope&)> push;
    // Invokes (name, args) pinned to the daemon (the backend's pinned Invoke).
    std::function<absl::Status(const std::string& name, const nlohmann::json& args)> reinvoke;
    RejectedHandler on_rejected;  // may be empty
  };

  // `ledger` must outlive this object.
  Outcomes(Ledger* ledger, std::string client_id, Hooks hooks);

  void Handle(const std::string& domain, const MutationOutcomeFrame& frame);

  bool Processed(const std::string& domain, int64_t mid) const;
  // Per domain: the processed mids, oldest first.
  const std::map<std::string, std::deque<int64_t>>& processed() const { return order_; }
  const OutcomeCounters& counters() const { return counters_; }

 private:
  // Records (domain, mid); false when it already was (a duplicate).
  bool MarkProcessed(const std::string& domain, int64_t mid);
  void Reject(const std::string& domain, const MutationOutcomeFrame& frame);
  void Deopt(const std::string& domain, const MutationOutcomeFrame& frame);

  Ledger* ledger_;
  std::string client_id_;
  Hooks hooks_;
  std::map<std::string, std::set<int64_t>> processed_;
  std::map<std::string, std::deque<int64_t>> order_;  // FIFO eviction order
  OutcomeCounters counters_;
};

}  // namespace rindle
