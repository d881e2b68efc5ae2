/**
 * The public API of `@once/testing`: a service as a child process, a raw
 * protocol client, a TCP fault proxy, NATS and once clusters, test helpers.
 *
 * @packageDocumentation
 * @public
 */
export {
  RawClient,
  RawClientClosedError,
  RawClientTimeoutError,
  type Registration,
  type RequestFields,
  bodyJson,
  outcomeOf,
  registrationOf,
} from './raw-client';
export { ServiceProcess, type ServiceProcessOptions, ServiceStartError } from './service-process';
export { type Direction, type FlowMode, TcpProxy, type TcpProxyOptions } from './tcp-proxy';
export { StaticAuthenticator } from './static-authenticator';
export { typescriptRegisterFile } from './service-launch';
export { eventually } from './eventually';
export { neverCompletedDataDirectory } from './never-completed-data-directory';
export {
  NatsCluster,
  type NatsClusterAuth,
  type NatsClusterOptions,
  type NatsClusterTls,
  NatsServerMissingError,
  NatsStartError,
  ACCOUNTS_PASSWORDS,
  recommendedAccounts,
  recommendedAccountsFile,
} from './nats-cluster';
export { FrameServer } from './frame-server';
export { freePorts } from './free-ports';
export {
  type NodePing,
  OnceCluster,
  type OnceClusterOptions,
  writeClusterKeyFile,
} from './once-cluster';
export { type JournalHooks, withJournalHooks } from './journal-hooks';
