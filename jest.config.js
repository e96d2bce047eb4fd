// One jest config, three tiers (docs/architecture.md): unit (no database), integration
// (a real database through the repositories) and e2e (the booted app over HTTP and graphql-ws);
// plus browser: the web client at /app in headless Chromium (skipped where it is absent).
'use strict';
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
    '^.+/@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/scripts/jest-pglite-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 60000,
  // why: a worker that holds more than this after a test file is replaced by a fresh one (files
  // leak their module registries; scripts/test.js). Measured: one e2e file leaves 100-130 MB.
  // It also makes jest use a worker where --maxWorkers=1 would otherwise run in band.
  workerIdleMemoryLimit: '300MB',
};
