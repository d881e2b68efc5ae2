/**
 * The data directory is of an older on-disk format, which this build upgrades
 * in place at a node's first start, and the caller opened it without
 * upgrading: verification, `once sessions` and other reads promise to write
 * nothing, so they leave the directory as they found it. Format 1 cannot be
 * read without the upgrade; format 2 can, but not written with keyed records.
 */
export class FormatUpgradeNeededError extends Error {
  readonly code = 'FORMAT_UPGRADE_NEEDED';
  override readonly name = 'FormatUpgradeNeededError';

  constructor(
    readonly dir: string,
    readonly formatVersion: number,
    readonly currentVersion: number,
  ) {
    super(
      `data directory ${dir} has format version ${formatVersion}, which this build upgrades to ${currentVersion} in place when the node starts on it; only the node upgrades it, not this command: start the node on it once (or use the build that wrote it), then run the command again`,
    );
  }
}
