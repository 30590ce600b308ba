#include "optimistic/system_streams.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/source_key.h"

namespace rindle {

namespace {

const LifecycleTableSpec* FindTable(std::string_view name) {
  for (const LifecycleTableSpec& t : LifecycleTables()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// Whether `sub` is a subsequence of `sup` (a projection by name, in order).
template <typename A, typename B>
bool Subsequence(const std::vector<A>& sub, const std::vector<B>& sup) {
  size_t i = 0;
  for (const auto& c : sup) {
    if (i < sub.size() && std::string_view(sub[i]) == std::string_view(c)) ++i;
  }
  return i == sub.size();
}

// An integral number cell (ints, and doubles with no fraction); nullopt otherwise.
std::optional<int64_t> IntCell(const Value& v) {
  if (v.kind() == Value::Kind::kInt) return v.as_int();
  if (v.kind() != Value::Kind::kDouble) return std::nullopt;
  const double d = v.as_double();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return std::nullopt;
  return static_cast<int64_t>(d);
}

const Value& NullValue() {
  static const Value kNull;
  return kNull;
}

// The post-image an add / edit carries; nullptr for a remove.
const RowValues* PostImage(const RowOp& op) {
  return op.op == RowOp::Kind::kRemove ? nullptr : &op.row;
}

}  // namespace

SystemStreams::SystemStreams(std::string client_id, const FoldClock* clock, Hooks hooks)
    : client_id_(std::move(client_id)), clock_(clock), hooks_(std::move(hooks)) {
  RINDLE_CHECK(hooks_.outcome && hooks_.confirm);
}

absl::Status SystemStreams::CheckSpec(const SystemStreamSpec& spec) {
  if (!IsLifecycleTable(spec.table)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "retainSystemQuery: \"", spec.table, "\" is not a lifecycle system table"));
  }
  const bool sessions = spec.table == kScopeSessionsTable;
  if (sessions ? !spec.doc.empty() : !spec.scope.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "retainSystemQuery: \"", spec.table, "\" is filtered by ", sessions ? "scope" : "doc",
        " only"));
  }
  return absl::OkStatus();
}

void SystemStreams::Add(int64_t source_qid, const SystemStreamSpec& spec) {
  RINDLE_CHECK(CheckSpec(spec).ok());
  specs_.try_emplace(source_qid, spec);
}

void SystemStreams::Remove(int64_t source_qid) {
  specs_.erase(source_qid);
  projection_.erase(source_qid);
}

absl::Status SystemStreams::CheckHello(int64_t source_qid, const std::vector<WireTable>& tables) {
  auto spec = specs_.find(source_qid);
  RINDLE_CHECK(spec != specs_.end());
  std::map<std::string, size_t> projection;
  for (const WireTable& t : tables) {
    const LifecycleTableSpec* ours = FindTable(t.name);
    if (ours == nullptr || t.name != spec->second.table) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema skew: system qid ", source_qid, " (", spec->second.table,
          ") advertises table \"", t.name, "\""));
    }
    if (!Subsequence(t.columns, ours->columns) && !Subsequence(ours->columns, t.columns)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema skew: column drift on \"", t.name, "\": server [",
          absl::StrJoin(t.columns, ","), "]"));
    }
    for (int pk : ours->primary_key) {
      const std::string c(ours->columns[static_cast<size_t>(pk)]);
      if (std::find(t.columns.begin(), t.columns.end(), c) == t.columns.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "schema skew: \"", t.name, "\": server omits primary-key column \"", c, "\""));
      }
    }
    for (size_t i = 0; i < t.columns.size(); ++i) projection.emplace(t.columns[i], i);
  }
  projection_[source_qid] = std::move(projection);
  return absl::OkStatus();
}

const Value& SystemStreams::Cell(int64_t qid, const RowValues& row,
                                 std::string_view column) const {
  auto p = projection_.find(qid);
  size_t index = 0;
  if (p != projection_.end()) {
    auto c = p->second.find(std::string(column));
    if (c == p->second.end()) return NullValue();
    index = c->second;
  } else {
    // No hello recorded (a harness feeding frames directly): the wire schema's order.
    const LifecycleTableSpec* t = FindTable(specs_.at(qid).table);
    auto c = std::find(t->columns.begin(), t->columns.end(), column);
    index = static_cast<size_t>(c - t->columns.begin());
  }
  return index < row.size() ? row[index] : NullValue();
}

bool SystemStreams::DocMatches(const SystemStreamSpec& spec, const std::string& doc) {
  if (spec.doc.empty() || spec.doc == doc) return true;
  ++counters_.filtered;
  return false;
}

std::vector<const BufferedFrame*> SystemStreams::OfTable(
    const std::vector<const BufferedFrame*>& frames, std::string_view table) const {
  std::vector<const BufferedFrame*> out;
  for (const BufferedFrame* f : frames) {
    if (specs_.at(f->qid).table == table) out.push_back(f);
  }
  return out;
}

absl::Status SystemStreams::Fold(const std::vector<const BufferedFrame*>& frames) {
  for (const BufferedFrame* f : frames) RINDLE_CHECK_MSG(Has(f->qid), std::to_string(f->qid));
  // The seed's FIXED order (see the header): outcomes, room ledger, watermarks, sessions.
  for (const BufferedFrame* f : OfTable(frames, kRoomMutationOutcomesTable)) FoldOutcomes(*f);
  for (const BufferedFrame* f : OfTable(frames, kRoomClientMutationsTable)) {
    if (absl::Status s = FoldLedger(*f); !s.ok()) return s;
  }
  for (const BufferedFrame* f : OfTable(frames, kRoomWatermarkTable)) FoldWatermarks(*f);
  for (const BufferedFrame* f : OfTable(frames, kScopeSessionsTable)) FoldSessions(*f);
  return absl::OkStatus();
}

void SystemStreams::FoldOutcomes(const BufferedFrame& f) {
  const SystemStreamSpec& spec = specs_.at(f.qid);
  for (const RowOp& op : f.ops) {
    const RowValues* row = PostImage(op);
    if (row == nullptr) {  // retention pruning, never a verdict
      ++counters_.removes;
      continue;
    }
    const Value& doc = Cell(f.qid, *row, "doc");
    const Value& client = Cell(f.qid, *row, "client_id");
    const std::optional<int64_t> mid = IntCell(Cell(f.qid, *row, "mid"));
    const Value& kind = Cell(f.qid, *row, "kind");
    const bool known_kind = kind.is_string() && (kind.as_string() == kOutcomeDeopt ||
                                                 kind.as_string() == kOutcomeRejected);
    if (!doc.is_string() || doc.as_string().empty() || !client.is_string() || !mid ||
        !known_kind) {
      ++counters_.garbled;
      continue;
    }
    if (client.as_string() != client_id_) {
      ++counters_.filtered;
      continue;
    }
    if (!DocMatches(spec, doc.as_string())) continue;
    MutationOutcomeFrame frame;
    frame.mid = *mid;
    frame.kind = kind.as_string() == kOutcomeDeopt ? MutationOutcomeFrame::Kind::kDeopt
                                                   : MutationOutcomeFrame::Kind::kRejected;
    if (const Value& r = Cell(f.qid, *row, "reason"); r.is_string()) frame.reason = r.as_string();
    if (const Value& n = Cell(f.qid, *row, "name"); n.is_string()) frame.name = n.as_string();
    if (const Value& a = Cell(f.qid, *row, "args"); a.is_string()) {
      frame.args = nlohmann::json::parse(a.as_string(), nullptr, /*allow_exceptions=*/false);
      // Not self-contained: a retired mid's deopt must not re-invoke garbage (seed: dropped).
      if (frame.args.is_discarded()) {
        frame.args = nullptr;
        frame.name.reset();
      }
    }
    ++counters_.outcome_rows;
    hooks_.outcome(RoomSourceKey(doc.as_string()), frame);
  }
}

absl::Status SystemStreams::FoldLedger(const BufferedFrame& f) {
  const SystemStreamSpec& spec = specs_.at(f.qid);
  for (const RowOp& op : f.ops) {
    const RowValues* row = PostImage(op);
    if (row == nullptr) {  // a ledger remove confirms nothing (as the lmid stream's)
      ++counters_.removes;
      continue;
    }
    const Value& doc = Cell(f.qid, *row, "doc");
    const Value& client = Cell(f.qid, *row, "client_id");
    const std::optional<int64_t> lmid = IntCell(Cell(f.qid, *row, "last_mutation_id"));
    if (!doc.is_string() || doc.as_string().empty() || !client.is_string() || !lmid) {
      ++counters_.garbled;
      continue;
    }
    if (client.as_string() != client_id_) {
      ++counters_.filtered;
      continue;
    }
    if (!DocMatches(spec, doc.as_string())) continue;
    ++counters_.ledger_rows;
    if (absl::Status s = hooks_.confirm(RoomSourceKey(doc.as_string()), *lmid); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void SystemStreams::FoldWatermarks(const BufferedFrame& f) {
  const SystemStreamSpec& spec = specs_.at(f.qid);
  for (const RowOp& op : f.ops) {
    const RowValues* row = PostImage(op);
    if (row == nullptr) {  // the fence is monotone: a remove never regresses it
      ++counters_.removes;
      continue;
    }
    const Value& doc = Cell(f.qid, *row, "doc");
    const std::optional<int64_t> seq = IntCell(Cell(f.qid, *row, "flush_seq"));
    if (!doc.is_string() || doc.as_string().empty() || !seq) {
      ++counters_.garbled;
      continue;
    }
    if (!DocMatches(spec, doc.as_string())) continue;
    ++counters_.watermark_rows;
    int64_t& w = room_watermarks_[doc.as_string()];
    w = std::max(w, *seq);
  }
}

void SystemStreams::FoldSessions(const BufferedFrame& f) {
  const SystemStreamSpec& spec = specs_.at(f.qid);
  if (f.kind == NormalizedEvent::Type::kSnapshot && !spec.scope.empty()) {
    // An authoritative re-hydrate: sessions that aged out while the stream was down go.
    scope_sessions_[spec.scope].clear();
    touched_scopes_.insert(spec.scope);
    ++counters_.session_snapshots;
  }
  for (const RowOp& op : f.ops) {
    // A remove's identity rides its full removed row; add / edit carry the post-image.
    const Value& scope = Cell(f.qid, op.row, "scope");
    const Value& client = Cell(f.qid, op.row, "client_id");
    const std::optional<int64_t> expires = IntCell(Cell(f.qid, op.row, "expires_at"));
    const bool remove = op.op == RowOp::Kind::kRemove;
    if (!scope.is_string() || !client.is_string() || (!remove && !expires)) {
      ++counters_.garbled;
      continue;
    }
    if (!spec.scope.empty() && scope.as_string() != spec.scope) {
      ++counters_.filtered;
      continue;
    }
    std::map<std::string, int64_t>& sessions = scope_sessions_[scope.as_string()];
    if (remove) {
      sessions.erase(client.as_string());
    } else {
      sessions[client.as_string()] = *expires;
    }
    ++counters_.session_rows;
    touched_scopes_.insert(scope.as_string());
  }
}

std::set<std::string> SystemStreams::TakeTouchedScopes() {
  std::set<std::string> out = std::move(touched_scopes_);
  touched_scopes_.clear();
  return out;
}

int64_t SystemStreams::OtherScopeSessions(const std::string& scope) const {
  auto s = scope_sessions_.find(scope);
  if (s == scope_sessions_.end()) return 0;
  const int64_t now = clock_ != nullptr ? clock_->Now() : 0;
  int64_t n = 0;
  for (const auto& [client, expires_at] : s->second) {
    if (client != client_id_ && expires_at > now) ++n;
  }
  return n;
}

}  // namespace rindle
