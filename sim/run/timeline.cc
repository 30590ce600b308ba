// timeline.cc — see timeline.h.
#include "sim/run/timeline.h"

#include <algorithm>
#include <fstream>

#include "base/str_util.h"
#include "sim/run/report_page.h"

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

std::vector<ExpectedActual> ExpectedVersusActual(const std::string& message) {
  std::vector<ExpectedActual> out;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    const std::string line = message.substr(start, end - start);
    start = end + 1;
    const size_t e = line.find(": expected ");
    if (e == std::string::npos) continue;
    size_t a = std::string::npos;
    size_t skip = 0;
    for (const char* sep : {", got ", ", found ", ", actual "}) {
      const size_t at = line.find(sep, e);
      if (at != std::string::npos && at < a) {
        a = at;
        skip = std::string(sep).size();
      }
    }
    if (a == std::string::npos) continue;
    std::string where = line.substr(0, e);
    where.erase(0, std::min(where.find_first_not_of(" \t"), where.size()));
    out.push_back({where, line.substr(e + 11, a - e - 11), line.substr(a + skip)});
  }
  return out;
}

Timeline::Timeline(std::vector<std::string> lanes) : lanes_(std::move(lanes)) {}

int Timeline::LaneIndexOf(const std::string& lane) const {
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i] == lane) return static_cast<int>(i);
  }
  return -1;
}

int Timeline::LaneIndex(const std::string& lane) {
  const int i = LaneIndexOf(lane);
  if (i >= 0) return i;
  lanes_.push_back(lane);
  return static_cast<int>(lanes_.size()) - 1;
}

size_t Timeline::AddMessage(Message m) {
  LaneIndex(m.from);
  LaneIndex(m.to);
  max_t_ = std::max({max_t_, m.t0, m.t1});
  messages_.push_back(std::move(m));
  return messages_.size() - 1;
}

void Timeline::Resolve(size_t index, const std::string& fate, int64_t t_ms, int64_t step) {
  Message& m = messages_.at(index);
  m.fate = fate;
  m.t1 = t_ms;
  m.step1 = step;
  max_t_ = std::max(max_t_, t_ms);
}

void Timeline::Mark(const std::string& lane, int64_t t_ms, int64_t step, const std::string& label,
                    const std::string& kind) {
  LaneIndex(lane);
  max_t_ = std::max(max_t_, t_ms);
  marks_.push_back({lane, t_ms, t_ms, step, label, kind});
}

void Timeline::Span(const std::string& lane, int64_t from_ms, int64_t to_ms, int64_t step,
                    const std::string& label) {
  LaneIndex(lane);
  max_t_ = std::max(max_t_, from_ms);  // a window may outlast the run: it does not stretch it
  spans_.push_back({lane, from_ms, to_ms, step, label, "fault"});
}

void Timeline::Failure(int64_t t_ms, int64_t step, const std::string& property,
                       const std::string& message) {
  max_t_ = std::max(max_t_, t_ms);
  failures_.push_back({t_ms, step, property, message});
}

void Timeline::Summary(const std::string& key, const std::string& value) {
  summary_.emplace_back(key, value);
}

nlohmann::json Timeline::Data(const std::string& title) const {
  nlohmann::json msgs = nlohmann::json::array();
  for (const Message& m : messages_) {
    msgs.push_back({{"f", LaneIndexOf(m.from)}, {"t", LaneIndexOf(m.to)}, {"a", m.t0},
                    {"b", m.t1}, {"s", m.step0}, {"e", m.step1}, {"k", m.kind},
                    {"l", m.label}, {"x", m.fate}, {"d", m.duplicate}});
  }
  nlohmann::json marks = nlohmann::json::array();
  for (const Item& it : marks_) {
    marks.push_back({{"n", LaneIndexOf(it.lane)}, {"a", it.t0}, {"s", it.step}, {"k", it.kind},
                     {"l", it.label}});
  }
  nlohmann::json spans = nlohmann::json::array();
  for (const Item& it : spans_) {
    spans.push_back({{"n", LaneIndexOf(it.lane)}, {"a", it.t0}, {"b", it.t1}, {"s", it.step},
                     {"l", it.label}});
  }
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& [key, value] : summary_) summary.push_back({key, value});
  nlohmann::json failure = nullptr;
  if (!failures_.empty()) {
    const FailureInfo& f = failures_.front();
    nlohmann::json diff = nlohmann::json::array();
    for (const ExpectedActual& d : ExpectedVersusActual(f.message)) {
      diff.push_back({d.where, d.expected, d.actual});
    }
    failure = {{"t", f.t}, {"step", f.step}, {"property", f.property}, {"message", f.message},
               {"diff", diff}};
  }
  return {{"title", title}, {"lanes", lanes_},     {"summary", summary}, {"msgs", msgs},
          {"marks", marks}, {"spans", spans},      {"failure", failure}, {"end_ms", max_t_}};
}

namespace {

// The failure panel as static HTML: readable with the script off, and what a test can grep.
std::string FailureHtml(const nlohmann::json& failure) {
  if (failure.is_null()) {
    return "<section id=\"failure\" class=\"ok\"><h2>No property failed</h2></section>\n";
  }
  std::string html = StrCat(
      "<section id=\"failure\"><h2><span class=\"prop\">",
      XmlEscape(failure["property"].get<std::string>()), "</span> failed at step <a href=\"#\" "
      "id=\"failstep\" data-step=\"", failure["step"].get<int64_t>(), "\">",
      failure["step"].get<int64_t>(), "</a> (t=", failure["t"].get<int64_t>(), " ms)</h2>\n");
  if (!failure["diff"].empty()) {
    StrAppend(&html, "<table id=\"diff\"><thead><tr><th>where</th><th>expected</th>"
                     "<th>actual</th></tr></thead><tbody>\n");
    for (const auto& row : failure["diff"]) {
      StrAppend(&html, "<tr><td class=\"where\">", XmlEscape(row[0].get<std::string>()),
                "</td><td class=\"exp\">", XmlEscape(row[1].get<std::string>()),
                "</td><td class=\"act\">", XmlEscape(row[2].get<std::string>()), "</td></tr>\n");
    }
    StrAppend(&html, "</tbody></table>\n");
  }
  StrAppend(&html, "<details", failure["diff"].empty() ? " open" : "",
            "><summary>the failure message</summary><pre id=\"message\">",
            XmlEscape(failure["message"].get<std::string>()), "</pre></details></section>\n");
  return html;
}

// JSON safe inside <script>: no '<' at all (it can only occur inside strings, as \u003c).
std::string ScriptJson(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string Timeline::Html(const std::string& title) const {
  const nlohmann::json data = Data(title);
  std::string summary;
  for (const auto& [key, value] : summary_) {
    StrAppend(&summary, "<span><b>", XmlEscape(key), "</b> ", XmlEscape(value), "</span> ");
  }
  return StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>",
      XmlEscape(title), "</title>\n<style>\n", kReportStyle, "</style>\n</head>\n",
      "<body data-render=\"pending\">\n<header><h1>", XmlEscape(title), "</h1>\n<p id=\"summary\">",
      summary, "</p></header>\n", FailureHtml(data["failure"]), kReportBody,
      "<script type=\"application/json\" id=\"rindle-data\">", ScriptJson(data),
      "</script>\n<script>\n", kReportScript, "</script>\n</body>\n</html>\n");
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
