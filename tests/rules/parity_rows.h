#pragma once
// The table of vllm_config_parity_test.cpp and vllm_config_parity_more_test.cpp: one engine
// argument value per row, with what vLLM's config classes at upstream 8d9b52f7 (release 0.32.0)
// decide about it and the vLLM line that decides it.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "resolve_args.h"
#include "rules/rules.h"

namespace blis::rules::testing {

enum class Kind {
  kAccepts,      // vLLM accepts: no error
  kRefuses,      // vLLM refuses: an error at `pointer`
  kBlisRefuses,  // vLLM accepts, BLIS Playground refuses (not modelled): an error at `pointer`
};

struct Row {
  const char* arg;   // the argument the row is about (the table's first column)
  const char* args;  // engine.args
  Kind kind;
  const char* pointer;  // below /pools/0/engine/args: the error's, or the warning's
  const char* text;     // substring of that error, or of a warning (accepts); "" = any / none
  const char* source;
};

constexpr Kind A = Kind::kAccepts;
constexpr Kind R = Kind::kRefuses;
constexpr Kind B = Kind::kBlisRefuses;

// The lax-mode warning of core/util/json_fields.cpp FieldReader.
constexpr const char* kReadAs = "read as";

// The warning of an unmodelled key at a value other than vLLM's default (rules/read_args.cpp).
constexpr const char* kAsDefault = "simulates the engine as if it were vLLM's default";

// The two halves of the table (model, scheduler and cache; LoRA, speculative decoding,
// parallelism and the arguments that are not modelled).
std::vector<Row> parity_rows_core();
std::vector<Row> parity_rows_more();
// CUDA graphs and compilation_config, the other unmodelled and ignored keys, the spec_*
// shorthands and pydantic's lax strings (vllm_config_parity_graphs_test.cpp).
std::vector<Row> parity_rows_graphs();
// The remaining EngineArgs fields (vllm_config_parity_fields_test.cpp,
// vllm_config_parity_objects_test.cpp).
std::vector<Row> parity_rows_fields();
std::vector<Row> parity_rows_objects();
// MultiModalConfig's fields, on a multimodal model (in parity_rows_cross()).
std::vector<Row> parity_rows_multimodal();

inline bool has_diag_at(const Resolved& r, Severity s, const std::string& key,
                        const std::string& text) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == s && d.pointer == std::string(kArgs) + key &&
        d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The rows that need another pool than the default one (a tensor- or data-parallel pool, a
// MoE or a multimodal model), each table with its pool (vllm_config_parity_cross_test.cpp).
struct PoolRows {
  const char* name;
  DeploymentFacts facts;
  std::vector<Row> rows;
};
std::vector<PoolRows> parity_rows_cross();

// Resolved on `facts` (the default: one H100, Llama-3.1-8B, tp = pp = dp = 1).
inline void check_rows(const std::vector<Row>& rows, const DeploymentFacts& facts = deployment()) {
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.arg) + ": " + row.args + " [" + row.source + "]");
    const Resolved r = resolve("0.32.0", row.args, facts);
    if (row.kind == Kind::kAccepts) {
      EXPECT_FALSE(has_errors(r.diagnostics)) << ::blis::testing::all_diagnostics(r.diagnostics);
      if (*row.pointer) {
        EXPECT_TRUE(has_diag_at(r, Severity::kWarning, row.pointer, row.text))
            << "expected a warning at " << kArgs << row.pointer << " containing: " << row.text
            << "\ngot:\n"
            << ::blis::testing::all_diagnostics(r.diagnostics);
      }
    } else {
      EXPECT_TRUE(has_error_at(r, row.pointer, row.text))
          << "expected an error at " << kArgs << row.pointer << " containing: " << row.text
          << "\ngot:\n"
          << ::blis::testing::all_diagnostics(r.diagnostics);
    }
  }
}

}  // namespace blis::rules::testing
