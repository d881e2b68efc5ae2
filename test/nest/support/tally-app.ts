import { Controller, type DynamicModule, Module } from '@nestjs/common';
import {
  type ApplyContext,
  Command,
  type ModuleState,
  ONCE_AUTHENTICATOR,
  OnceModule,
  Query,
  ReplicatedState,
} from '@once/framework';
import { StaticAuthenticator } from '@once/testing';

/** A count that commands add to: the state of the specs that start a team app module. */
@ReplicatedState('tally')
class TallyState implements ModuleState {
  count = 0;
  toSnapshot(): number {
    return this.count;
  }
  fromSnapshot(snapshot: unknown): void {
    this.count = snapshot as number;
  }
}

@Controller()
class TallyController {
  constructor(private readonly tally: TallyState) {}

  @Command('tally.add')
  add(data: { by: number }, ctx: ApplyContext): { count: number; op: number } {
    this.tally.count += data.by;
    return { count: this.tally.count, op: ctx.op };
  }

  @Query('tally.count')
  count(): number {
    return this.tally.count;
  }
}

/** A team app module: OnceModule on `dataDir`, the tally, and the user alice (password `pw`). */
@Module({})
export class TallyAppModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: TallyAppModule,
      imports: [OnceModule.forRoot({ dataDir })],
      controllers: [TallyController],
      providers: [
        TallyState,
        { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator({ alice: 'pw' }) },
      ],
    };
  }
}
