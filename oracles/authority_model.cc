#include "oracles/authority_model.h"

#include <utility>

#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {
namespace {

absl::Status OrderViolation(const Envelope& e, int64_t expected) {
  return absl::FailedPreconditionError(StrCat("client \"", e.client_id, "\": processed mid ",
                                              e.mid, " (", e.name, ") but the next mid is ",
                                              expected, " (mids must rise by exactly 1)"));
}

int64_t LastMid(const std::map<std::string, int64_t>& lmids, const std::string& client) {
  auto it = lmids.find(client);
  return it == lmids.end() ? 0 : it->second;
}

}  // namespace

std::string_view EnvelopeFateName(EnvelopeFate f) {
  switch (f) {
    case EnvelopeFate::kApplied: return "applied";
    case EnvelopeFate::kBurnt: return "burnt";
  }
  return "?";
}

AuthorityModel::AuthorityModel(PlainStore initial, std::map<std::string, Mutator> twins,
                               std::map<std::string, int64_t> initial_lmids)
    : store_(std::move(initial)), twins_(std::move(twins)), lmids_(std::move(initial_lmids)) {}

absl::StatusOr<EnvelopeFate> AuthorityModel::Process(const Envelope& envelope) {
  const int64_t expected = LastMid(lmids_, envelope.client_id) + 1;
  if (envelope.mid != expected) return OrderViolation(envelope, expected);
  lmids_[envelope.client_id] = envelope.mid;
  ProcessedEnvelope p{envelope, EnvelopeFate::kApplied, absl::OkStatus()};
  auto twin = twins_.find(envelope.name);
  if (twin == twins_.end()) {
    p.fate = EnvelopeFate::kBurnt;
    p.twin_status = absl::NotFoundError(StrCat("no server twin named \"", envelope.name, "\""));
  } else {
    PlainMutationTx tx(&store_);
    absl::Status s = twin->second(tx, envelope.args);
    if (s.ok()) {
      tx.Commit();
    } else {
      p.fate = EnvelopeFate::kBurnt;
      p.twin_status = std::move(s);
    }
  }
  const EnvelopeFate fate = p.fate;
  processed_.push_back(std::move(p));
  return fate;
}

absl::Status CheckMidOrder(const std::vector<Envelope>& log,
                           const std::map<std::string, int64_t>& initial_lmids) {
  std::map<std::string, int64_t> last = initial_lmids;
  for (size_t i = 0; i < log.size(); ++i) {
    const Envelope& e = log[i];
    const int64_t expected = LastMid(last, e.client_id) + 1;
    if (e.mid != expected) {
      absl::Status s = OrderViolation(e, expected);
      return absl::FailedPreconditionError(StrCat("log[", i, "]: ", s.message()));
    }
    last[e.client_id] = e.mid;
  }
  return absl::OkStatus();
}

absl::StatusOr<AuthorityModel> ReplayAuthority(const PlainStore& initial,
                                               const std::vector<Envelope>& log,
                                               const std::map<std::string, Mutator>& twins,
                                               const std::map<std::string, int64_t>&
                                                   initial_lmids) {
  AuthorityModel model(initial, twins, initial_lmids);
  for (size_t i = 0; i < log.size(); ++i) {
    auto fate = model.Process(log[i]);
    if (!fate.ok()) {
      return absl::FailedPreconditionError(StrCat("log[", i, "]: ", fate.status().message()));
    }
  }
  return model;
}

}  // namespace rindle
