/**
 * `@once/settings/internal`: the generator of the settings table's Markdown,
 * for the repository's scripts. Not covered by semver.
 *
 * @packageDocumentation
 * @internal
 */
export {
  README_BEGIN_MARKER,
  README_END_MARKER,
  readmeSettingsSection,
  renderSettingsMarkdown,
  rewriteReadmeSettings,
} from './settings-readme';
