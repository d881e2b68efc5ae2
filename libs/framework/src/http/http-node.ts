import { type HttpRequestDraft, type HttpSubmitResult } from '@once/engine/internal';
import { type OnceHttpOptions } from './once-http-options.interface';

/** What an `@Idempotent` route needs of the node: whether it serves writes, and the submission. */
export interface HttpNode {
  /** True once replay is done and the node serves; false while it opens, replays or stops. */
  readonly serving: boolean;
  /** The engine's phase (`opening`, `replaying`, `stopping`, ...), for the 503's message. */
  readonly phase: string;
  /** True while this node may append: a single node, or the cluster's leader in its term. */
  readonly writable: boolean;
  /** The leader's advertised `host:port` when this node follows and knows it; null otherwise. */
  readonly leader: string | null;
  submitHttp(
    request: HttpRequestDraft,
    options?: { waitInFlight?: boolean },
  ): Promise<HttpSubmitResult>;
}

/** The application's runtime as its `@Idempotent` routes see it (`OnceRuntime` is one). */
export interface HttpAdmissionHost {
  /** The node, once the data directory is open; undefined before. */
  httpNode(): HttpNode | undefined;
  readonly httpOptions: OnceHttpOptions;
}

const hosts = new WeakMap<object, HttpAdmissionHost>();

/**
 * Ties the controllers that declare `@Idempotent` routes to the runtime
 * that serves them. A route's admission runs as a method of its controller,
 * where NestJS's injection cannot reach; the runtime binds each controller
 * when it opens.
 */
export function bindHttpHost(controller: object, host: HttpAdmissionHost): void {
  hosts.set(controller, host);
}

/** The runtime bound to `controller`; undefined when no `OnceModule` opened it. */
export function httpHostOf(controller: object): HttpAdmissionHost | undefined {
  return hosts.get(controller);
}
