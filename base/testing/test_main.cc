// The test main every rindle_test binary links instead of GTest::gtest_main: each test gets
// its own fresh temporary directory, so two tests (ctest -j2, two concurrent runs, two build
// dirs) never write the same file. A gtest listener, at each test's start, creates
// <TEST_TMPDIR or TMPDIR or /tmp>/<Suite>.<Test>.XXXXXX with mkdtemp and points TEST_TMPDIR at
// it; testing::TempDir() reads TEST_TMPDIR on every call (gtest 1.12 GetTempDirFromEnv), so
// every test that writes under TempDir() is isolated. At the test's end the directory is
// removed when the test passed and kept (its path printed) when it failed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace rindle::testing {
namespace {

// The directory the per-test directories are made in: what TempDir() returned before us.
std::string BaseTempDir() {
  for (const char* var : {"TEST_TMPDIR", "TMPDIR"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && value[0] != '\0') return value;
  }
  return "/tmp";
}

// "Suite/Param.Test/3" -> "Suite_Param.Test_3": a file-name-safe rendering of the test name.
std::string SafeName(const ::testing::TestInfo& info) {
  std::string name = std::string(info.test_suite_name()) + "." + info.name();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  if (name.size() > 120) name.resize(120);
  return name;
}

class PrivateTempDirListener : public ::testing::EmptyTestEventListener {
 public:
  explicit PrivateTempDirListener(std::string base) : base_(std::move(base)) {}

  void OnTestStart(const ::testing::TestInfo& info) override {
    std::string templ = base_ + "/" + SafeName(info) + ".XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      std::fprintf(stderr, "test_main: mkdtemp(%s) failed: %s\n", templ.c_str(),
                   std::strerror(errno));
      std::abort();
    }
    dir_ = buf.data();
    setenv("TEST_TMPDIR", dir_.c_str(), 1);
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    setenv("TEST_TMPDIR", base_.c_str(), 1);
    if (dir_.empty()) return;
    const ::testing::TestResult* result = info.result();
    if (result != nullptr && result->Failed()) {
      std::fprintf(stderr, "[  TMPDIR  ] %s.%s kept its temporary directory: %s\n",
                   info.test_suite_name(), info.name(), dir_.c_str());
    } else {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    dir_.clear();
  }

 private:
  std::string base_;
  std::string dir_;
};

}  // namespace
}  // namespace rindle::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(
      new rindle::testing::PrivateTempDirListener(rindle::testing::BaseTempDir()));
  return RUN_ALL_TESTS();
}
