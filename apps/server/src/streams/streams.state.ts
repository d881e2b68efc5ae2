import { ReplicatedState, type ModuleState } from '@once/framework';

export interface Stream {
  readonly id: number;
  readonly name: string;
}

interface StreamsSnapshot {
  nextId: number;
  streams: Stream[];
}

/** Named streams. Ids are never reused, so state keyed by id never outlives its stream's name. */
@ReplicatedState('streams')
export class StreamsState implements ModuleState {
  private nextId = 1;
  private readonly byName = new Map<string, Stream>();

  get(name: string): Stream | undefined {
    return this.byName.get(name);
  }

  add(name: string): Stream {
    const stream = { id: this.nextId++, name };
    this.byName.set(name, stream);
    return stream;
  }

  remove(name: string): Stream | undefined {
    const stream = this.byName.get(name);
    this.byName.delete(name);
    return stream;
  }

  /** In id order. */
  list(): Stream[] {
    return [...this.byName.values()].sort((a, b) => a.id - b.id);
  }

  toSnapshot(): StreamsSnapshot {
    return { nextId: this.nextId, streams: this.list() };
  }

  fromSnapshot(snapshot: unknown): void {
    const { nextId, streams } = snapshot as StreamsSnapshot;
    this.nextId = nextId;
    this.byName.clear();
    for (const stream of streams) this.byName.set(stream.name, { ...stream });
  }
}
