/**
 * The public API of `@once/settings`: the settings table (names, kinds,
 * defaults, ranges) and its environment and flag readers.
 *
 * @packageDocumentation
 * @public
 */
export {
  SETTINGS,
  type SettingAliases,
  type SettingKind,
  type SettingLayer,
  type SettingName,
  type SettingSpec,
  type SettingValue,
  setting,
  settingDefault,
  settingDefaults,
  settingsOfLayer,
} from './settings';
export { checkSettingValue, parseSetting, settingLabel } from './setting-parsers';
export { InvalidSettingError } from './invalid-setting.error';
export { type EnvSetting, readEnvSetting } from './env-setting';
export { REDACTED, redactSecrets } from './redact-secrets';
