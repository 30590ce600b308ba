// report_page.h — the fixed parts of the failure report's page (timeline.h writes the page):
// its style sheet, the body's skeleton (controls, the timeline's canvas, the step list, the
// tooltip; first of all a tiny script that records any uncaught error as data-error on <body>),
// and the script that renders the page's JSON data (the <script id="rindle-data"> block) into
// them. No state; no external resources — the page works offline and from a file:// URL.
// The script's contract (what tests read with a headless browser): on success <body> gets
// data-render="ok", data-messages (how many messages the data holds), data-rows (rows in the
// step list), data-view ("v0,v1": the timeline's window in virtual ms) and, when a property
// failed, data-selected-step (the failing step, selected in the step list as
// <tr class="selected" aria-selected="true"> and in view in the timeline).
#pragma once

namespace rindle::sim {

extern const char kReportStyle[];
extern const char kReportBody[];
extern const char kReportScript[];

}  // namespace rindle::sim
