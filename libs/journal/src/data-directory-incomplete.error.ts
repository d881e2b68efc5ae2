/**
 * The data directory's LevelDB was never completely created: its CURRENT
 * file names a manifest that is empty, and it holds no table and no logged
 * write, so nothing was ever committed there. A power loss during the very
 * first start of a directory made by an older build leaves exactly this
 * (LevelDB 1.20 does not sync the manifest before CURRENT names it).
 *
 * Why an error and not a repair: the directory is the operator's; the node
 * says what happened and that removing it loses nothing, and never deletes
 * it on its own.
 */
export class DataDirectoryIncompleteError extends Error {
  readonly code = 'DATA_DIR_INCOMPLETE';
  override readonly name = 'DataDirectoryIncompleteError';

  constructor(
    readonly dir: string,
    readonly manifest: string,
    options?: ErrorOptions,
  ) {
    super(
      `data directory ${dir} was never completely created (its first start was cut short): ` +
        `leveldb/CURRENT names the empty ${manifest}, and the directory holds no committed entry. ` +
        `Nothing is lost by removing it: remove ${dir} (or move it aside) and start again`,
      options,
    );
  }
}
