import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_SETTINGS } from '../apps/server/src/config/server-settings';
import {
  readmeSettingsSection,
  renderSettingsMarkdown,
  rewriteReadmeSettings,
} from './settings-markdown';

describe("the configuration reference's settings table (docs/operating/configuration.md)", () => {
  const readme = readFileSync(
    join(__dirname, '..', 'docs', 'operating', 'configuration.md'),
    'utf8',
  );

  it('is the one generated from the settings (run `npm run settings:readme` to mend)', () => {
    expect(readmeSettingsSection(readme)).toBe(renderSettingsMarkdown());
    expect(rewriteReadmeSettings(readme)).toBe(readme);
  });

  it("lists every setting the service reads, the packages' and its own, and every old name", () => {
    const section = readmeSettingsSection(readme);
    for (const spec of SERVICE_SETTINGS) {
      expect(section).toContain(`\`${spec.flag}\``);
      if (spec.aliases?.env) expect(section).toContain(`\`${spec.aliases.env}\``);
    }
  });

  it('refuses a page without its markers', () => {
    expect(() => rewriteReadmeSettings('# Configuration\n')).toThrow(/has no "<!-- settings:begin/);
  });
});
