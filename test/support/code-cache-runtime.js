// Jest's module runtime, with V8's compiled code kept from one test file to the next in a worker.
//
// Jest gives every test file fresh module instances, and compiles every module again to make them:
// each integration file loads some 1,500 modules (TypeORM, Inversify, class-validator, Express,
// src/), and compiling them was about 0.4 s of the 0.65 s that loading them took (docs/performance.md,
// "Compiled code kept between test files"). Jest compiles with vm.compileFunction and a callback of
// its own per module, which keeps V8 from finding the code it compiled for the previous file.
//
// Here the same module is compiled as a script whose V8 code cache, taken after the previous file
// ran it (so holding the functions that file called too), the next file starts from. Only compiled
// code is shared: every file still runs every module afresh, in its own context. A module whose
// transformed source changed is compiled anew; V8 checks the cache against the source itself.
const vm = require('node:vm');

const compileFunction = vm.compileFunction;
/** @type {Map<string, { source: string, script: vm.Script, cachedData?: Buffer }>} */
const compiled = new Map();
// The options Jest passes (jest-runtime's ModuleExecutor.compile); anything else goes to Node as is.
const JEST_OPTIONS = new Set(['filename', 'importModuleDynamically', 'parsingContext']);
// Off while V8 collects coverage (jest --coverage --coverageProvider v8): its ranges are offsets in
// the compiled source, which the wrapper line here would shift.
let enabled = true;

vm.compileFunction = function compileWithCache(code, params = [], options = {}) {
  if (!enabled || !options.parsingContext || !Object.keys(options).every((key) => JEST_OPTIONS.has(key))) {
    return compileFunction.call(vm, code, params, options);
  }
  // The wrapper on a line of its own, and lineOffset -1: lines and columns as in the module.
  const source = `(function (${params.join(', ')}) {\n${code}\n})`;
  const earlier = compiled.get(options.filename);
  let cachedData;
  if (earlier && earlier.source === source) {
    earlier.cachedData ??= earlier.script.createCachedData();
    cachedData = earlier.cachedData;
  }
  const script = new vm.Script(source, {
    filename: options.filename,
    lineOffset: -1,
    cachedData,
    importModuleDynamically: options.importModuleDynamically,
  });
  if (cachedData === undefined || script.cachedDataRejected)
    compiled.set(options.filename, { source, script });
  return script.runInContext(options.parsingContext);
};

const Runtime = require('jest-runtime').default;

class CodeCacheRuntime extends Runtime {
  constructor(config, environment, resolver, transformer, cacheFS, coverageOptions, ...rest) {
    super(config, environment, resolver, transformer, cacheFS, coverageOptions, ...rest);
    // One runtime per test file, and a worker runs its files one at a time.
    enabled = !(coverageOptions?.collectCoverage && coverageOptions.coverageProvider === 'v8');
  }
}

// jest-runner takes the module's default export, or the module itself when it has none.
module.exports = CodeCacheRuntime;
