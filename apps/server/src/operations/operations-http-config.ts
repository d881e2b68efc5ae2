import { readFileSync } from 'node:fs';
import { ConfigError, type ServerConfig } from '../config/server-config';
import { allowedHostsOf } from './host-check';
import {
  OperationsCredential,
  OperationsCredentialError,
  readOperationsToken,
} from './operations-credential';
import { type OperationsHttpOptions } from './operations-http.server';

/**
 * The operations listener's options from the service's settings, its files
 * (credential, TLS key and certificate) read now, so a bad path or a short
 * token stops the start (exit 2) instead of a listener that cannot serve.
 * Undefined when no `metricsPort` is set. Messages name files, never their content.
 */
export function operationsOptionsOf(config: ServerConfig): OperationsHttpOptions | undefined {
  if (config.metricsPort === undefined) return undefined;
  let credential: OperationsCredential | undefined;
  if (config.operationsTokenFile !== undefined) {
    try {
      credential = new OperationsCredential(readOperationsToken(config.operationsTokenFile));
    } catch (error) {
      if (error instanceof OperationsCredentialError) throw new ConfigError(error.message);
      throw error;
    }
  }
  return {
    host: config.metricsHost,
    port: config.metricsPort,
    journalFeed: config.journalFeed === 'on',
    credential,
    authScope: config.operationsAuthScope,
    tls: tlsOf(config),
    allowedHosts: [
      ...allowedHostsOf(config.operationsAllowedHosts),
      ...ownName(config.metricsHost),
    ],
    connectionsMax: config.operationsConnectionsMax,
    headersTimeoutMs: config.operationsHeadersTimeoutMs,
    feedWaitersMax: config.journalFeedWaitersMax,
  };
}

/** The listener's own address when it is a name (`metricsHost=ops.internal`): requests name it. */
function ownName(host: string): string[] {
  return allowedHostsOf(host).filter((name) => name !== '0.0.0.0' && name !== '::');
}

function tlsOf(config: ServerConfig): OperationsHttpOptions['tls'] {
  if (config.operationsTlsKeyFile === undefined || config.operationsTlsCertFile === undefined) {
    return undefined;
  }
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`cannot read the metrics listener's TLS ${what} ${file} (${reason})`);
    }
  };
  return {
    key: read(config.operationsTlsKeyFile, 'key'),
    cert: read(config.operationsTlsCertFile, 'certificate'),
  };
}
