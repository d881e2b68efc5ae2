import { Presets, SingleBar } from 'cli-progress';

/** Reports the progress of one long piece of work (a replay, a scan) to an operator. */
export interface Progress {
  /** Work on `total` units begins. */
  start(total: number): void;
  /** `done` of the total units are done. */
  update(done: number): void;
  /** The work ended (done or failed); the bar is finished and the stream released. */
  stop(): void;
}

export interface ProgressOptions {
  /** What the work is, shown first: `replay`, `scan`. */
  readonly label: string;
  /** Where progress is written; stderr, so stdout keeps the result (and `--json` stays parseable). */
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** The unit counted, plural: `entries`. Default `entries`. */
  readonly unit?: string;
  /** Off: nothing is shown (`--quiet`). Default on. */
  readonly enabled?: boolean;
  /** Plain lines (not a terminal): one per this many ms. Default 1000. */
  readonly lineIntervalMs?: number;
  /** Work done sooner than this shows nothing (a bar that flashes helps nobody). Default 500 ms. */
  readonly showAfterMs?: number;
}

/**
 * A `cli-progress` bar with rate and ETA on a terminal; on anything else
 * (a pipe, a CI log) the same facts as plain lines, one a second, through
 * `cli-progress`'s own non-terminal output, so logs are not full of
 * carriage returns. Work that is over within `showAfterMs`, or has no
 * units, shows nothing.
 */
export function progressOf(options: ProgressOptions): Progress {
  if (options.enabled === false) return { start: () => {}, update: () => {}, stop: () => {} };
  const unit = options.unit ?? 'entries';
  const terminal = options.stream.isTTY === true;
  const facts = `{value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`;
  const bar = new SingleBar(
    {
      stream: options.stream,
      format: terminal
        ? `${options.label} [{bar}] {percentage}% | ${facts}`
        : `${options.label}: {percentage}% | ${facts}`,
      noTTYOutput: true,
      notTTYSchedule: options.lineIntervalMs ?? 1000,
      etaBuffer: 100,
      hideCursor: terminal ? true : null,
    },
    Presets.shades_classic,
  );
  let startedMs = 0;
  let done = 0;
  let shown = false;
  let timer: NodeJS.Timeout | undefined;
  const rate = (): number => {
    const elapsedMs = performance.now() - startedMs;
    return elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  };
  return {
    start(total) {
      if (total < 1) return;
      startedMs = performance.now();
      timer = setTimeout(() => {
        shown = true;
        bar.start(total, done, { rate: rate() });
      }, options.showAfterMs ?? 500);
      timer.unref();
    },
    update(value) {
      done = value;
      if (shown) bar.update(done, { rate: rate() });
    },
    stop() {
      clearTimeout(timer);
      if (shown) bar.stop();
      shown = false;
    },
  };
}
