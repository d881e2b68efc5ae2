import {
  type ClientEntry,
  ClientTable,
  type ClientTableHeader,
  decodeEntryRecord,
  encodeEntryRecord,
} from '@once/client-table/internal';
import { TableSnapshotInvalidError } from '@once/client-table';
import { type KeyedStore } from './keyed';

/**
 * The keyed map that holds the client table's sessions, one record per
 * session under its client id. Not a state's map (those are `state/map`):
 * the engine writes it, no handler can.
 */
export const SESSIONS_MAP = 'once:sessions';

/**
 * The client table kept as keyed records, one per session, when the code
 * has keyed state ({@link KeyedStore.hasKeyedStates}).
 *
 * Why: a snapshot that held the whole table cost its capture in proportion
 * to the sessions (about 0.7 s for a million idle ones), on the main
 * thread, at every snapshot. As records, a checkpoint writes only the
 * sessions changed since the previous one, with the keyed records and in
 * the same batch; the snapshot keeps the table's header. The table itself
 * stays whole in memory (the gateway checks every request against it and
 * evicts in its order); a boot reads the records back once.
 *
 * Determinism: what is written at an op depends only on the table at that
 * op (a record is the session's encoding, rewritten when it changed), so a
 * replay that captures at the same op writes the same records and gets the
 * same digest, whatever the checkpoints in between.
 */
export class SessionRecords {
  /**
   * Whether the records (written and staged) describe the table but for the
   * sessions it noted as changed. False after a restore from a snapshot
   * that held the table whole: the next flush writes every session.
   */
  private current = false;

  constructor(private readonly keyed: KeyedStore) {}

  /**
   * The table starts over (genesis, or restored whole from a snapshot, with
   * `fromRecords` false; or rebuilt from the records, with it true): its
   * changes are noted from now on when the records will hold it.
   */
  adopt(table: ClientTable, fromRecords: boolean): void {
    this.current = fromRecords || (table.size === 0 && this.keyed.hasKeyedStates);
    if (this.current) table.trackChanges();
  }

  /**
   * Writes the sessions changed since the last flush into the keyed store
   * (all of them the first time) and returns the table's header, which the
   * snapshot keeps; undefined when the code has no keyed state, and the
   * snapshot keeps the table whole, as before keyed state.
   */
  flush(table: ClientTable): ClientTableHeader | undefined {
    if (!this.keyed.hasKeyedStates) return undefined;
    if (!this.current) {
      table.trackChanges();
      table.takeChanges();
      // The records hold no session yet (genesis, or a snapshot that held the table whole).
      for (const entry of table.entries()) {
        this.keyed.setJson(SESSIONS_MAP, entry.client, recordJson(entry), true);
      }
      this.current = true;
    } else {
      for (const [client, existed] of table.takeChanges()) {
        const entry = table.get(client);
        if (entry === undefined && !existed) continue;
        this.keyed.setJson(
          SESSIONS_MAP,
          client,
          entry === undefined ? undefined : recordJson(entry),
          !existed,
        );
      }
    }
    return table.header();
  }

  /**
   * The sessions on disk (the records' head generation), for a restore of a
   * snapshot that keeps them as records: read before the restore, which is
   * synchronous.
   */
  async read(): Promise<SessionRecordSet> {
    const rows: Array<readonly [string, string]> = [];
    for await (const row of this.keyed.recordsOnDisk(SESSIONS_MAP)) rows.push(row);
    return { rows };
  }
}

/** A session's record as the keyed store keeps it: its JSON text. */
function recordJson(entry: ClientEntry): string {
  return JSON.stringify(encodeEntryRecord(entry));
}

/** The session records read from disk for a restore (see {@link SessionRecords.read}). */
export interface SessionRecordSet {
  readonly rows: ReadonlyArray<readonly [client: string, json: string]>;
}

/** The client table `header` and the session records describe; bad records: TABLE_SNAPSHOT_INVALID. */
export function tableFromRecords(
  header: ClientTableHeader,
  records: SessionRecordSet,
): ClientTable {
  const entries = records.rows.map(([client, json]) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new TableSnapshotInvalidError(`the session record of client ${client} is not JSON`);
    }
    return decodeEntryRecord(client, parsed);
  });
  return ClientTable.fromEntries(header, entries);
}
