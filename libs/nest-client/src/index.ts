export { OnceClientProxy, type OnceClientProxyOptions } from './once-client-proxy';
