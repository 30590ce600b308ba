// run_observer.cc — see run_observer.h.
#include "sim/run/run_observer.h"

#include "base/check.h"
#include "base/source_key.h"
#include "base/str_util.h"

namespace rindle::sim {
namespace {

// The authority's end of `client`'s path to `source`.
std::string ChannelLane(const std::string& client, const std::string& source) {
  return StrCat(IsDaemonSource(source) ? std::string("authority") : source, "/", client);
}

// A message's kind is its label's first word ("batch qid=2 ..." → "batch").
std::string KindOf(const std::string& label) {
  if (label.empty()) return "message";
  return label.substr(0, label.find(' '));
}

}  // namespace

TimelineObserver::TimelineObserver(const std::vector<std::string>& clients, std::string path)
    : timeline_({"authority"}), path_(std::move(path)) {
  RINDLE_CHECK(!path_.empty());
  std::vector<std::string> lanes = {"authority"};
  for (const std::string& c : clients) {
    lanes.push_back(ChannelLane(c, std::string(kDaemonSource)));
    lanes.push_back(c);
  }
  timeline_ = Timeline(std::move(lanes));
}

void TimelineObserver::OnStep(const DaemonAuthority& daemon, int64_t now_ms) {
  const auto& log = daemon.log();
  if (log_seen_ > log.size()) log_seen_ = log.size();  // a rollback forgot the tail
  for (; log_seen_ < log.size(); ++log_seen_) {
    const auto& e = log[log_seen_];
    timeline_.Mark(ChannelLane(e.client_id, std::string(kDaemonSource)), now_ms, step(),
                   StrCat(e.applied ? "applied" : "burnt", " mid ", e.mid, " ", e.name), "apply");
  }
  ++steps_;
}

void TimelineObserver::Open(const NetEvent& e, int64_t key, bool duplicate) {
  const bool ack = e.kind == NetEvent::Kind::kAckSent;
  const std::string channel = ChannelLane(e.client, e.source);
  Timeline::Message m;
  m.from = e.to_server ? e.client : channel;
  m.to = e.to_server ? channel : e.client;
  m.t0 = e.now_ms;
  m.t1 = e.at_ms;
  m.step0 = m.step1 = step();
  m.kind = ack ? "ack" : KindOf(e.label);
  m.label = ack ? StrCat("ack of ", e.label) : e.label;
  m.duplicate = duplicate;
  open_[key].push_back(timeline_.AddMessage(std::move(m)));
}

void TimelineObserver::Close(const NetEvent& e, int64_t key, const std::string& fate) {
  auto it = open_.find(key);
  if (it != open_.end()) {
    std::vector<size_t>& copies = it->second;
    for (size_t k = 0; k < copies.size(); ++k) {
      if (timeline_.message_due(copies[k]) != e.now_ms) continue;
      timeline_.Resolve(copies[k], fate, e.now_ms, step());
      copies.erase(copies.begin() + static_cast<std::ptrdiff_t>(k));
      if (copies.empty()) open_.erase(it);
      return;
    }
  }
  // Lost before it left (a down link, a partition, a push or ack the network dropped at once).
  NetEvent sent = e;
  sent.kind = key < 0 ? NetEvent::Kind::kAckSent : NetEvent::Kind::kSent;
  sent.to_server = key > 0 && e.to_server;
  Open(sent, key, false);
  std::vector<size_t>& copies = open_[key];
  timeline_.Resolve(copies.back(), fate, e.now_ms, step());
  copies.pop_back();
  if (copies.empty()) open_.erase(key);
}

void TimelineObserver::OnNet(const NetEvent& e) {
  switch (e.kind) {
    case NetEvent::Kind::kSent: return Open(e, e.id, false);
    case NetEvent::Kind::kDuplicated: return Open(e, e.id, true);
    case NetEvent::Kind::kDelivered: return Close(e, e.id, "delivered");
    case NetEvent::Kind::kLost: return Close(e, e.id, "lost");
    case NetEvent::Kind::kAckSent: return Open(e, -e.id, false);
    case NetEvent::Kind::kAckDelivered: return Close(e, -e.id, "delivered");
    case NetEvent::Kind::kAckLost: return Close(e, -e.id, "lost");
  }
}

void TimelineObserver::OnInvoke(const std::string& lane, int64_t now_ms, const std::string& name,
                                std::optional<int64_t> mid) {
  timeline_.Mark(lane, now_ms, step(), StrCat(name, mid ? StrCat(" mid ", *mid) : " (rejected)"),
                 "action");
}

void TimelineObserver::OnEnd(uint64_t seed, RunResult* result) {
  const std::string verdict =
      result->ok ? "ok" : StrCat(result->property, " failed at step ", result->step);
  timeline_.Summary("seed", StrCat(seed));
  timeline_.Summary("result", verdict);
  timeline_.Summary("steps", StrCat(result->steps));
  timeline_.Summary("virtual ms", StrCat(result->virtual_ms));
  timeline_.Summary("digest", result->digest);
  timeline_.Summary("messages", StrCat(timeline_.message_count()));
  if (auto s = timeline_.WriteHtml(path_, StrCat("rindle-sim seed ", seed, " — ", verdict));
      !s.ok()) {
    result->counters["timeline.write_error"] = 1;
  }
}

}  // namespace rindle::sim
