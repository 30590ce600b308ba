// json_file_test.cc — the hardened JSON reader and the atomic writer (base/json_file.h).
#include "base/json_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle {
namespace {

namespace fs = std::filesystem;

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/json_file_test.XXXXXX";
  const char* made = ::mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  return tmpl;
}

std::string Write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(JsonFileTest, ReadsAValidDocument) {
  const std::string dir = TempDir();
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(Write(dir, "ok.json", R"({"a": [1, {"b": 2}]})"));
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["a"][1]["b"], 2);
}

TEST(JsonFileTest, DuplicateKeyIsRefusedWithItsPath) {
  const std::string dir = TempDir();
  const std::string path = Write(dir, "dup.json", R"({"expect": "fail", "expect": "pass"})");
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(path);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(Message(j.status()), path + R"(: $.expect: duplicate key "expect" (expected each key )"
                                        "at most once per object)");
}

TEST(JsonFileTest, DuplicateKeyDeepInsideAnArrayNamesTheElement) {
  absl::StatusOr<nlohmann::json> j =
      ParseJsonStrict(R"({"actions": [{"k": 1}, {"k": 1}, {"k": 1, "k": 2}]})", "f.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(Message(j.status()).find("f.json: $.actions[2].k: duplicate key \"k\""),
            std::string::npos)
      << j.status();
  // The same key in sibling objects is fine.
  EXPECT_TRUE(ParseJsonStrict(R"([{"k": 1}, {"k": 2}])", "f").ok());
}

TEST(JsonFileTest, DeepNestingIsRefusedBeforeItIsBuilt) {
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  absl::StatusOr<nlohmann::json> j = ParseJsonStrict(deep, "deep.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(Message(j.status()).find("nested deeper than 256 levels"), std::string::npos)
      << j.status();
  // A million levels neither overflows the stack nor takes long.
  const std::string deeper = std::string(1000000, '{');
  EXPECT_FALSE(ParseJsonStrict(deeper, "deeper.json").ok());
  // 256 levels are fine.
  EXPECT_TRUE(ParseJsonStrict(std::string(256, '[') + std::string(256, ']'), "ok").ok());
  JsonLimits tight;
  tight.max_depth = 2;
  absl::StatusOr<nlohmann::json> t = ParseJsonStrict(R"({"a": {"b": [1]}})", "t", tight);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(Message(t.status()).find("t: $.a.b: nested deeper than 2"), std::string::npos)
      << t.status();
}

TEST(JsonFileTest, SyntaxErrorNamesThePath) {
  absl::StatusOr<nlohmann::json> j = ParseJsonStrict(R"({"actions": [1, 2, oops]})", "s.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(Message(j.status()).find("s.json: not valid JSON at $.actions[2]"), std::string::npos)
      << j.status();
  EXPECT_FALSE(ParseJsonStrict("", "e").ok());
  EXPECT_FALSE(ParseJsonStrict("{} {}", "two").ok());
}

TEST(JsonFileTest, EndlessAndSpecialFilesAreRefusedWithoutReading) {
  absl::StatusOr<nlohmann::json> zero = ReadJsonFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(Message(zero.status()),
            "/dev/zero: is a character device (expected a regular JSON file)");
  const std::string dir = TempDir();
  absl::StatusOr<nlohmann::json> d = ReadJsonFile(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(Message(d.status()).find("is a directory"), std::string::npos);
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<nlohmann::json> f = ReadJsonFile(fifo);  // must not wait for a writer
  ASSERT_FALSE(f.ok());
  EXPECT_NE(Message(f.status()).find("is a FIFO"), std::string::npos);
  absl::StatusOr<nlohmann::json> missing = ReadJsonFile(dir + "/nope.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
}

TEST(JsonFileTest, OversizedFileIsRefused) {
  const std::string dir = TempDir();
  const std::string path = Write(dir, "big.json", "[" + std::string(2000, ' ') + "]");
  JsonLimits small;
  small.max_bytes = 1024;
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(path, small);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(Message(j.status()),
            path + ": 2002 bytes (expected at most 1024 bytes for an input file)");
}

TEST(JsonFileTest, AtomicWriteReplacesOnlyWhenComplete) {
  const std::string dir = TempDir();
  const std::string path = Write(dir, "out.json", "old");
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the user's mode survives the rename
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);  // no temporary left behind
  absl::Status bad = WriteFileAtomically(dir + "/no/such/dir/out.json", "x");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(Message(bad).find("cannot open for writing"), std::string::npos);
}

TEST(JsonFileTest, SameExistingFileSeesThroughSpellings) {
  const std::string dir = TempDir();
  const std::string path = Write(dir, "a.json", "{}");
  EXPECT_TRUE(SameExistingFile(path, dir + "/./a.json"));
  EXPECT_FALSE(SameExistingFile(path, dir + "/b.json"));
}


// A special file (here /dev/null) is written in place: renaming a temporary over it would
// replace the device node with a regular file (as root the rename succeeds), and a failed
// write must never remove it.
TEST(JsonFileTest, ASpecialFileIsWrittenInPlaceNeverReplaced) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  absl::StatusOr<std::string> temp = CreateTempFileFor("/dev/null");
  ASSERT_TRUE(temp.ok()) << temp.status();
  EXPECT_EQ(*temp, "/dev/null");
  EXPECT_TRUE(CommitTempFile(*temp, "/dev/null").ok());
  DiscardTempFile(*temp, "/dev/null");
  EXPECT_TRUE(WriteFileAtomically("/dev/null", "{\"a\": 1}\n").ok());
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/null is no longer a character device";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

}  // namespace
}  // namespace rindle
