import {
  GATEWAY_DEFAULTS,
  InvalidGatewayOptionsError,
  resolveGatewayOptions,
} from './gateway-options';

describe('gateway options', () => {
  it('take their defaults from the settings table, under the new names only', () => {
    expect({ ...resolveGatewayOptions() }).toEqual({
      host: '127.0.0.1',
      port: 7700,
      frameBytesMax: 1024 * 1024,
      connectionsMax: 10_000,
      pendingEntriesMax: 65_536,
      writeBufferBytesMax: 64 * 1024 * 1024,
      partialFrameTimeoutMs: 10_000,
      idleUnboundTimeoutMs: 60_000,
      registerFailuresPerConnectionMax: 5,
      registerFailuresPerAddressPerMinuteMax: 30,
      tls: undefined,
    });
    expect(Object.keys(GATEWAY_DEFAULTS)).not.toContain('maxFrameBytes');
  });

  it('still accept the old (deprecated) names, resolved onto the new ones', () => {
    const resolved = resolveGatewayOptions({
      maxFrameBytes: 4096,
      maxConnections: 2,
      maxPendingEntries: 3,
      maxWriteBufferBytes: 2048,
      maxFailedRegistersPerConnection: 4,
      maxFailedRegistersPerAddressPerMinute: 5,
    });
    expect(resolved).toMatchObject({
      frameBytesMax: 4096,
      connectionsMax: 2,
      pendingEntriesMax: 3,
      writeBufferBytesMax: 2048,
      registerFailuresPerConnectionMax: 4,
      registerFailuresPerAddressPerMinuteMax: 5,
    });
    // The resolved options carry the new names only.
    expect(Object.keys(resolved)).not.toContain('maxPendingEntries');
  });

  it('let the new name win when both are given', () => {
    expect(resolveGatewayOptions({ maxConnections: 2, connectionsMax: 7 }).connectionsMax).toBe(7);
  });

  it('refuse a value out of range, naming the option', () => {
    expect(() => resolveGatewayOptions({ pendingEntriesMax: 0 })).toThrow(
      InvalidGatewayOptionsError,
    );
    expect(() => resolveGatewayOptions({ maxFrameBytes: 10 })).toThrow(
      'frameBytesMax must be an integer from 128 to 4294967295, got 10',
    );
  });
});
