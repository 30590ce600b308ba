// ledger_rollback.h — what a run expects of a client after the authority came back from an
// older ledger (the simulator's authority_rollback fault: the store and the ledgers lose the last
// processed envelopes; world.h AuthorityView::forgotten). Seed 002 is silent (it assumes a
// durable ledger); the client's choice is in optimistic/ledger.h FoldConfirm: it refuses a
// released lmid below its watermark (health = kLedgerRegressed). Either outcome is loud:
//   refused    RefusedRollback: the client's health is that refusal AND the harness's record
//              shows a rollback forgot mids of this client. That is the run's named health
//              outcome (counter health.refused_authority_rollback): the app shut the client down,
//              so the checker leaves it out of every later check. A refusal without such a
//              rollback is an ordinary client-health failure.
//   recovered  CheckRollbackRecovered (no-lost-writes, at quiescence): every forgotten mid of a
//              client that did not refuse was processed again by the restored authority — once
//              (gapless-mids: each mid once, in order) and with the name and args of the
//              client's first send (the harness's record, ClientState::sent).
// Anything else — a client that silently keeps confirmations the authority no longer has — fails
// applied-once per step (the released lmid above the last mid processed at its cut) or
// no-lost-writes at quiescence. Stateless.
#pragma once

#include "properties/checker.h"
#include "properties/world.h"

namespace rindle::props {

bool RefusedRollback(const World& w, const ClientState& c);
MaybeViolation CheckRollbackRecovered(const World& w, const ClientState& c);

}  // namespace rindle::props
