/**
 * The service's end-to-end tests: each starts the service as a child process
 * on a temporary data directory (@once/testing), so they run one file at a
 * time and give a start, a crash and a restart room to happen.
 */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/test'],
  testRegex: '\\.e2e-spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
  testTimeout: 60000,
  maxWorkers: 1,
};
