import { randomBytes } from 'node:crypto';
import { ClientTCP } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';

/** What {@link checkExactlyOnce} saw. */
export interface ExactlyOnceCheck {
  readonly keys: number;
  /** The account's balance after every key was sent twice at once. */
  readonly balanceAfterDuplicates: number;
  /** The same after every key was sent a third time. */
  readonly balanceAfterResend: number;
  /** Keys whose three replies were not all the same stored reply. */
  readonly keysWithDifferentReplies: number;
}

/**
 * Checks a durable peer's exactly-once as a NestJS client sees it, on an
 * account of its own: `keys` deposits of 1, each sent twice at once (a client
 * retrying while its first attempt is still in flight), then each sent again
 * (a client retrying after a lost reply). The balance must be `keys` after
 * both, and every key must get the same reply all three times. Throws
 * otherwise: a peer that moves a balance twice measures nothing comparable.
 */
export async function checkExactlyOnce(
  name: string,
  port: number,
  keys: number,
): Promise<ExactlyOnceCheck> {
  const client = new ClientTCP({ host: '127.0.0.1', port });
  await client.connect();
  try {
    const account = `check-${randomBytes(8).toString('hex')}`;
    const requests = Array.from({ length: keys }, (_, i) => ({
      key: `${account}-${i}`,
      account,
      amount: 1,
    }));
    const deposit = (data: (typeof requests)[number]) =>
      firstValueFrom(client.send<string>('deposit', data));
    const balance = () => firstValueFrom(client.send<number>('balance', { account }));

    const duplicated = await Promise.all(
      requests.map((data) => Promise.all([deposit(data), deposit(data)])),
    );
    const balanceAfterDuplicates = await balance();
    const resent = await Promise.all(requests.map(deposit));
    const balanceAfterResend = await balance();
    const keysWithDifferentReplies = duplicated.filter(
      ([first, second], i) => first !== second || first !== resent[i],
    ).length;
    const check = { keys, balanceAfterDuplicates, balanceAfterResend, keysWithDifferentReplies };
    if (
      balanceAfterDuplicates !== keys ||
      balanceAfterResend !== keys ||
      keysWithDifferentReplies > 0
    ) {
      throw new Error(`the ${name} peer is not exactly-once: ${JSON.stringify(check)}`);
    }
    return check;
  } finally {
    client.close();
  }
}
