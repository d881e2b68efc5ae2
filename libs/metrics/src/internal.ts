/**
 * `@once/metrics/internal`: how the metrics read a node (the applied-entry
 * tally, the gateway's view, a runtime as a metrics source), for the tests.
 * Not covered by semver: it changes with the packages of the same version,
 * which are always installed together.
 *
 * @packageDocumentation
 * @internal
 */
export { AppliedTally } from './applied-tally';
export { gatewayViewOf, runtimeSource } from './runtime-source';
