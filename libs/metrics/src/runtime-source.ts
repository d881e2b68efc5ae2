import { ONCE_TRANSPORT } from '@once/framework/internal';
import { type OnceRuntime } from '@once/framework';
import {
  type ClusterMetricsView,
  type GatewayMetricsView,
  type OnceMetricsSource,
} from './metrics-source';

/**
 * The metrics source of the node an application's `OnceRuntime` opened
 * (call it once the runtime is open). `gateway` is read lazily: the
 * application's once transport may start listening after the node opened.
 */
export function runtimeSource(
  runtime: OnceRuntime,
  gateway: () => GatewayMetricsView | undefined,
): OnceMetricsSource {
  const node = runtime.node;
  const cluster: ClusterMetricsView | undefined = node.cluster ?? undefined;
  return {
    engine: runtime.engine,
    journal: runtime.journal,
    replayProgress: () => runtime.replayProgress,
    bootFailure: () => runtime.failure,
    gateway,
    cluster,
  };
}

/**
 * The application's once transport as metrics read it, when `target` (one of
 * NestJS's RPC targets) is it; duck-typed so that this package needs no
 * dependency on `@once/gateway`.
 */
export function gatewayViewOf(target: unknown): GatewayMetricsView | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const candidate = target as Partial<GatewayMetricsView> & { transportId?: unknown };
  if (candidate.transportId !== ONCE_TRANSPORT) return undefined;
  if (typeof candidate.connectionCount !== 'number') return undefined;
  return candidate as GatewayMetricsView;
}
