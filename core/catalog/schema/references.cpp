#include "catalog/schema/references.h"

#include <algorithm>

#include "util/contains.h"
#include "util/did_you_mean.h"

namespace blis::catalog::schema {

namespace {

std::string unknown(const char* what, const std::string& id, const std::vector<std::string>& ids) {
  std::string msg = std::string("unknown ") + what + " \"" + id + "\"";
  const auto near = closest_ids(id, ids);
  if (!near.empty()) msg += " (did you mean " + quoted_list(near) + "?)";
  return msg;
}

}  // namespace

Diagnostics check_gpu_references(const Gpu& gpu, const std::vector<std::string>& fabric_ids,
                                 const std::string& pointer) {
  Diagnostics d;
  if (!gpu.scale_up.fabric.empty() && !contains(fabric_ids, gpu.scale_up.fabric)) {
    d.push_back({pointer + "/scale_up/fabric", unknown("fabric", gpu.scale_up.fabric, fabric_ids)});
  }
  if (!gpu.host_link.fabric.empty() && !contains(fabric_ids, gpu.host_link.fabric)) {
    d.push_back(
        {pointer + "/host_link/fabric", unknown("fabric", gpu.host_link.fabric, fabric_ids)});
  }
  return d;
}

Diagnostics check_coefficients_references(const GpuCoefficients& c,
                                          const std::vector<std::string>& gpu_ids,
                                          const std::string& pointer) {
  if (c.id == "default" || contains(gpu_ids, c.id)) return {};
  return {{pointer + "/id", unknown("GPU", c.id, gpu_ids) + "; per-GPU coefficients must name a "
                                                            "catalog GPU or \"default\""}};
}

}  // namespace blis::catalog::schema
