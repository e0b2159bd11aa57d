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
};
