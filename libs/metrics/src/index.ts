/**
 * The public API of `@once/metrics`: Prometheus metrics (`OnceMetrics`,
 * `OnceMetricsModule`) and terminus health (`OnceHealthIndicator`) for a
 * once node. How they read a runtime is in `@once/metrics/internal`.
 *
 * @packageDocumentation
 * @public
 */
export {
  type ClusterMetricsView,
  type GatewayMetricsView,
  type OnceMetricsSource,
} from './metrics-source';
export {
  EventLoopStalls,
  type EventLoopDelayWindow,
  type EventLoopStallsOptions,
} from './event-loop-stalls';
export { OnceHealthIndicator } from './once-health.indicator';
export { OnceMetrics, type OnceMetricsOptions } from './once-metrics';
export { ONCE_METRICS_OPTIONS, ONCE_METRICS_REGISTRY } from './once-metrics.constants';
export { type OnceMetricsModuleOptions } from './once-metrics-module-options';
export { OnceMetricsModule } from './once-metrics.module';
export {
  DEFAULT_APPLY_LAG_OPS_MAX,
  type HealthVerdict,
  type ReadinessOptions,
  livenessOf,
  readinessOf,
} from './readiness';
