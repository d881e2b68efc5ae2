export { OnceClientProxy, type OnceClientStatus } from './once-client-proxy';
export { type OnceClientProxyOptions } from './once-client-proxy-options';
export { type OnceClientProxyEvent, type OnceClientProxyEvents } from './proxy-listeners';
export { QueryEmitError, UnsupportedEventError, UnsupportedOptionError } from './proxy-errors';
