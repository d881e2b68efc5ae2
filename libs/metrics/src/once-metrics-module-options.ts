import { type Registry } from 'prom-client';
import { type ReadinessOptions } from './readiness';

/** Options of `OnceMetricsModule.forRoot`. */
export interface OnceMetricsModuleOptions extends ReadinessOptions {
  /**
   * The registry once's metrics go in. Default: one of their own, exported
   * as `ONCE_METRICS_REGISTRY`, which a team merges into its own (or gives
   * its own registry here, so one `/metrics` serves both).
   */
  readonly registry?: Registry;
}
