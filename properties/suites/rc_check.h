// rc_check.h — run a RapidCheck property inside a GoogleTest test with the case count fixed in
// code (tests use only; header-only). Like RC_GTEST_PROP, except the count is `cases` unless the
// RC_PARAMS environment variable names max_success explicitly. Prints "[rapidcheck] <id>: N
// cases passed"; a counterexample fails the test with RapidCheck's report (seed, shrunk case).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace rindle::props {

template <typename Testable>
void CheckGTestWithCount(Testable&& testable, int cases) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + std::string(info->name());
  metadata.description = std::string(info->name());
  TestParams params = configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  if (env == nullptr || std::string(env).find("max_success") == std::string::npos) {
    params.maxSuccess = cases;
  }
  const auto result = checkTestable(std::forward<Testable>(testable), metadata, params);
  if (!result.template is<SuccessResult>()) {
    std::ostringstream ss;
    printResultMessage(result, ss);
    FAIL() << ss.str() << std::endl;
  }
  const auto success = result.template get<SuccessResult>();
  if (!success.distribution.empty()) printResultMessage(result, std::cout);
  std::cout << "\n[rapidcheck] " << metadata.id << ": " << success.numSuccess << " cases passed"
            << std::endl;
  EXPECT_GE(success.numSuccess, params.maxSuccess);
}

}  // namespace rindle::props
