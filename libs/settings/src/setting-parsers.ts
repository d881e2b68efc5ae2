import { InvalidSettingError } from './invalid-setting.error';
import { redactSecrets } from './redact-secrets';
import { type SettingSpec } from './settings';

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1024 ** 2,
};

const DURATION_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** The name an operator knows a setting by in messages: its flag without the dashes. */
export function settingLabel(spec: SettingSpec): string {
  return spec.flag.replace(/^--/, '');
}

/**
 * Parses `text`, as written in a variable or after a flag, into the
 * setting's value, or throws {@link InvalidSettingError} naming the setting
 * and what it takes.
 */
export function parseSetting(spec: SettingSpec, text: string): number | string {
  const label = settingLabel(spec);
  const min = spec.min ?? 0;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  const value = text.trim();
  // A value is echoed without the credentials a URL may carry (nats://user:password@host).
  const refuse = (takes: string): never => {
    throw new InvalidSettingError(
      spec.name,
      `${label} must be ${takes}, got "${redactSecrets(text)}"`,
    );
  };
  switch (spec.kind) {
    case 'integer': {
      const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
      return inRange(parsed, min, max) ? parsed : refuse(`an integer from ${min} to ${max}`);
    }
    case 'bytes': {
      const match = /^(\d+)\s*([a-z]*)$/i.exec(value);
      const unit = match ? SIZE_UNITS[match[2].toLowerCase()] : undefined;
      const parsed = match && unit !== undefined ? Number(match[1]) * unit : NaN;
      return inRange(parsed, min, max)
        ? parsed
        : refuse(`a size from ${min} to ${max} bytes (e.g. 1048576 or 1MiB)`);
    }
    case 'duration': {
      const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(value);
      const parsed = match
        ? Number(match[1]) * DURATION_UNITS[(match[2] ?? '').toLowerCase()]
        : NaN;
      return inRange(parsed, min, max)
        ? parsed
        : refuse(`a duration ${span(min, max, 'ms')}, such as 90000, 90s, 30m or 24h`);
    }
    case 'choice':
      return spec.choices?.includes(value) ? value : refuse(`one of ${spec.choices?.join(', ')}`);
    case 'text':
    case 'secret':
      return text;
    case 'switch':
      return refuse('given without a value');
    case 'name':
      return NAME.test(value) ? value : refuse('1 to 64 letters, digits, "-" or "_"');
    case 'address':
      return isAddress(value) ? value : refuse('host:port, such as node1.example.com:7700');
    case 'nats-urls': {
      const urls = value.split(',').map((url) => url.trim());
      const bad = urls.find((url) => !isNatsUrl(url));
      return bad === undefined
        ? urls.join(',')
        : refuse(
            `comma-separated nats://host[:port] or tls://host[:port] URLs, such as ` +
              `nats://n1:4222,nats://n2:4222 (${JSON.stringify(redactSecrets(bad))} is not one)`,
          );
    }
  }
}

/**
 * A `name` setting: letters, digits, `-` and `_`, which NATS takes in stream
 * and bucket names, subject tokens and KV keys alike (the same rule as
 * `clusterNames` of `@once/cluster`).
 */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A host name or IPv4 address, or a bracketed IPv6 address, then a port from 1 to 65535. */
const ADDRESS = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

function isAddress(text: string): boolean {
  const match = ADDRESS.exec(text);
  return match !== null && inRange(Number(match[1]), 1, 65_535);
}

/**
 * `nats://host[:port]` or `tls://host[:port]` (TLS required), with optional
 * credentials (`nats://user:password@host`, `nats://token@host`) as NATS
 * clients take them, and nothing after the authority.
 */
function isNatsUrl(text: string): boolean {
  if (!/^(?:nats|tls):\/\/[^/?#\s]+\/?$/i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'nats:' || url.protocol === 'tls:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks a numeric value given in code (`GatewayOptions`, `OnceModuleOptions`)
 * against the setting's range; throws {@link InvalidSettingError} naming the
 * setting by its code name.
 */
export function checkSettingValue(spec: SettingSpec, value: unknown): number {
  const min = spec.min ?? 0;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !inRange(value, min, max)) {
    throw new InvalidSettingError(
      spec.name,
      `${spec.name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** "from 1 to 86400000 ms", or "of at least 0 ms" when there is no upper bound to speak of. */
function span(min: number, max: number, unit: string): string {
  return max === Number.MAX_SAFE_INTEGER
    ? `of at least ${min} ${unit}`
    : `from ${min} to ${max} ${unit}`;
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isSafeInteger(value) && value >= min && value <= max;
}
