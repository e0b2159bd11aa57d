// SWC transforms TypeScript for Jest: TypeScript 7 has no JavaScript compiler API, so ts-jest
// cannot run. Legacy decorators and their metadata are what Inversify and TypeORM read.
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj|cj)s$': ['@swc/jest', swc] },
  // inversify 8, PGlite and the Unicode data ship ESM only; Jest must transform them to CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@electric-sql|@unicode)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testTimeout: 30000,
  // Jest's default, one worker fewer than the cores, is a single worker on a 2-core machine. Test
  // files are independent (each its own PGlite in memory or PostgreSQL schema, temporary DATA_DIRs,
  // port 0, Redis keys under a prefix of their own), and many wait on child processes, browsers and
  // timers: three workers at least. Two left about a quarter of two cores idle; a third filled it
  // (docs/performance.md, the test suite's fourth round).
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // Jest's runtime, with compiled code kept between the test files of a worker (the file says why).
  runtime: '<rootDir>/test/support/code-cache-runtime.js',
  // The migrated PGlite every test database starts from (test/support/pglite-snapshot.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
