#include "cluster/timeseries.h"

#include <nlohmann/json.hpp>

namespace blis::cluster {

void TimeSeries::define(std::vector<std::string> names) {
  names_ = std::move(names);
  data_.assign(names_.size(), {});
}

std::size_t TimeSeries::find(const std::string& name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return names_.size();
}

void TimeSeries::clear() {
  for (auto& c : data_) c.clear();
}

std::string TimeSeries::to_json(double interval_ms) const {
  nlohmann::ordered_json out;
  out["interval_ms"] = interval_ms;
  out["rows"] = rows();
  nlohmann::ordered_json cols = nlohmann::ordered_json::object();
  // A NaN (a tumbling window with no sample, e.g. no request finished its first token in it)
  // is written as null: nlohmann's dump writes every non-finite number as null.
  for (std::size_t i = 0; i < names_.size(); ++i) cols[names_[i]] = data_[i];
  out["columns"] = std::move(cols);
  return out.dump();
}

}  // namespace blis::cluster
