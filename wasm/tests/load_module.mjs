// The module for these tests: wasm/load_node.mjs (BLIS_NODE_MODULE, set by ctest, or the
// default build directory).
export { loadBlisModule } from '../load_node.mjs';
