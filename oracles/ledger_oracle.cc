#include "oracles/ledger_oracle.h"

#include <algorithm>
#include <tuple>

#include "absl/status/statusor.h"
#include "base/source_key.h"
#include "base/str_util.h"

namespace rindle {
namespace {

struct MidRecord {
  std::string name;
  nlohmann::json args;
  MidFate fate = MidFate::kPending;
};

struct DomainState {
  int64_t base = 0;          // adopted lmid: mids ≤ base belong to an earlier session
  int64_t last_issued = 0;   // highest issued mid (≥ base)
  int64_t last_final = 0;    // highest mid with a final fate (its authority processed it)
  std::optional<int64_t> watermark;
  std::map<int64_t, MidRecord> mids;
};

using Key = std::pair<std::string, std::string>;

std::string Where(const std::string& client, const std::string& domain, size_t event) {
  return StrCat("ledger event ", event, ": client \"", client, "\" domain \"", domain, "\"");
}

}  // namespace

std::string_view MidFateName(MidFate f) {
  switch (f) {
    case MidFate::kPending: return "pending";
    case MidFate::kApplied: return "applied";
    case MidFate::kBurnt: return "burnt";
    case MidFate::kRejected: return "rejected";
    case MidFate::kDeopted: return "deopted";
  }
  return "?";
}

void LedgerOracle::Adopt(const std::string& client, const std::string& domain, int64_t lmid) {
  Event e{Event::Kind::kAdopt, client, domain, lmid, {}, {}, MidFate::kPending, {}, 0, false};
  events_.push_back(std::move(e));
}

void LedgerOracle::Issue(const std::string& client, const std::string& domain, int64_t mid,
                         const std::string& name, const nlohmann::json& args) {
  events_.push_back({Event::Kind::kIssue, client, domain, mid, name, args, MidFate::kPending, {},
                     0, false});
}

void LedgerOracle::SetFate(const std::string& client, const std::string& domain, int64_t mid,
                           MidFate fate, const std::string& reason) {
  events_.push_back({Event::Kind::kFate, client, domain, mid, {}, {}, fate, reason, 0, false});
}

void LedgerOracle::Deopt(const std::string& client, const std::string& domain, int64_t mid,
                         int64_t daemon_mid) {
  events_.push_back(
      {Event::Kind::kDeopt, client, domain, mid, {}, {}, MidFate::kDeopted, {}, daemon_mid, false});
}

void LedgerOracle::ObserveWatermark(const std::string& client, const std::string& domain,
                                    int64_t watermark, bool require_processed) {
  events_.push_back({Event::Kind::kWatermark, client, domain, watermark, {}, {}, MidFate::kPending,
                     {}, 0, require_processed});
}

std::vector<int64_t> LedgerOracle::DeoptTargets(const std::string& client,
                                                const std::string& domain, int64_t mid) const {
  std::vector<int64_t> out;
  for (const Event& e : events_) {
    if (e.kind == Event::Kind::kDeopt && e.client == client && e.domain == domain && e.mid == mid &&
        std::find(out.begin(), out.end(), e.daemon_mid) == out.end()) {
      out.push_back(e.daemon_mid);
    }
  }
  return out;
}

namespace {

// A deopt whose daemon mid is checked after every event was replayed (the daemon's issue may
// come later in the ledger).
struct PendingDeopt {
  size_t event;
  std::string client, domain;
  int64_t mid, daemon_mid;
  std::string name;
  nlohmann::json args;
};

absl::Status FateChange(MidRecord& r, MidFate f, const std::string& where, int64_t mid) {
  if (r.fate != MidFate::kPending && r.fate != f) {
    return absl::FailedPreconditionError(StrCat(where, ": mid ", mid, " is already ",
                                                MidFateName(r.fate), ", cannot become ",
                                                MidFateName(f)));
  }
  r.fate = f;
  return absl::OkStatus();
}

absl::Status ApplyAdopt(DomainState& d, int64_t lmid, const std::string& where) {
  if (lmid < d.last_issued) {
    return absl::FailedPreconditionError(StrCat(where, ": adopting lmid ", lmid,
                                                " below the highest issued mid ",
                                                d.last_issued));
  }
  d.base = lmid;
  d.last_issued = lmid;
  return absl::OkStatus();
}

absl::Status ApplyIssue(DomainState& d, int64_t mid, const std::string& name,
                        const nlohmann::json& args, const std::string& where) {
  if (mid <= d.base) {
    return absl::FailedPreconditionError(
        StrCat(where, ": issued mid ", mid, " but the next mid is ", d.last_issued + 1,
               d.base > 0 ? StrCat(" (at or below the adopted lmid ", d.base, ")")
                          : std::string(" (mids start at 1)")));
  }
  auto it = d.mids.find(mid);
  if (it != d.mids.end()) {
    if (it->second.name != name || it->second.args != args) {
      return absl::FailedPreconditionError(StrCat(
          where, ": mid ", mid, " reused: first issued as ", it->second.name, " ",
          it->second.args.dump(), ", now as ", name, " ", args.dump()));
    }
    return absl::OkStatus();  // a resend
  }
  if (mid != d.last_issued + 1) {
    return absl::FailedPreconditionError(StrCat(where, ": issued mid ", mid,
                                                " but the next mid is ",
                                                d.last_issued + 1, " (gap)"));
  }
  d.mids[mid] = MidRecord{name, args, MidFate::kPending};
  d.last_issued = mid;
  return absl::OkStatus();
}

// A fate (or deopt) for an issued mid; returns its record.
absl::StatusOr<const MidRecord*> ApplyFate(DomainState& d, int64_t mid, MidFate fate,
                                           const std::string& where) {
  auto it = d.mids.find(mid);
  if (it == d.mids.end()) {
    return absl::FailedPreconditionError(StrCat(where, ": fate ", MidFateName(fate),
                                                " for mid ", mid,
                                                ", which was never issued"));
  }
  absl::Status s = FateChange(it->second, fate, where, mid);
  if (!s.ok()) return s;
  return &it->second;
}

absl::Status ApplyWatermark(DomainState& d, int64_t watermark, bool require_processed,
                            const std::string& where) {
  if (d.watermark && watermark < *d.watermark) {
    return absl::FailedPreconditionError(StrCat(where, ": watermark went backwards from ",
                                                *d.watermark, " to ", watermark));
  }
  if (watermark > d.last_issued) {
    return absl::FailedPreconditionError(StrCat(where, ": watermark ", watermark,
                                                " confirms a mid never issued (highest "
                                                "issued: ",
                                                d.last_issued, ")"));
  }
  if (require_processed && watermark > std::max(d.last_final, d.base)) {
    return absl::FailedPreconditionError(StrCat(where, ": watermark ", watermark,
                                                " confirms a mid its authority had not processed "
                                                "(highest processed: ",
                                                std::max(d.last_final, d.base), ")"));
  }
  d.watermark = watermark;
  return absl::OkStatus();
}

// Each deopt names a daemon mid issued as the same mutation; one daemon mid per deopted mid, one
// deopt per daemon mid. Returns the violating deopt's domain in `domain`.
absl::Status CheckDeopts(const std::map<Key, DomainState>& states,
                         const std::vector<PendingDeopt>& deopts,
                         const std::function<bool(const std::string&)>& which,
                         std::string* domain) {
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> target;  // deopt → daemon mid
  std::map<std::pair<std::string, int64_t>, std::pair<std::string, int64_t>> source;
  for (const PendingDeopt& p : deopts) {
    if (which && !which(p.domain)) continue;
    *domain = p.domain;
    const std::string where = Where(p.client, p.domain, p.event);
    auto [t, fresh] = target.try_emplace({p.client, p.domain, p.mid}, p.daemon_mid);
    if (!fresh && t->second != p.daemon_mid) {
      return absl::FailedPreconditionError(StrCat(where, ": mid ", p.mid, " (", p.name,
                                                  ") deopted to daemon mid ", t->second,
                                                  " and again to daemon mid ", p.daemon_mid,
                                                  ": the mutation re-sent twice"));
    }
    auto [src, first] = source.try_emplace({p.client, p.daemon_mid}, p.domain, p.mid);
    if (!first && src->second != std::make_pair(p.domain, p.mid)) {
      return absl::FailedPreconditionError(StrCat(where, ": daemon mid ", p.daemon_mid,
                                                  " is the re-issue of both ", src->second.first,
                                                  " mid ", src->second.second, " and mid ",
                                                  p.mid));
    }
    auto st = states.find({p.client, std::string(kDaemonSource)});
    const MidRecord* r = nullptr;
    if (st != states.end()) {
      auto it = st->second.mids.find(p.daemon_mid);
      if (it != st->second.mids.end()) r = &it->second;
    }
    if (r == nullptr) {
      return absl::FailedPreconditionError(StrCat(where, ": mid ", p.mid,
                                                  " deopted to daemon mid ", p.daemon_mid,
                                                  ", which was never issued"));
    }
    if (r->name != p.name || r->args != p.args) {
      return absl::FailedPreconditionError(
          StrCat(where, ": mid ", p.mid, " (", p.name, ") deopted to daemon mid ", p.daemon_mid,
                 ", which was issued as a different mutation (", r->name, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<LedgerOracle::Violation> LedgerOracle::FirstViolation(
    const std::function<bool(const std::string& domain)>& which) const {
  std::map<Key, DomainState> states;
  std::vector<PendingDeopt> deopts;
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    DomainState& d = states[{e.client, e.domain}];
    const std::string where = Where(e.client, e.domain, i);
    absl::Status s;
    Rule rule = Rule::kIssue;
    switch (e.kind) {
      case Event::Kind::kAdopt:
        s = ApplyAdopt(d, e.mid, where);
        break;
      case Event::Kind::kIssue:
        s = ApplyIssue(d, e.mid, e.name, e.args, where);
        break;
      case Event::Kind::kFate:
      case Event::Kind::kDeopt: {
        rule = e.kind == Event::Kind::kDeopt ? Rule::kDeopt : Rule::kFate;
        absl::StatusOr<const MidRecord*> r = ApplyFate(d, e.mid, e.fate, where);
        if (r.ok() && e.kind == Event::Kind::kDeopt) {
          deopts.push_back({i, e.client, e.domain, e.mid, e.daemon_mid, (*r)->name, (*r)->args});
        }
        if (r.ok()) d.last_final = std::max(d.last_final, e.mid);
        s = r.status();
        break;
      }
      case Event::Kind::kWatermark:
        rule = Rule::kWatermark;
        s = ApplyWatermark(d, e.mid, e.require_processed, where);
        break;
    }
    if (!s.ok() && (!which || which(e.domain))) return Violation{e.domain, rule, s};
  }
  std::string domain;
  absl::Status s = CheckDeopts(states, deopts, which, &domain);
  if (!s.ok()) return Violation{domain, Rule::kDeopt, s};
  return std::nullopt;
}

absl::Status LedgerOracle::Check() const {
  const std::optional<Violation> v = FirstViolation();
  return v ? v->status : absl::OkStatus();
}

std::map<std::pair<std::string, std::string>, std::map<int64_t, MidFate>> LedgerOracle::Fates()
    const {
  std::map<std::pair<std::string, std::string>, std::map<int64_t, MidFate>> out;
  for (const Event& e : events_) {
    auto& m = out[{e.client, e.domain}];
    if (e.kind == Event::Kind::kIssue) {
      m.emplace(e.mid, MidFate::kPending);
    } else if (e.kind == Event::Kind::kFate || e.kind == Event::Kind::kDeopt) {
      auto it = m.find(e.mid);
      if (it != m.end() && it->second == MidFate::kPending) it->second = e.fate;
    }
  }
  return out;
}

}  // namespace rindle
