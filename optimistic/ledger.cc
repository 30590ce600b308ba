#include "optimistic/ledger.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace rindle {

void Ledger::AddDomain(std::string_view domain) {
  const std::string key(domain);
  RINDLE_CHECK_MSG(!HasDomain(key), key);
  next_mid_[key] = 1;
  watermark_[key] = 0;
}

void Ledger::EnsureDomain(std::string_view domain) {
  if (!HasDomain(std::string(domain))) AddDomain(domain);
}

std::pair<int64_t, int64_t> Ledger::DealMid(const std::string& domain) {
  EnsureDomain(domain);
  int64_t mid = next_mid_.at(domain)++;
  return {mid, ++deal_seq_};
}

int64_t Ledger::Redeal(uint64_t id, const std::string& domain) {
  PendingMutation* entry = Find(id);
  RINDLE_CHECK(entry != nullptr && entry->mid.has_value() && entry->seq.has_value());
  const int64_t seq = *entry->seq;
  auto [mid, discarded_seq] = DealMid(domain);
  RINDLE_CHECK_GT(discarded_seq, seq);  // seq consumers order, never count: the bump is harmless
  entry->domain = domain;
  entry->mid = mid;
  return mid;
}

PendingMutation* Ledger::FindSent(const std::string& domain, int64_t mid) {
  for (auto& p : pending_) {
    if (p.domain == domain && p.mid == mid) return &p;
  }
  return nullptr;
}

bool Ledger::Issued(const std::string& domain, int64_t mid) const {
  auto it = next_mid_.find(domain);
  return it != next_mid_.end() && mid >= 1 && mid < it->second;
}

PendingMutation& Ledger::Append(PendingMutation entry) {
  RINDLE_CHECK_EQ(entry.id, uint64_t{0});
  RINDLE_CHECK_EQ(entry.mid.has_value(), entry.seq.has_value());
  RINDLE_CHECK_MSG(!entry.mid || HasDomain(entry.domain), entry.domain);
  entry.id = next_entry_id_++;
  pending_.push_back(std::move(entry));
  return pending_.back();
}

PendingMutation* Ledger::Find(uint64_t id) {
  for (auto& p : pending_) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const PendingMutation* Ledger::Find(uint64_t id) const {
  return const_cast<Ledger*>(this)->Find(id);
}

bool IsLedgerRegression(const absl::Status& s) {
  return s.code() == absl::StatusCode::kDataLoss &&
         absl::StrContains(s.message(), kLedgerRegressed);
}

absl::Status Ledger::FoldStreamConfirm(const std::string& domain, int64_t lmid) {
  int64_t& high = stream_high_[domain];
  const auto w = watermark_.find(domain);
  if (w != watermark_.end() && lmid < w->second && lmid >= high) {
    high = lmid;  // the stream is behind another carrier, not behind itself
    ++stream_lag_confirms_;
    return absl::OkStatus();
  }
  absl::Status s = FoldConfirm(domain, lmid);
  if (s.ok()) high = std::max(high, lmid);
  return s;
}

absl::Status Ledger::FoldConfirm(const std::string& domain, int64_t lmid) {
  auto nm = next_mid_.find(domain);
  RINDLE_CHECK_MSG(nm != next_mid_.end(), "confirm on an unopened domain \"" + domain + "\"");
  const int64_t highest_issued = nm->second - 1;
  if (lmid > highest_issued) {
    size_t sent = 0;
    for (const auto& p : pending_) sent += (p.domain == domain && p.mid) ? 1 : 0;
    if (sent > 0) {
      // Two writers on one client id, or corrupted state: unrecoverable.
      return absl::InternalError(absl::StrCat(
          "optimistic backend: confirmed lmid ", lmid, " is ahead of issued mids (",
          highest_issued, ") on domain \"", domain, "\" with ", sent,
          " sent mutation(s) pending"));
    }
    // A fresh session over a client id with history: continue the server's sequence.
    nm->second = lmid + 1;
  }
  int64_t& w = watermark_.at(domain);
  if (lmid < w) {
    // An authority restored from an older ledger: it forgot mids it had confirmed. Seed 002 is
    // silent (it assumes a durable ledger; its foldConfirm max-folds, so the regression is
    // ignored: the forgotten writes are lost and nextMid runs ahead of the server's sequence,
    // every later push held forever — a silent divergence). Recovery would need the confirmed
    // envelopes, which DropConfirmed retired (the seed's resendPending: "Confirmed entries are
    // already gone"), so the client refuses loudly, as it does for an lmid ahead of its mids.
    return absl::DataLossError(absl::StrCat(
        "optimistic backend: ", kLedgerRegressed, ": released lmid ", lmid, " on domain \"",
        domain, "\" is below the confirmed watermark ", w,
        " (the authority forgot confirmed mutations)"));
  }
  w = std::max(w, lmid);
  return absl::OkStatus();
}

void Ledger::RaiseWatermark(const std::string& domain, int64_t lmid) {
  EnsureDomain(domain);
  int64_t& w = watermark_.at(domain);
  w = std::max(w, lmid);
}

bool Ledger::DropConfirmed() {
  // An unflushed fold (no mid) is never confirmable.
  const size_t before = pending_.size();
  auto confirmed = [this](const PendingMutation& p) {
    if (!p.mid) return false;
    auto w = watermark_.find(p.domain);
    return w != watermark_.end() && *p.mid <= w->second;
  };
  std::erase_if(pending_, confirmed);
  std::erase_if(dead_sent_, confirmed);
  return pending_.size() != before;
}

void Ledger::Erase(const std::set<size_t>& indexes) {
  if (indexes.empty()) return;
  RINDLE_CHECK_LT(*indexes.rbegin(), pending_.size());
  std::vector<PendingMutation> kept;
  kept.reserve(pending_.size() - indexes.size());
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (indexes.count(i) == 0) {
      kept.push_back(std::move(pending_[i]));
    } else if (pending_[i].mid) {
      dead_sent_.push_back(std::move(pending_[i]));  // still owed to the authority's ledger
    }
  }
  pending_ = std::move(kept);
}

std::vector<const PendingMutation*> Ledger::SentInMidOrder(const std::string& domain) const {
  std::vector<const PendingMutation*> sent;
  for (const auto* list : {&pending_, &dead_sent_}) {
    for (const auto& p : *list) {
      if (p.domain == domain && p.mid) sent.push_back(&p);
    }
  }
  auto by_mid = [](const PendingMutation* a, const PendingMutation* b) {
    return *a->mid < *b->mid;
  };
  std::stable_sort(sent.begin(), sent.end(), by_mid);
  return sent;
}

std::vector<size_t> Ledger::ReplayOrder() const {
  std::vector<size_t> order(pending_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    const auto& sa = pending_[a].seq;
    const auto& sb = pending_[b].seq;
    if (!sa || !sb) return sa.has_value() && !sb.has_value();
    return *sa < *sb;
  });
  return order;
}

std::set<std::string> Ledger::PendingTables() const {
  std::set<std::string> out;
  for (const auto& p : pending_) {
    for (const auto& t : Touched(p.writes)) out.insert(t);
  }
  return out;
}

}  // namespace rindle
