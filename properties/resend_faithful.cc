// resend_faithful.cc — resend-faithful (families.h): every envelope a client put on the push
// path again for a mid (a transport retry or the backend's resync re-send, seed 002 §7.5 rule 3:
// "re-send ... with their ORIGINAL mids", reconstructed "exactly as invoke shipped them") carries
// the name and args of that mid's FIRST send. The expectation is the harness's own record of the
// first send (ClientState::carried, what the network was handed), never the backend's pending
// list. Checked after every step on dirty clients, over the sends not yet seen.
// Holds state for one run: per client, the first send of each mid and how far carried was read.
#include <map>
#include <string>

#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

class ResendFaithful : public PropertyFamily {
 public:
  MaybeViolation AfterStepClient(const World&, const ClientState& c, StepCounters* counters) override {
    if (c.carried == nullptr) return std::nullopt;
    size_t& read = read_[c.id];
    std::map<int64_t, MutationEnvelope>& first = first_[c.id];
    for (; read < c.carried->size(); ++read) {
      const MutationEnvelope& e = (*c.carried)[read];
      auto [it, fresh] = first.emplace(e.mid, e);
      if (fresh) continue;
      if (counters != nullptr) ++(*counters)["check.resend_compared"];
      const MutationEnvelope& f = it->second;
      if (e.name != f.name || e.args != f.args) {
        return Violation{"resend-faithful",
                         StrCat(c.id, ": send #", read + 1, " of mid ", e.mid, " carries ", e.name,
                                " ", e.args.dump(), " but its first send carried ", f.name, " ",
                                f.args.dump())};
      }
    }
    return std::nullopt;
  }

 private:
  std::map<std::string, size_t> read_;  // client → sends of carried already compared
  // client → mid → its first send (a copy: carried grows and may reallocate).
  std::map<std::string, std::map<int64_t, MutationEnvelope>> first_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeResendFaithful() { return std::make_unique<ResendFaithful>(); }

}  // namespace rindle::props
