import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

/**
 * Certificates for the TLS e2e tests, made with the `openssl` command line
 * (RSA 2048 keys, valid for one day): a CA, server certificates signed by it
 * or self-signed, and client certificates signed by it or self-signed. Each
 * is written as PEM files into a directory the test owns (and removes).
 */

/** A PEM private key and certificate: their files, and their contents. */
export interface CertificateFiles {
  readonly keyFile: string;
  readonly certFile: string;
  readonly key: Buffer;
  readonly cert: Buffer;
}

export interface ServerCertificateOptions {
  /** The address clients connect to: an IP address (an IP SAN) or a host name (a DNS SAN). */
  readonly host: string;
  /** The issuing CA; self-signed without one. */
  readonly signedBy?: CertificateFiles;
  /** File name prefix in the directory. Default 'server'. */
  readonly name?: string;
}

export interface ClientCertificateOptions {
  /** The subject's common name (letters, digits, spaces, '.', '-' and '_'). */
  readonly commonName: string;
  /** The issuing CA; self-signed without one. */
  readonly signedBy?: CertificateFiles;
  /** File name prefix in the directory. Default: the common name. */
  readonly name?: string;
}

/** A CA certificate (basicConstraints CA:TRUE, keyCertSign) with its key, as `<name>.key.pem` / `<name>.cert.pem`. */
export function makeCertificateAuthority(
  dir: string,
  commonName = 'once test CA',
  name = 'ca',
): CertificateFiles {
  return makeCertificate(dir, name, commonName, [
    'basicConstraints = critical, CA:TRUE',
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
  ]);
}

/** A TLS server certificate (serverAuth) for `host`, signed by `signedBy` or self-signed. */
export function makeServerCertificate(
  dir: string,
  { host, signedBy, name = 'server' }: ServerCertificateOptions,
): CertificateFiles {
  const altName = isIP(host) === 0 ? `DNS:${host}` : `IP:${host}`;
  return makeCertificate(
    dir,
    name,
    host,
    [...leafExtensions(signedBy), 'extendedKeyUsage = serverAuth', `subjectAltName = ${altName}`],
    signedBy,
  );
}

/** A TLS client certificate (clientAuth), signed by `signedBy` or self-signed. */
export function makeClientCertificate(
  dir: string,
  { commonName, signedBy, name = commonName.replace(/\W+/g, '-') }: ClientCertificateOptions,
): CertificateFiles {
  return makeCertificate(
    dir,
    name,
    commonName,
    [...leafExtensions(signedBy), 'extendedKeyUsage = clientAuth'],
    signedBy,
  );
}

/**
 * Extensions of an end-entity certificate. A self-signed one carries no
 * keyUsage: OpenSSL counts a certificate as self-signed (so usable as its own
 * trust anchor) only when its keyUsage, if any, allows keyCertSign.
 */
function leafExtensions(signedBy: CertificateFiles | undefined): string[] {
  const extensions = ['basicConstraints = critical, CA:FALSE', 'subjectKeyIdentifier = hash'];
  if (signedBy) {
    extensions.push(
      'keyUsage = critical, digitalSignature, keyEncipherment',
      'authorityKeyIdentifier = keyid',
    );
  }
  return extensions;
}

/**
 * Writes `<name>.key.pem` and `<name>.cert.pem` into `dir`: a new key and a
 * certificate for CN=`commonName` with `extensions`, signed by `signedBy`'s
 * key, or by its own key without one. The OpenSSL configuration is written
 * alongside (no system configuration is read), and removed with the request.
 */
function makeCertificate(
  dir: string,
  name: string,
  commonName: string,
  extensions: readonly string[],
  signedBy?: CertificateFiles,
): CertificateFiles {
  if (!/^[\w .-]+$/.test(commonName)) throw new Error(`unsupported common name: ${commonName}`);
  const keyFile = join(dir, `${name}.key.pem`);
  const certFile = join(dir, `${name}.cert.pem`);
  const configFile = join(dir, `${name}.openssl.cnf`);
  const requestFile = join(dir, `${name}.csr.pem`);
  writeFileSync(
    configFile,
    [
      '[req]',
      'prompt = no',
      'distinguished_name = subject',
      '[subject]',
      `CN = ${commonName}`,
      '[extensions]',
      ...extensions,
      '',
    ].join('\n'),
  );
  const newKey = ['-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-config', configFile];
  try {
    if (signedBy) {
      openssl(['req', '-new', ...newKey, '-out', requestFile]);
      openssl([
        'x509',
        '-req',
        '-in',
        requestFile,
        '-CA',
        signedBy.certFile,
        '-CAkey',
        signedBy.keyFile,
        '-set_serial',
        randomSerial(),
        '-days',
        '1',
        '-extfile',
        configFile,
        '-extensions',
        'extensions',
        '-out',
        certFile,
      ]);
    } else {
      openssl([
        'req',
        '-x509',
        ...newKey,
        '-extensions',
        'extensions',
        '-days',
        '1',
        '-out',
        certFile,
      ]);
    }
  } finally {
    rmSync(configFile, { force: true });
    rmSync(requestFile, { force: true });
  }
  return { keyFile, certFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}

/** A random positive 128-bit serial number, in hex: unique per certificate of a CA. */
function randomSerial(): string {
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  return `0x${serial.toString('hex')}`;
}

function openssl(args: readonly string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8') ?? '';
    throw new Error(`openssl ${args[0]} failed: ${(error as Error).message}\n${stderr}`);
  }
}
