import { readEnvSetting } from './env-setting';
import { InvalidSettingError } from './invalid-setting.error';
import { checkSettingValue, parseSetting } from './setting-parsers';
import { SETTINGS, type SettingSpec, setting, settingDefault } from './settings';

const ALL: readonly SettingSpec[] = SETTINGS;

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const upperSnake = (name: string) => kebab(name).replace(/-/g, '_').toUpperCase();

describe('the settings table', () => {
  it('holds the settings of the packages only: no row of an application', () => {
    expect(ALL.filter((spec) => spec.layer === 'server').map((spec) => spec.name)).toEqual([]);
  });

  it.each(ALL.map((spec) => [spec.name, spec]))(
    '%s: one name across code, variable and flag',
    (_name, spec) => {
      expect(spec.flag).toBe(`--${kebab(spec.name)}`);
      if (spec.kind !== 'switch') expect(spec.env).toBe(`ONCE_${upperSnake(spec.name)}`);
    },
  );

  it('has no name twice, new or old', () => {
    const names = ALL.flatMap((spec) => [
      spec.name,
      spec.env,
      spec.flag,
      ...(spec.aliases ? [...spec.aliases.names, spec.aliases.env, spec.aliases.flag] : []),
    ]).filter((name) => name !== undefined);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(ALL.filter((spec) => spec.default !== undefined).map((spec) => [spec.name, spec]))(
    '%s: its default is in its own range and parses as it is written',
    (_name, spec) => {
      if (typeof spec.default === 'number') {
        expect(checkSettingValue(spec, spec.default)).toBe(spec.default);
        expect(parseSetting(spec, String(spec.default))).toBe(spec.default);
      }
      if (spec.kind === 'choice') expect(spec.choices).toContain(spec.default);
    },
  );

  it('units are in the names of the settings that have one', () => {
    expect(setting('frameBytesMax').unit).toBe('bytes');
    for (const spec of ALL) {
      if (spec.unit === 'ms') expect(spec.name).toMatch(/Ms$/);
      if (spec.unit === 'bytes') expect(spec.name).toMatch(/Bytes/);
    }
  });

  it('gives typed defaults', () => {
    expect(settingDefault('snapshotEveryOps')).toBe(100_000);
    expect(settingDefault('frameBytesMax')).toBe(1024 * 1024);
    expect(settingDefault('clusterName')).toBe('once');
    expect(settingDefault('clusterReplicas')).toBe(3);
  });
});

describe('parseSetting', () => {
  it.each([
    ['frameBytesMax', '64KiB', 64 * 1024],
    ['frameBytesMax', '1 MiB', 1024 * 1024],
    ['sessionTtlMs', '30m', 30 * 60_000],
    ['sessionTtlMs', '0', 0],
    ['idleUnboundTimeoutMs', '1500', 1500],
    ['port', ' 7800 ', 7800],
    ['replyChecks', 'off', 'off'],
  ] as const)('%s %j → %j', (name, text, value) => {
    expect(parseSetting(setting(name), text)).toBe(value);
  });

  it.each([
    ['port', '70000', /^port must be an integer from 0 to 65535, got "70000"$/],
    ['frameBytesMax', '1GiB', /^frame-bytes-max must be a size from 128 to 4294967295 bytes/],
    ['idleUnboundTimeoutMs', '0', /^idle-unbound-timeout-ms must be a duration from 1 to/],
    ['sessionTtlMs', '5 weeks', /^session-ttl-ms must be a duration of at least 0 ms/],
    ['upgradeFinalization', 'never', /^upgrade-finalization must be one of auto, hold/],
  ] as const)('refuses %s %j, naming the setting', (name, text, message) => {
    expect(() => parseSetting(setting(name), text)).toThrow(InvalidSettingError);
    expect(() => parseSetting(setting(name), text)).toThrow(message);
  });

  it.each([
    ['natsServers', 'nats://n1:4222', 'nats://n1:4222'],
    [
      'natsServers',
      ' nats://n1:4222, nats://10.0.0.2 ,nats://[::1]:4222',
      'nats://n1:4222,nats://10.0.0.2,nats://[::1]:4222',
    ],
    ['natsServers', 'nats://user:pw@n1:4222', 'nats://user:pw@n1:4222'],
    ['natsServers', 'tls://n1:4222,tls://n2', 'tls://n1:4222,tls://n2'],
    ['natsServers', 'tls://token@n1:4222', 'tls://token@n1:4222'],
    ['clusterName', 'orders-eu_1', 'orders-eu_1'],
    ['nodeId', 'n1', 'n1'],
    ['advertise', 'node1.example.com:7700', 'node1.example.com:7700'],
    ['advertise', '10.0.0.1:1', '10.0.0.1:1'],
    ['advertise', '[fd00::1]:7700', '[fd00::1]:7700'],
    ['clusterReplicas', '5', 5],
  ] as const)('cluster mode: %s %j → %j', (name, text, value) => {
    expect(parseSetting(setting(name), text)).toBe(value);
  });

  it.each([
    ['natsServers', '', /^nats-servers must be comma-separated nats:\/\/host\[:port\] or tls:/],
    ['natsServers', 'n1:4222', /\("n1:4222" is not one\)/],
    ['natsServers', 'nats://n1:4222,http://n2:80', /\("http:\/\/n2:80" is not one\)/],
    ['natsServers', 'nats://n1:4222,', /\(""/],
    ['natsServers', 'nats://n1:99999', /nats-servers must be/],
    ['natsServers', 'nats://n1:4222/path', /nats-servers must be/],
    ['clusterName', 'a.b', /^cluster-name must be 1 to 64 letters, digits, "-" or "_"/],
    ['clusterName', 'x'.repeat(65), /^cluster-name must be 1 to 64/],
    ['nodeId', 'node 1', /^node-id must be 1 to 64 letters, digits, "-" or "_", got "node 1"$/],
    ['nodeId', 'n.1', /^node-id must be/],
    ['advertise', 'node1', /^advertise must be host:port/],
    ['advertise', 'node1:0', /^advertise must be host:port/],
    ['advertise', 'node1:65536', /^advertise must be host:port/],
    ['advertise', 'fd00::1:7700', /^advertise must be host:port/],
    ['clusterReplicas', '0', /^cluster-replicas must be an integer from 1 to 5/],
    ['clusterReplicas', '6', /^cluster-replicas must be an integer from 1 to 5/],
  ] as const)('cluster mode: refuses %s %j, naming the setting', (name, text, message) => {
    expect(() => parseSetting(setting(name), text)).toThrow(InvalidSettingError);
    expect(() => parseSetting(setting(name), text)).toThrow(message);
  });

  it('refuses a NATS URL without echoing the credentials it carries', () => {
    const refusal = () => parseSetting(setting('natsServers'), 'nats://once:s3cr3t@n1:99999');
    expect(refusal).toThrow(InvalidSettingError);
    expect(refusal).toThrow(/\("nats:\/\/\*\*\*@n1:99999" is not one\)/);
    expect(refusal).not.toThrow(/s3cr3t/);
  });

  it('checks values given in code under their code name', () => {
    expect(() => checkSettingValue(setting('connectionsMax'), 0)).toThrow(
      'connectionsMax must be an integer from 1 to 1000000, got 0',
    );
    expect(() => checkSettingValue(setting('ring'), 2.5)).toThrow(/^ring must be/);
  });
});

describe('readEnvSetting', () => {
  const spec = setting('snapshotEveryOps');

  it('reads the variable', () => {
    expect(readEnvSetting(spec, { ONCE_SNAPSHOT_EVERY_OPS: '5' })).toEqual({ value: 5 });
    expect(readEnvSetting(spec, {})).toEqual({ value: undefined });
  });

  it('still reads the old variable, and says so', () => {
    expect(readEnvSetting(spec, { ONCE_SNAPSHOT_EVERY: '6' })).toEqual({
      value: 6,
      deprecation: 'ONCE_SNAPSHOT_EVERY is deprecated: use ONCE_SNAPSHOT_EVERY_OPS',
    });
  });

  it('lets the new variable win over the old one', () => {
    expect(
      readEnvSetting(spec, { ONCE_SNAPSHOT_EVERY: '6', ONCE_SNAPSHOT_EVERY_OPS: '7' }),
    ).toEqual({
      value: 7,
      deprecation: 'ONCE_SNAPSHOT_EVERY is deprecated and ignored: ONCE_SNAPSHOT_EVERY_OPS is set',
    });
  });
});
