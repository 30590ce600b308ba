// state_fixture.h — the state machine's constants, schema, mutators, views and ModelTx (the model-side MutationTx).
// Test-only (optimistic/backend_state_test.cc, the rc::state machine of OptimisticBackend); split
// out of that test so each part reads on its own. Header-only; one TU includes it.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>
#include "absl/strings/str_cat.h"
#include "engine/change.h"
#include "optimistic/backend.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/fold_clock.h"
#include "optimistic/source.h"
#include "oracles/fresh_query.h"
#include "oracles/gate_model.h"
#include "oracles/plain_store.h"
#include "oracles/subscription_model.h"

namespace rindle::backend_state {

using json = nlohmann::json;


using json = nlohmann::json;

constexpr char kClient[] = "c1";
constexpr size_t kCap = 6;
constexpr int kCases = 500;
constexpr int64_t kIssueQid = 1;    // view + its own retain (never released)
constexpr int64_t kCounterQid = 2;  // split-path view: attached by every "counters" retain
constexpr int64_t kDraftQid = 3;    // local-only view
constexpr int64_t kFirstCounterRetain = 20;

// ---------------------------------------------------------------------------------------------
// Schema, mutators, views

inline Schema StateSchema() { return backend_test::TestSchema(); }  // issue, counter, draft (local)
inline const Schema& TheSchema() {
  static const Schema s = StateSchema();
  return s;
}
inline const std::set<std::string>& LocalTables() {
  static const std::set<std::string> s = {"draft"};
  return s;
}
inline const std::vector<std::string>& SyncedTables() {
  static const std::vector<std::string> t = {"counter", "issue"};
  return t;
}

inline std::map<std::string, Mutator> StateMutators() {
  std::map<std::string, Mutator> m;
  // Fails when the pk exists (e.g. the row arrived from the server meanwhile).
  m["create"] = [](MutationTx& tx, const json& a) {
    return tx.Insert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  // Absorbing (fold-legal): a full-row upsert.
  m["upsertIssue"] = [](MutationTx& tx, const json& a) {
    return tx.Upsert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  // Reads through the public surface (refused when folded); fails when the row is absent.
  m["retitle"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("issue", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no such issue");
    return tx.Update("issue",
                     {{"id", a["id"]}, {"title", (**row)["title"].get<std::string>() + "+"}});
  };
  m["delIssue"] = [](MutationTx& tx, const json& a) {
    return tx.Delete("issue", {{"id", a["id"]}});
  };
  // Read-dependent (refused when folded).
  m["inc"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return tx.Insert("counter", {{"id", a["id"]}, {"n", 1}});
    return tx.Update("counter",
                     {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() + 1}});
  };
  // Absorbing (fold-legal).
  m["setN"] = [](MutationTx& tx, const json& a) {
    return tx.Upsert("counter", {{"id", a["id"]}, {"n", a["n"]}});
  };
  // Always throws after a staged write (nothing applies, no mid).
  m["fail"] = [](MutationTx& tx, const json& a) -> absl::Status {
    absl::Status s = tx.Insert("issue", {{"id", "zz"}, {"title", a.value("title", "x")}});
    if (!s.ok()) return s;
    return absl::InvalidArgumentError("fail: client-side validation");
  };
  // M1: a mutator may not write a local-only table.
  m["writeDraft"] = [](MutationTx& tx, const json&) {
    return tx.Insert("draft", {{"id", "d"}, {"text", "x"}});
  };
  return m;
}
inline const std::map<std::string, Mutator>& Muts() {
  static const std::map<std::string, Mutator> m = StateMutators();
  return m;
}

inline Ast IssueAst() {
  Ast a;
  a.table = "issue";
  a.order_by = {OrderPart{"title", true}};
  return a;
}
inline Ast CounterAst() {
  Ast a;
  a.table = "counter";
  a.order_by = {OrderPart{"id", false}};
  return a;
}
inline Ast DraftAst() {
  Ast a;
  a.table = "draft";
  return a;
}
inline const std::map<int64_t, std::pair<Ast, std::string>>& Views() {
  static const std::map<int64_t, std::pair<Ast, std::string>> v = {
      {kIssueQid, {IssueAst(), "issue"}},
      {kCounterQid, {CounterAst(), "counter"}},
      {kDraftQid, {DraftAst(), "draft"}}};
  return v;
}
inline std::string RemoteNameFor(const std::string& table) {
  return table == "issue" ? "issues" : "counters";
}

// Fold policy per mutator name (one policy per name, so a window's options never change).
inline FoldOptions FoldOptsFor(const std::string& name, const json& args) {
  FoldOptions o;
  o.key = json{{"id", args.value("id", "")}};
  if (name == "upsertIssue") {
    o.debounce_ms = 150;
    o.max_wait_ms = 100;
  } else {
    o.debounce_ms = 60;
  }
  return o;
}
inline std::string ModelFoldKey(const std::string& name, const json& key) {
  return name + std::string(1, '\0') + key.dump();
}

// ---------------------------------------------------------------------------------------------
// The model's MutationTx: a PlainMutationTx that records the tables of the raw writes that
// actually staged (the backend's write-set rule: no-op update/delete record nothing), enforces
// M1, and arms the fold read trap.

class ModelTx : public MutationTx {
 public:
  ModelTx(PlainMutationTx* inner, std::set<std::string>* touched, bool trap)
      : inner_(inner), touched_(touched), trap_(trap) {}

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                               const RowValues& pk) override {
    if (absl::Status s = Read(table); !s.ok()) return s;
    return inner_->Get(table, pk);
  }
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                 const KeyedRow& pk) override {
    if (absl::Status s = Read(table); !s.ok()) return s;
    return inner_->GetRow(table, pk);
  }
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override {
    if (absl::Status s = Read(ast.table); !s.ok()) return s;
    return inner_->Query(ast);
  }
  absl::Status Add(std::string_view table, const RowValues& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Add(table, row); });
  }
  absl::Status Remove(std::string_view table, const RowValues& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Remove(table, row); });
  }
  absl::Status Edit(std::string_view table, const RowValues& o, const RowValues& n) override {
    return Wrote(table, Write(table), [&] { return inner_->Edit(table, o, n); });
  }
  absl::Status Insert(std::string_view table, const KeyedRow& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Insert(table, row); });
  }
  absl::Status Update(std::string_view table, const KeyedRow& row) override {
    const bool present = Present(table, row);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->Update(table, row);
    if (s.ok() && present) touched_->insert(std::string(table));
    return s;
  }
  absl::Status Upsert(std::string_view table, const KeyedRow& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Upsert(table, row); });
  }
  absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) override {
    const bool present = Present(table, row);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->InsertIgnore(table, row);
    if (s.ok() && !present) touched_->insert(std::string(table));
    return s;
  }
  absl::Status Delete(std::string_view table, const KeyedRow& pk) override {
    const bool present = Present(table, pk);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->Delete(table, pk);
    if (s.ok() && present) touched_->insert(std::string(table));
    return s;
  }

 private:
  absl::Status Read(std::string_view table) const {
    if (LocalTables().count(std::string(table)) > 0) {
      return absl::FailedPreconditionError(absl::StrCat("read local-only table \"", std::string(table), "\""));
    }
    if (trap_) return absl::FailedPreconditionError("fold-read: model trap");
    return absl::OkStatus();
  }
  absl::Status Write(std::string_view table) const {
    if (LocalTables().count(std::string(table)) > 0) {
      return absl::FailedPreconditionError(absl::StrCat("write local-only table \"", std::string(table), "\""));
    }
    return absl::OkStatus();
  }
  template <typename F>
  absl::Status Wrote(std::string_view table, absl::Status pre, F f) {
    if (!pre.ok()) return pre;
    absl::Status s = f();
    if (s.ok()) touched_->insert(std::string(table));
    return s;
  }
  bool Present(std::string_view table, const KeyedRow& keyed) const {
    auto pk = inner_->staged().PkFromKeyed(table, keyed);
    if (!pk.ok()) return false;
    auto row = inner_->staged().Get(table, *pk);
    return row.ok() && row->has_value();
  }

  PlainMutationTx* inner_;
  std::set<std::string>* touched_;
  bool trap_;
};


}  // namespace rindle::backend_state
