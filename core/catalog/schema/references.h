#pragma once
// Rules that span entries: a GPU's links must name known fabrics, per-GPU coefficients must
// name a known GPU (or "default"). Checked for the built-in catalog at build time and for
// inline entries at run time.

#include <string>
#include <vector>

#include "catalog/entries.h"
#include "util/diagnostic.h"

namespace blis::catalog::schema {

Diagnostics check_gpu_references(const Gpu& gpu, const std::vector<std::string>& fabric_ids,
                                 const std::string& pointer);
Diagnostics check_coefficients_references(const GpuCoefficients& c,
                                          const std::vector<std::string>& gpu_ids,
                                          const std::string& pointer);

}  // namespace blis::catalog::schema
