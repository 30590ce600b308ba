// timeline.h — a self-contained HTML timeline of one run (`rindle-sim run --timeline FILE`):
// one horizontal lane per participant ("authority", "c0", "c1", ...), virtual time left to
// right; messages as arrows between lanes (authority → client frames from send to delivery;
// client → authority mutations from invocation to processing), actions and faults as marks,
// fault windows (partitions, progress starvation) shaded, the failing step a red line.
// Holds state: the recorded items, in recording order. Times are virtual ms.
// The page is one HTML document with an inline SVG (no scripts, no external resources); every
// item carries a <title> tooltip. Text is XML-escaped; the output is well-formed XML (XHTML).
// Errors: WriteHtml returns a Status naming the path when it cannot write.
// Determinism: the timeline only reads virtual time and run data; it never feeds the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace rindle::sim {

class Timeline {
 public:
  // Item caps keep a long run's page openable; items past them are counted, not drawn.
  static constexpr size_t kMaxMessages = 4000;
  static constexpr size_t kMaxMarks = 4000;

  explicit Timeline(std::vector<std::string> lanes);

  void Message(const std::string& from, const std::string& to, int64_t sent_ms,
               int64_t received_ms, const std::string& label);
  // kind: "action", "fault" or "info" (colour).
  void Mark(const std::string& lane, int64_t t_ms, const std::string& label,
            const std::string& kind);
  void Span(const std::string& lane, int64_t from_ms, int64_t to_ms, const std::string& label);
  void Failure(int64_t t_ms, int64_t step, const std::string& property,
               const std::string& message);

  std::string Html(const std::string& title) const;
  absl::Status WriteHtml(const std::string& path, const std::string& title) const;

 private:
  struct Item {
    enum class Kind { kMessage, kMark, kSpan, kFailure } kind;
    std::string lane, to;
    int64_t t0 = 0, t1 = 0;
    std::string label, style;
  };
  int LaneIndex(const std::string& lane) const;

  std::vector<std::string> lanes_;
  std::vector<Item> items_;
  size_t messages_ = 0, marks_ = 0, dropped_ = 0;
  int64_t max_t_ = 0;
};

// XML-escapes & < > " '.
std::string XmlEscape(const std::string& text);

}  // namespace rindle::sim
