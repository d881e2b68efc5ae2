import { Controller, Module } from '@nestjs/common';
import {
  type ApplyContext,
  Command,
  CommandError,
  type ModuleState,
  Query,
  ReplicatedState,
} from '@once/framework';

/** One note of the audit trail, with the op and the user that recorded it. */
export interface AuditNote {
  readonly op: number;
  readonly userId: number;
  readonly note: string;
}

/** Reply of `audit.notes`. */
export interface AuditNotes {
  readonly notes: readonly AuditNote[];
}

/**
 * The state of a module the team adds to the inventory service in a later
 * release (and may remove again): `@ReplicatedState('audit')`. A snapshot
 * written before the module existed does not hold it, so it starts empty.
 */
@ReplicatedState('audit')
export class AuditState implements ModuleState {
  readonly notes: AuditNote[] = [];

  toSnapshot(): AuditNotes {
    return { notes: this.notes };
  }

  fromSnapshot(snapshot: unknown): void {
    this.notes.splice(0, this.notes.length, ...(snapshot as AuditNotes).notes);
  }
}

/** `audit.record` keeps a note; `audit.notes` reads them all. */
@Controller()
export class AuditController {
  constructor(private readonly audit: AuditState) {}

  @Command('audit.record')
  record(data: unknown, ctx: ApplyContext): AuditNote {
    const note = (data as { note?: unknown } | null)?.note;
    if (typeof note !== 'string' || note.length === 0 || note.length > 200) {
      throw new CommandError('INVALID_ARGUMENT', 'note is a string of 1 to 200 characters');
    }
    const recorded = { op: ctx.op, userId: ctx.userId, note };
    this.audit.notes.push(recorded);
    return recorded;
  }

  @Query('audit.notes')
  list(): AuditNotes {
    return { notes: this.audit.notes };
  }
}

/** The audit module: imported next to the inventory, it is a new state of the service. */
@Module({ controllers: [AuditController], providers: [AuditState] })
export class AuditModule {}
