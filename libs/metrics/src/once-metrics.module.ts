import { type DynamicModule, Module } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { OnceRuntime } from '@once/framework';
import { rpcTargetsOf } from '@once/framework/internal';
import { type GatewayMetricsView } from './metrics-source';
import { OnceHealthIndicator } from './once-health.indicator';
import { OnceMetrics } from './once-metrics';
import { ONCE_METRICS_OPTIONS, ONCE_METRICS_REGISTRY } from './once-metrics.constants';
import { type OnceMetricsModuleOptions } from './once-metrics-module-options';
import { gatewayViewOf, runtimeSource } from './runtime-source';

/**
 * Once's metrics and health indicator in a team's NestJS application (which
 * imports `OnceModule` too). It provides {@link OnceMetrics}, its prom-client
 * registry as `ONCE_METRICS_REGISTRY`, and {@link OnceHealthIndicator}; it
 * serves nothing itself: the team's `/metrics` and health controllers do.
 *
 * ```ts
 * @Module({ imports: [OnceModule.forRoot({ dataDir }), OnceMetricsModule.forRoot(), TerminusModule] })
 * ```
 */
@Module({})
export class OnceMetricsModule {
  static forRoot(options: OnceMetricsModuleOptions = {}): DynamicModule {
    return {
      module: OnceMetricsModule,
      providers: [
        { provide: ONCE_METRICS_OPTIONS, useValue: options },
        {
          provide: OnceMetrics,
          inject: [OnceRuntime, ModulesContainer],
          useFactory: (runtime: OnceRuntime, modules: ModulesContainer) =>
            metricsOf(runtime, modules, options),
        },
        {
          provide: ONCE_METRICS_REGISTRY,
          inject: [OnceMetrics],
          useFactory: (metrics: OnceMetrics) => metrics.registry,
        },
        OnceHealthIndicator,
      ],
      exports: [OnceMetrics, ONCE_METRICS_REGISTRY, OnceHealthIndicator, ONCE_METRICS_OPTIONS],
    };
  }
}

/** Metrics that attach to the runtime's node once it is open, and find the once transport among the RPC targets. */
function metricsOf(
  runtime: OnceRuntime,
  modules: ModulesContainer,
  options: OnceMetricsModuleOptions,
): OnceMetrics {
  const metrics = new OnceMetrics({ registry: options.registry });
  let gateway: GatewayMetricsView | undefined;
  // A replaying subject: targets registered before this provider are seen too.
  rpcTargetsOf(modules).subscribe((target) => {
    const view = gateway === undefined ? gatewayViewOf(target) : undefined;
    if (view === undefined) return;
    gateway = view;
    view.onReplyLatency?.((latencyMs) => metrics.observeReplyLatency(latencyMs));
  });
  runtime.whenOpen().then(
    () => metrics.attach(runtimeSource(runtime, () => gateway)),
    () => undefined,
  );
  return metrics;
}
