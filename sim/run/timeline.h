// timeline.h — the failure report of one run (`rindle-sim run --report FILE`; `--timeline FILE`
// is its old name): one self-contained HTML page (inline style and script, no network) with
//   - the failure: property, step, virtual time, the message, and its expected-versus-actual
//     lines (the readable diffs of oracles/tree_diff and the checkers: "where: expected E, got A")
//     as a table — static HTML, readable without the script;
//   - a zoomable, filterable timeline drawn by the script on a canvas: one lane per client and
//     one per authority channel (the authority's end of each client's path), plus an
//     "authority" lane for authority-wide events; network messages as arrows between a client's
//     lane and its channel lane (so lanes never cross, however many clients), coloured by kind,
//     with losses (a cross where the message died), duplicates and acknowledgements drawn;
//     actions and faults as marks, fault windows shaded, the failing step a red line;
//   - the step list beside it: every item, by virtual time and step, filterable; the failing
//     step is selected and in view on load.
// Holds state: every message, mark and span recorded, in recording order — no cap: a failure
// is at the end of a run, so nothing is ever dropped. Times are virtual ms, steps the run's.
// The page's data is one JSON object in a <script type="application/json"> block ('<' escaped
// as \u003c so no label can close it; invalid UTF-8 replaced). After rendering, the script sets
// data-render="ok" and data-selected-step on <body>; an uncaught error sets data-error instead.
// Errors: WriteHtml returns a Status naming the path when it cannot write.
// Determinism: the report only reads virtual time and run data; it never feeds the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace rindle::sim {

class Timeline {
 public:
  struct Message {
    std::string from, to;    // lanes
    int64_t t0 = 0, t1 = 0;  // sent; arrived or lost (while in flight: when it is due)
    int64_t step0 = 0, step1 = 0;
    std::string kind;   // "welcome", "hello", "batch", "progress", "push", "ack", "register", ...
    std::string label;  // what the sender named it ("push mid 3 createIssue", "batch qid=2 ...")
    std::string fate = "in flight";  // "delivered", "lost" or "in flight" (the run ended first)
    bool duplicate = false;          // a second copy the network made
  };

  // `lanes`: the lanes in display order; a lane first named later is appended.
  explicit Timeline(std::vector<std::string> lanes);

  // Returns the message's index, for Resolve.
  size_t AddMessage(Message m);
  // The message at `index` arrived (delivered) or died (lost) at t_ms, step.
  void Resolve(size_t index, const std::string& fate, int64_t t_ms, int64_t step);
  // kind: "action", "fault", "apply" or "info" (colour and filter).
  void Mark(const std::string& lane, int64_t t_ms, int64_t step, const std::string& label,
            const std::string& kind);
  // A fault window [from_ms, to_ms), shaded.
  void Span(const std::string& lane, int64_t from_ms, int64_t to_ms, int64_t step,
            const std::string& label);
  void Failure(int64_t t_ms, int64_t step, const std::string& property,
               const std::string& message);
  // Shown in the page's header (seed, steps, digest, ...), in insertion order.
  void Summary(const std::string& key, const std::string& value);

  size_t message_count() const { return messages_.size(); }
  // When the message at `index` is due (or arrived, or died).
  int64_t message_due(size_t index) const { return messages_.at(index).t1; }
  const std::vector<std::string>& lanes() const { return lanes_; }

  // The page's data: {"title", "lanes", "summary", "msgs": [{"f","t" (lane indexes), "a","b"
  // (t0,t1), "s","e" (steps), "k" (kind), "l" (label), "x" (fate), "d" (duplicate)}], "marks":
  // [{"n" (lane), "a", "s", "k", "l"}], "spans": [{"n", "a", "b", "s", "l"}], "failure":
  // {"t", "step", "property", "message", "diff": [[where, expected, actual]]} or null,
  // "end_ms"}.
  nlohmann::json Data(const std::string& title) const;
  std::string Html(const std::string& title) const;
  absl::Status WriteHtml(const std::string& path, const std::string& title) const;

 private:
  struct Item {
    std::string lane;
    int64_t t0 = 0, t1 = 0, step = 0;
    std::string label, kind;
  };
  struct FailureInfo {
    int64_t t = 0, step = 0;
    std::string property, message;
  };
  int LaneIndex(const std::string& lane);
  int LaneIndexOf(const std::string& lane) const;

  std::vector<std::string> lanes_;
  std::vector<Message> messages_;
  std::vector<Item> marks_, spans_;
  std::vector<FailureInfo> failures_;  // at most one in a run; the first is shown
  std::vector<std::pair<std::string, std::string>> summary_;
  int64_t max_t_ = 0;
};

// One line of a failure message that says what was expected and what was found:
// "<where>: expected <E>, got <A>" (also "..., found <A>" and "..., actual <A>").
struct ExpectedActual {
  std::string where, expected, actual;
};
// The message's expected-versus-actual lines, in order; other lines are left out.
std::vector<ExpectedActual> ExpectedVersusActual(const std::string& message);

// XML-escapes & < > " '.
std::string XmlEscape(const std::string& text);

}  // namespace rindle::sim
