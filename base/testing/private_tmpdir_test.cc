// private_tmpdir_test.cc — base/testing/test_main.cc gives every test its own fresh, empty
// testing::TempDir() under the original TEST_TMPDIR, so a fixed file name in one test can never
// collide with another test (ctest -j2, two concurrent runs, two build trees).
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace {

namespace fs = std::filesystem;

std::string& FirstDir() {
  static std::string dir;
  return dir;
}

TEST(PrivateTempDirTest, AFreshEmptyDirectoryNamedAfterTheTest) {
  const fs::path dir = ::testing::TempDir();
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  EXPECT_TRUE(fs::is_empty(dir)) << dir;
  EXPECT_NE(dir.string().find("PrivateTempDirTest.AFreshEmptyDirectoryNamedAfterTheTest."),
            std::string::npos)
      << dir;
  std::ofstream(dir / "same-name.txt") << "first";
  FirstDir() = dir.string();
}

TEST(PrivateTempDirTest, TheNextTestGetsAnotherAndTheLastOneIsGone) {
  // ctest runs each test in its own process; the cross-test half needs both in one run.
  if (FirstDir().empty()) GTEST_SKIP() << "needs the previous test in the same process";
  const fs::path dir = ::testing::TempDir();
  EXPECT_NE(dir.string(), FirstDir());
  EXPECT_FALSE(fs::exists(dir / "same-name.txt"));
  EXPECT_FALSE(fs::exists(FirstDir())) << "a passed test's directory is removed";
}

}  // namespace
