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
export {
  README_BEGIN_MARKER,
  README_END_MARKER,
  readmeSettingsSection,
  renderSettingsMarkdown,
  rewriteReadmeSettings,
} from './settings-readme';
export { type EnvSetting, readEnvSetting } from './env-setting';
export { REDACTED, redactSecrets } from './redact-secrets';
