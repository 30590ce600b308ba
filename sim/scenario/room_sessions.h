// room_sessions.h — the generator's room pass (scenario_generator.cc runs it last): the room
// sessions of the clients, the thread moves inside them and the room faults. Stateless.
//
// Sessions (issue 12): per client, with the swarm's room_connect_per_mille, a room_connect to the
// room of one of the first three seed issues (clients meet in the same rooms) with a retain of
// that issueDetail (the app opens the issue it joins: the row and thread its predictions
// need; a handle past the client's others), 1..4 addComment on that issue while connected (1 in 5
// with a blank body: the server twin rejects it), and sometimes a room_disconnect with the
// detail's release, then a second room. Stream "workload/rooms/<i>" (no draw for the retain).
// Thread moves (the app's realistic deopt, seed 002 H-v): in every session, 1..2 times, the
// client moves a comment of ANOTHER issue's thread into this one — moveComment {id, issueId: the doc's
// issue} is room-declared (sim/workload/room_policy.h), so it routes into the room, which does not
// hold that comment and answers `deopt`; the daemon applies it — and replies in the thread 0..2 ms
// later (an addComment that is still pending when the deopt lands: a deopted entry must keep its
// place in the replay order ahead of it). Stream "workload/rooms/moves/<i>", so the sessions'
// draws are unchanged.
// Faults: the room faults the swarm counted, each on a doc some client connects (a link fault on
// one of its clients); none without a room (the recorded draw then says none). Stream
// "faults/rooms". The outcome faults (loss, duplicate, delay) and the deopt / reject storms are
// aimed at the room's traffic: the drawn time moves to 1 ms before the doc's next room-declared
// invoke; a room_link_break's to 1 ms after its client's next one (no extra draw). Slow answers
// to moves, from stream "faults/rooms/moves": each thread move, with 1 in 2, gets an
// outcome_delay or outcome_loss {count 1} armed 1 ms before it (its deopt then reaches the client
// after the room lmid release retired the entry: the re-invoke path), whatever the swarm drew
// for those kinds — the scenario's recorded draw ("swarm".faults) counts them, so it says what
// was placed. room_flush_link_down from its own stream "faults/rooms/flush_link_down": each
// armed 1 ms before one of the room-declared invokes a client makes inside a session (its push
// is the one the link goes down after).
#pragma once

#include "base/rng.h"
#include "engine/schema.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/swarm.h"

namespace rindle::sim {

// Appends the room actions and faults to `s` (actions re-sorted by time, stably; faults too).
// `schema`: the app schema (the seed comments' issueId column).
void AddRoomSessions(const Rng& root, const SwarmDraw& swarm, const Schema& schema, Scenario& s);

}  // namespace rindle::sim
