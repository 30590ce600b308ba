// room_views.h — the room view plane's action-time checks (issue 13; seed 002 302 §4–§6), called
// by the simulator at the moment it observes the thing checked (like channel-isolation). Stateless.
//
//   room-context-leak   a frame delivered on a room channel must not ADD or CHANGE a row of a
//                       table the room does not own (302 §6: the daemon is the sole authority for
//                       context; the room's twins take only its owned tables). `before` / `after`
//                       are the client's plain rows of the tables the room relays but does not own
//                       (the harness's list: what the room's store holds outside its doc), around
//                       one delivery. Removals are allowed: a retarget's phase-2 GC drops the old
//                       channel's rows at a room release.
//   room-stuck          the stuck-downgrade event fires at most once per ghost (one ghost per
//                       demote the harness issued; a reconnect ends it), and names exactly the
//                       expected mids: the harness's record of the mids first sent on the room's
//                       links minus the resolved ones (the room lmid the harness's shadow saw
//                       released to the client, or an outcome frame the network delivered).
//   room-ghost-fence    while the harness's record says a ghost's fence is not met — the highest
//                       flush_seq it released or fed to the client for the doc (the watermark
//                       system stream, its own watermark feed) is below the demote's
//                       final_flush_seq — or while a room mid the client sent is unresolved in
//                       the harness's record (no released confirmation, no handled deopt: a
//                       stuck ghost holds, never a timeout retire) — the client still holds that
//                       ghost and every view the harness expects on the room's twins still reads
//                       them (302 §4.2: swapping back earlier shows the follower's pre-flush
//                       images, or loses the unresolved writes).
// Expectations come from the harness's records only; the event itself is what is checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/invariants.h"

namespace rindle::props {

MaybeViolation CheckRoomContextUntouched(const std::string& client, const std::string& key,
                                         const PlainTables& before, const PlainTables& after);

// `mark`: the harness's watermark record for the ghost's doc; `unresolved`: the sent room-domain
// mids the harness's record holds unresolved (no released confirmation, no handled deopt);
// `swapped_to`: per view the harness expects on `key`'s twins, the room the backend reports it
// reads (nullopt: plain tables). Below the fence, or with a sent room mid unresolved (a stuck
// ghost holds: never a timeout retire, 302 §4.2 / §7.5 rule 2), the ghost and those views hold.
MaybeViolation CheckGhostFence(const std::string& client, const std::string& key, int64_t mark,
                               int64_t final_flush_seq, const std::set<int64_t>& unresolved,
                               bool ghost_held,
                               const std::map<int64_t, std::optional<std::string>>& swapped_to);

// `fired_before`: how many stuck events this ghost already fired (before this one).
MaybeViolation CheckStuckEvent(const std::string& client, const std::string& key,
                               int64_t fired_before, const std::vector<int64_t>& named,
                               const std::set<int64_t>& expected);

}  // namespace rindle::props
