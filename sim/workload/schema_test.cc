// workload_schema_test.cc — the app schema loads from the fixture and matches the column
// positions the workload relies on.
#include "sim/workload/schema.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

using ::testing::HasSubstr;

TEST(WorkloadSchemaTest, LoadsTheFourAppTables) {
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok()) << schema.status();
  ASSERT_EQ(schema->size(), 4u);
  for (const char* t : {"user", "issue", "comment", "tag"}) {
    ASSERT_TRUE(schema->count(t)) << t;
    EXPECT_EQ(schema->at(t).primary_key, std::vector<int>{0}) << t;
    EXPECT_TRUE(schema->at(t).Validate(t).ok());
  }
}

TEST(WorkloadSchemaTest, ColumnConstantsMatchTheSchema) {
  absl::StatusOr<Schema> s = LoadAppSchema();
  ASSERT_TRUE(s.ok());
  const TableSpec &user = s->at("user"), &issue = s->at("issue"), &comment = s->at("comment"),
                  &tag = s->at("tag");
  EXPECT_EQ(user.ColumnIndex("id"), kUserId);
  EXPECT_EQ(user.ColumnIndex("name"), kUserName);
  EXPECT_EQ(issue.ColumnIndex("id"), kIssueId);
  EXPECT_EQ(issue.ColumnIndex("title"), kIssueTitle);
  EXPECT_EQ(issue.ColumnIndex("status"), kIssueStatus);
  EXPECT_EQ(issue.ColumnIndex("priority"), kIssuePriority);
  EXPECT_EQ(issue.ColumnIndex("ownerId"), kIssueOwnerId);
  EXPECT_EQ(issue.ColumnIndex("createdAt"), kIssueCreatedAt);
  EXPECT_EQ(issue.ColumnIndex("updatedAt"), kIssueUpdatedAt);
  EXPECT_EQ(comment.ColumnIndex("id"), kCommentId);
  EXPECT_EQ(comment.ColumnIndex("issueId"), kCommentIssueId);
  EXPECT_EQ(comment.ColumnIndex("authorId"), kCommentAuthorId);
  EXPECT_EQ(comment.ColumnIndex("body"), kCommentBody);
  EXPECT_EQ(comment.ColumnIndex("createdAt"), kCommentCreatedAt);
  EXPECT_EQ(tag.ColumnIndex("id"), kTagId);
  EXPECT_EQ(tag.ColumnIndex("issueId"), kTagIssueId);
  EXPECT_EQ(tag.ColumnIndex("name"), kTagName);
  EXPECT_EQ(issue.columns.size(), 7u);
  EXPECT_EQ(comment.columns.size(), 5u);
  EXPECT_EQ(tag.columns.size(), 3u);
  EXPECT_EQ(user.columns.size(), 2u);
}

TEST(WorkloadSchemaTest, MissingFileErrorNamesThePath) {
  absl::StatusOr<Schema> s = LoadSchemaFile("/nonexistent/dir/app-schema.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("/nonexistent/dir/app-schema.json"));
}

TEST(WorkloadSchemaTest, MalformedFileErrorNamesThePath) {
  // A fixture that is JSON but not a schema: the manifest.
  const std::string path = std::string(RINDLE_FIXTURES_DIR) + "/app/app-queries-manifest.json";
  absl::StatusOr<Schema> s = LoadSchemaFile(path);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("app-queries-manifest.json"));
}

}  // namespace
}  // namespace rindle::sim
