import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OnceMetricsModule } from '@once/metrics';
import {
  OPERATIONS_HTTP_OPTIONS,
  type OperationsHttpOptions,
  OperationsHttpServer,
} from './operations-http.server';

/**
 * Metrics and health over HTTP for the reference service, when
 * `ONCE_METRICS_PORT` is set: once's metrics module, terminus (its failed
 * checks are not logged: a probe during replay is expected to fail), and
 * the listener.
 */
@Module({})
export class OperationsHttpModule {
  static register(options: OperationsHttpOptions): DynamicModule {
    return {
      module: OperationsHttpModule,
      imports: [OnceMetricsModule.forRoot(), TerminusModule.forRoot({ logger: false })],
      providers: [{ provide: OPERATIONS_HTTP_OPTIONS, useValue: options }, OperationsHttpServer],
    };
  }
}
