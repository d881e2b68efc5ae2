/** Injection token of the prom-client `Registry` holding once's metrics. */
export const ONCE_METRICS_REGISTRY = Symbol.for('once:metrics-registry');
/** Injection token of {@link OnceMetricsModuleOptions}. */
export const ONCE_METRICS_OPTIONS = Symbol.for('once:metrics-options');
