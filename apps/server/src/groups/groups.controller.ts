import { Controller } from '@nestjs/common';
import { type ApplyContext, Command, CommandError, Query } from '@once/framework';
import { type ClientId } from '@once/protocol';
import { StreamsState } from '../streams/streams.state';
import { GroupsState } from './groups.state';

interface GroupRef {
  stream?: unknown;
  group?: unknown;
}

@Controller()
export class GroupsController {
  constructor(
    private readonly groups: GroupsState,
    private readonly streams: StreamsState,
  ) {}

  /** Joins the caller's client to a group until its connection (or session) ends. */
  @Command('groups.join', { sensitive: [] })
  join(data: GroupRef, ctx: ApplyContext): { members: ClientId[] } {
    const key = this.keyOf(data);
    this.groups.join(key, ctx.client);
    return { members: this.groups.members(key) };
  }

  @Query('groups.get')
  get(data: GroupRef): { members: ClientId[] } {
    return { members: this.groups.members(this.keyOf(data)) };
  }

  private keyOf(data: GroupRef | null | undefined): string {
    const { stream, group } = data ?? {};
    if (
      typeof stream !== 'string' ||
      typeof group !== 'string' ||
      group.length === 0 ||
      group.length > 255
    ) {
      throw new CommandError(
        'INVALID_ARGUMENT',
        'takes {stream: string, group: string (1 to 255 characters)}',
      );
    }
    const found = this.streams.get(stream);
    if (!found) throw new CommandError('STREAM_NOT_FOUND', `no stream "${stream}"`);
    return GroupsState.key(found.id, group);
  }
}
