import { Controller, Injectable, Module } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { Command, type ModuleState, Query, ReplicatedState } from '@once/framework';

/**
 * The same small service twice, once per transport, so that a scenario can
 * run against both and compare what a client sees:
 * - `sum` adds the numbers of the data (a request/response call), and so does
 *   `{ cmd: 'total' }`, an object pattern (no string pattern `total` exists);
 * - `notes.add` records `{ text }` (what `emit` sends; an event on TCP, a command on once);
 * - `notes.count` reads how many notes there are (a read; a @Query on once);
 * - `held.sum` adds the numbers once the test opens {@link held} (a read).
 *
 * On once the object pattern is registered under NestJS's normalised string
 * `{"cmd":"total"}`, which is what a client must send for `{ cmd: 'total' }`.
 */

const sum = (numbers: number[]): number => numbers.reduce((total, value) => total + value, 0);

/**
 * Holds the `held.sum` handlers of both services until the test releases
 * them, so that a call is in flight, known to have reached the handler, when
 * the test closes the client or the server.
 */
export class HeldCalls {
  entered = 0;
  private release: (() => void) | undefined;
  private gate = this.close();

  /** Lets the handlers that wait, and those to come, return. */
  open(): void {
    this.release?.();
  }

  /** Makes the next handlers wait again. */
  reset(): void {
    this.entered = 0;
    this.gate = this.close();
  }

  async wait(): Promise<void> {
    this.entered++;
    await this.gate;
  }

  private close(): Promise<void> {
    return new Promise((resolve) => (this.release = resolve));
  }
}

/** The gate of the `held.sum` handlers (one process, both services). */
export const held = new HeldCalls();

/** What the TCP service recorded (it keeps no state across restarts: the tests do not need it to). */
@Injectable()
export class TcpNotes {
  readonly texts: string[] = [];
}

@Controller()
class TcpContractController {
  constructor(private readonly notes: TcpNotes) {}

  @MessagePattern('sum')
  sum(numbers: number[]): number {
    return sum(numbers);
  }

  @MessagePattern({ cmd: 'total' })
  total(numbers: number[]): number {
    return sum(numbers);
  }

  @EventPattern('notes.add')
  add(note: { text: string }): void {
    this.notes.texts.push(note.text);
  }

  @MessagePattern('notes.count')
  count(): number {
    return this.notes.texts.length;
  }

  @MessagePattern('held.sum')
  async heldSum(numbers: number[]): Promise<number> {
    await held.wait();
    return sum(numbers);
  }
}

/** The service of a NestJS TCP microservice. */
@Module({ controllers: [TcpContractController], providers: [TcpNotes] })
export class TcpContractModule {}

@ReplicatedState('contract-notes')
export class OnceNotes implements ModuleState {
  readonly texts: string[] = [];
  toSnapshot(): string[] {
    return [...this.texts];
  }
  fromSnapshot(snapshot: unknown): void {
    this.texts.splice(0, this.texts.length, ...(snapshot as string[]));
  }
}

@Controller()
class OnceContractController {
  constructor(private readonly notes: OnceNotes) {}

  @Command('sum')
  sum(numbers: number[]): number {
    return sum(numbers);
  }

  @Command('{"cmd":"total"}')
  total(numbers: number[]): number {
    return sum(numbers);
  }

  @Command('notes.add')
  add(note: { text: string }): null {
    this.notes.texts.push(note.text);
    return null;
  }

  @Query('notes.count')
  count(): number {
    return this.notes.texts.length;
  }

  @Query('held.sum')
  async heldSum(numbers: number[]): Promise<number> {
    await held.wait();
    return sum(numbers);
  }
}

/** The service of a once node (imported beside `OnceModule.forRoot`). */
@Module({ controllers: [OnceContractController], providers: [OnceNotes] })
export class OnceContractModule {}
