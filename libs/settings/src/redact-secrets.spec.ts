import { redactSecrets } from './redact-secrets';

describe('redactSecrets', () => {
  it.each([
    ['nats://once:s3cret@n1:4222', 'nats://***@n1:4222'],
    ['tls://token123@n1:4222', 'tls://***@n1:4222'],
    ['nats://n1:4222', 'nats://n1:4222'],
    [
      'cannot reach (nats://a:pw@n1:4222, nats://a:pw@[::1]:4222): Authorization Violation',
      'cannot reach (nats://***@n1:4222, nats://***@[::1]:4222): Authorization Violation',
    ],
    ['nats://a:p@ss@n1:4222,nats://n2', 'nats://***@n1:4222,nats://n2'],
    ['"nats://u:p%40w@n1"', '"nats://***@n1"'],
    ['no url here', 'no url here'],
  ])('hides the credentials of every URL in %j', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it('hides every known secret, also percent-encoded, the longest first', () => {
    expect(redactSecrets('pw s3cret/x then s3cret%2Fx and s3c', ['s3cret/x', 's3c'])).toBe(
      'pw *** then *** and ***',
    );
  });

  it('ignores an empty secret', () => {
    expect(redactSecrets('text', [''])).toBe('text');
  });
});
