// report_browser_test.cc — the failure report (`rindle-sim run --report`) opened in a real
// headless Chromium (Debian's `chromium`, installed by scripts/install-deps.sh): the page of a
// failing run loads without a script error, renders (the script's data-render="ok"
// marker), holds every message, and has the failing step selected in the step list. A planted
// script error proves the error marker is seen. Without a chromium binary the tests skip, saying
// so — except under CI=true, where a missing browser is a failure (the install step broke).
// The browser: $RINDLE_CHROMIUM, else the first of chromium, chromium-browser, google-chrome on
// PATH. Each test uses its own profile directory, so the tests can run in parallel.
#include <cstdlib>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;
using ::rindle::testing::Match;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::RunCommand;
using ::rindle::testing::TestDir;
using ::rindle::testing::WriteFile;

std::string FindChromium() {
  if (const char* env = std::getenv("RINDLE_CHROMIUM"); env != nullptr && *env != '\0') {
    return env;
  }
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    CommandOutcome o = RunCommand("/bin/sh", std::string("-c 'command -v ") + name + "'");
    if (o.exit_code == 0 && !o.output.empty()) return o.output.substr(0, o.output.find('\n'));
  }
  return "";
}

#define REQUIRE_CHROMIUM(var)                                                               \
  const std::string var = FindChromium();                                                   \
  if (var.empty()) {                                                                        \
    const char* ci = std::getenv("CI");                                                     \
    if (ci != nullptr && std::string(ci) == "true") {                                       \
      FAIL() << "no chromium binary under CI (scripts/install-deps.sh installs `chromium`)"; \
    }                                                                                       \
    GTEST_SKIP() << "no chromium binary (apt-get install chromium, or set RINDLE_CHROMIUM): " \
                    "the report's browser test did not run";                                \
  }

struct Loaded {
  std::string dom;     // the DOM after the script ran (--dump-dom)
  std::string log;     // the browser's stderr (console messages with --enable-logging)
  std::string body;    // the <body ...> start tag
  int exit_code = -1;
};

// Opens `page` headless, lets its script run (virtual time), and dumps the DOM.
Loaded Load(const std::string& chromium, const std::string& page, const std::string& dir) {
  const std::string cmd =
      "-c \"timeout 240 '" + chromium + "' --headless --no-sandbox --disable-gpu "
      "--disable-dev-shm-usage --no-first-run --user-data-dir='" + dir + "/profile' "
      "--enable-logging=stderr --v=0 --virtual-time-budget=20000 --dump-dom 'file://" + page +
      "' >'" + dir + "/dom.html' 2>'" + dir + "/browser.log'\"";
  Loaded out;
  out.exit_code = RunCommand("/bin/sh", cmd).exit_code;
  out.dom = ReadFile(dir + "/dom.html");
  out.log = ReadFile(dir + "/browser.log");
  out.body = Match(out.dom, "(<body[^>]*>)");
  return out;
}

std::string Attr(const std::string& tag, const std::string& name) {
  return Match(tag, " " + name + "=\"([^\"]*)\"");
}

TEST(ReportBrowserTest, AFailingRunLoadsCleanlyWithTheFailingStepSelected) {
  REQUIRE_CHROMIUM(chromium);
  const std::string dir = TestDir("report_browser_");
  const std::string page = dir + "/report.html";
  // A long run cut short by its step budget: fails liveness at its last step, after 4,000+
  // messages (the old timeline dropped everything past 4,000 — the failure's end).
  CommandOutcome run = RunCli("run --seed 97 --max-steps 6000 --report '" + page + "'");
  ASSERT_EQ(run.exit_code, 1) << run.output;
  const std::string step = Match(run.output, "property=[^ ]+ step=([0-9]+)");
  ASSERT_FALSE(step.empty()) << run.output;
  const std::string messages = Match(ReadFile(page), "<b>messages</b> ([0-9]+)");
  ASSERT_GT(std::stoi(messages), 4000);

  const Loaded l = Load(chromium, page, dir);
  ASSERT_EQ(l.exit_code, 0) << l.log;
  ASSERT_FALSE(l.body.empty()) << l.dom.substr(0, 2000) << l.log;
  EXPECT_EQ(Attr(l.body, "data-error"), "") << l.body;
  EXPECT_FALSE(Contains(l.log, "Uncaught")) << l.log;
  EXPECT_EQ(Attr(l.body, "data-render"), "ok") << l.body;
  EXPECT_EQ(Attr(l.body, "data-messages"), messages) << l.body;
  EXPECT_EQ(Attr(l.body, "data-selected-step"), step) << l.body;
  // The timeline's window holds the failure's time.
  const std::string fail_ms =
      Match(l.dom, "failed at step <a [^>]*>[0-9]+</a> \\(t=([0-9]+) ms\\)");
  const std::string view = Attr(l.body, "data-view");
  ASSERT_FALSE(fail_ms.empty() || view.empty()) << l.body;
  EXPECT_LE(std::stoll(view.substr(0, view.find(','))), std::stoll(fail_ms)) << view;
  EXPECT_GE(std::stoll(view.substr(view.find(',') + 1)), std::stoll(fail_ms)) << view;
  // The step list: the failure's row is the selected one.
  const std::string selected = Match(l.dom, "(<tr [^>]*aria-selected=\"true\"[^>]*>)");
  EXPECT_EQ(Attr(selected, "data-step"), step) << selected;
  EXPECT_TRUE(Contains(Attr(selected, "class"), "fail")) << selected;
  EXPECT_TRUE(Contains(l.dom, "FAILURE</td>"));
  EXPECT_TRUE(Contains(l.dom, "messages (")) << "the counts line";
}

TEST(ReportBrowserTest, APlantedScriptErrorIsSeen) {
  REQUIRE_CHROMIUM(chromium);
  const std::string dir = TestDir("report_browser_planted_");
  const std::string page = dir + "/report.html";
  CommandOutcome run = RunCli("run --seed 6 --max-steps 120 --report '" + page + "'");
  ASSERT_EQ(run.exit_code, 1) << run.output;
  std::string html = ReadFile(page);
  const size_t at = html.find("'use strict';");
  ASSERT_NE(at, std::string::npos);
  html.insert(at + 13, " throw new Error('planted failure');");
  WriteFile(page, html);
  const Loaded l = Load(chromium, page, dir);
  ASSERT_EQ(l.exit_code, 0) << l.log;
  EXPECT_TRUE(Contains(Attr(l.body, "data-error"), "planted failure")) << l.body;
  EXPECT_NE(Attr(l.body, "data-render"), "ok") << l.body;
}

}  // namespace
