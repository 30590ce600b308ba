// timeline.cc — see timeline.h.
#include "sim/run/timeline.h"

#include <algorithm>
#include <fstream>

#include "absl/strings/str_format.h"
#include "base/str_util.h"

namespace rindle::sim {

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

Timeline::Timeline(std::vector<std::string> lanes) : lanes_(std::move(lanes)) {}

int Timeline::LaneIndex(const std::string& lane) const {
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i] == lane) return static_cast<int>(i);
  }
  return 0;
}

void Timeline::Message(const std::string& from, const std::string& to, int64_t sent_ms,
                       int64_t received_ms, const std::string& label) {
  max_t_ = std::max(max_t_, received_ms);
  if (messages_ >= kMaxMessages) {
    ++dropped_;
    return;
  }
  ++messages_;
  items_.push_back({Item::Kind::kMessage, from, to, sent_ms, received_ms, label, ""});
}

void Timeline::Mark(const std::string& lane, int64_t t_ms, const std::string& label,
                    const std::string& kind) {
  max_t_ = std::max(max_t_, t_ms);
  if (marks_ >= kMaxMarks) {
    ++dropped_;
    return;
  }
  ++marks_;
  items_.push_back({Item::Kind::kMark, lane, "", t_ms, t_ms, label, kind});
}

void Timeline::Span(const std::string& lane, int64_t from_ms, int64_t to_ms,
                    const std::string& label) {
  max_t_ = std::max(max_t_, to_ms);
  items_.push_back({Item::Kind::kSpan, lane, "", from_ms, to_ms, label, ""});
}

void Timeline::Failure(int64_t t_ms, int64_t step, const std::string& property,
                       const std::string& message) {
  max_t_ = std::max(max_t_, t_ms);
  items_.push_back({Item::Kind::kFailure, "", "", t_ms, t_ms,
                    StrCat(property, " failed at step ", step, ": ", message), ""});
}

namespace {

// Where things go on the page: a left gutter for lane names, one lane per row, time scaled so
// the whole run fits about 1,600 px (within [0.05, 2] px per ms).
struct Layout {
  static constexpr int kLeft = 90;
  static constexpr int kLaneH = 70;
  static constexpr int kTop = 40;
  int64_t span_ms;
  double scale;
  int width;
  int height;

  Layout(int64_t max_t, size_t lanes)
      : span_ms(std::max<int64_t>(max_t, 1)),
        scale(std::clamp(1600.0 / static_cast<double>(span_ms), 0.05, 2.0)),
        width(kLeft + static_cast<int>(static_cast<double>(span_ms) * scale) + 40),
        height(kTop + kLaneH * static_cast<int>(lanes) + 20) {}
  double X(int64_t t) const { return kLeft + static_cast<double>(t) * scale; }
  int LaneY(int index) const { return kTop + kLaneH * index + kLaneH / 2; }
};

// Time axis ticks every 500 ms (or 1 s / 5 s for long runs).
std::string AxisSvg(const Layout& l) {
  std::string svg;
  const int64_t tick = l.span_ms > 20000 ? 5000 : l.span_ms > 6000 ? 1000 : 500;
  for (int64_t t = 0; t <= l.span_ms; t += tick) {
    StrAppend(&svg, absl::StrFormat("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                                    "class=\"tick\"/><text x=\"%.1f\" y=\"%d\" "
                                    "class=\"axis\">%dms</text>\n",
                                    l.X(t), Layout::kTop - 10, l.X(t), l.height - 20, l.X(t),
                                    Layout::kTop - 14, t));
  }
  return svg;
}

std::string LanesSvg(const Layout& l, const std::vector<std::string>& lanes) {
  std::string svg;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const int ly = l.LaneY(static_cast<int>(i));
    StrAppend(&svg, absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                                    "class=\"lane\"/><text x=\"8\" y=\"%d\" "
                                    "class=\"lanename\">%s</text>\n",
                                    Layout::kLeft, ly, l.width - 20, ly, ly + 4,
                                    XmlEscape(lanes[i])));
  }
  return svg;
}

// One drawn item; `y` and `y_to` are the centres of its lane and (for a message) its target
// lane. A template so it can take Timeline's private Item.
template <typename ItemT>
std::string ItemSvg(const ItemT& it, const Layout& l, int y, int y_to) {
  constexpr int kLaneH = Layout::kLaneH;
  const std::string tip = XmlEscape(it.label);
  switch (it.kind) {
    case ItemT::Kind::kSpan:
      return absl::StrFormat("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                             "class=\"span\"><title>%s (%d–%dms)</title></rect>\n",
                             l.X(it.t0), y - kLaneH / 2 + 4,
                             std::max(1.0, l.X(it.t1) - l.X(it.t0)), kLaneH - 8, tip, it.t0,
                             it.t1);
    case ItemT::Kind::kMessage:
      return absl::StrFormat("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                             "class=\"msg\" marker-end=\"url(#arrow)\"><title>%s → %s: "
                             "%s (%d→%dms)</title></line>\n",
                             l.X(it.t0), y, l.X(it.t1), y_to, XmlEscape(it.lane),
                             XmlEscape(it.to), tip, it.t0, it.t1);
    case ItemT::Kind::kMark:
      return absl::StrFormat("<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" class=\"%s\">"
                             "<title>%dms %s: %s</title></circle>\n",
                             l.X(it.t0), y, XmlEscape(it.style), it.t0, XmlEscape(it.lane), tip);
    case ItemT::Kind::kFailure:
      return absl::StrFormat("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                             "class=\"fail\"><title>%dms %s</title></line>\n",
                             l.X(it.t0), Layout::kTop - 10, l.X(it.t0), l.height - 20, it.t0,
                             tip);
  }
  return "";
}

// The document head, the style sheet and the legend.
std::string PageHead(const std::string& title, size_t dropped) {
  return StrCat(
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>", XmlEscape(title), "</title>\n<style>\n"
      "body{font-family:sans-serif;margin:12px}\n"
      ".lane{stroke:#999;stroke-width:1}\n.tick{stroke:#eee}\n"
      ".axis{font-size:10px;fill:#666}\n.lanename{font-size:13px;font-weight:bold}\n"
      ".msg{stroke:#4a7;stroke-width:1;opacity:0.6}\n.msg:hover{stroke-width:3;opacity:1}\n"
      ".action{fill:#36c}\n.fault{fill:#d60}\n.info{fill:#888}\n"
      ".span{fill:#fa0;opacity:0.25}\n.fail{stroke:#d00;stroke-width:3}\n"
      ".failtext{color:#d00;font-weight:bold}\n</style>\n</head>\n<body>\n<h1>",
      XmlEscape(title), "</h1>\n<p>Lanes: authority and each client; time in virtual ms. Green "
      "arrows: messages (hover for details). Blue: actions. Orange dots: faults; shaded: fault "
      "windows. Red line: the failing step.",
      dropped > 0 ? StrCat(" (", dropped, " items past the drawing cap were left out.)") : "",
      "</p>\n");
}

}  // namespace

std::string Timeline::Html(const std::string& title) const {
  const Layout l(max_t_, lanes_.size());
  std::string svg = AxisSvg(l) + LanesSvg(l, lanes_);
  std::string failure_text;
  for (const Item& it : items_) {
    const int y_to = it.kind == Item::Kind::kMessage ? l.LaneY(LaneIndex(it.to)) : 0;
    StrAppend(&svg, ItemSvg(it, l, l.LaneY(LaneIndex(it.lane)), y_to));
    if (it.kind == Item::Kind::kFailure) {
      failure_text = StrCat("<p class=\"failtext\">", it.t0, "ms: ", XmlEscape(it.label), "</p>\n");
    }
  }
  return StrCat(
      PageHead(title, dropped_), failure_text,
      absl::StrFormat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
                      l.width, l.height),
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
      "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#4a7\"/></marker>"
      "</defs>\n",
      svg, "</svg>\n</body>\n</html>\n");
}

absl::Status Timeline::WriteHtml(const std::string& path, const std::string& title) const {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return absl::UnavailableError(StrCat(path, ": cannot open for writing"));
  f << Html(title);
  f.flush();
  if (!f) return absl::DataLossError(StrCat(path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace rindle::sim
