// workload_mutators.h — the real app's mutators (issue tracker) as C++ named mutators over
// MutationTx, in a client flavour (the optimistic prediction) and a server flavour (the
// authority's twin). Stateless: a Mutator only touches the tx it is given.
//
// Args are JSON objects; ids are strings; createdAt/updatedAt are numbers (virtual ms). Rows are
// written as keyed JSON objects {column: value} of the app schema (workload_schema.h).
//   createIssue {id, title, status, priority, ownerId, ownerName, createdAt,
//                description?: {id, body}, tags?: [{id, name}]}
//       insert issue (updatedAt = createdAt); insert the description comment {id, issueId: id,
//       authorId: ownerId, body, createdAt}; insert each tag {id, issueId: id, name};
//       insertIgnore user {id: ownerId, name: ownerName}. Fails if any of those ids exists.
//   editTitle {id, title, updatedAt}        update issue title, updatedAt
//   setStatus {id, status, updatedAt}       update issue status, updatedAt
//   setPriority {id, priority, updatedAt}   update issue priority, updatedAt
//   setOwner {id, ownerId, ownerName?, updatedAt}
//       insertIgnore user {ownerId, ownerName} when ownerName is given; update issue ownerId,
//       updatedAt
//   addTag {id, issueId, name}              issue must exist (else NotFound); insert tag
//   removeTag {id}                          delete tag (no-op if absent)
//   addComment {id, issueId, authorId, body, createdAt}
//                                           issue must exist (else NotFound); insert comment
//   editComment {id, body}                  update comment body
//   deleteIssue {id}                        query `comment where issueId = id` and `tag where
//       issueId = id` (single-table ASTs), delete each, then delete the issue (no-op if absent)
//   bumpPriority {id, updatedAt}            reads the issue (absent → NotFound) and moves its
//       priority one step up low → medium → high → urgent, with updatedAt; urgent stays urgent
//       and then nothing is written (a read-only run: empty write-set). An unknown priority value
//       is FailedPrecondition.
//   moveComment {id, issueId}               target issue must exist (NotFound); update the
//       comment's issueId (a correlation column: the comment moves between issues' children)
//   reprioritize {id, priority, createdAt, updatedAt}
//                                           update priority and createdAt (sort columns)
//   duplicateIssue {id, sourceId, createdAt} read-dependent insert: reads the source issue
//       (absent → NotFound) and its tags, inserts "<title> (copy)" with its status, priority,
//       owner, and tags "<id>-t<k>" of the same names (sorted)
//   recreateIssue {id, title, createdAt}    insert issue {backlog, low, ownerId null}: the
//       generator picks a deleted issue's id (reuse) or a live one (AlreadyExists from the tx)
//   closeIssue {id, updatedAt}              update status "done", THEN query its comments and
//       throw FailedPrecondition when there are none: a throw after a write (nothing applies;
//       on the client no mid is consumed, seed 002 invoke; at the authority the mid burns)
//   unassignIssue {id, updatedAt}           update ownerId to null (nullable, workload_schema.h)
//   escalateIssue {id, updatedAt}           a two-step edit of one row: bumpPriority's step twice
//       (each re-reads the row; urgent stays urgent but is written), THEN reads the status and
//       throws FailedPrecondition when it is "done": a throw after writing one pk twice, so a
//       rollback must restore the state before the FIRST write (seed 000 §2.1). Absent →
//       NotFound. Its throw is read-dependent: a replay on a base where another client closed the
//       issue fails (seed 002: the entry is dropped and its prediction snaps back)
// Absent targets (the documented choice): the field edits (editTitle, setStatus, setPriority,
// setOwner, editComment) use `update`, which no-ops when the row is absent — as the app's
// `tx.mutate.X.update` does — so they stay blind writes (no public read: eligible for folded
// invocation). Mutators that create children (addTag, addComment) read the parent issue and fail
// with NotFound when it is gone, so a comment racing a deleteIssue is dropped on re-invocation
// and burnt at the authority instead of leaving an orphan; bumpPriority fails the same way.
// removeTag and deleteIssue are idempotent deletes.
// Errors (non-OK = "the mutator threw"; nothing of its writes applies): args not an object, a
// missing required arg or one of the wrong JSON type (InvalidArgument naming mutator and arg);
// NotFound / FailedPrecondition as above; any error returned by the tx (e.g. insert of an
// existing id) is passed through.
// Server twins differ from the client predictions ON PURPOSE (issue 11), so a rebase must replace
// predictions with other authoritative values:
//   - validations the client does not do: a title that is empty after trimming ASCII whitespace
//     (createIssue, editTitle, recreateIssue) or such a comment body (addComment, editComment) is
//     InvalidArgument; addTag of a name (lower-cased) the issue already has is
//     FailedPrecondition — the authority burns the mid and the prediction snaps back;
//   - normalization: titles trimmed with inner whitespace runs collapsed (createIssue, editTitle,
//     recreateIssue); tag names lower-cased (createIssue, addTag);
//   - a server-assigned timestamp: editTitle, setStatus, setPriority, setOwner, reprioritize,
//     closeIssue, unassignIssue, escalateIssue write updatedAt = max(claimed, stored) + 1 (the
//     authority's commit stamp: after the client's claim and the row's last stamp) instead of the
//     claim.
// Source: SPEC §2.2 (named mutators, MutationTx), §2.3 (server twins); the app's mutators.
//
//   std::map<std::string, Mutator> client = ClientMutators();
//   absl::Status s = client.at("setStatus")(tx, {{"id", "i001"}, {"status", "done"},
//                                               {"updatedAt", 1200}});
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"

namespace rindle::sim {

// The declared argument list of every workload mutator — one table (MutatorSignatures), the
// single source for what a scenario's mutate / mutate_folded args may be: scenarios are checked
// against it when loaded (CheckMutatorArgs, via ValidateScenario), the generators only make args
// that fit it (tested), and the shrinker only proposes values it allows (an enum stays an enum).
// The mutators' own parsing (above) accepts every args object that fits.
enum class ArgType {
  kString,       // any JSON string (blank allowed: the server twins reject blank titles/bodies)
  kId,           // a non-empty JSON string
  kInt,          // a non-negative JSON integer (virtual ms)
  kBool,         // true / false
  kEnum,         // a JSON string, one of MutatorArg::values
  kDescription,  // {id: non-empty string, body: string}
  kTags,         // [{id: non-empty string, name: string}, ...]
};
struct MutatorArg {
  std::string name;
  ArgType type = ArgType::kString;
  bool required = true;             // an optional arg may be absent or null
  std::vector<std::string> values;  // kEnum: the allowed values, the simplest first
};
struct MutatorSignature {
  std::string name;
  std::vector<MutatorArg> args;
};

// Every workload mutator's signature, sorted by name (the same names as WorkloadMutatorNames).
const std::vector<MutatorSignature>& MutatorSignatures();
// The signature of `name`; nullptr for an unknown mutator.
const MutatorSignature* FindMutatorSignature(std::string_view name);
// The declared arg `arg` of mutator `mutator`; nullptr when there is none.
const MutatorArg* FindMutatorArg(std::string_view mutator, std::string_view arg);
// What `arg` accepts, as an error message phrases it ("one of low, medium, high, urgent").
std::string DescribeMutatorArg(const MutatorArg& arg);

// Why an args object does not fit its mutator's signature.
struct ArgProblem {
  std::string arg;       // the offending arg ("" when the args are not an object)
  std::string expected;  // what was expected, naming the mutator
  std::optional<nlohmann::json> got;  // the value found; nullopt when the arg is missing
};
// Checks `args` against the signature of `mutator` (which must be known): every required arg
// present, every present arg declared and of its type. nullopt when they fit.
std::optional<ArgProblem> CheckMutatorArgs(std::string_view mutator, const nlohmann::json& args);

// Priority ladder, lowest first: low, medium, high, urgent.
const std::vector<std::string>& PriorityLadder();

// The mutator names, sorted.
std::vector<std::string> WorkloadMutatorNames();

// Client (optimistic prediction) mutators by name.
std::map<std::string, Mutator> ClientMutators();

// Server twins by name (ClientMutators plus the blank title/body validation).
std::map<std::string, Mutator> ServerMutators();

}  // namespace rindle::sim
