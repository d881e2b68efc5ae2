import { CommandRefusedError, OnceClient, OnceError, type OnceClientOptions } from '@once/sdk';
import { DUPLICATE_REFERENCE, INSUFFICIENT_FUNDS, type Transfer } from './transfer-record';

/**
 * Whether the ledger holds a transfer's reference, i.e. applied it:
 * `inconclusive` (with the answer that made it so) fails the run, since a
 * reference whose fate is unknown proves nothing either way.
 */
export type ProbeAnswer = 'applied' | 'not-applied' | `inconclusive: ${string}`;

/**
 * The amount of every probe: more than all the money of the run, so a probe
 * can never be applied. `ledger.transfer` checks the reference before the
 * funds, so a probe is refused DUPLICATE_REFERENCE exactly when the reference
 * was applied, and INSUFFICIENT_FUNDS otherwise, and it changes no balance:
 * the final state stays the one the load left, for the reconciliation and
 * the replay check. (Were the checks ever reordered, applied references would
 * answer INSUFFICIENT_FUNDS and show up as lost: loud, never hidden.)
 */
const PROBE_AMOUNT = Number.MAX_SAFE_INTEGER;
/** Attempts per probe. A probe changes nothing, so a failed attempt is simply made again. */
const PROBE_ATTEMPTS = 5;

/**
 * Asks the node, for every transfer, whether its reference was applied, by a
 * probe transfer under the same reference through fresh clients (their own
 * sessions), `clients` × `depth` probes in flight.
 */
export async function probeReferences(
  options: OnceClientOptions,
  transfers: readonly Transfer[],
  clients: number,
  depth: number,
): Promise<Map<string, ProbeAnswer>> {
  const answers = new Map<string, ProbeAnswer>();
  const probers = await Promise.all(
    Array.from({ length: clients }, () => OnceClient.connect({ ...options, inFlightMax: depth })),
  );
  let next = 0;
  const lane = async (client: OnceClient) => {
    while (next < transfers.length) {
      const transfer = transfers[next++];
      answers.set(transfer.reference, await probe(client, transfer));
    }
  };
  try {
    await Promise.all(
      probers.flatMap((client) => Array.from({ length: depth }, () => lane(client))),
    );
  } finally {
    await Promise.all(probers.map((client) => client.close()));
  }
  return answers;
}

async function probe(client: OnceClient, transfer: Transfer): Promise<ProbeAnswer> {
  const { reference, from, to } = transfer;
  let last = '';
  for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
    try {
      await client.command('ledger.transfer', { from, to, amount: PROBE_AMOUNT, reference });
      return 'inconclusive: PROBE_APPLIED';
    } catch (error) {
      if (error instanceof CommandRefusedError) {
        if (error.code === DUPLICATE_REFERENCE) return 'applied';
        if (error.code === INSUFFICIENT_FUNDS) return 'not-applied';
        return `inconclusive: ${error.code}`;
      }
      last = error instanceof OnceError ? error.code : String(error);
    }
  }
  return `inconclusive: ${last}`;
}
