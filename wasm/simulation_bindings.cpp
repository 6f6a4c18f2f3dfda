// The `Simulation` class for JavaScript (ARCHITECTURE §8). A thin
// layer over blis::cluster::Simulation: every call goes through guard(), so a C++ exception
// reaches JS as an Error with the same message and bad input never aborts the module.
//
// JS-facing conventions (web/src/wasm/blis.d.mts):
//  - times are microseconds as JS numbers (doubles; exact up to 2^53 µs), counts are numbers:
//    no BigInt crosses the boundary, so the signed-i64 BigInt bug of Emscripten 3.1.6
//    (toolchain gotcha 7) cannot bite;
//  - diagnostics are arrays of {pointer, message, severity}, the messages of `blis validate`;
//  - series columns come as typed-memory views of the simulator's own vectors: valid until
//    the next call that advances, resets or loads (memory growth detaches them, gotcha 11).

#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "cluster/simulation.h"
#include "diagnostics_js.h"
#include "embind_guard.h"
#include "engine_snapshot.h"
#include "scenario/scenario_decode.h"
#include "util/diagnostic.h"

namespace blis::wasm {
namespace {

using emscripten::val;

// An index a JS caller passes: in [0, count), else out_of_range naming it ("instance 5 does
// not exist (2 instances)").
std::size_t checked_index(int index, std::size_t count, const char* what, const char* plural) {
  if (index < 0 || static_cast<std::size_t>(index) >= count) {
    throw std::out_of_range(std::string(what) + " " + std::to_string(index) + " does not exist (" +
                            std::to_string(count) + " " + plural + ")");
  }
  return static_cast<std::size_t>(index);
}

// A JS number that must be a whole, non-negative count or time (µs); -> int64/uint64.
std::int64_t whole_number(double v, const char* what) {
  if (!(v >= 0) || v > 9007199254740991.0 || v != std::floor(v)) {
    throw std::invalid_argument(std::string(what) + " must be a whole number in [0, 2^53), got " +
                                std::to_string(v));
  }
  return static_cast<std::int64_t>(v);
}

// Owns one cluster::Simulation plus the running totals JS asks for (engine steps, and the
// wall time spent advancing, which summary.json reports as sim.wall_s).
class JsSimulation {
 public:
  val load(const std::string& json) {
    return guard([&] {
      sim_ = std::make_unique<cluster::Simulation>();
      steps_ = 0;
      wall_ms_ = 0;
      // No file reader: in the browser a trace must be inline (`csv`), as DecodeOptions says.
      const Diagnostics ds = sim_->load(json, scenario::DecodeOptions{});
      if (!sim_->loaded()) sim_.reset();
      return diagnostics_to_js(ds);
    });
  }

  double advance(double until_us, double max_events) {
    return guard([&] {
      cluster::Simulation& s = loaded();
      const SimTime until = whole_number(until_us, "untilUs");
      const auto max = static_cast<std::uint64_t>(whole_number(max_events, "maxEvents"));
      if (max == 0) throw std::invalid_argument("maxEvents must be at least 1");
      const double t0 = emscripten_get_now();
      const cluster::AdvanceResult r = s.advance(until, max);
      wall_ms_ += emscripten_get_now() - t0;
      steps_ += r.steps;
      return static_cast<double>(r.events);
    });
  }

  bool advance_one_step() {
    return guard([&] {
      cluster::Simulation& s = loaded();
      const double t0 = emscripten_get_now();
      const cluster::AdvanceResult r = s.advance_one_step();
      wall_ms_ += emscripten_get_now() - t0;
      steps_ += r.steps;
      return !r.done;
    });
  }

  bool done() const {
    return guard([&] { return loaded().done(); });
  }
  double now_us() const {
    return guard([&] { return static_cast<double>(loaded().now()); });
  }
  double steps() const {
    return guard([&] {
      loaded();
      return static_cast<double>(steps_);
    });
  }
  double events() const {
    return guard([&] { return static_cast<double>(loaded().events_processed()); });
  }

  std::string summary_json() const {
    return guard([&] { return loaded().summary_json(wall_ms_ / 1000.0); });
  }
  std::string digest() const {
    return guard([&] { return loaded().digest(); });
  }
  std::string timeseries_json() const {
    return guard([&] { return loaded().timeseries_json(); });
  }

  val series_columns() const {
    return guard([&] {
      const cluster::TimeSeries& ts = loaded().timeseries();
      val out = val::array();
      for (std::size_t i = 0; i < ts.columns(); ++i) out.call<void>("push", ts.name(i));
      return out;
    });
  }
  double series_length() const {
    return guard([&] { return static_cast<double>(loaded().timeseries().rows()); });
  }
  // Zero-copy: a Float64Array over the column's own vector (rows() long).
  val series_view(int column) const {
    return guard([&] {
      const cluster::TimeSeries& ts = loaded().timeseries();
      const std::vector<double>& v =
          ts.column(checked_index(column, ts.columns(), "series column", "columns"));
      return val(emscripten::typed_memory_view(ts.rows(), v.data()));
    });
  }

  val instance_names() const {
    return guard([&] {
      const cluster::Simulation& s = loaded();
      val out = val::array();
      for (std::size_t i = 0; i < s.instance_count(); ++i)
        out.call<void>("push", s.instance_name(i));
      return out;
    });
  }
  std::string metrics_text(int instance) const {
    return guard([&] {
      const cluster::Simulation& s = loaded();
      return s.metrics_text(checked_index(instance, s.instance_count(), "instance", "instances"));
    });
  }
  // The mechanism view's snapshot of one instance's engine (engine_snapshot.h).
  std::string engine_snapshot(int instance) const {
    return guard([&] {
      const cluster::Simulation& s = loaded();
      const std::size_t i = checked_index(instance, s.instance_count(), "instance", "instances");
      return engine_snapshot_json(s.instance_engine(i));
    });
  }
  std::string requests_csv() const {
    return guard([&] { return loaded().requests_csv(); });
  }

  void reset() {
    guard([&] {
      loaded().reset();
      steps_ = 0;
      wall_ms_ = 0;
    });
  }

 private:
  cluster::Simulation& loaded() const {
    if (!sim_)
      throw std::logic_error("no scenario is loaded (call load() and fix its errors first)");
    return *sim_;
  }

  std::unique_ptr<cluster::Simulation> sim_;
  std::uint64_t steps_ = 0;
  double wall_ms_ = 0;
};

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_simulation) {
  using blis::wasm::JsSimulation;
  emscripten::class_<JsSimulation>("Simulation")
      .constructor<>()
      .function("load", &JsSimulation::load)
      .function("advance", &JsSimulation::advance)
      .function("advanceOneStep", &JsSimulation::advance_one_step)
      .function("done", &JsSimulation::done)
      .function("nowUs", &JsSimulation::now_us)
      .function("steps", &JsSimulation::steps)
      .function("events", &JsSimulation::events)
      .function("summaryJson", &JsSimulation::summary_json)
      .function("digest", &JsSimulation::digest)
      .function("timeseriesJson", &JsSimulation::timeseries_json)
      .function("seriesColumns", &JsSimulation::series_columns)
      .function("seriesLength", &JsSimulation::series_length)
      .function("seriesView", &JsSimulation::series_view)
      .function("instanceNames", &JsSimulation::instance_names)
      .function("metricsText", &JsSimulation::metrics_text)
      .function("requestsCsv", &JsSimulation::requests_csv)
      .function("engineSnapshot", &JsSimulation::engine_snapshot)
      .function("reset", &JsSimulation::reset);
}
