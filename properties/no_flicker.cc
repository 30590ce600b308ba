// no_flicker.cc — the `no-flicker` property (families.h; issue 11 "per-step checks of what a user
// sees"; seed 002 computeRelease: "confirmation and data of the same commit share a cv, so they
// release together"). Holds state: per client, every live remote view's rows as of the previous
// step (its result tree, and — made only when the tree changed — row key → the row with its
// related children, serialized) and the highest mid the released lmid frames confirmed so far.
// A view whose tree is cell-exact the same as the previous step's (fresh_memo.h TreesSame) has
// the same rows, so it is not serialized again; a changed one is compared row by row as always.
//
// After every step, per dirty client, per live remote view that existed in the previous step: a
// row that disappeared or changed value must be explained by a change the harness can name —
//   * a local action: the runner ran an action of this client in this step (a write, a fold, a
//     release whose GC narrows shared rows, a resubscribe cycle) — StepRecord::local_actions;
//   * server data: the shadow gate (fed by the delivery tap, never by the backend) released a
//     data frame this step that can reach the view: a snapshot (a rehydration's footprint diff
//     may remove any row) or a batch whose ops touch one of the view's tables;
//   * a burnt mid: a released confirmation covers a mid the authority's log records as burnt —
//     or a room lmid release / daemon-carried room-ledger row covers a room mid its room
//     deopted or rejected (StepRecord::room_burnt, seed 1006: a limited page's neighbour returns
//     as the burnt move's prediction retracts)
//     (its twin failed), so the prediction is dropped with no data frame to replace it;
//   * an unshipped commit: every released confirmation is a batch at a cv whose data batches to
//     this client (the send tap: what the authority put on the link) all released with it —
//     usually none, when the commit changed only columns or rows no sub of this client ships;
//   * the §4.2 reorder snap: a release this step (so a reconcile) and every changed row now
//     equals the fresh query over the client model's head (oracles/client_model: the harness
//     record replayed in canonical order) — the reconcile replayed an overtaken open fold after
//     the write that overtook it (seed 257: a deferred setPriority's stamp snapped back); a room
//     lmid release that retired an entry is such a cycle too (StepRecord::room_releases, seed 935);
//   * an unhydrated view: its sub has released no snapshot yet (the tap's shadow subs), so the
//     view is not complete and its rows are only the local store's guess;
//   * a dead replay: a mutation of this client that the client model (oracles/client_model.h, fed
//     by the taps, never by the backend) held pending last step left its pending list this step
//     without being confirmed — its replay failed on the new synced base (seed 002: such a
//     re-invocation is dropped), e.g. a createIssue whose id another client's recreateIssue took
//     first — and it wrote one of the view's tables: its whole prediction goes, in every table,
//     though the data that killed it touched only one (the issue row; the tags go too);
//   * a room deopt re-invocation: the harness delivered a `deopt` outcome this step whose echoed
//     args.id is in the row (before or after) — its entry had retired at the room's lmid release
//     (the outcome was delayed or lost behind it), so the client re-invokes it on the daemon
//     (seed 002 H-v, outcomes.h step 5) and the prediction returns (StepRecord::room_outcome_ids);
//   * room data: the harness's shadow of a room channel released a data frame to this client this
//     step (world.h room_data_released): its reconcile may swap views onto twins, apply a room
//     batch to them, GC a retarget's old channel, or replay pending as a daemon release does;
//   * a swap-back: the harness expected this view to leave a demoted room's twins this step (its
//     ghost-drop record, world.h room_swapped_back) and every row it changed now equals the fresh
//     query over the client model — the plain tables hold what the twins did not (the daemon's
//     later edits, a write the client made on the daemon while the ghost held).
// Inside a step that swapped a view (a swap-in, a late join, a swap-back), every state the view
// passed through from the swap on is checked too: a row with the same image before and after the
// step that showed another image (or none) in between flashed (swap_steps counts those steps).
// A view that is new this step (a retain, a resubscribe's fresh qid) has no previous state. A
// confirmation released ALONE for an applied mid explains nothing: the mid's effect travels in
// data frames of the same cv, so if the view loses the prediction before they release, the user
// saw the confirmed write vanish ([a] → [] → [a], the reconnect ordering); and data released
// while the mid is still pending then its confirmation alone (n: 2 → 3 → 2, the overflow
// ordering) is caught at the confirmation step. A client's own write therefore stays visible
// from its invoke until a data frame or a later action supersedes it.
// Counters (campaign summary): check.no_flicker.{changed_rows, local_exempt, data_exempt,
// burnt_exempt, unshipped_exempt, reorder_snap_exempt,
// unhydrated_exempt, dead_replay_exempt, room_reinvoke_exempt, room_data_exempt, swap_back_exempt,
// view_opened, swap_steps} —
// how often each explanation was used.
#include <map>
#include <set>
#include <string>

#include "base/check.h"
#include "base/str_util.h"
#include "oracles/fresh_query.h"
#include "properties/families.h"
#include "properties/fresh_memo.h"

namespace rindle::props {
namespace {

using Rows = std::map<std::string, std::string>;  // row key → serialized subtree

nlohmann::json TreeJson(const TreeNode& n) {
  nlohmann::json rel = nlohmann::json::array();
  for (const auto& [alias, children] : n.relationships) {
    nlohmann::json kids = nlohmann::json::array();
    for (const TreeNode& k : children) kids.push_back(TreeJson(k));
    rel.push_back({alias, kids});
  }
  return {n.row ? RowToJson(*n.row) : nlohmann::json(nullptr), rel};
}

// Rows keyed by the root table's primary key when the rows are full width (else the whole row).
Rows RowsOf(const std::vector<TreeNode>& tree, const Ast& ast, const Schema& schema) {
  Rows out;
  auto spec = schema.find(ast.table);
  for (const TreeNode& n : tree) {
    std::string key;
    if (n.row && spec != schema.end() && n.row->size() == spec->second.columns.size()) {
      RowValues pk;
      for (int i : spec->second.primary_key) pk.push_back((*n.row)[static_cast<size_t>(i)]);
      key = RowToJson(pk).dump();
    } else {
      key = n.row ? RowToJson(*n.row).dump() : "null";
    }
    out[key] = TreeJson(n).dump();
  }
  return out;
}

std::string Released(const StepRecord& step) {
  std::string out;
  for (const TapFrame& f : step.released) {
    out += StrCat(out.empty() ? "" : ", ", f.qid == kLmidQid ? "lmid" : StrCat("qid ", f.qid),
                  f.snapshot ? " snapshot" : " batch", "@", f.cv);
  }
  return out.empty() ? "nothing" : out;
}

// True when the lost row's old or new serialized subtree holds an id of `c`'s unsettled room
// envelopes (a burnt room move puts its comment back under the parent it left: the new subtree).
bool RoomUnsettled(const ClientState& c, const std::string& old_subtree,
                   const std::string& new_subtree) {
  for (const std::string& id : c.room_unsettled_ids) {
    const std::string quoted = "\"" + id + "\"";
    if (old_subtree.find(quoted) != std::string::npos ||
        new_subtree.find(quoted) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// True when the lost row's old or new serialized subtree holds an id of a deopt outcome the
// harness delivered this step (StepRecord::room_outcome_ids).
bool RoomOutcomeReaches(const StepRecord& step, const std::string& before,
                        const std::string& after) {
  for (const std::string& id : step.room_outcome_ids) {
    const std::string quoted = "\"" + id + "\"";
    if (before.find(quoted) != std::string::npos || after.find(quoted) != std::string::npos) {
      return true;
    }
  }
  return false;
}

class NoFlicker : public PropertyFamily {
 public:
  explicit NoFlicker(OptimisticInvariants* invariants) : inv_(invariants) {
    RINDLE_CHECK(inv_ != nullptr);
  }

  MaybeViolation AfterStepClient(const World& w, const ClientState& c,
                                 StepCounters* counters) override {
    const OptimisticBackend& b = *c.backend;
    if (!b.health().ok()) return std::nullopt;  // client-health reports it
    State& s = states_[c.id];
    const StepRecord& step = inv_->Step(c.id);
    // ConfirmsBurnt first: it advances the daemon watermark whatever the room says.
    const bool burnt = ConfirmsBurnt(w, c.id, step, &s) || step.room_burnt;
    const std::set<std::string> died = DiedTables(c, &s);
    std::map<int64_t, Seen> now;
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;  // view==fresh reports it
      Seen seen{v->Tree(), view.second.table, std::nullopt};
      auto prev = s.views.find(qid);
      if (prev != s.views.end() && prev->second.table == seen.table) {
        if (auto flash = SwapFlash(w, c, qid, prev->second, seen, counters)) {
          return Violation{"no-flicker", StrCat(c.id, " view ", qid, " (", view.first.name,
                                                "): ", *flash)};
        }
      }
      if (prev != s.views.end() && prev->second.table == seen.table &&
          TreesSame(prev->second.tree, seen.tree)) {
        now[qid] = std::move(prev->second);  // same tree, same rows: nothing lost
        continue;
      }
      const Rows& rows = seen.RowsIn(*w.client_schema);
      if (prev == s.views.end()) {
        ++(*counters)["check.no_flicker.view_opened"];
      } else if (auto lost = Lost(prev->second.RowsIn(*w.client_schema), rows)) {
        ++(*counters)["check.no_flicker.changed_rows"];
        // Exemptions, in order (each counted): see the header.
        if (step.local_actions > 0) {
          ++(*counters)["check.no_flicker.local_exempt"];
        } else if (DataReaches(step, view.second)) {
          ++(*counters)["check.no_flicker.data_exempt"];
        } else if (burnt) {
          ++(*counters)["check.no_flicker.burnt_exempt"];
        } else if (CommitShippedNothing(c.id, step)) {
          ++(*counters)["check.no_flicker.unshipped_exempt"];
        } else if (SnapsToModel(w, c, view.second, prev->second.RowsIn(*w.client_schema), rows, step)) {
          ++(*counters)["check.no_flicker.reorder_snap_exempt"];
        } else if (!inv_->Hydrated(c.id, view.first.Key())) {
          // Not yet complete (its sub released no snapshot: shadow gate): its rows are the
          // local store's guess, not the server's — e.g. a resubscribe while a mutation is in
          // flight, whose confirmation arrives before the new sub's snapshot.
          ++(*counters)["check.no_flicker.unhydrated_exempt"];
        } else if (Touches(died, view.second)) {
          ++(*counters)["check.no_flicker.dead_replay_exempt"];
        } else if (RoomOutcomeReaches(step, prev->second.RowsIn(*w.client_schema).at(*lost),
                                      rows.contains(*lost) ? rows.at(*lost) : std::string())) {
          // A deopt outcome delivered this step for a mutation of the row (the network's frame):
          // its entry already retired, so the client re-invoked it on the daemon (seed 002 H-v,
          // outcomes.h step 5) — the row comes back as the user's own write did.
          ++(*counters)["check.no_flicker.room_reinvoke_exempt"];
        } else if (RoomUnsettled(c, prev->second.RowsIn(*w.client_schema).at(*lost),
                                 rows.contains(*lost) ? rows.at(*lost) : std::string())) {
          // A room-routed row between its room's verdict and the daemon's release of the flush
          // (world.h room_unsettled_ids: the harness's record, not the client's).
          ++(*counters)["check.room_unflushed_exempt"];
        } else if (c.room_data_released) {
          // A room channel released data this step (the harness's shadow; see the header).
          ++(*counters)["check.no_flicker.room_data_exempt"];
        } else if (c.room_swapped_back.contains(qid) &&
                   SnapsToModel(w, c, view.second, prev->second.RowsIn(*w.client_schema), rows,
                                step, /*after_release=*/false)) {
          // A swap-back the harness expected this step (its ghost-drop record): the view left
          // the room's twins — a stale follower's copy — for the plain tables, and every row it
          // changed now equals the fresh query over the client model (seed 1789: the daemon
          // held the issue's later status and the room's flushed comments).
          ++(*counters)["check.no_flicker.swap_back_exempt"];
        } else {
          return Violation{
              "no-flicker",
              StrCat(c.id, " view ", qid, " (", view.first.name, "): row ", *lost, " was ",
                     prev->second.RowsIn(*w.client_schema).at(*lost), " and is now ",
                     rows.contains(*lost) ? rows.at(*lost) : std::string("gone"),
                     " with no local action and no data frame for the view released this step "
                     "(released: ",
                     Released(step), ")")};
        }
      }
      now[qid] = std::move(seen);
    }
    s.views = std::move(now);
    return std::nullopt;
  }

 private:
  // One view as of a step: its tree, and its rows serialized on first need.
  struct Seen {
    std::vector<TreeNode> tree;
    std::string table;  // the AST's root table (all RowsOf reads of the AST)
    std::optional<Rows> rows;
    const Rows& RowsIn(const Schema& schema) {
      if (!rows) {
        Ast root;  // RowsOf reads only the root table of the AST
        root.table = table;
        rows = RowsOf(tree, root, schema);
      }
      return *rows;
    }
  };
  struct State {
    std::map<int64_t, Seen> views;
    int64_t confirmed = 0;  // highest mid a released lmid frame confirmed
    std::map<int64_t, std::set<std::string>> pending;  // the model's pending mids → tables
  };

  // A flash inside one step (302 §4: a swap is ONE transition, after the reconcile folded the
  // room's snapshot): a row the view showed with the same image before and after the step must
  // show that image in every state the view passed through from its first swap on
  // (ClientState::swap_states: the backend's swap and batch observers).
  std::optional<std::string> SwapFlash(const World& w, const ClientState& c, int64_t qid,
                                       Seen& before, Seen& after, StepCounters* counters) const {
    if (c.swap_states == nullptr) return std::nullopt;
    auto states = c.swap_states->find(qid);
    if (states == c.swap_states->end()) return std::nullopt;
    ++(*counters)["check.no_flicker.swap_steps"];
    const Rows& start = before.RowsIn(*w.client_schema);
    const Rows& end = after.RowsIn(*w.client_schema);
    Ast root;
    root.table = after.table;
    for (size_t i = 0; i < states->second.size(); ++i) {
      const Rows mid = RowsOf(states->second[i], root, *w.client_schema);
      for (const auto& [key, image] : start) {
        auto last = end.find(key);
        if (last == end.end() || last->second != image) continue;  // a real change: not a flash
        auto shown = mid.find(key);
        if (shown != mid.end() && shown->second == image) continue;
        return StrCat("row ", key, " was ", image, " before and after this step but showed ",
                      shown == mid.end() ? std::string("nothing") : shown->second,
                      " in between (state ", i + 1, " of ", states->second.size(),
                      " after a swap inside the step)");
      }
    }
    return std::nullopt;
  }

  // The §4.2 reorder snap: an open fold that a later write overtook (deferAcrossWrites, a
  // read-only overlap) applied before it in head, and the next reconcile replays it after, so
  // a cell may change back at a release of unrelated data. Explained when the client ran a
  // reconcile this step (frames released) and every changed row of the view now is what the
  // fresh query over the CLIENT MODEL's head (the harness record replayed in canonical order)
  // gives — the view moved to the expected state, never away from it. Rows holding an unsettled
  // room write are left out of that comparison (the model holds no room entries).
  // `after_release`: only on a step that released something (a reconcile); false for a swap-back,
  // which changes what a view reads without any release.
  bool SnapsToModel(const World& w, const ClientState& c, const Ast& ast, const Rows& before,
                    const Rows& after, const StepRecord& step, bool after_release = true) const {
    if (after_release && step.released.empty() && step.room_releases == 0) return false;
    absl::Status error;
    const ClientModel* model = inv_->Model(c.id, ViewInfosOf(c), *c.sent, &error);
    if (model == nullptr) return false;
    absl::StatusOr<std::vector<TreeNode>> fresh = FreshQuery(ast, model->head(), *w.schema);
    if (!fresh.ok()) return false;
    const Rows expected = RowsOf(*fresh, ast, *w.client_schema);
    for (const auto& [key, value] : before) {
      auto now = after.find(key);
      if (now != after.end() && now->second == value) continue;  // unchanged
      auto want = expected.find(key);
      const bool gone = now == after.end();
      if (gone ? want != expected.end() : (want == expected.end() || want->second != now->second)) {
        // The single-domain model holds no room entries: a row holding an unsettled room write
        // (seed 1242: the issue a room comment was just confirmed on) is the room's to explain.
        if (RoomUnsettled(c, value, gone ? std::string() : now->second)) continue;
        return false;
      }
    }
    return true;
  }

  static bool Touches(const std::set<std::string>& tables, const Ast& ast) {
    for (const std::string& t : AstTables(ast)) {
      if (tables.contains(t)) return true;
    }
    return false;
  }

  // The tables written by mutations the client model held pending last step that left its
  // pending list unconfirmed this step (their replay failed: dead); refreshes s->pending.
  std::set<std::string> DiedTables(const ClientState& c, State* s) {
    absl::Status error;
    const ClientModel* model = inv_->Model(c.id, ViewInfosOf(c), *c.sent, &error);
    if (model == nullptr) return {};  // head_sync_pending reports a model error
    std::map<int64_t, std::set<std::string>> now;
    for (const ClientModel::Entry* e : model->Pending()) {
      if (e->mid) now[*e->mid] = e->tables;
    }
    std::set<std::string> died;
    for (const auto& [mid, tables] : s->pending) {
      if (mid > model->released_lmid() && !now.contains(mid)) {
        died.insert(tables.begin(), tables.end());
      }
    }
    s->pending = std::move(now);
    return died;
  }

  // The first key of `before` missing from or changed in `after`.
  static std::optional<std::string> Lost(const Rows& before, const Rows& after) {
    for (const auto& [key, value] : before) {
      auto it = after.find(key);
      if (it == after.end() || it->second != value) return key;
    }
    return std::nullopt;
  }

  static bool DataReaches(const StepRecord& step, const Ast& ast) {
    const std::vector<std::string> tables = AstTables(ast);
    for (const TapFrame& f : step.released) {
      if (f.qid == kLmidQid) continue;
      if (f.snapshot) return true;
      for (const std::string& t : tables) {
        if (f.tables.contains(t)) return true;
      }
    }
    return false;
  }

  // Whether every confirmation released this step is a batch whose commit's data batches to this
  // client (the send tap: what the authority put on the link, lost or not) all released with it
  // — none at all when the commit touched nothing this client's subs ship (an unshipped
  // column, a row outside every footprint): the prediction then yields to the server's truth.
  bool CommitShippedNothing(const std::string& client, const StepRecord& step) const {
    std::map<int64_t, int64_t> released;  // cv → data batches released this step
    for (const TapFrame& f : step.released) {
      if (f.qid != kLmidQid && !f.snapshot) ++released[f.cv];
    }
    bool any = false;
    for (const TapFrame& f : step.released) {
      if (f.qid != kLmidQid) continue;
      if (f.snapshot) return false;  // a re-registration's confirmation: its data is snapshots
      any = true;
      if (inv_->SentBatches(client, f.cv) != released[f.cv]) return false;
    }
    return any;
  }

  // Whether the confirmations released this step cover a mid the authority burnt; advances the
  // confirmed watermark.
  static bool ConfirmsBurnt(const World& w, const std::string& client, const StepRecord& step,
                            State* s) {
    int64_t top = s->confirmed;
    for (const TapFrame& f : step.released) {
      if (f.qid == kLmidQid) top = std::max(top, f.confirms);
    }
    bool burnt = false;
    if (top > s->confirmed) {
      const AuthorityView& a = *w.authority;
      for (size_t i = 0; i < a.processed_count() && !burnt; ++i) {
        const ProcessedRef r = a.processed(i);
        burnt = r.client_id == client && r.mid > s->confirmed && r.mid <= top && !r.applied;
      }
    }
    s->confirmed = top;
    return burnt;
  }

  OptimisticInvariants* inv_;
  std::map<std::string, State> states_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeNoFlicker(OptimisticInvariants* invariants) {
  return std::make_unique<NoFlicker>(invariants);
}

}  // namespace rindle::props
