#pragma once
// TimeSeries: columns of doubles sampled on a fixed simulated interval (a tumbling window:
// each row describes the interval that ends at its time_s; NaN = no sample in it). Each column is
// one contiguous std::vector<double>, so the WASM bindings can hand JavaScript a typed-array view
// of it without copying.

#include <cstddef>
#include <string>
#include <vector>

namespace blis::cluster {

class TimeSeries {
 public:
  void define(std::vector<std::string> names);
  std::size_t columns() const { return names_.size(); }
  std::size_t rows() const { return data_.empty() ? 0 : data_.front().size(); }
  const std::string& name(std::size_t i) const { return names_[i]; }
  const std::vector<double>& column(std::size_t i) const { return data_[i]; }
  // Index of a column by name, or columns() when absent.
  std::size_t find(const std::string& name) const;
  // Appends one value to column i; a row is complete when every column has one more value.
  void append(std::size_t i, double v) { data_[i].push_back(v); }
  void clear();
  // {"interval_ms": .., "rows": .., "columns": {"time_s": [...], ...}} in column order.
  std::string to_json(double interval_ms) const;

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<double>> data_;
};

}  // namespace blis::cluster
