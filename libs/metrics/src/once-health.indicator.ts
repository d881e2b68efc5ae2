import { Inject, Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { OnceMetrics } from './once-metrics';
import { ONCE_METRICS_OPTIONS } from './once-metrics.constants';
import { type OnceMetricsModuleOptions } from './once-metrics-module-options';
import { type HealthVerdict, livenessOf, readinessOf } from './readiness';

/**
 * The once node as a `@nestjs/terminus` health indicator, for a team's own
 * health checks:
 *
 * ```ts
 * @Get('health/ready')
 * @HealthCheck()
 * ready() {
 *   return this.health.check([() => this.once.isReady('once'), () => this.db.pingCheck('db')]);
 * }
 * ```
 *
 * `isLive` is down only when the node cannot recover without a restart
 * (journal or boot failed); `isReady` is up once replay is done, the journal
 * is healthy and, in cluster mode, the node has caught up with the stream.
 */
@Injectable()
export class OnceHealthIndicator {
  private readonly results = new HealthIndicatorService();

  constructor(
    private readonly metrics: OnceMetrics,
    @Inject(ONCE_METRICS_OPTIONS) private readonly options: OnceMetricsModuleOptions,
  ) {}

  isLive<const Key extends string>(key: Key): HealthIndicatorResult<Key> {
    return this.result(key, livenessOf(this.metrics.attached));
  }

  isReady<const Key extends string>(key: Key): HealthIndicatorResult<Key> {
    return this.result(key, readinessOf(this.metrics.attached, this.options));
  }

  private result<const Key extends string>(
    key: Key,
    verdict: HealthVerdict,
  ): HealthIndicatorResult<Key> {
    const session = this.results.check(key);
    return verdict.up ? session.up({ ...verdict.details }) : session.down({ ...verdict.details });
  }
}
