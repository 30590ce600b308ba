// fresh_memo.h — FreshMemo: the fresh-query oracle (oracles/fresh_query.h) with a memory of its
// recent answers, so the per-step checks that ask it the same question again (view==fresh and
// consistent-view over equal heads, every client's subscription to the same query at the
// authority, a step that changed no table a view reads) do not re-evaluate it. Holds state: per
// distinct AST (structural equality), the last kSnapshotsPerAst answers with a copy of the
// tables each was computed over (as ids into a pool of each table's recent distinct contents).
//
// Exactness (the reason it may stand in for FreshQuery in a property): FreshQuery is a pure
// function of (ast, the tables the AST reads, schema); an answer is reused only when the AST is
// structurally equal (every field, literals compared by kind and bits), the schema is the same
// object, and every table the AST reads (AstTables; an absent table counts as empty, as
// FreshQuery treats it) holds exactly the same rows — same pks, same cells by kind and bits. A
// 64-bit hash of those tables only picks the candidate; the full comparison decides. One memo
// serves one run (the schema objects outlive it). Not thread-safe.
// Counters: hits() / misses(), for the campaign summary (check.fresh_memo.{hit,miss}).
// Source: issue 16 "Faster campaigns"; the oracle's semantics are fresh_query.h's.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/schema.h"
#include "oracles/plain_store.h"

namespace rindle::props {

class FreshMemo {
 public:
  static constexpr size_t kSnapshotsPerAst = 8;
  static constexpr size_t kContentsPerTable = 16;

  // While a Scope lives, Query over that `tables` object identifies each table's content once
  // (not once per query). The caller must not change `tables` while the Scope lives.
  class Scope {
   public:
    Scope(FreshMemo* memo, const PlainTables& tables);  // memo may be null (then no effect)
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    FreshMemo* memo_;
  };

  // FreshQuery(ast, tables, schema), from memory when an equal question was answered recently.
  // The reference stays valid until the next call.
  const absl::StatusOr<std::vector<TreeNode>>& Query(const Ast& ast, const PlainTables& tables,
                                                     const Schema& schema);

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  // One distinct content a table had (ids are never reused).
  struct Content {
    int64_t id = 0;
    uint64_t hash = 0;
    PlainTable rows;
  };
  struct Answer {
    std::vector<int64_t> ids;  // content id per table, in AstTables order
    absl::StatusOr<std::vector<TreeNode>> result;
  };
  struct Slot {
    Ast ast;
    std::vector<std::string> table_names;  // AstTables(ast)
    const Schema* schema = nullptr;
    std::deque<Answer> answers;  // most recent first, at most kSnapshotsPerAst
  };

  Slot& SlotFor(const Ast& ast, const Schema& schema);
  // The id of table `name`'s content in `tables` (absent = empty), remembering a new content.
  int64_t IdOf(const PlainTables& tables, const std::string& name);

  std::deque<Slot> slots_;                          // stable addresses
  std::map<uint64_t, std::vector<Slot*>> by_shape_;  // AstShapeHash → its slots
  std::map<std::string, std::deque<Content>> contents_;  // most recent first
  int64_t next_id_ = 1;
  const PlainTables* scoped_ = nullptr;  // the open Scope's tables
  std::map<std::string, int64_t> scoped_ids_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

// Structural equality of two ASTs (every field; literals by kind and bits).
bool AstEqual(const Ast& a, const Ast& b);
// Cell-exact equality of two tables (same pks and rows, cells by kind and bits).
bool PlainTableSame(const PlainTable& a, const PlainTable& b);
// Cell-exact equality of two result trees (rows by kind and bits, aliases, child order).
bool TreesSame(const std::vector<TreeNode>& a, const std::vector<TreeNode>& b);

}  // namespace rindle::props
