/**
 * The public API of `@once/nest-client`: `OnceClientProxy`, the once client as a
 * NestJS `ClientProxy`, its options and errors.
 *
 * @packageDocumentation
 * @public
 */
export { OnceClientProxy, type OnceClientStatus } from './once-client-proxy';
export { type OnceClientProxyOptions } from './once-client-proxy-options';
export { type OnceClientProxyEvent, type OnceClientProxyEvents } from './proxy-listeners';
export { ProxyConnectError } from './proxy-connect.error';
export { NEST_CLIENT_OPTIONS } from './nest-client-options';
export {
  QueryEmitError,
  UnknownOptionError,
  UnsupportedEventError,
  UnsupportedOptionError,
} from './proxy-errors';
