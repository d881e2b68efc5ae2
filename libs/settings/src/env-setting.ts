import { parseSetting } from './setting-parsers';
import { type SettingSpec } from './settings';

/** A setting as read from the environment. */
export interface EnvSetting {
  /** The parsed value; undefined when neither the variable nor its old name is set. */
  readonly value: number | string | undefined;
  /** Set when the old variable was read or ignored: says which, and names the new one. */
  readonly deprecation?: string;
}

/**
 * Reads `spec` from `env`: its variable, else its old (deprecated) variable.
 * When both are set the new one wins. Throws `InvalidSettingError` for a value
 * that does not parse.
 */
export function readEnvSetting(spec: SettingSpec, env: NodeJS.ProcessEnv): EnvSetting {
  const current = spec.env === undefined ? undefined : env[spec.env];
  const old = spec.aliases?.env;
  const oldValue = old === undefined ? undefined : env[old];
  const deprecation =
    oldValue === undefined
      ? undefined
      : current === undefined
        ? `${old} is deprecated: use ${spec.env}`
        : `${old} is deprecated and ignored: ${spec.env} is set`;
  const text = current ?? oldValue;
  return {
    value: text === undefined ? undefined : parseSetting(spec, text),
    ...(deprecation !== undefined && { deprecation }),
  };
}
