// SimulationBackend over the Embind module. Series columns are read through zero-copy
// typed-memory views re-fetched on every call (memory growth detaches old views, toolchain
// gotcha 11) and copied out, so the copies can be transferred to the page.

import type { BlisModule, BlisSimulation } from '../wasm/blis.mjs';
import type { SimulationBackend, SimulationModule } from './backend';

class WasmSimulation implements SimulationBackend {
  private columns: string[] = [];
  constructor(private readonly sim: BlisSimulation) {}

  load(json: string) {
    const d = this.sim.load(json);
    this.columns = d.some((x) => x.severity === 'error') ? [] : this.sim.seriesColumns();
    return d;
  }
  advance(untilUs: number, maxEvents: number) {
    this.sim.advance(untilUs, maxEvents);
  }
  advanceOneStep() {
    this.sim.advanceOneStep();
  }
  done() {
    return this.sim.done();
  }
  nowUs() {
    return this.sim.nowUs();
  }
  steps() {
    return this.sim.steps();
  }
  events() {
    return this.sim.events();
  }
  seriesColumns() {
    return this.columns;
  }
  seriesLength() {
    return this.sim.seriesLength();
  }
  seriesColumn(index: number, from: number) {
    return this.sim.seriesView(index).slice(from);
  }
  instanceNames() {
    return this.sim.instanceNames();
  }
  summaryJson() {
    return this.sim.summaryJson();
  }
  timeseriesJson() {
    return this.sim.timeseriesJson();
  }
  metricsText(instance: number) {
    return this.sim.metricsText(instance);
  }
  requestsCsv() {
    return this.sim.requestsCsv();
  }
  engineSnapshot(instance: number) {
    return this.sim.engineSnapshot(instance);
  }
  reset() {
    this.sim.reset();
  }
  dispose() {
    this.sim.delete();
  }
}

export function wasmSimulationModule(blis: BlisModule): SimulationModule {
  return {
    version: () => blis.version(),
    catalogIds: () => blis.catalogIds(),
    validate: (json) => blis.validateScenario(json),
    effective: (json) => blis.effectiveScenario(json),
    importHfConfig: (config, id) => blis.importHfConfig(config, id),
    stepTrace: (json, maxSteps) => blis.stepTrace(json, maxSteps),
    create: () => new WasmSimulation(new blis.Simulation()),
  };
}
