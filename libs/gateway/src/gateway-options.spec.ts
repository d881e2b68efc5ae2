import {
  GATEWAY_DEFAULTS,
  type GatewayOptions,
  InvalidGatewayOptionsError,
  NEST_TCP_OPTIONS,
  UnknownGatewayOptionError,
  UnsupportedGatewayOptionError,
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
      registerFailuresPerUserPerMinuteMax: 10,
      connectionsPerAddressMax: 4096,
      unboundTimeoutMs: 30_000,
      tls: undefined,
      tlsOptions: undefined,
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

  it.each(['serializer', 'deserializer'])(
    'refuse a NestJS %s (the wire format is fixed) instead of ignoring it',
    (option) => {
      const given = { port: 0, [option]: { serialize: (value: unknown) => value } };
      let thrown: unknown;
      try {
        resolveGatewayOptions(given);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnsupportedGatewayOptionError);
      expect(thrown).toBeInstanceOf(TypeError);
      expect(thrown).toMatchObject({
        code: 'OPTION_UNSUPPORTED',
        option,
        message: `OnceServer takes no ${option}: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data in a pipe, an interceptor or the handler instead`,
      });
    },
  );

  it.each(Object.keys(NEST_TCP_OPTIONS).filter((o) => o !== 'serializer' && o !== 'deserializer'))(
    'refuse the NestJS TCP option %s with what to use instead, never ignore it',
    (option) => {
      let thrown: unknown;
      try {
        resolveGatewayOptions({ port: 0, [option]: 1 });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnsupportedGatewayOptionError);
      expect(thrown).toMatchObject({ code: 'OPTION_UNSUPPORTED', option });
      expect((thrown as Error).message).toBe(
        `OnceServer takes no ${option}: ${NEST_TCP_OPTIONS[option as keyof typeof NEST_TCP_OPTIONS]}`,
      );
    },
  );

  it('refuse an option it does not know, listing those it has', () => {
    const given = { port: 0, connectionMax: 5 } as unknown as GatewayOptions;
    expect(() => resolveGatewayOptions(given)).toThrow(UnknownGatewayOptionError);
    expect(() => resolveGatewayOptions(given)).toThrow(
      /OnceServer has no option "connectionMax"; its options are .*connectionsMax/,
    );
    expect(() => resolveGatewayOptions({ toString: 1 } as unknown as GatewayOptions)).toThrow(
      UnknownGatewayOptionError,
    );
  });

  it('serve NestJS tlsOptions as tls.createServer options, and refuse them without a server identity or beside tls', () => {
    const tlsOptions = { key: 'K', cert: 'C', minVersion: 'TLSv1.3' as const };
    expect(resolveGatewayOptions({ tlsOptions }).tlsOptions).toEqual(tlsOptions);
    expect(resolveGatewayOptions({ tls: { key: 'K', cert: 'C' } }).tlsOptions).toMatchObject({
      key: 'K',
      cert: 'C',
      requestCert: false,
    });
    expect(resolveGatewayOptions({}).tlsOptions).toBeUndefined();
    expect(() => resolveGatewayOptions({ tlsOptions: { minVersion: 'TLSv1.3' } })).toThrow(
      'tlsOptions needs the server identity: key and cert, or pfx (or an SNICallback)',
    );
    expect(() => resolveGatewayOptions({ tlsOptions, tls: { key: 'K', cert: 'C' } })).toThrow(
      /give tls or tlsOptions, not both/,
    );
  });
});
