#pragma once
// Deterministic elementary functions. libm differs between glibc (native) and musl
// (Emscripten) in the last bits of log/exp/pow/sin, which would make native and WASM runs
// diverge. These use only IEEE-exact operations (+ - * / sqrt, frexp/ldexp, floor), so they
// give the same bits on every platform. Accuracy is within a few ulp. Use them everywhere in
// core/ instead of std::log, std::exp and std::pow.

namespace blis::dmath {

double log(double x);
double exp(double x);
// x^y for x >= 0 (NaN for x < 0 unless y is an integer); exp(y * log(x)) with exact edge cases.
double pow(double x, double y);
double log2(double x);
double log10(double x);

}  // namespace blis::dmath
