/** The data directory was written in an on-disk format this build cannot read. */
export class UnsupportedFormatError extends Error {
  readonly code = 'UNSUPPORTED_FORMAT';
  override readonly name = 'UnsupportedFormatError';

  constructor(
    readonly dir: string,
    readonly formatVersion: unknown,
    readonly supportedVersion: number,
  ) {
    super(
      `data directory ${dir} has format version ${String(formatVersion)}; this build reads version ${supportedVersion}`,
    );
  }
}
