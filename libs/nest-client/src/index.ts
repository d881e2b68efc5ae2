/**
 * The public API of `@once/nest-client`: `OnceClientProxy`, the once client as a
 * NestJS `ClientProxy`, its options and errors; and `IdempotentHttpModule`,
 * which provides `@once/sdk`'s `IdempotentHttpClient` for calling idempotent
 * HTTP endpoints.
 *
 * @packageDocumentation
 * @public
 */
export { OnceClientProxy, type OnceClientStatus } from './once-client-proxy';
export { type OnceClientProxyOptions } from './once-client-proxy-options';
export { type OnceClientProxyEvent, type OnceClientProxyEvents } from './proxy-listeners';
export { ProxyConnectError } from './proxy-connect.error';
export { NEST_CLIENT_OPTIONS } from './nest-client-options';
export { IdempotentHttpModule } from './idempotent-http.module';
export {
  type IdempotentHttpModuleOptions,
  type IdempotentHttpModuleAsyncOptions,
  type IdempotentHttpClientToken,
} from './idempotent-http-module-options';
export {
  QueryEmitError,
  UnknownOptionError,
  UnsupportedEventError,
  UnsupportedOptionError,
} from './proxy-errors';
