// room_ledger_seq.cc — room-deopt-seq and the cross-domain replay order (families.h; seed 002
// `seq`: "confirmation order is per-domain; replay order is client-global", H-v §3.3 step 4: a
// deopt flip keeps the entry's seq). The expectation is the harness's record of the ONE deal
// order (world.h DealRecord: every first push the network carried, on the daemon link or a room
// link, in send order; a deopt's daemon mid judged a flip by the harness keeps its room mid's
// slot, a re-invoke takes a new one); the backend's seqs are only checked against it.
//
//   room-deopt-seq   after every step, per client: the pending entries that hold a seq, in seq
//                    order, are in slot order wherever a deopt-flipped entry is one of the pair —
//                    a flipped entry keeps its place among the entries still pending (its seq was
//                    dealt when its room mid was; a new seq would replay it after entries invoked
//                    later, changing the base their reads replay on)
//   replay-order     the same for every other pair of pending entries (seq is the deal order
//                    across domains; the backend's own replays are judged against their seqs in
//                    optimistic_invariants.h)
// A pending entry whose (domain, mid) the harness never saw pushed is a violation too (a mid
// dealt without its push). Counters: check.room-deopt-seq.checked (steps with a flipped entry
// pending), check.room_deopt_seq.later_pending (steps where an entry dealt AFTER the flipped one
// is pending too: the case a re-dealt seq would break).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/source_key.h"
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

// One pending entry with its seq and its slot in the harness's deal order.
struct Entry {
  int64_t seq;
  int64_t slot;
  const PendingMutation* p;
  const DealRecord::Deopt* flip;  // set when the harness judged this entry a deopt flip
};

std::string Describe(const Entry& e) {
  return StrCat(e.p->name, " (", e.p->domain, " mid ", *e.p->mid, ", seq ", e.seq, ", deal #",
                e.slot + 1, ")");
}

class RoomDeoptSeq : public PropertyFamily {
 public:
  MaybeViolation AfterStepClient(const World&, const ClientState& c,
                                 StepCounters* counters) override {
    if (c.deals == nullptr) return std::nullopt;
    std::vector<Entry> entries;
    bool any_flip = false;
    for (const PendingMutation& p : c.backend->pending()) {
      if (!p.seq || !p.mid) continue;  // an unflushed fold: no place dealt yet (replays last)
      auto slot = c.deals->slot.find({p.domain, *p.mid});
      if (slot == c.deals->slot.end()) {
        return Violation{"replay-order",
                         StrCat(c.id, ": pending ", p.name, " (domain ", p.domain, " mid ", *p.mid,
                                " seq ", *p.seq, ") was never pushed: a mid dealt without its "
                                "push")};
      }
      const DealRecord::Deopt* flip = nullptr;
      if (p.domain == kDaemonSource) {
        auto d = c.deals->deopt_of.find(*p.mid);
        if (d != c.deals->deopt_of.end() && d->second.flip) flip = &d->second;
      }
      any_flip = any_flip || flip != nullptr;
      entries.push_back({*p.seq, slot->second, &p, flip});
    }
    if (any_flip) ++(*counters)["check.room-deopt-seq.checked"];
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.seq < b.seq; });
    bool later_pending = false;
    for (size_t i = 0; i < entries.size(); ++i) {
      for (size_t j = i + 1; j < entries.size(); ++j) {
        const Entry& a = entries[i];  // a.seq < b.seq
        const Entry& b = entries[j];
        if (a.flip != nullptr && b.slot > a.slot) later_pending = true;
        if (a.slot < b.slot) continue;
        const Entry& flipped = b.flip != nullptr ? b : a;
        const bool deopt = a.flip != nullptr || b.flip != nullptr;
        std::string what = StrCat(c.id, ": ", Describe(a), " replays before ", Describe(b),
                                  " but was dealt after it");
        if (deopt) {
          StrAppend(&what, " — the deopt-flipped ", flipped.p->name, " (",
                    flipped.flip->key, " mid ", flipped.flip->room_mid,
                    ") must keep the place its room mid was dealt at");
        }
        return Violation{deopt ? "room-deopt-seq" : "replay-order", what};
      }
    }
    if (later_pending) ++(*counters)["check.room_deopt_seq.later_pending"];
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeRoomDeoptSeq() { return std::make_unique<RoomDeoptSeq>(); }

}  // namespace rindle::props
