/**
 * Where a test run keeps what it makes once and every test file shares. test/support/global-setup.ts
 * sets these variables (Jest workers inherit them); without them each file makes its own.
 */
/** The migrated PGlite snapshot (test/support/pglite-snapshot.ts). */
export const PGLITE_SNAPSHOT_VARIABLE = 'TEST_PGLITE_SNAPSHOT';
/** The compiled service (test/support/run-artifacts.ts). */
export const RUN_BUILD_VARIABLE = 'TEST_RUN_BUILD';
/** A migrated embedded DATA_DIR to copy (test/support/run-artifacts.ts). */
export const RUN_DATA_VARIABLE = 'TEST_RUN_DATA';
