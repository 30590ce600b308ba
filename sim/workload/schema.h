// workload_schema.h — the real app's schema (issue tracker: user, issue, tag, comment), loaded
// from the recorded fixture. Stateless.
//
// Shapes: tables `comment [id, issueId, authorId, body, createdAt]`, `issue [id, title, status,
// priority, ownerId, createdAt, updatedAt]`, `tag [id, issueId, name]`, `user [id, name]`; every
// primary key is `id` (column 0); every column is NOT NULL except issue.ownerId in the
// simulator's schema (LoadAppSchema; the fixture itself has no nullable column); createdAt/updatedAt are numbers
// (virtual milliseconds in the simulator), everything else a string. Positional rows follow these
// column orders; the k*Col constants below name the positions the workload code relies on (a test
// checks them against the loaded schema).
// Errors: a missing or unreadable file, malformed JSON, or a schema the engine rejects is
// InvalidArgument / NotFound naming the file path. JSON exceptions never escape.
// Source: fixtures/app/app-schema.json (recorded by @rindle/client@0.9.0), fixtures/README.md.
//
//   absl::StatusOr<Schema> schema = LoadAppSchema();
//   const TableSpec& issue = schema->at("issue");
//
// Local-only UI tables (201-LOCAL-ONLY-TABLES), client side only: the simulator's CLIENT schema is
// the app schema plus `drafts [id, issueId, body]` (an unsent comment draft per issue) and
// `selection [id, issueId]` (which issues a UI pane has selected), every column a NOT NULL string,
// pk `id`. Every simulated client registers them as local (OptimisticOptions::local_tables); the
// authority never knows them and fixtures/app/ stays the app's recorded schema.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/schema.h"

namespace rindle::sim {

// Column positions of the app schema (positional rows).
inline constexpr int kUserId = 0, kUserName = 1;
inline constexpr int kIssueId = 0, kIssueTitle = 1, kIssueStatus = 2, kIssuePriority = 3,
                     kIssueOwnerId = 4, kIssueCreatedAt = 5, kIssueUpdatedAt = 6;
inline constexpr int kCommentId = 0, kCommentIssueId = 1, kCommentAuthorId = 2, kCommentBody = 3,
                     kCommentCreatedAt = 4;
inline constexpr int kTagId = 0, kTagIssueId = 1, kTagName = 2;
inline constexpr char kDraftsTable[] = "drafts";
inline constexpr char kSelectionTable[] = "selection";
inline constexpr int kDraftId = 0, kDraftIssueId = 1, kDraftBody = 2;
inline constexpr int kSelectionId = 0, kSelectionIssueId = 1;

// Path of the app schema fixture: RINDLE_FIXTURES_DIR "/app/app-schema.json".
std::string AppSchemaPath();

// Reads and parses the schema at `path` (format of fixtures/README.md; the "relationships" key is
// ignored). Errors name `path`.
absl::StatusOr<Schema> LoadSchemaFile(std::string_view path);

// LoadSchemaFile(AppSchemaPath()) with the simulator's nullable columns (SimNullableColumns)
// marked nullable: the recorded app schema has none, and the simulator needs null cells in
// relations, sort keys and IS NULL filters (issue 11). Errors also when a listed column is absent.
absl::StatusOr<Schema> LoadAppSchema();

// The (table, column) pairs the simulator's schema makes nullable: issue.ownerId (an unassigned
// issue: unassignIssue and recreateIssue write null; some seed issues start without an owner).
const std::vector<std::pair<std::string, std::string>>& SimNullableColumns();

// The local-only tables' specs (drafts, selection) and their names.
Schema LocalTableSpecs();
std::set<std::string> LocalTableNames();

// LoadAppSchema() plus LocalTableSpecs(): what every simulated client's backend registers.
// Errors: those of LoadAppSchema, or an app table already named like a local one.
absl::StatusOr<Schema> LoadClientSchema();

}  // namespace rindle::sim
