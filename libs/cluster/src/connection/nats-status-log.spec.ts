import { type Status } from '@nats-io/nats-core';
import { NatsStatusLog, describeNatsStatus } from './nats-status-log';

describe('NatsStatusLog', () => {
  const lines: string[] = [];
  let now = 0;
  const logger = {
    log: (message: unknown) => lines.push(`log ${String(message)}`),
    warn: (message: string) => lines.push(`warn ${message}`),
    error: (message: string) => lines.push(`error ${message}`),
  };
  beforeEach(() => {
    lines.length = 0;
    now = 0;
  });

  it('says when the connection is lost and back, and a refusal of its credentials by code', () => {
    const log = new NatsStatusLog(logger, 'n1', { clock: () => now });
    log.observe({ type: 'disconnect', server: '10.0.0.5:4222' });
    log.observe({ type: 'reconnecting' });
    log.observe({ type: 'error', error: new Error('Authorization Violation') });
    log.observe({ type: 'reconnect', server: '10.0.0.6:4222' });
    log.observe({ type: 'ping', pendingPings: 1 });
    expect(lines).toEqual([
      'warn n1: lost its NATS connection to 10.0.0.5:4222; reconnecting',
      "warn n1: the NATS servers refused this node's credentials (Authorization Violation) (NATS_AUTH_FAILED); it keeps reconnecting",
      'log n1: connected to NATS again, at 10.0.0.6:4222',
    ]);
  });

  it('says a repeated line once per repeatMs, not at every reconnect attempt', () => {
    const log = new NatsStatusLog(logger, 'n1', { clock: () => now, repeatMs: 1000 });
    const refused: Status = { type: 'error', error: new Error('Authorization Violation') };
    for (now = 0; now < 2500; now += 250) log.observe(refused);
    expect(lines).toHaveLength(3);
  });

  it('redacts URLs and the secrets it was given', () => {
    const log = new NatsStatusLog(logger, 'n1', { secrets: ['hunter2'] });
    log.observe({ type: 'error', error: new Error('bad nats://u:pw@h:1 and hunter2') });
    expect(lines).toEqual(['warn n1: NATS reported: bad nats://***@h:1 and ***']);
  });

  it('leaves out what a log needs not carry', () => {
    expect(describeNatsStatus({ type: 'update', added: ['x'] }, 'n1')).toBeUndefined();
    expect(describeNatsStatus({ type: 'close' }, 'n1')).toBeUndefined();
  });
});
