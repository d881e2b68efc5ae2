import { readFileSync } from 'node:fs';
import { NatsSecurityError } from './nats-security.error';
import { type NatsSecurityOptions } from './nats-security-options';

/**
 * The NATS security settings as an operator gives them (the settings table's
 * `nats*` rows): secrets either in a variable or, better, in a file.
 */
export interface NatsSecuritySettings {
  readonly natsUser?: string;
  readonly natsPassword?: string;
  readonly natsPasswordFile?: string;
  readonly natsToken?: string;
  readonly natsTokenFile?: string;
  readonly natsNkeySeedFile?: string;
  readonly natsCredsFile?: string;
  readonly natsTlsCaFile?: string;
  readonly natsTlsCertFile?: string;
  readonly natsTlsKeyFile?: string;
  readonly natsTlsServerName?: string;
}

/**
 * Reads the files the settings name, at start, so that a missing or
 * unreadable file stops the node with a message naming the setting and the
 * path (never the content), instead of a failed connection later. A secret
 * given both in a variable and in a file is refused: which one is meant is
 * not for the node to guess. One trailing newline of a password or token
 * file is dropped (`echo secret > file` writes one).
 */
export function readNatsSecurity(settings: NatsSecuritySettings): NatsSecurityOptions {
  const password = oneOf(settings, 'natsPassword', 'natsPasswordFile', 'ONCE_NATS_PASSWORD');
  const token = oneOf(settings, 'natsToken', 'natsTokenFile', 'ONCE_NATS_TOKEN');
  const tls = {
    ...(settings.natsTlsCaFile !== undefined && {
      ca: readSetting(settings.natsTlsCaFile, 'ONCE_NATS_TLS_CA_FILE'),
    }),
    ...(settings.natsTlsCertFile !== undefined && {
      cert: readSetting(settings.natsTlsCertFile, 'ONCE_NATS_TLS_CERT_FILE'),
    }),
    ...(settings.natsTlsKeyFile !== undefined && {
      key: readSetting(settings.natsTlsKeyFile, 'ONCE_NATS_TLS_KEY_FILE'),
    }),
    ...(settings.natsTlsServerName !== undefined && { serverName: settings.natsTlsServerName }),
  };
  return {
    ...(settings.natsUser !== undefined && { user: settings.natsUser }),
    ...(password !== undefined && { password }),
    ...(token !== undefined && { token }),
    ...(settings.natsNkeySeedFile !== undefined && {
      nkeySeed: readSetting(settings.natsNkeySeedFile, 'ONCE_NATS_NKEY_SEED_FILE').trim(),
    }),
    ...(settings.natsCredsFile !== undefined && {
      creds: readSetting(settings.natsCredsFile, 'ONCE_NATS_CREDS_FILE'),
    }),
    ...(Object.keys(tls).length > 0 && { tls }),
  };
}

/** A secret from its variable or its file, not both. */
function oneOf(
  settings: NatsSecuritySettings,
  value: 'natsPassword' | 'natsToken',
  file: 'natsPasswordFile' | 'natsTokenFile',
  env: string,
): string | undefined {
  const given = settings[value];
  const path = settings[file];
  if (given !== undefined && path !== undefined) {
    throw new NatsSecurityError(
      `${env} and ${env}_FILE are both set: keep one (the file is better)`,
    );
  }
  if (path === undefined) return given;
  return readSetting(path, `${env}_FILE`).replace(/\r?\n$/, '');
}

/** The text of the file `path` named by `setting`; a clear error when it cannot be read or is empty. */
function readSetting(path: string, setting: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (code ?? 'unreadable');
    throw new NatsSecurityError(`cannot read ${setting} ${path}: ${why}`);
  }
  if (text.trim() === '') throw new NatsSecurityError(`${setting} ${path} is empty`);
  return text;
}
