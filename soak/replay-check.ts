import { spawn } from 'node:child_process';
import { type ServiceProcess } from '@once/testing';
import { type ServiceBuild } from './service-build';

/** What the graceful stop and the full replay of the journal found. */
export interface ReplayCheck {
  /** Exit code of the graceful stop (SIGTERM: in-flight commits, snapshot, close); 0 expected. */
  readonly stopExitCode: number | null;
  /** Exit code of `main.js --verify`: 0 when the replay equals the newest snapshot (or there is none). */
  readonly verifyExitCode: number | null;
  /** The journal's last op, from verify's count of entries replayed (ops are contiguous). */
  readonly journalOps: number | undefined;
  /** Op of the newest snapshot, the one the replay was compared with. */
  readonly snapshotOp: number | undefined;
  /**
   * The stop exited 0, verify exited 0 and said the replay equals the snapshot,
   * that snapshot is at the journal's last op (the stop's own: the live state
   * at the end), and the journal holds every op the node had committed when
   * the clients were done.
   */
  readonly equal: boolean;
  /** verify's own report line (or the end of its output when it has none). */
  readonly verifyReport: string;
}

/**
 * verify's last line: the entries replayed and the first op (1, or after the
 * oldest kept snapshot of a compacted journal), the snapshot compared and
 * whether they agree, and with keyed state whether the records on disk are
 * the newest snapshot's. A compacted journal with keyed state has only that
 * last check: an older snapshot cannot be restored, so nothing is compared.
 */
const VERIFY_REPORT =
  /verify: (\d+) journal entries replayed from op (\d+)(?: \([^)]*\))?, all intact; (?:the replay at op (\d+) (equals|DIFFERS FROM) the snapshot taken there|no snapshot to compare with)(?:; the keyed records on disk (are|are NOT) those of the snapshot at op (\d+))?/;
/** Bound of the replay; a journal of a long run replays in seconds, this only turns a hang into a failure. */
const VERIFY_TIMEOUT_MS = 600_000;

/**
 * Stops the service gracefully, then replays its whole journal from op 1
 * with the service's own `main.js --verify` (of `build`) on its data
 * directory. `committedOp` is the node's commit op when the soak's clients
 * were done.
 */
export async function stopAndVerify(
  service: ServiceProcess,
  build: ServiceBuild,
  committedOp: number,
): Promise<ReplayCheck> {
  const stopExitCode = await service.stop();
  const verify = await runVerify(build, service.dataDir);
  const match = VERIFY_REPORT.exec(verify.output);
  // The journal's last op: ops are contiguous from the first one replayed.
  const journalOps = match ? Number(match[2]) - 1 + Number(match[1]) : undefined;
  const comparedOp = match?.[3] === undefined ? undefined : Number(match[3]);
  const recordsOp = match?.[6] === undefined ? undefined : Number(match[6]);
  const snapshotOp = comparedOp ?? recordsOp;
  // The replay equals the stop's snapshot, or (a compacted journal with keyed state) the
  // records on disk are that snapshot's; records found otherwise fail either way.
  const agrees =
    match?.[5] !== 'are NOT' &&
    ((match?.[4] === 'equals' && comparedOp === journalOps) ||
      (match?.[5] === 'are' && comparedOp === undefined && recordsOp === journalOps));
  return {
    stopExitCode,
    verifyExitCode: verify.exitCode,
    journalOps,
    snapshotOp,
    equal:
      stopExitCode === 0 &&
      verify.exitCode === 0 &&
      agrees &&
      journalOps !== undefined &&
      journalOps >= committedOp,
    verifyReport: match?.[0] ?? verify.output.trim().split('\n').slice(-5).join('\n'),
  };
}

function runVerify(
  build: ServiceBuild,
  dataDir: string,
): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [build.main, '--verify'], {
      // No ONCE_* setting of the calling shell reaches verify: main cleared them from process.env.
      env: {
        ...process.env,
        ...build.env,
        ONCE_DATA_DIR: dataDir,
        ONCE_LOG_FORMAT: 'text',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: VERIFY_TIMEOUT_MS,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ exitCode, output }));
  });
}
