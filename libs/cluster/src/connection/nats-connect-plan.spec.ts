import { nkeys } from '@nats-io/nats-core';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsConnectPlan } from './nats-connect-plan';
import { NatsSecurityError } from './nats-security.error';
import { readNatsSecurity } from './read-nats-security';

describe('natsConnectPlan', () => {
  it('takes the credentials out of the URLs and uses them, showing the servers redacted', () => {
    const plan = natsConnectPlan(['nats://once:p%40ss@n1:4222', 'nats://n2:4222']);
    expect(plan.options.servers).toEqual(['nats://n1:4222', 'nats://n2:4222']);
    expect(plan.addresses).toEqual(['nats://***@n1:4222', 'nats://n2:4222']);
    expect(plan.method).toBe('user once');
    expect(plan.secrets).toEqual(['p@ss']);
    const authenticator = plan.options.authenticator as (nonce?: string) => unknown;
    expect(authenticator()).toEqual({ user: 'once', pass: 'p@ss' });
    expect(plan.options.tls).toBeUndefined();
  });

  it('takes a URL user without a password as a token', () => {
    const plan = natsConnectPlan(['nats://t0ken@n1:4222']);
    expect(plan.method).toBe('token');
    expect((plan.options.authenticator as () => unknown)()).toEqual({ auth_token: 't0ken' });
  });

  it('requires TLS for tls:// URLs, and with any TLS setting', () => {
    expect(natsConnectPlan(['tls://n1:4222']).options).toEqual({
      servers: ['tls://n1:4222'],
      tls: {},
    });
    const plan = natsConnectPlan(['nats://n1:4222'], {
      tls: { ca: 'CA', cert: 'CERT', key: 'KEY', serverName: 'nats.example' },
    });
    expect(plan.options.tls).toEqual({
      ca: 'CA',
      cert: 'CERT',
      key: 'KEY',
      servername: 'nats.example',
    });
  });

  it('signs with a user nkey seed and names its public key', () => {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const plan = natsConnectPlan(['nats://n1'], { nkeySeed: `${seed}\n` });
    expect(plan.method).toBe(`nkey ${user.getPublicKey()}`);
    const auth = (plan.options.authenticator as (nonce: string) => { nkey: string; sig: string })(
      'nonce',
    );
    expect(auth.nkey).toBe(user.getPublicKey());
    expect(plan.secrets).toEqual([seed]);
  });

  it('passes a creds file to the client', () => {
    const creds =
      '-----BEGIN NATS USER JWT-----\neyJ0.x.y\n------END NATS USER JWT------\n\n' +
      '-----BEGIN USER NKEY SEED-----\nSUAX\n------END USER NKEY SEED------\n';
    expect(natsConnectPlan(['nats://n1'], { creds }).method).toBe('creds file');
  });

  it.each([
    [{ user: 'a' }, /needs a password/],
    [{ password: 'p' }, /needs its user/],
    [{ user: 'a', password: 'p', token: 't' }, /a user and password and a token are set/],
    [{ nkeySeed: 'not a seed' }, /does not hold an nkey seed/],
    [{ creds: 'junk' }, /does not hold a user JWT/],
    [{ tls: { cert: 'CERT' } }, /both ONCE_NATS_TLS_CERT_FILE and ONCE_NATS_TLS_KEY_FILE/],
    [{ token: '' }, /token is empty/],
  ])('refuses %j, saying what to mend', (security, message) => {
    expect(() => natsConnectPlan(['nats://n1'], security)).toThrow(NatsSecurityError);
    expect(() => natsConnectPlan(['nats://n1'], security)).toThrow(message);
  });

  it('refuses credentials both in the URLs and in the settings, and URLs that disagree', () => {
    expect(() => natsConnectPlan(['nats://a:b@n1'], { token: 't' })).toThrow(/give them one way/);
    expect(() => natsConnectPlan(['nats://a:b@n1', 'nats://a:c@n2'])).toThrow(
      /carry different credentials/,
    );
  });

  it('never puts a secret in its refusals', () => {
    const refusal = () => natsConnectPlan(['nats://a:hunter2@n1', 'nats://a:hunter3@n2']);
    expect(refusal).not.toThrow(/hunter/);
  });
});

describe('readNatsSecurity', () => {
  const dir = mkdtempSync(join(tmpdir(), 'once-nats-security-'));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads the secret and TLS files, dropping one trailing newline of a password or token', () => {
    expect(
      readNatsSecurity({
        natsUser: 'once',
        natsPasswordFile: file('password', 'pw with space \n'),
        natsTlsCaFile: file('ca.pem', 'CA'),
        natsTlsCertFile: file('cert.pem', 'CERT'),
        natsTlsKeyFile: file('key.pem', 'KEY'),
        natsTlsServerName: 'nats.example',
      }),
    ).toEqual({
      user: 'once',
      password: 'pw with space ',
      tls: { ca: 'CA', cert: 'CERT', key: 'KEY', serverName: 'nats.example' },
    });
    expect(readNatsSecurity({ natsTokenFile: file('token', 't0ken\n') })).toEqual({
      token: 't0ken',
    });
    expect(readNatsSecurity({ natsToken: 'env-token' })).toEqual({ token: 'env-token' });
    expect(readNatsSecurity({})).toEqual({});
  });

  it.each([
    [
      { natsPasswordFile: '/nonexistent/password' },
      /^cannot read ONCE_NATS_PASSWORD_FILE \/nonexistent\/password: no such file$/,
    ],
    [
      { natsNkeySeedFile: tmpdir() },
      /^cannot read ONCE_NATS_NKEY_SEED_FILE .*: it is a directory$/,
    ],
    [{ natsCredsFile: '/nonexistent/c.creds' }, /ONCE_NATS_CREDS_FILE/],
    [{ natsTlsCaFile: '/nonexistent/ca.pem' }, /ONCE_NATS_TLS_CA_FILE/],
    [
      { natsToken: 'a', natsTokenFile: '/x' },
      /ONCE_NATS_TOKEN and ONCE_NATS_TOKEN_FILE are both set/,
    ],
  ])('refuses %j with an error naming the setting', (settings, message) => {
    expect(() => readNatsSecurity(settings)).toThrow(NatsSecurityError);
    expect(() => readNatsSecurity(settings)).toThrow(message);
  });

  it('refuses an empty secret file without showing it', () => {
    expect(() => readNatsSecurity({ natsTokenFile: file('empty', '\n') })).toThrow(/is empty$/);
  });
});
