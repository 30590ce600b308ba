#include "optimistic/outcomes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"

namespace rindle {

Outcomes::Outcomes(Ledger* ledger, std::string client_id, Hooks hooks)
    : ledger_(ledger), client_id_(std::move(client_id)), hooks_(std::move(hooks)) {
  RINDLE_CHECK(ledger_ != nullptr);
  RINDLE_CHECK(hooks_.push && hooks_.reinvoke);
}

bool Outcomes::Processed(const std::string& domain, int64_t mid) const {
  auto it = processed_.find(domain);
  return it != processed_.end() && it->second.count(mid) > 0;
}

bool Outcomes::MarkProcessed(const std::string& domain, int64_t mid) {
  std::set<int64_t>& mids = processed_[domain];
  if (!mids.insert(mid).second) return false;
  std::deque<int64_t>& order = order_[domain];
  order.push_back(mid);
  while (order.size() > kMaxProcessedOutcomesPerDomain) {
    mids.erase(order.front());
    order.pop_front();
  }
  RINDLE_CHECK_EQ(mids.size(), order.size());
  return true;
}

void Outcomes::Handle(const std::string& domain, const MutationOutcomeFrame& frame) {
  ++counters_.frames;
  // Seed 002 tests `mid >= nextMid[domain]` only; a non-positive mid was never issued either
  // (mids start at 1), and the seed's rule "a mid never issued is ignored" covers it.
  if (!ledger_->Issued(domain, frame.mid)) {
    ++counters_.unissued;
    return;
  }
  if (!MarkProcessed(domain, frame.mid)) {
    ++counters_.duplicates;
    return;
  }
  if (frame.kind == MutationOutcomeFrame::Kind::kRejected) return Reject(domain, frame);
  Deopt(domain, frame);
}

void Outcomes::Reject(const std::string& domain, const MutationOutcomeFrame& frame) {
  ++counters_.rejected;
  const PendingMutation* entry = ledger_->FindSent(domain, frame.mid);
  MutationEnvelope envelope{client_id_, frame.mid,
                            entry != nullptr ? entry->name : frame.name.value_or(""),
                            entry != nullptr ? entry->args : frame.args};
  // Surfacing the reason is all: the burnt mid's lmid release retires the entry (ledger.h).
  if (hooks_.on_rejected) hooks_.on_rejected(envelope, frame.reason.value_or("mutation rejected"));
}

void Outcomes::Deopt(const std::string& domain, const MutationOutcomeFrame& frame) {
  const std::string daemon(kDaemonSource);
  if (PendingMutation* entry = ledger_->FindSent(domain, frame.mid)) {
    const int64_t seq = entry->seq.value_or(0);
    const int64_t mid = ledger_->Redeal(entry->id, daemon);
    RINDLE_CHECK_EQ(entry->seq.value_or(0), seq);  // the flip keeps its replay position
    ++counters_.deopt_flips;
    hooks_.push(daemon, MutationEnvelope{client_id_, mid, entry->name, entry->args});
    return;
  }
  if (!frame.name) {
    ++counters_.deopt_unnamed;
    return;
  }
  ++counters_.deopt_reinvokes;
  const absl::Status s = hooks_.reinvoke(*frame.name, frame.args);
  if (s.ok()) return;
  ++counters_.deopt_reinvoke_failures;
  if (hooks_.on_rejected) {
    hooks_.on_rejected(MutationEnvelope{client_id_, frame.mid, *frame.name, frame.args},
                       absl::StrCat("deopt re-invocation failed: ", s.message()));
  }
}

}  // namespace rindle
