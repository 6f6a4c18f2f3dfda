// Linked into both modules with --pre-js (wasm/CMakeLists.txt); the other half of
// wasm/embind_guard.h. Every Embind function, static function and method is wrapped once the
// runtime is up (postRun, before the module promise's callbacks run): the wrapper calls it
// and, when guard() recorded a C++ exception's message, throws it as an Error. The Error is
// thrown here, after the C++ frames returned and Embind freed the arguments' buffers, so an
// error leaks nothing.
Module['postRun'] = [].concat(Module['postRun'] || [], function blisWrapBindings() {
  var m = Module;
  function wrap(fn) {
    var wrapped = function () {
      m['__blisGuardDepth'] = (m['__blisGuardDepth'] | 0) + 1;
      var result;
      try {
        result = fn.apply(this, arguments);
      } finally {
        m['__blisGuardDepth']--;
      }
      var error = m['__blisPendingError'];
      if (error !== undefined && error !== null) {
        m['__blisPendingError'] = null;
        throw new Error(error);
      }
      return result;
    };
    // An overloaded name dispatches through its own `overloadTable` property: keep it.
    Object.assign(wrapped, fn);
    return wrapped;
  }
  // Embind's functions carry `argCount` (or, when overloaded, `overloadTable`).
  function isBound(v) {
    return typeof v === 'function' && (v.argCount !== undefined || v.overloadTable !== undefined);
  }
  function wrapOwn(object) {
    Object.getOwnPropertyNames(object).forEach(function (name) {
      if (name === 'constructor' || name === 'prototype') return;
      var d = Object.getOwnPropertyDescriptor(object, name);
      if (d && 'value' in d && isBound(d.value)) object[name] = wrap(d.value);
    });
  }
  Object.keys(m).forEach(function (name) {
    var v = m[name];
    if (isBound(v)) {
      m[name] = wrap(v);
    } else if (typeof v === 'function' && v.prototype && typeof v.prototype.isAliasOf === 'function') {
      wrapOwn(v);  // a class: its static functions
      wrapOwn(v.prototype);  // and its methods
    }
  });
});
