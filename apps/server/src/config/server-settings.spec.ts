import { InvalidSettingError, parseSetting, SETTINGS, type SettingSpec } from '@once/settings';
import { SERVER_SETTINGS, SERVICE_SETTINGS, serverSetting } from './server-settings';

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const upperSnake = (name: string) => kebab(name).replace(/-/g, '_').toUpperCase();

describe("the reference service's settings", () => {
  it("are the packages' rows and its own, each once", () => {
    const names = SERVICE_SETTINGS.map((spec) => spec.name);
    expect([...names].sort()).toEqual(
      [...SETTINGS, ...SERVER_SETTINGS].map((spec: SettingSpec) => spec.name).sort(),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it("keeps the packages' order, its own rows placed next to those they go with", () => {
    const names = SERVICE_SETTINGS.map((spec) => spec.name);
    const packageNames = SETTINGS.map((spec: SettingSpec) => spec.name);
    expect(names.filter((name) => packageNames.includes(name))).toEqual(packageNames);
    expect(names.slice(0, 6)).toEqual([
      'host',
      'port',
      'httpPort',
      'dataDir',
      'adminPassword',
      'adminPasswordFile',
    ]);
    expect(names.indexOf('tlsKeyFile')).toBe(names.indexOf('unboundTimeoutMs') + 1);
    expect(names.slice(-3)).toEqual(['verify', 'truncateCorruptTail', 'yes']);
  });

  it("marks its own rows as the server's layer", () => {
    expect(SERVER_SETTINGS.every((spec: SettingSpec) => spec.layer === 'server')).toBe(true);
  });

  it.each(SERVER_SETTINGS.map((spec: SettingSpec) => [spec.name, spec]))(
    '%s: one name across code, variable and flag',
    (_name, spec) => {
      expect(spec.flag).toBe(`--${kebab(spec.name)}`);
      if (spec.kind !== 'switch') expect(spec.env).toBe(`ONCE_${upperSnake(spec.name)}`);
    },
  );

  it('has no name twice, new or old, its own or a package one', () => {
    const names = SERVICE_SETTINGS.flatMap((spec) => [
      spec.name,
      spec.env,
      spec.flag,
      ...(spec.aliases ? [...spec.aliases.names, spec.aliases.env, spec.aliases.flag] : []),
    ]).filter((name) => name !== undefined);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives its defaults, parsed as the table says', () => {
    expect(serverSetting('adminPassword').default).toBe('admin');
    expect(serverSetting('logFormat').default).toBe('text');
    expect(parseSetting(serverSetting('logLevel'), 'debug')).toBe('debug');
    expect(parseSetting(serverSetting('operationsHeadersTimeoutMs'), '30s')).toBe(30_000);
    expect(() => parseSetting(serverSetting('logFormat'), 'xml')).toThrow(InvalidSettingError);
    expect(() => parseSetting(serverSetting('logFormat'), 'xml')).toThrow(
      /^log-format must be one of text, json/,
    );
  });
});
