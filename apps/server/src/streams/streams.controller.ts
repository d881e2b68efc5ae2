import { Controller } from '@nestjs/common';
import { Command, CommandError, Query } from '@once/framework';
import { type Stream, StreamsState } from './streams.state';

const NAME_MAX_LENGTH = 255;

@Controller()
export class StreamsController {
  constructor(private readonly streams: StreamsState) {}

  @Command('streams.create', { sensitive: [] })
  create(data: { name?: unknown }): Stream {
    const name = requireName(data);
    if (this.streams.get(name)) throw new CommandError('STREAM_EXISTS', `stream "${name}" exists`);
    return this.streams.add(name);
  }

  @Command('streams.delete', { sensitive: [] })
  delete(data: { name?: unknown }): Record<string, never> {
    const name = requireName(data);
    if (!this.streams.remove(name))
      throw new CommandError('STREAM_NOT_FOUND', `no stream "${name}"`);
    return {};
  }

  @Query('streams.list')
  list(): Stream[] {
    return this.streams.list();
  }
}

export function requireName(data: { name?: unknown } | null | undefined): string {
  const name = data?.name;
  if (typeof name !== 'string' || name.length === 0 || name.length > NAME_MAX_LENGTH) {
    throw new CommandError(
      'INVALID_ARGUMENT',
      `name must be a string of 1 to ${NAME_MAX_LENGTH} characters`,
    );
  }
  return name;
}
