#include "optimistic/folds.h"

#include <algorithm>
#include <utility>

#include "base/check.h"
#include "base/source_key.h"

namespace rindle {

Folds::Folds(FoldClock* clock, Ledger* ledger, const ClientHealth* health, Resolve resolve,
             std::string client_id, Push push, std::function<void(const std::string&)> on_due)
    : clock_(clock),
      ledger_(ledger),
      health_(health),
      resolve_(std::move(resolve)),
      client_id_(std::move(client_id)),
      push_(std::move(push)),
      on_due_(std::move(on_due)) {
  RINDLE_CHECK(ledger_ != nullptr && health_ != nullptr);
  RINDLE_CHECK(push_ && on_due_ && resolve_);
}

Folds::~Folds() {
  for (auto& [key, f] : folds_) {
    if (f.timer && clock_ != nullptr) clock_->ClearTimeout(*f.timer);
  }
}

std::string Folds::Key(const std::string& name, const nlohmann::json& key) {
  return name + std::string(1, '\0') + key.dump();
}

std::vector<std::string> Folds::InCreationOrder() const {
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [key, f] : folds_) order.emplace_back(f.created, key);
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (auto& [c, key] : order) out.push_back(std::move(key));
  return out;
}

std::set<std::string> Folds::Footprint(const Record& f, const PendingMutation& entry) {
  std::set<std::string> tables = Touched(entry.writes);
  tables.insert(f.probed.begin(), f.probed.end());
  return tables;
}

void Folds::NoteOpenOverlap(const std::set<std::string>& tables, std::optional<uint64_t> after) {
  for (const auto& [key, f] : folds_) {
    if (after && f.created <= *after) continue;
    const PendingMutation* entry = ledger_->Find(f.entry_id);
    if (entry != nullptr && AnyTableIn(Footprint(f, *entry), tables)) head_reordered_ = true;
  }
}

void Folds::Absorb(const std::string& key, const std::string& name, const nlohmann::json& args,
                   const FoldOptions& opts, WriteSet writes,
                   const std::set<std::string>& probed, int64_t now) {
  RINDLE_CHECK(clock_ != nullptr);
  auto it = folds_.find(key);
  if (it != folds_.end() && ledger_->Find(it->second.entry_id) != nullptr) {
    // Overwrite the single entry in place — the pending stack does not grow (§1 #2). The head
    // already carries this prediction; the entry keeps only the latest args and write-set.
    Record& f = it->second;
    // Replay keeps the windows in creation order: re-invoking this window after a LATER open
    // window that touches the same tables applies it out of replay order (§4.2 snap).
    std::set<std::string> fresh = Touched(writes);
    fresh.insert(probed.begin(), probed.end());
    NoteOpenOverlap(fresh, f.created);
    // Union, never shrink: the head still holds what the earlier invokes looked up.
    f.probed.insert(probed.begin(), probed.end());
    PendingMutation* entry = ledger_->Find(f.entry_id);
    entry->args = args;
    entry->writes = std::move(writes);
    entry->domain = resolve_(name, args);  // provisional: the flush re-resolves
    f.args = args;
    if (f.timer) clock_->ClearTimeout(*f.timer);
    f.timer.reset();
    return;
  }
  if (it != folds_.end()) {
    // The window's entry was dropped by a failed re-invocation: ship that window as it stands
    // (the authority decides it), then this invoke opens a fresh one.
    Flush(key);
  }
  PendingMutation entry;
  entry.name = name;
  entry.args = args;
  entry.domain = resolve_(name, args);
  // §9.3: a window routing into a room streams at room_debounce_ms (both timers).
  const bool in_room = opts.room_debounce_ms.has_value() && !IsDaemonSource(entry.domain);
  entry.writes = std::move(writes);
  Record f;
  f.entry_id = ledger_->Append(std::move(entry)).id;
  f.created = next_created_++;
  f.name = name;
  f.args = args;
  f.first_at = now;
  f.debounce_ms = in_room ? *opts.room_debounce_ms : opts.debounce_ms;
  f.max_wait_ms = in_room ? opts.room_debounce_ms : opts.max_wait_ms;
  f.defer_across_writes = opts.defer_across_writes;
  f.probed = probed;
  folds_.emplace(key, std::move(f));
  // The fresh window's one entry is pending and unflushed.
  const PendingMutation* opened = ledger_->Find(folds_.at(key).entry_id);
  RINDLE_CHECK(opened != nullptr && !opened->mid.has_value());
}

void Folds::Arm(const std::string& key, int64_t now) {
  RINDLE_CHECK(clock_ != nullptr);
  Record& f = folds_.at(key);
  // A never-idle drag still persists periodically: the maxWait cap flushes at once when due.
  if (f.max_wait_ms && now - f.first_at >= *f.max_wait_ms) {
    Flush(key);
  } else {
    f.timer = clock_->SetTimeout([this, key]() { on_due_(key); }, f.debounce_ms);
  }
}

void Folds::Flush(const std::string& key) {
  auto it = folds_.find(key);
  if (it == folds_.end()) return;
  RINDLE_CHECK(!health_->in_cycle);
  Record f = std::move(it->second);
  folds_.erase(it);
  if (f.timer) clock_->ClearTimeout(*f.timer);
  if (!health_->ok()) return;
  // The declared domain re-resolves from the FINAL args; the mid is dealt from its ledger in SEND
  // order (never reserved at invoke), so each domain's wire stays gapless.
  const std::string domain = resolve_(f.name, f.args);
  auto [mid, seq] = ledger_->DealMid(domain);
  if (PendingMutation* entry = ledger_->Find(f.entry_id)) {
    RINDLE_CHECK(!entry->mid.has_value());  // an open window's entry was never dealt a mid
    // This window now replays BEFORE every still-open one; one applied earlier that touches the
    // same tables sits below it in head (§4.2 snap).
    NoteOpenOverlap(Footprint(f, *entry), std::nullopt);
    entry->domain = domain;
    entry->mid = mid;
    entry->seq = seq;
  }
  push_(domain, MutationEnvelope{client_id_, mid, f.name, f.args});
}

void Folds::DrainOverlapping(const std::set<std::string>& tables) {
  for (const auto& key : InCreationOrder()) {
    const Record& f = folds_.at(key);
    if (f.defer_across_writes) continue;
    const PendingMutation* entry = ledger_->Find(f.entry_id);
    if (entry == nullptr) continue;
    if (AnyTableIn(Footprint(f, *entry), tables)) Flush(key);
  }
  for (const auto& [key, f] : folds_) {
    const PendingMutation* entry = ledger_->Find(f.entry_id);
    RINDLE_CHECK_MSG(f.defer_across_writes || entry == nullptr ||
                         !AnyTableIn(Footprint(f, *entry), tables),
                     "flush-on-enqueue left an overlapping open fold");
  }
}

void Folds::NoteOvertaken(const WriteSet& writes, const ReadLog& reads) {
  // A fold still open after the drain replays AFTER this write at the next reconcile although
  // its prediction applied BEFORE it: if this write read or wrote a table the fold wrote, head
  // may differ from sync ⊕ replay until then — the §4.2 read-dependent reorder snap.
  std::set<std::string> tables = Touched(writes);
  for (const auto& r : reads.reads) tables.insert(r.table);
  for (const auto& q : reads.queries) {
    for (const auto& t : AstTables(q)) tables.insert(t);
  }
  NoteOpenOverlap(tables, std::nullopt);
}

}  // namespace rindle
